"""Exact pair counts, AUC, Kendall's tau, C-index, GAUC, NDCG, MAP on Dask (``streamrank[dask]``).

The functions here take ``dask.dataframe`` or ``dask.array`` inputs (also Parquet/CSV
files through `evaluate_file`) and return exactly what the numpy functions of streamrank
return on the same data: the same `PairCounts` (equal Python ints with unit weights), the
same AUC, tau and C-index floats. Nothing is binned or approximated, and no machine ever
holds more than one range of the data.

Method
------
Exact rank metrics do not need a global sort; one range-partitioned shuffle and a few
exact cross terms per pair of ranges suffice.

1. **Scan** (one task per input partition): validate, count the rows, find the label
   levels (up to ``MAX_HIST_LEVELS``) and draw a random sample of the composite keys.
2. **Boundaries** (client): the weighted quantiles of the sampled keys cut the key space
   into ``B`` ranges ("buckets"). The key is composite, ``(score, label, row id)``, with
   the row id ``(partition << 40) | row``: every row has a distinct key, so a single score
   value held by half of the rows still spreads over several buckets, and a bucket never
   overlaps the next one. Two rows with equal scores *can* sit in different buckets.
3. **Shuffle** (one task per input partition, then one per bucket): each partition splits
   its rows by bucket (a radix sort of the bucket ids); each bucket gathers its pieces and
   counts its own pairs with the numpy core (`streamrank.batch._kernels.count_pairs`), exactly.
4. **Cross terms** (client, Python ints): a pair across buckets ``q < p`` always has
   ``s_q <= s_p``. It is tied in score exactly when a score run spans the boundary, and it
   is never discordant then (inside a run the key orders the labels ascending). So::

       Ts_x  = pairs of equal score across buckets      (run walk over score runs)
       Tyy_x = pairs of equal (score, label) across      (run walk over (score, label) runs)
       D_x   = pairs q < p with y_q > y_p                 (label inversions across buckets)
       Ty_x  = pairs q < p with y_q == y_p
       T_x   = Ts_x - Tyy_x,   C_x = W_x - D_x - Ty_x - T_x,   W_x = sum_{q<p} W_q W_p

   A *run walk* needs from every bucket only its first and last key and the weight of the
   rows that carry them (a run that spans buckets is the last run of one bucket, whole
   buckets, and the first run of another). ``D_x`` and ``Ty_x`` come, for few label levels,
   from the buckets' label histograms (``O(B L)``); for continuous labels from a *second*
   range-partitioned shuffle by ``(label, bucket, row id)``: inside each label range the
   pairs ``b_i < b_j, y_i > y_j`` are a merge-sort inversion count, across label ranges they
   follow from per-range histograms of the bucket ids, and equal labels across ranges are
   again a run walk.

   The censored C-index is the same computation with the exit order ``(time, censored)``
   in the role of the score, the score in the role of the label, and an asymmetric pair
   weight (only an observed event may be the earlier element of a comparable pair).
5. **Group metrics** (GAUC, NDCG, MAP): rows are shuffled by a hash of the group (query)
   id, every group lands whole in one bucket, and the per-group values of the numpy
   functions (`streamrank.group_auc_score`, `streamrank.ranking`) are concatenated and
   averaged on the client in group order (so the float result is the numpy one).

Exactness at scale: every bucket's counts are Python ints from the numpy core (which
sums int64 partial counts only while they cannot overflow); the cross terms and totals
are Python ints computed on the client, never summed by the engine (Dask and numpy sums
wrap silently past 2**63). With sample weights the counts are float64 sums, as in numpy.

Memory: a bucket holds about ``n / B`` rows (``rows_per_partition``, default 4M, ~40
bytes per row while counting); the shuffled pieces are ordinary task results, which a
``distributed`` worker spills to disk past its memory limit. Cost: one extra read of the
input (the scan), one shuffle (two for continuous labels or scores), ``O(n log n)`` work in
total, and ``O(B L)`` or ``O(B^2)`` Python-int work on the client.

Examples
--------
>>> import dask.array as da, numpy as np
>>> from streamrank import pair_counts as np_pair_counts
>>> from streamrank.dask import pair_counts, roc_auc_score
>>> y = da.from_array(np.array([0, 0, 1, 1, 0, 1]), chunks=2)
>>> s = da.from_array(np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.4]), chunks=2)
>>> pc = pair_counts(y, s, npartitions=3, scheduler="sync")
>>> pc == np_pair_counts(y.compute(), s.compute())
True
>>> roc_auc_score(y, s, scheduler="sync")
0.666666...
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "streamrank.dask needs the optional dependencies dask[dataframe] (and distributed "
        "for clusters): pip install 'streamrank[dask]'"
    ) from exc

from ..batch._kernels import count_inversions, count_pairs, dense_ranks, encode_labels
from .._validation import as_1d_numeric, describe, param_error
from ..batch.auc import GroupAUCResult, group_auc_score as _np_group_auc_score
from ..counts import PairCounts
from ..exceptions import UndefinedMetricWarning
from ..batch.survival import _pairs_before, censored_c_index, censored_counts

__all__ = [
    "MAX_HIST_LEVELS",
    "average_precision_score",
    "concordance_index",
    "evaluate_file",
    "group_auc_score",
    "kendall_tau",
    "ndcg_score",
    "pair_counts",
    "roc_auc_score",
]

#: Labels (C-index: scores) with at most this many distinct values take the histogram path
#: for the cross-bucket terms (``O(B L)`` on the client); more take the second shuffle.
MAX_HIST_LEVELS = 64

#: Default rows per bucket: the numpy core needs ~40 bytes per row while counting, so a
#: bucket of 4M rows peaks near 160 MB.
ROWS_PER_PARTITION = 1 << 22

_SAMPLE_ROWS = 20_000  # keys sampled in total, spread over the input partitions
_ROW_BITS = 40         # row id = (partition << 40) | row


# ============================================================================ inputs
@dataclass
class _Spec:
    """What to read from each input partition and how to treat it."""

    func: str
    kind: str                      # "pairs" or "censored"
    names: dict                    # role -> column name (frames) or parameter name (arrays)
    frame: bool
    pos_label: object = None       # roc_auc_score: labels become y == pos_label
    binary: bool = False           # roc_auc_score: more than two labels is an error
    seed: int = 0


def _extract(part, spec: _Spec, pid: int | None = None) -> dict:
    """Validated numpy columns of one input partition (roles: y, s, w; or t, s, e, w).
    An invalid value raises the numpy functions' message, naming the partition (indices
    in the message count from the start of that partition)."""
    try:
        return _extract_columns(part, spec)
    except (ValueError, TypeError) as exc:
        if pid is None:
            raise
        raise type(exc)(f"{exc} (input partition {pid})") from None


def _extract_columns(part, spec: _Spec) -> dict:
    out = {}
    for role, name in spec.names.items():
        if role == "g":  # group ids: any sortable values, read by _group_split
            continue
        if name is None:
            out[role] = None
            continue
        raw = part[name].to_numpy() if spec.frame else part[role]
        label = name
        arr = as_1d_numeric(raw, label, spec.func, allow_empty=True)
        if role == "w":
            arr = arr.astype(np.float64, copy=False)
            neg = arr < 0
            if neg.any():
                raise param_error(label, spec.func, "non-negative", f"{arr[neg][0]!r}")
        if role == "e" and arr.dtype != bool:
            if not ((arr == 0) | (arr == 1)).all():
                raise param_error(label, spec.func, "0/1 or booleans",
                                  f"values such as {describe(np.unique(arr)[:5].tolist())}")
            arr = arr == 1
        out[role] = arr
    if spec.pos_label is not None:
        out["y"] = out["y"] == spec.pos_label
    return out


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


# ============================================================================ scan
@dataclass
class _ScanResult:
    n_rows: int
    n_kept: int
    levels: np.ndarray | None       # distinct Z values if few, else None
    sample: list                    # key columns (X..., Z, rid) of the sampled rows
    sample_weight: float            # rows represented by each sampled row


def _scan(part, pid: int, spec: _Spec, k: int) -> _ScanResult:
    rows, n_rows = _to_rows(_extract(part, spec, pid), spec, pid)
    n = rows.size
    levels = None
    if n:
        enc = encode_labels(rows.z, MAX_HIST_LEVELS)
        if enc is not None:
            levels = np.asarray(enc[1])
    else:
        levels = np.zeros(0, dtype=rows.z.dtype)
    rng = np.random.default_rng([spec.seed, pid])
    take = min(n, k)
    idx = np.sort(rng.choice(n, size=take, replace=False)) if take < n else np.arange(n)
    sample = [c[idx] for c in rows.xcols] + [rows.z[idx], rows.rid[idx]]
    return _ScanResult(n_rows, n, levels, sample, n / take if take else 0.0)


# ============================================================================ keys
def _lex_order(cols: list) -> np.ndarray:
    return np.lexsort(tuple(reversed(cols)))


def _lex_bucket(bounds: list, cols: list) -> np.ndarray:
    """For each row, the number of boundary keys ``<=`` its key (lexicographic over the
    columns); ``bounds`` are lexicographically sorted boundary columns.

    Boundaries that share a leading value are contiguous and sorted by the next column, so
    rows whose leading value hits a boundary are refined on the next column against that
    block only: vectorized, one pass per distinct hit block and column.
    """
    n = cols[0].size
    out = np.zeros(n, dtype=np.int64)
    if bounds[0].size == 0 or n == 0:
        return out
    last = len(cols) - 1
    stack = [(None, 0, bounds[0].size, 0)]  # (rows or None for all, block lo, hi, column)
    while stack:
        idx, lo0, hi0, depth = stack.pop()
        b = bounds[depth][lo0:hi0]
        c = cols[depth] if idx is None else cols[depth][idx]
        hi = _search_right(b, c)
        if lo0:
            hi += lo0
        if depth < last:
            # A row ties a boundary value only if the boundary just below it is equal;
            # those rows are refined on the next column against the block of equal values.
            below = hi - 1 - lo0
            hit = np.flatnonzero(b[np.maximum(below, 0)] == c)
            hit = hit[below[hit] >= 0]
        else:
            hit = None
        if idx is None:
            out = hi
        else:
            out[idx] = hi
        if hit is None or hit.size == 0:
            continue
        lo = np.searchsorted(b, c[hit], side="left") + lo0
        rows = hit if idx is None else idx[hit]
        hi_h = hi[hit]  # before out (which may be hi itself) is overwritten
        out[rows] = lo  # provisional: the refinement adds the boundaries below the row
        for v in np.unique(lo):
            m = lo == v
            stack.append((rows[m], int(v), int(hi_h[m][0]), depth + 1))
    return out


def _search_right(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``np.searchsorted(b, c, side="right")``; for a few boundaries, one vectorized
    comparison per boundary is several times faster than a binary search per row."""
    if b.size > 24:
        return np.searchsorted(b, c, side="right")
    out = np.zeros(c.size, dtype=np.int64)
    for v in b:
        out += c >= v
    return out


