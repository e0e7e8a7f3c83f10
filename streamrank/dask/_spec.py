"""The inputs of every `streamrank.dask` function: which columns (frames) or arrays play
which role, their validation per input partition, and the delayed input partitions.

Roles: ``y`` labels, ``s`` scores, ``w`` weights; ``t`` times and ``e`` events (C-index);
``g`` group or query ids (read by the group shuffle, `streamrank.dask._groups`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np

from .._validation import as_1d_numeric, as_events, check_weights, describe, param_error


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
    """The checks of `streamrank._validation`, role by role (weights and events last:
    they are read against the length of the scores)."""
    out = {}
    for role, name in spec.names.items():
        if role == "g":  # group ids: any sortable values, read by _group_split
            continue
        if name is None:
            out[role] = None
            continue
        raw = part[name].to_numpy() if spec.frame else part[role]
        if role == "w":
            out[role] = check_weights(raw, out["s"].size, spec.func, name)
        elif role == "e":
            out[role] = as_events(raw, name, spec.func, allow_empty=True)
        else:
            out[role] = as_1d_numeric(raw, name, spec.func, allow_empty=True)
    if spec.pos_label is not None:
        out["y"] = out["y"] == spec.pos_label
    return out


def _is_frame(x) -> bool:
    return isinstance(x, dd.DataFrame)


def _require_columns(func: str, **columns) -> None:
    """`TypeError` naming the first of ``columns`` (parameter -> column name) that is
    None: a DataFrame input names every column it reads."""
    for pname, col in columns.items():
        if col is None:
            raise param_error(pname, func, "a column name when data is a dask DataFrame",
                              "None", TypeError)


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


def _pairs_spec(func, data, y_true, y_score, label, score, weight, sample_weight,
                pos_label=None, binary=False, seed=0):
    """``(spec, parts)`` of a (label, score, weight) input: a frame with the columns
    ``label``, ``score``, ``weight``, or the arrays ``y_true``, ``y_score``,
    ``sample_weight``."""
    if _is_frame(data):
        _require_columns(func, label=label, score=score)
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


def _compute_kwargs(scheduler) -> dict:
    """The keyword arguments of ``dask.compute`` for ``scheduler`` (None: Dask's choice)."""
    return dict(scheduler=scheduler) if scheduler is not None else {}
