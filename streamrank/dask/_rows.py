"""One input partition's rows in the roles of the range-partitioned count: the partition
key ``X`` (columns), the second key ``Z``, the pair weights ``a`` / ``r`` and the row ids.

Pairs (`pair_counts`): ``X = (score,)``, ``Z = label``, ``a = r = w``. Censored pairs
(`concordance_index`): ``X = (time, censored)``, ``Z = score``, ``a = e w``, ``r = w``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._spec import _Spec

_ROW_BITS = 40         # row id = (partition << 40) | row


@dataclass
class _Rows:
    """One partition's rows in the engine's roles: partition key ``X`` (columns), second
    key ``Z``, pair weights ``a`` (earlier element) and ``r`` (later element), ``w``."""

    xcols: list
    z: np.ndarray
    a: np.ndarray | None
    r: np.ndarray | None
    w: np.ndarray | None
    e: np.ndarray | None = None
    rid: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.z.size)

    def take(self, idx) -> "_Rows":
        def t(x):
            return None if x is None else x[idx]
        return _Rows([c[idx] for c in self.xcols], self.z[idx], t(self.a),
                     None if self.r is None else (t(self.a) if self.r is self.a else t(self.r)),
                     t(self.w), t(self.e), t(self.rid))


def _concat_rows(pieces: list) -> _Rows | None:
    pieces = [p for p in pieces if p is not None and p.size]
    if not pieces:
        return None
    if len(pieces) == 1:
        return pieces[0]

    def cat(name):
        vals = [getattr(p, name) for p in pieces]
        return None if vals[0] is None else np.concatenate(vals)

    a = cat("a")
    same = pieces[0].r is pieces[0].a
    return _Rows([np.concatenate([p.xcols[k] for p in pieces]) for k in range(len(pieces[0].xcols))],
                 cat("z"), a, a if same else cat("r"), cat("w"), cat("e"), cat("rid"))


class _RowIds:
    """The row ids ``(pid << 40) | row`` of one partition's kept rows, made on demand: the
    split reads them only for rows that tie a boundary on every other key column."""

    def __init__(self, pid: int, n_rows: int, kept: np.ndarray | None = None):
        self.base, self.kept = np.int64(pid) << _ROW_BITS, kept
        self.size = n_rows if kept is None else int(kept.size)

    def __getitem__(self, idx) -> np.ndarray:
        rows = np.arange(self.size, dtype=np.int64)[idx] if self.kept is None else self.kept[idx]
        return self.base + rows.astype(np.int64)

    def materialize(self) -> np.ndarray:
        return self[slice(None)]


def _to_rows(cols: dict, spec: _Spec, pid: int) -> tuple[_Rows, int]:
    """Engine roles of one partition; rows of weight 0 are dropped (they count for nothing)."""
    n_rows = int(cols["s"].size)
    w = cols.get("w")
    rid = _RowIds(pid, n_rows)
    if w is not None:
        keep = w > 0
        if not keep.all():
            cols = {k: (None if v is None else v[keep]) for k, v in cols.items()}
            w, rid = cols["w"], _RowIds(pid, n_rows, np.flatnonzero(keep))
    if spec.kind == "pairs":
        return _Rows([cols["s"]], cols["y"], w, w, w, None, rid), n_rows
    e = cols["e"] if cols["e"] is not None else np.ones(cols["s"].size, bool)
    cens = (~e).astype(np.uint8)
    a = e.astype(np.int64) if w is None else w * e
    return _Rows([cols["t"], cens], cols["s"], a, w, w, e, rid), n_rows