def _quantile_bounds(cols: list, weights: np.ndarray, nb: int) -> list:
    """``nb - 1`` boundary keys at the weighted quantiles of the sampled keys."""
    if nb <= 1 or cols[0].size == 0:
        return [c[:0] for c in cols]
    order = _lex_order(cols)
    cum = np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, nb) / nb
    pick = np.unique(np.minimum(np.searchsorted(cum, targets, side="left"), cum.size - 1))
    return [c[order][pick] for c in cols]


# ============================================================================ summaries
@dataclass
class _Ends:
    """First and last key of a bucket and the weights (a, r) of the rows carrying them."""

    first: tuple
    first_a: object
    first_r: object
    last: tuple
    last_a: object
    last_r: object

    @property
    def single(self) -> bool:
        return self.first == self.last


def _wsum(x, m):
    if x is None:
        return int(np.count_nonzero(m))
    v = x[m].sum()
    return int(v) if x.dtype.kind in "iub" else float(v)


def _extreme_rows(cols: list, fn) -> tuple[tuple, np.ndarray]:
    """The lexicographic min (``fn=np.min``) or max key and the mask of its rows."""
    m = np.ones(cols[0].size, dtype=bool)
    key = []
    for c in cols:
        v = fn(c[m])
        key.append(v.item())
        m &= c == v
    return tuple(key), m


def _ends(cols: list, a, r) -> _Ends:
    k1, m1 = _extreme_rows(cols, np.min)
    k2, m2 = _extreme_rows(cols, np.max)
    return _Ends(k1, _wsum(a, m1), _wsum(r, m1), k2, _wsum(a, m2), _wsum(r, m2))


def _run_walk(ends: list) -> tuple[object, int]:
    """``sum a_i r_j`` over pairs of equal key in different buckets ``q < p`` (``i`` in
    ``q``), and the number of bucket boundaries a run crosses (for distinct counts).

    A run of equal keys that spans buckets is the last run of bucket ``q``, zero or more
    single-key buckets, and the first run of bucket ``p``: keep the earlier buckets' weight
    ``acc`` of the open run; a bucket whose first key continues it pairs with all of it.
    """
    total, joins = 0, 0
    open_key, acc = None, 0
    for e in ends:
        if e is None:
            continue
        if open_key is not None and e.first == open_key:
            total += acc * e.first_r
            joins += 1
            if e.single:
                acc += e.first_a
                continue
        open_key, acc = e.last, e.last_a
    return total, joins


@dataclass
class _XSummary:
    """One bucket of the range partition by ``(X, Z, row id)``."""

    counts: tuple                 # within-bucket counts (see _count_within)
    n_x_levels: int               # distinct X in the bucket (pairs: distinct scores)
    a_sum: object
    r_sum: object
    x_ends: _Ends
    xz_ends: _Ends
    hist_a: list | None = None    # per Z level, Python numbers (histogram path)
    hist_r: list | None = None


@dataclass
class _ZSummary:
    """One range of the second shuffle by ``(Z, bucket, row id)`` (continuous Z)."""

    inv: object                   # pairs b_i < b_j, z_i > z_j inside the range
    eq: object                    # pairs b_i < b_j, z_i == z_j inside the range
    n_z_levels: int
    hist_a: list
    hist_r: list
    z_ends: _Ends
    zb_ends: _Ends


def _py(values: np.ndarray, exact: bool) -> list:
    if exact:
        return np.rint(values).astype(np.int64).tolist() if values.dtype.kind == "f" \
            else values.astype(np.int64).tolist()
    return values.astype(np.float64).tolist()


def _hist(codes, weights, size, exact):
    h = np.bincount(codes, weights=weights, minlength=size)
    return _py(h, exact)


# ============================================================================ plan
@dataclass
class _Plan:
    spec: _Spec
    x_bounds: list
    nb: int
    levels: np.ndarray | None = None
    z_bounds: list | None = None
    nz: int = 0
    exact: bool = True
    extra: dict = field(default_factory=dict)


def _split(part, pid: int, plan: _Plan) -> tuple:
    """Stage 3a: one input partition's rows split by bucket of ``(X, Z, row id)``. The row
    ids travel on only when the second shuffle needs them (continuous Z)."""
    rows, _ = _to_rows(_extract(part, plan.spec, pid), plan.spec, pid)
    keycols = rows.xcols + [rows.z, rows.rid]
    # The row ids travel on only for the second shuffle (continuous Z).
    rows.rid = None if plan.levels is not None else rows.rid.materialize()
    return _split_rows(rows, plan.x_bounds, keycols, plan.nb)


def _split_rows(rows: _Rows, bounds, keycols, nb) -> tuple:
    """``rows`` cut into ``nb`` pieces (``None`` when empty) by the bucket of their keys."""
    if nb == 1:
        return (rows,)
    b = _lex_bucket(bounds, keycols)
    dtype = np.int16 if nb < 2**15 else np.int32
    order = np.argsort(b.astype(dtype), kind="stable")  # a radix sort of small ints
    cuts = np.cumsum(np.bincount(b, minlength=nb))[:-1]
    return tuple(rows.take(p) if p.size else None for p in np.split(order, cuts))


def _count_within(rows: _Rows, kind: str):
    """Exact counts of the pairs inside one bucket, by the numpy core."""
    if kind == "pairs":
        pc = count_pairs(rows.z, rows.xcols[0], rows.w)
        return (pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both), \
            pc.n_score_levels
    t, s = rows.xcols[0], rows.z
    return censored_counts(t, s, rows.e, rows.w), 0  # distinct exits: not needed


def _x_bucket(pieces: list, b: int, plan: _Plan) -> tuple:
    """Stage 3b: one bucket's exact counts and summary, and (continuous Z) its rows split
    by ``(Z, b, row id)`` for the second shuffle."""
    rows = _concat_rows(pieces)
    if rows is None:
        return (None,) + (None,) * plan.nz
    counts, n_x = _count_within(rows, plan.spec.kind)
    exact = plan.exact
    a_sum = _wsum(rows.a, slice(None)) if rows.a is not None else rows.size
    r_sum = _wsum(rows.r, slice(None)) if rows.r is not None else rows.size
    summary = _XSummary(counts, n_x, a_sum, r_sum, _ends(rows.xcols, rows.a, rows.r),
                        _ends(rows.xcols + [rows.z], rows.a, rows.r))
    if plan.levels is not None:
        codes = np.searchsorted(plan.levels, rows.z)
        L = plan.levels.size
        summary.hist_a = _hist(codes, rows.a, L, exact)
        summary.hist_r = summary.hist_a if rows.r is rows.a else _hist(codes, rows.r, L, exact)
        return (summary,)
    bcol = np.full(rows.size, b, dtype=np.int64)
    zrows = _Rows([bcol], rows.z, rows.a, rows.r, None, None, rows.rid)
    if plan.nz == 1:
        return (summary, zrows)
    return (summary,) + _split_rows(zrows, plan.z_bounds, [rows.z, bcol, rows.rid], plan.nz)


def _z_bucket(pieces: list, plan: _Plan) -> _ZSummary | None:
    """Stage 3c (continuous Z): pairs of different buckets ``b_i < b_j`` inside one Z range,
    inverted (``z_i > z_j``) or tied in Z, weighted ``a_i r_j``."""
    rows = _concat_rows(pieces)
    if rows is None:
        return None
    b, z = rows.xcols[0], rows.z
    zr, n_z = dense_ranks(z)
    bbits = max(1, int(plan.nb - 1).bit_length())
    a, r = rows.a, rows.r
    # Strict inversions of z in (b, z) order: pairs b_i < b_j with z_i > z_j (equal b are
    # sorted by z, so they never invert).
    o1 = np.lexsort((zr, b))
    if a is None and r is None:
        inv = count_inversions(zr[o1])
    else:
        inv = count_inversions(zr[o1], None if a is None else a[o1],
                               None if r is None else r[o1])
    # Equal z, smaller b: keys (z rank, b) sorted, left weight of the smaller b in the run.
    key = (zr << bbits) | b
    o2 = np.argsort(key, kind="stable")
    ones = np.ones(rows.size, dtype=np.int64)
    la = ones if a is None else a[o2]
    ra = ones if r is None else r[o2]
    eq = _pairs_before(key[o2], bbits, la, ra)
    exact = plan.exact
    ha = _hist(b, a, plan.nb, exact)
    hr = ha if r is a else _hist(b, r, plan.nb, exact)
    return _ZSummary(inv, eq, n_z, ha, hr, _ends([z], a, r), _ends([z, b], a, r))


# ============================================================================ combine
def _zeros(n, exact):
    return np.array([0] * n, dtype=object) if exact else np.zeros(n)


def _cross_hist(hist_a: list, hist_r: list, exact: bool):
    """``(inv, eq)`` over ordered pairs of buckets ``q < p`` from their histograms over the
    levels of Z: ``inv = sum a_i r_j [z_i > z_j]``, ``eq = sum a_i r_j [z_i == z_j]`` with
    ``i`` in ``q``, ``j`` in ``p``. Python ints when exact. ``O(B L)``."""
    inv = eq = 0 if exact else 0.0
    acc = None
    for ha, hr in zip(hist_a, hist_r):
        if ha is None:
            continue
        va = np.array(ha, dtype=object if exact else np.float64)
        vr = np.array(hr, dtype=object if exact else np.float64)
        if acc is None:
            acc = _zeros(va.size, exact)
        # Earlier weight with a strictly higher level than each level z.
        above = np.concatenate((np.cumsum(acc[::-1])[::-1][1:], _zeros(1, exact)))
        inv += (vr * above).sum()
        eq += (vr * acc).sum()
        acc = acc + va
    return inv, eq


def _cross_between_ranges(ranges: list, nb: int, exact: bool):
    """Pairs ``b_i < b_j`` with ``z_i > z_j`` whose rows lie in different Z ranges
    ``c(j) < c(i)``: ``sum_{c<c'} sum_{b<b'} A[c'][b] R[c][b']``. Equal z across ranges
    always have ``b_i >= b_j`` (the key orders b inside a z run), so none is counted."""
    inv = 0 if exact else 0.0
    acc = _zeros(nb, exact)
    for zs in ranges:
        if zs is None:
            continue
        va = np.array(zs.hist_a, dtype=object if exact else np.float64)
        vr = np.array(zs.hist_r, dtype=object if exact else np.float64)
        above = np.concatenate((np.cumsum(acc[::-1])[::-1][1:], _zeros(1, exact)))
        inv += (va * above).sum()
        acc = acc + vr
    return inv


def _pairs_between(sums_a: list, sums_r: list):
    """``sum_{q<p} A_q R_p`` (Python ints when the sums are)."""
    total, acc = 0, 0
    for sa, sr in zip(sums_a, sums_r):
        total += acc * sr
        acc += sa
    return total


def _combine(xs: list, zs: list | None, plan: _Plan) -> dict:
    """Every exact total from the bucket summaries (client side, Python ints)."""
    exact = plan.exact
    live = [x for x in xs if x is not None]
    within = [sum(x.counts[k] for x in live) for k in range(len(live[0].counts))] if live else None
    total_x = _pairs_between([x.a_sum for x in live], [x.r_sum for x in live])
    run_x, joins_x = _run_walk([x.x_ends for x in live])
    run_xz, _ = _run_walk([x.xz_ends for x in live])
    if plan.levels is not None:
        inv, eq = _cross_hist([x.hist_a for x in live], [x.hist_r for x in live], exact)
        tot_a = [0] * plan.levels.size
        for x in live:
            tot_a = [u + v for u, v in zip(tot_a, x.hist_a)]
        n_z = sum(1 for v in tot_a if v > 0)
    else:
        zl = [z for z in zs if z is not None]
        inv = sum(z.inv for z in zl) + _cross_between_ranges(zl, plan.nb, exact)
        run_z, joins_z = _run_walk([z.z_ends for z in zl])
        run_zb, _ = _run_walk([z.zb_ends for z in zl])
        eq = sum(z.eq for z in zl) + run_z - run_zb
        n_z = sum(z.n_z_levels for z in zl) - joins_z
    n_x = sum(x.n_x_levels for x in live) - joins_x
    return dict(within=within, total_x=total_x, run_x=run_x, run_xz=run_xz, inv=inv, eq=eq,
                n_x=n_x, n_z=n_z, a_sum=sum(x.a_sum for x in live),
                r_sum=sum(x.r_sum for x in live))


# ============================================================================ driver
def _is_frame(x) -> bool:
    return isinstance(x, dd.DataFrame)


def _parts(data, arrays: dict, spec: _Spec) -> list:
    """Delayed input partitions: pandas frames, or dicts of aligned numpy chunks."""
    if spec.frame:
        cols = [c for c in dict.fromkeys(spec.names.values()) if c is not None]
        missing = [c for c in cols if c not in data.columns]
        if missing:
            raise param_error("data", spec.func, f"a dask DataFrame with the columns {cols}",
                              f"no column {missing[0]!r} (columns: {list(data.columns)[:10]})",
                              KeyError)
        # Project only when needed: a pandas column selection copies the partition.
        if set(cols) != set(data.columns):
            data = data[cols]
        return list(data.to_delayed())
    roles = {k: v for k, v in arrays.items() if v is not None}
    first_role, first = next(iter(roles.items()))
    for role, arr in roles.items():
        if not isinstance(arr, da.Array):
            arr = da.from_array(np.asarray(arr), chunks=first.chunks if isinstance(first, da.Array)
                                else -1)
            roles[role] = arr
        if arr.ndim != 1:
            raise param_error(spec.names[role], spec.func, "a 1-D array",
                              f"an array of shape {arr.shape}")
    first = roles[first_role]
    for role, arr in roles.items():
        if arr.shape[0] != first.shape[0] and not math.isnan(arr.shape[0]):
            got = ", ".join(f"len({spec.names[k]})={v.shape[0]}" for k, v in roles.items())
            raise param_error(spec.names[role], spec.func,
                              f"the same length as {spec.names[first_role]!r}", got)
        if arr.chunks != first.chunks:
            roles[role] = arr.rechunk(first.chunks)
    blocks = {role: list(arr.to_delayed().ravel()) for role, arr in roles.items()}
    pack = dask.delayed(dict, pure=True)
    return [pack(**{role: blocks[role][i] for role in roles}) for i in range(len(blocks[first_role]))]


def _worker_threads(scheduler) -> int:
    """Worker threads of the distributed client in use, else this machine's cores."""
    client = scheduler if hasattr(scheduler, "nthreads") else None
    if client is None and scheduler is None:
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # pragma: no cover - a client that cannot answer
            pass
    return os.cpu_count() or 1


def _run(parts: list, spec: _Spec, npartitions, rows_per_partition, scheduler) -> tuple:
    """Scan, plan, shuffle and combine; returns ``(totals, n_rows, plan)``."""
    compute = dict(scheduler=scheduler) if scheduler is not None else {}
    M = len(parts)
    k = max(64, _SAMPLE_ROWS // max(M, 1))
    scans = dask.compute(*[dask.delayed(_scan, pure=True)(p, i, spec, k)
                           for i, p in enumerate(parts)], **compute)
    n_rows = sum(sc.n_rows for sc in scans)
    n_kept = sum(sc.n_kept for sc in scans)
    exact = spec.names.get("w") is None
    if spec.binary:
        lv = [sc.levels for sc in scans]
        if any(v is None for v in lv) or np.unique(np.concatenate(lv)).size > 2:
            vals = np.unique(np.concatenate([v for v in lv if v is not None]))[:5].tolist()
            raise param_error(spec.names["y"], spec.func, "binary (two distinct values)",
                              f"more than two distinct values: {describe(vals)}")
    if n_kept == 0:
        return None, n_rows, None
    if npartitions is None:
        # At least two ranges per worker thread, so that the counting keeps them all busy.
        nb = max(M, -(-n_kept // rows_per_partition), 2 * _worker_threads(scheduler))
    else:
        if not (isinstance(npartitions, (int, np.integer)) and npartitions >= 1):
            raise param_error("npartitions", spec.func, "a positive int", describe(npartitions))
        nb = int(npartitions)
    nb = max(1, min(nb, n_kept))
    ncols = len(scans[0].sample)
    sample = [np.concatenate([sc.sample[c] for sc in scans]) for c in range(ncols)]
    sw = np.concatenate([np.full(sc.sample[0].size, sc.sample_weight) for sc in scans])
    x_bounds = _quantile_bounds(sample, sw, nb)
    nb = x_bounds[0].size + 1
    plan = _Plan(spec, x_bounds, nb, exact=exact)
    levels = [sc.levels for sc in scans]
    if all(v is not None for v in levels):
        union = np.unique(np.concatenate(levels))
        if union.size <= MAX_HIST_LEVELS:
            plan.levels = union
    if plan.levels is None:
        sb = _lex_bucket(x_bounds, sample)
        z_bounds = _quantile_bounds([sample[-2], sb, sample[-1]], sw, nb)
        plan.z_bounds, plan.nz = z_bounds, z_bounds[0].size + 1

    split = [dask.delayed(_split, nout=nb, pure=True)(p, i, plan) for i, p in enumerate(parts)]
    nout = 1 + (plan.nz if plan.levels is None else 0)
    xb = [dask.delayed(_x_bucket, nout=nout, pure=True)([split[i][b] for i in range(M)], b, plan)
          for b in range(nb)]
    xs = [x[0] for x in xb]
    if plan.levels is None:
        zb = [dask.delayed(_z_bucket, pure=True)([xb[b][1 + c] for b in range(nb)], plan)
              for c in range(plan.nz)]
        xs, zs = dask.compute(xs, zb, **compute)
    else:
        (xs,) = dask.compute(xs, **compute)
        zs = None
    return _combine(list(xs), zs, plan), n_rows, plan


def _empty_counts(n_rows, exact):
    zero = 0 if exact else 0.0
    return PairCounts(zero, zero, zero, zero, zero, n_rows, zero, 0, 0)


def _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler) -> PairCounts:
    tot, n_rows, _ = _run(parts, spec, npartitions, rows_per_partition, scheduler)
    return _assemble_pairs(tot, n_rows, spec.names.get("w") is None)


def _assemble_pairs(tot: dict | None, n_rows: int, exact: bool) -> PairCounts:
    """`PairCounts` from the within-range counts and the cross terms (module docstring)."""
    if tot is None:
        return _empty_counts(n_rows, exact)
    C, D, T, Ty, Tyy = tot["within"]
    T_x = tot["run_x"] - tot["run_xz"]      # equal score, different labels, across buckets
    D += tot["inv"]
    Ty += tot["eq"]
    T += T_x
    Tyy += tot["run_xz"]
    C += tot["total_x"] - tot["inv"] - tot["eq"] - T_x
    if not exact:
        C, T = max(0.0, float(C)), max(0.0, float(T))
        D, Ty, Tyy = float(D), float(Ty), float(Tyy)
        weight_sum = float(tot["a_sum"])
    else:
        weight_sum = n_rows
    return PairCounts(C, D, T, Ty, Tyy, n_rows, weight_sum, tot["n_z"], tot["n_x"])


def _pairs_spec(func, data, y_true, y_score, label, score, weight, sample_weight,
                pos_label=None, binary=False, seed=0):
    if _is_frame(data):
        for pname, col in (("label", label), ("score", score)):
            if col is None:
                raise param_error(pname, func, "a column name when data is a dask DataFrame",
                                  "None", TypeError)
        spec = _Spec(func, "pairs", {"y": label, "s": score, "w": weight}, True, pos_label,
                     binary, seed)
        return spec, _parts(data, {}, spec)
    if y_true is None or y_score is None:
        raise param_error("y_true", func, "a dask DataFrame (with label=, score=) or two dask "
                          "arrays y_true, y_score", describe(data), TypeError)
    spec = _Spec(func, "pairs", {"y": "y_true", "s": "y_score",
                                 "w": None if sample_weight is None else "sample_weight"},
                 False, pos_label, binary, seed)
    return spec, _parts(None, {"y": y_true, "s": y_score, "w": sample_weight}, spec)


# ============================================================================ public API
def pair_counts(data=None, y_score=None, *, label=None, score=None, weight=None,
                sample_weight=None, npartitions=None, rows_per_partition=ROWS_PER_PARTITION,
                scheduler=None) -> PairCounts:
    """Every concordant, discordant and tied pair of a Dask collection, exactly.

    The same `PairCounts` as `streamrank.pair_counts` on the concatenated data (equal
    Python ints with unit weights; float sums with weights). See the module docstring for
    the method: one range-partitioned shuffle by ``(score, label, row id)``, exact counts
    per range by the numpy core, and exact cross terms as Python ints on the client.

    Runtime complexity: ``O(n log n)`` work spread over the workers, plus ``O(B L)``
    (few label levels) or ``O(B^2)`` (continuous labels, second shuffle) on the client,
    ``B`` the number of ranges.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or dask.array.Array
        A frame (then ``label``, ``score`` and optionally ``weight`` name its columns), or
        the labels ``y_true`` as a 1-D dask array (or array-like).
    y_score : dask.array.Array, optional
        The scores, when ``data`` holds the labels (rechunked to their chunks if needed).
    label, score, weight : str, optional
        Column names, when ``data`` is a DataFrame.
    sample_weight : dask.array.Array, optional
        Nonnegative weights, when ``data`` holds the labels.
    npartitions : int, optional
        Number of score ranges ``B`` (default: the number of input partitions, or more so
        that no range holds more than ``rows_per_partition`` rows on average).
    rows_per_partition : int
        Target rows per range when ``npartitions`` is not given.
    scheduler : str or distributed.Client, optional
        Passed to ``dask.compute`` (default: the active client or Dask's default).

    Returns
    -------
    PairCounts

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import pair_counts
    >>> y = da.from_array([1, 2, 3, 3], chunks=2)
    >>> s = da.from_array([0.2, 0.1, 0.5, 0.5], chunks=2)
    >>> pc = pair_counts(y, s, scheduler="sync")
    >>> pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both
    (4, 1, 0, 1, 1)
    """
    spec, parts = _pairs_spec("pair_counts", data, data, y_score, label, score, weight,
                              sample_weight)
    return _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler)


def roc_auc_score(data=None, y_score=None, *, label=None, score=None, weight=None,
                  sample_weight=None, pos_label=None, npartitions=None,
                  rows_per_partition=ROWS_PER_PARTITION, scheduler=None) -> float:
    """ROC AUC with ties as one half, ``(C + T / 2) / P``, of a Dask collection, exactly.

    Equal to `streamrank.roc_auc_score` (and so to scikit-learn) on the same data; inputs as
    `pair_counts`. ``pos_label`` picks the positive class (default: the larger label).
    Labels with more than two distinct values raise `ValueError`; one class only gives
    ``nan`` with an `UndefinedMetricWarning`.

    Runtime complexity: as `pair_counts` (histogram path: two label levels).

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import roc_auc_score
    >>> roc_auc_score(da.from_array([0, 0, 1, 1], chunks=2),
    ...               da.from_array([0.1, 0.4, 0.35, 0.8], chunks=2), scheduler="sync")
    0.75
    """
    spec, parts = _pairs_spec("roc_auc_score", data, data, y_score, label, score, weight,
                              sample_weight, pos_label=pos_label, binary=True)
    return _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler).auc


_VARIANTS = ("a", "b", "c")


def kendall_tau(data=None, y_score=None, *, variant="b", label=None, score=None, weight=None,
                sample_weight=None, npartitions=None, rows_per_partition=ROWS_PER_PARTITION,
                scheduler=None) -> float:
    """Kendall's tau (``variant`` "a", "b" or "c") between labels and scores, exactly.

    Equal to `streamrank.kendall_tau` on the same data; inputs as `pair_counts`.

    Runtime complexity: as `pair_counts`.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import kendall_tau
    >>> kendall_tau(da.from_array([1, 2, 3, 4], chunks=2),
    ...             da.from_array([1, 3, 2, 4], chunks=2), scheduler="sync")
    0.666666...
    """
    if variant not in _VARIANTS:
        raise param_error("variant", "kendall_tau", f"one of {_VARIANTS}", describe(variant))
    spec, parts = _pairs_spec("kendall_tau", data, data, y_score, label, score, weight,
                              sample_weight)
    pc = _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler)
    return getattr(pc, "tau_" + variant)


# ---------------------------------------------------------------------------- C-index
def concordance_index(data=None, predicted_scores=None, event_observed=None, *, time=None,
                      score=None, event=None, weight=None, sample_weight=None,
                      npartitions=None, rows_per_partition=ROWS_PER_PARTITION,
                      scheduler=None) -> float:
    """Harrell's C-index with right censoring (lifelines' conventions), exactly.

    Equal to `streamrank.concordance_index` on the same data: a higher score means a
    longer survival; a pair is comparable when the shorter exit is an observed event (at
    equal times an event exits before a censored case). Inputs: a DataFrame with the
    columns ``time``, ``score`` and optionally ``event`` and ``weight``, or the arrays
    ``data`` (event times), ``predicted_scores`` and ``event_observed``.

    Method: the range partition of `pair_counts` with the exit order ``(time, censored)``
    in the role of the score and the score in the role of the label, pairs weighted
    ``e_i w_i * w_j`` (only an observed event may be the earlier element).

    Runtime complexity: ``O(n log n)`` on the workers, two shuffles for continuous scores.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import concordance_index
    >>> concordance_index(da.from_array([1, 2, 3, 4], chunks=2),
    ...                   da.from_array([1, 3, 2, 4], chunks=2),
    ...                   da.from_array([1, 0, 1, 1], chunks=2), scheduler="sync")
    1.0
    """
    func = "concordance_index"
    if _is_frame(data):
        for pname, col in (("time", time), ("score", score)):
            if col is None:
                raise param_error(pname, func, "a column name when data is a dask DataFrame",
                                  "None", TypeError)
        spec = _Spec(func, "censored", {"t": time, "s": score, "e": event, "w": weight}, True)
        parts = _parts(data, {}, spec)
    else:
        if data is None or predicted_scores is None:
            raise param_error("event_times", func, "a dask DataFrame (with time=, score=) or "
                              "dask arrays", describe(data), TypeError)
        spec = _Spec(func, "censored", {
            "t": "event_times", "s": "predicted_scores",
            "e": None if event_observed is None else "event_observed",
            "w": None if sample_weight is None else "sample_weight"}, False)
        parts = _parts(None, {"t": data, "s": predicted_scores, "e": event_observed,
                              "w": sample_weight}, spec)
    P, D, T, _ = _censored_totals(parts, spec, npartitions, rows_per_partition, scheduler)
    return censored_c_index(P, D, T)[1]


def _censored_totals(parts, spec, npartitions, rows_per_partition, scheduler):
    """``(P, D, T, n_rows)`` of the censored pairs: exact ints without weights, floats
    with them (as `streamrank.batch.survival.censored_counts`)."""
    tot, n_rows, _ = _run(parts, spec, npartitions, rows_per_partition, scheduler)
    if tot is None:
        return 0, 0, 0, n_rows
    P, D, T = tot["within"]
    P += tot["total_x"] - tot["run_x"]    # equal exit keys are not comparable
    D += tot["inv"]
    T += tot["eq"] - tot["run_xz"]
    if spec.names.get("w") is not None:
        P, D, T = float(P), float(D), float(T)
    return P, D, T, n_rows


# ---------------------------------------------------------------------------- GAUC
def _gauc_scan(part, spec: _Spec):
    cols = _extract(part, spec)
    y = cols["y"]
    enc = encode_labels(y, 2) if y.size else (None, np.zeros(0, y.dtype))
    if enc is None:
        return None
    return np.asarray(enc[1])


def _group_split(part, spec: _Spec, nb: int, pid: int):
    """One input partition's rows ``(y, s, g, w)`` split by a hash of the group id."""
    import pandas as pd

    cols = _extract(part, spec, pid)
    g = part[spec.names["g"]].to_numpy() if spec.frame else np.asarray(part["g"])
    if g.size != cols["s"].size:
        raise param_error(spec.names["g"], spec.func, "the same length as the scores",
                          f"{g.size} != {cols['s'].size}")
    if g.dtype.kind == "f" and not np.isfinite(g).all():
        raise param_error(spec.names["g"], spec.func, "finite group ids", "nan or inf")
    h = (pd.util.hash_array(g) % np.uint64(nb)).astype(np.int64)
    order = np.argsort(h.astype(np.int32), kind="stable")
    cuts = np.cumsum(np.bincount(h, minlength=nb))[:-1]
    w = cols.get("w")
    return tuple(None if idx.size == 0 else
                 (cols["y"][idx], cols["s"][idx], g[idx], None if w is None else w[idx])
                 for idx in np.split(order, cuts))


def _concat_group_pieces(pieces):
    pieces = [p for p in pieces if p is not None]
    if not pieces:
        return None
    return tuple(np.concatenate([p[k] for p in pieces]) if pieces[0][k] is not None else None
                 for k in range(4))


def _gauc_bucket(pieces, weighting: str, pos_value):
    got = _concat_group_pieces(pieces)
    if got is None:
        return None
    y, s, g, w = got
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = _np_group_auc_score(y == pos_value, s, g, weighting=weighting, sample_weight=w,
                                return_details=True)
    return r.n_groups + r.n_skipped, r.groups, r.group_scores, r.group_weights


def _group_shuffle(parts, spec_g, nb, bucket_fn, args, compute):
    """Shuffle by a hash of the group id, ``bucket_fn(pieces, *args)`` per bucket."""
    split = [dask.delayed(_group_split, nout=nb, pure=True)(p, spec_g, nb, i)
             for i, p in enumerate(parts)]
    buckets = [dask.delayed(bucket_fn, pure=True)([sp[b] for sp in split], *args)
               for b in range(nb)]
    return [r for r in dask.compute(*buckets, **compute) if r is not None]


def group_auc_score(data=None, y_score=None, groups=None, *, label=None, score=None,
                    group=None, weight=None, weighting="impressions", sample_weight=None,
                    return_details=False, npartitions=None, scheduler=None):
    """Group AUC (GAUC) of a Dask collection: the numpy `streamrank.group_auc_score` per
    group, after a shuffle by a hash of the group id.

    Every group lands whole in one bucket, so each group's AUC is exact and computed by
    the same code as in numpy; the client sorts the groups and averages
    ``sum_g v_g AUC_g / sum_g v_g`` in group order, as numpy does. Inputs: a DataFrame with
    the columns ``label``, ``score``, ``group`` (and ``weight``), or dask arrays
    ``data`` (labels), ``y_score``, ``groups`` (and ``sample_weight``).

    Runtime complexity: ``O(n log n)`` on the workers; the client holds three floats per
    group.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from streamrank.dask import group_auc_score
    >>> y = da.from_array(np.array([1, 0, 1, 0, 0, 1, 1]), chunks=3)
    >>> s = da.from_array(np.array([0.9, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6]), chunks=3)
    >>> g = da.from_array(np.array([1, 1, 2, 2, 2, 3, 3]), chunks=3)
    >>> group_auc_score(y, s, g, scheduler="sync")
    0.4
    """
    func = "group_auc_score"
    if weighting not in ("impressions", "pairs", "uniform"):
        raise param_error("weighting", func, "one of ('impressions', 'pairs', 'uniform')",
                          describe(weighting))
    if _is_frame(data):
        for pname, col in (("label", label), ("score", score), ("group", group)):
            if col is None:
                raise param_error(pname, func, "a column name when data is a dask DataFrame",
                                  "None", TypeError)
        spec = _Spec(func, "pairs", {"y": label, "s": score, "w": weight}, True)
        spec_g = replace(spec, names={**spec.names, "g": group})
        parts = _parts(data, {}, spec_g)
    else:
        if data is None or y_score is None or groups is None:
            raise param_error("groups", func, "dask arrays y_true, y_score and groups",
                              describe(groups), TypeError)
        spec = _Spec(func, "pairs", {"y": "y_true", "s": "y_score",
                                     "w": None if sample_weight is None else "sample_weight"},
                     False)
        spec_g = replace(spec, names={**spec.names, "g": "groups"})
        parts = _parts(None, {"y": data, "s": y_score, "w": sample_weight, "g": groups},
                       spec_g)
    compute = dict(scheduler=scheduler) if scheduler is not None else {}
    levels = dask.compute(*[dask.delayed(_gauc_scan, pure=True)(p, spec) for p in parts],
                          **compute)
    if any(v is None for v in levels) or np.unique(np.concatenate(levels)).size > 2:
        raise param_error(spec.names["y"], func, "binary (two distinct values)",
                          "more than two distinct values")
    values = np.unique(np.concatenate(levels))
    pos_value = values.max() if values.size else 1
    nb = int(npartitions) if npartitions is not None else max(len(parts),
                                                                2 * _worker_threads(scheduler))
    res = _group_shuffle(parts, spec_g, nb, _gauc_bucket, (weighting, pos_value), compute)
    n_total = sum(r[0] for r in res)
    gids = np.concatenate([r[1] for r in res]) if res else np.zeros(0)
    auc = np.concatenate([r[2] for r in res]) if res else np.zeros(0)
    vg = np.concatenate([r[3] for r in res]) if res else np.zeros(0)
    order = np.argsort(gids, kind="stable")
    gids, auc, vg = gids[order], auc[order], vg[order]
    if auc.size == 0 or vg.sum() == 0:
        warnings.warn("Group AUC is undefined: no group contains both classes; returning nan.",
                      UndefinedMetricWarning, stacklevel=2)
        score_ = math.nan
    else:
        score_ = min(1.0, max(0.0, float(np.dot(vg, auc) / vg.sum())))
    if not return_details:
        return score_
    return GroupAUCResult(score_, int(auc.size), int(n_total - auc.size), gids, auc, vg)


# ---------------------------------------------------------------------------- ranking
def _ranking_bucket(pieces, name: str, kwargs: dict):
    got = _concat_group_pieces(pieces)
    if got is None:
        return None
    y, s, q, _ = got
    from .. import ranking

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        r = getattr(ranking, name)(q, y, s, return_per_query=True, **kwargs)
    return r.query_ids, r.values


def _ranking_metric(name, data, y_true, y_score, query, label, score, return_per_query,
                    npartitions, scheduler, kwargs):
    from ..ranking import PerQuery
    from ..ranking._layout import query_mean

    func = name
    if _is_frame(data):
        for pname, col in (("query", query), ("label", label), ("score", score)):
            if col is None:
                raise param_error(pname, func, "a column name when data is a dask DataFrame",
                                  "None", TypeError)
        spec_g = _Spec(func, "pairs", {"y": label, "s": score, "g": query}, True)
        parts = _parts(data, {}, spec_g)
    else:
        if data is None or y_true is None or y_score is None:
            raise param_error("query_ids", func, "dask arrays query_ids, y_true and y_score",
                              describe(data), TypeError)
        spec_g = _Spec(func, "pairs", {"y": "y_true", "s": "y_score", "g": "query_ids"}, False)
        parts = _parts(None, {"y": y_true, "s": y_score, "g": data}, spec_g)
    compute = dict(scheduler=scheduler) if scheduler is not None else {}
    nb = int(npartitions) if npartitions is not None else max(len(parts),
                                                                2 * _worker_threads(scheduler))
    res = _group_shuffle(parts, spec_g, nb, _ranking_bucket, (name, kwargs), compute)
    ids = np.concatenate([r[0] for r in res]) if res else np.zeros(0)
    values = np.concatenate([r[1] for r in res]) if res else np.zeros(0)
    order = np.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    mean = query_mean(values, func)
    return PerQuery(mean, ids, values) if return_per_query else mean


def ndcg_score(data=None, y_true=None, y_score=None, *, query=None, label=None, score=None,
               k=None, gain="exponential", ties="average", empty="skip",
               return_per_query=False, npartitions=None, scheduler=None):
    """NDCG@k averaged over queries: `streamrank.ranking.ndcg_score` per query after a
    shuffle by a hash of the query id (every query lands whole in one bucket; the mean is
    taken on the client over the per-query values in query order, as numpy does).

    Inputs: a DataFrame with the columns ``query``, ``label``, ``score``, or dask arrays
    ``data`` (query ids), ``y_true``, ``y_score``. Other parameters as the numpy function.

    Runtime complexity: ``O(n log n)`` on the workers; one float per query on the client.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import ndcg_score
    >>> round(ndcg_score(da.from_array([1, 1, 2, 2], chunks=2),
    ...                  da.from_array([0, 0, 1, 0], chunks=2),
    ...                  da.from_array([0.2, 0.1, 0.3, 0.3], chunks=2), scheduler="sync"), 4)
    0.8155
    """
    return _ranking_metric("ndcg_score", data, y_true, y_score, query, label, score,
                           return_per_query, npartitions, scheduler,
                           dict(k=k, gain=gain, ties=ties, empty=empty))


def average_precision_score(data=None, y_true=None, y_score=None, *, query=None, label=None,
                            score=None, k=None, ties="average", empty="skip",
                            return_per_query=False, npartitions=None, scheduler=None):
    """Mean average precision (MAP@k): `streamrank.ranking.average_precision_score` per
    query after a shuffle by a hash of the query id; inputs as `ndcg_score`.

    Runtime complexity: ``O(n log n)`` on the workers; one float per query on the client.
    """
    return _ranking_metric("average_precision_score", data, y_true, y_score, query, label,
                           score, return_per_query, npartitions, scheduler,
                           dict(k=k, ties=ties, empty=empty))


# ============================================================================ files
_FILE_FORMATS = ("parquet", "csv", "tsv", "jsonl")


def _read(path, fmt, columns, blocksize):
    if fmt is None:
        p = str(path).lower().rstrip("/")
        p = p[:-3] if p.endswith(".gz") else p
        fmt = ("csv" if p.endswith(".csv") else "tsv" if p.endswith((".tsv", ".tab"))
               else "jsonl" if p.endswith((".jsonl", ".ndjson", ".json")) else "parquet")
    fmt = {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet"}.get(fmt, fmt)
    gz = str(path).lower().endswith(".gz")
    if fmt == "parquet":
        # One partition per row group: the scan and the split stream through the file.
        return dd.read_parquet(path, columns=columns, split_row_groups=True)
    if fmt in ("csv", "tsv"):
        # A gzip stream cannot be split: one partition (blocksize=None) then.
        kw = {"blocksize": None} if gz else {} if blocksize is None else {"blocksize": blocksize}
        return dd.read_csv(path, usecols=columns, sep="\t" if fmt == "tsv" else ",", **kw)
    if fmt == "jsonl":
        kw = {} if gz else {"blocksize": blocksize or 2**26}
        return dd.read_json(path, lines=True, **kw)[columns]
    raise param_error("format", "evaluate_file", f"one of {_FILE_FORMATS}", describe(fmt))


def _censored_file_counts(ddf, time, score, event, weight, npartitions, rows_per_partition,
                          scheduler) -> dict:
    """``P, D, T`` and the C-index of the censored pairs of a frame (as `concordance_index`,
    which returns only the index)."""
    spec = _Spec("concordance_index", "censored",
                 {"t": time, "s": score, "e": event, "w": weight}, True)
    parts = _parts(ddf, {}, spec)
    P, D, T, n_rows = _censored_totals(parts, spec, npartitions, rows_per_partition,
                                       scheduler)
    C, c_index = censored_c_index(P, D, T)
    return {"n": n_rows, "comparable": P, "concordant": C, "discordant": D, "tied_score": T,
            "c_index": c_index}


def evaluate_file(path, *, label=None, score, weight=None, group=None, query=None, time=None,
                  event=None, pos_label=None, k=None, gain="exponential", ties="average",
                  format=None, scheduler=None, n_workers=None, npartitions=None,
                  rows_per_partition=ROWS_PER_PARTITION, blocksize=None,
                  weighting="impressions") -> dict:
    """Exact metrics of a Parquet, CSV or JSON-lines file (or directory / glob), read
    partition by partition by Dask: the hook of ``streamrank eval --dask
    SCHEDULER_ADDRESS|local``.

    One of three evaluations, by the columns given:

    * ``label`` and ``score`` (default): every count and metric of `PairCounts.as_dict`
      (``auc`` is meaningful for binary labels only) and the numbers of distinct labels
      and scores (``"label_levels"``, ``"score_levels"``), plus the group AUC with
      ``group``;
    * ``query``, ``label`` (graded relevance) and ``score``: NDCG@k and MAP@k averaged over
      queries, as `ndcg_score` / `average_precision_score`;
    * ``time``, ``score`` and optionally ``event``: the censored pair counts and C-index
      of `concordance_index` (no ``label``).

    Parameters
    ----------
    path : str
        A Parquet file, directory or glob, or a CSV / TSV / JSON-lines file or glob (by
        extension, or ``format``).
    label, score : str
        Column names of the labels and the scores.
    weight : str, optional
        Column of nonnegative sample weights (not with ``query``).
    group : str, optional
        Column of group ids: adds ``"group_auc"`` and ``"group_auc_groups"`` /
        ``"group_auc_skipped"`` (binary labels only).
    query : str, optional
        Column of query ids: ranking metrics instead of pair counts; adds ``"queries"``
        and ``"queries_skipped"`` (queries with no relevant document, left out).
    time, event : str, optional
        Columns of survival times and event indicators (1 = observed, 0 = censored;
        default all observed): the censored C-index instead of pair counts.
    pos_label : optional
        The positive label: labels become ``label == pos_label`` (one against the rest).
    k, gain, ties : ranking options of `ndcg_score` (``k`` also for MAP@k).
    format : {"parquet", "csv", "tsv", "jsonl"}, optional
    scheduler : str or distributed.Client, optional
        ``None``: the active client, else Dask's default (threads). ``"local"``: start a
        ``distributed.LocalCluster`` for this call (``n_workers`` processes) and close it.
        ``"tcp://host:8786"`` (any address): connect to that scheduler. ``"threads"``,
        ``"processes"``, ``"sync"``: Dask's single-machine schedulers.
    npartitions, rows_per_partition : see `pair_counts`.
    blocksize : CSV / JSON block size (``dask.dataframe.read_csv``).

    Returns
    -------
    dict
    """
    func = "evaluate_file"
    if time is None and label is None:
        raise param_error("label", func, "a column name (or time= for the C-index)", "None",
                          TypeError)
    if time is not None and (label is not None or group is not None or query is not None):
        raise param_error("time", func, "used without label, group and query",
                          describe(time))
    if event is not None and time is None:
        raise param_error("event", func, "used with time", describe(event))
    if query is not None and (group is not None or weight is not None):
        raise param_error("query", func, "used without group and weight", describe(query))
    if pos_label is not None and (group is not None or query is not None):
        raise param_error("pos_label", func, "used without group and query",
                          describe(pos_label))
    columns = [c for c in dict.fromkeys((label, score, weight, group, query, time, event))
               if c is not None]
    client = cluster = None
    sched = scheduler
    if isinstance(scheduler, str) and scheduler not in ("threads", "processes", "sync",
                                                        "synchronous", "single-threaded"):
        from distributed import Client, LocalCluster

        if scheduler == "local":
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(scheduler)
        sched = client
    try:
        ddf = _read(path, format, columns, blocksize)
        if time is not None:
            return _censored_file_counts(ddf, time, score, event, weight, npartitions,
                                         rows_per_partition, sched)
        if query is not None:
            out = {"n": None}
            for key, fn, kw in (("ndcg", ndcg_score, dict(gain=gain)),
                                ("map", average_precision_score, {})):
                r = fn(ddf, query=query, label=label, score=score, k=k, ties=ties,
                       return_per_query=True, npartitions=npartitions, scheduler=sched, **kw)
                out[key] = r.mean
                out["queries"] = int(r.values.size)
                out["queries_skipped"] = int(np.isnan(r.values).sum())
            out["n"] = int(ddf.shape[0].compute(scheduler=sched))
            return out
        spec, parts = _pairs_spec(func, ddf, ddf, None, label, score, weight, None,
                                  pos_label=pos_label)
        pc = _pair_counts(spec, parts, npartitions, rows_per_partition, sched)
        out = pc.as_dict()
        out.update(label_levels=pc.n_label_levels, score_levels=pc.n_score_levels)
        if group is not None:
            r = group_auc_score(ddf, label=label, score=score, group=group, weight=weight,
                                weighting=weighting, return_details=True, scheduler=sched)
            out.update(group_auc=r.score, group_auc_groups=r.n_groups,
                       group_auc_skipped=r.n_skipped)
        return out
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
