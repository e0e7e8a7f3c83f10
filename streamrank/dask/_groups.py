"""Group AUC (GAUC) on a Dask collection, and the shuffle by a hash of the group id that
the per-query ranking metrics (`streamrank.dask._ranking`) share: every group lands whole
in one bucket, where the numpy functions compute its values."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any, Literal, overload

import dask
import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_binary_levels, check_option, describe, param_error
from ..batch._kernels import encode_labels
from ..batch.auc import (_WEIGHTINGS, GroupAUCResult, _Weighting,
                         group_auc_score as _np_group_auc_score)
from ..exceptions import UndefinedMetricWarning
from ._partition import _check_npartitions, _n_buckets
from ._spec import _compute_kwargs, _extract, _is_frame, _parts, _require_columns, _Spec


def _gauc_scan(part, spec: _Spec) -> np.ndarray:
    """The distinct labels of one input partition if at most two, else the first five."""
    y = _extract(part, spec)["y"]
    enc = encode_labels(y, 2) if y.size else (None, np.zeros(0, y.dtype))
    return np.unique(y)[:5] if enc is None else np.asarray(enc[1])


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


def _gauc_bucket(pieces, weighting: _Weighting, pos_value):
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
    """Shuffle by a hash of the group id, ``bucket_fn(pieces, *args)`` per bucket; the
    results of the buckets that hold rows."""
    split = [dask.delayed(_group_split, nout=nb, pure=True)(p, spec_g, nb, i)
             for i, p in enumerate(parts)]
    buckets = [dask.delayed(bucket_fn, pure=True)([sp[b] for sp in split], *args)
               for b in range(nb)]
    return [r for r in dask.compute(*buckets, **compute) if r is not None]


def _by_group(res: list, fields: tuple) -> list:
    """The per-group arrays ``fields`` (indices into every bucket's result, the group ids
    first) concatenated over the buckets and sorted by group id, as numpy orders groups."""
    arrays = [np.concatenate([r[f] for r in res]) if res else np.zeros(0) for f in fields]
    order = np.argsort(arrays[0], kind="stable")
    return [a[order] for a in arrays]


@overload
def group_auc_score(data: Any = ..., y_score: Any = ..., groups: Any = ..., *,
                    label: str | None = ..., score: str | None = ...,
                    group: str | None = ..., weight: str | None = ...,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: Literal[False] = ..., npartitions: int | None = ...,
                    scheduler: Any = ...) -> float: ...
@overload
def group_auc_score(data: Any = ..., y_score: Any = ..., groups: Any = ..., *,
                    label: str | None = ..., score: str | None = ...,
                    group: str | None = ..., weight: str | None = ...,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: Literal[True], npartitions: int | None = ...,
                    scheduler: Any = ...) -> GroupAUCResult: ...
@overload
def group_auc_score(data: Any = ..., y_score: Any = ..., groups: Any = ..., *,
                    label: str | None = ..., score: str | None = ...,
                    group: str | None = ..., weight: str | None = ...,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: bool = ..., npartitions: int | None = ...,
                    scheduler: Any = ...) -> float | GroupAUCResult: ...
def group_auc_score(data: Any = None, y_score: Any = None, groups: Any = None, *,
                    label: str | None = None, score: str | None = None,
                    group: str | None = None, weight: str | None = None,
                    weighting: _Weighting = "impressions",
                    sample_weight: ArrayLike | None = None, return_details: bool = False,
                    npartitions: int | None = None,
                    scheduler: Any = None) -> float | GroupAUCResult:
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
    check_option(weighting, "weighting", func, _WEIGHTINGS)
    npartitions = _check_npartitions(npartitions, func)
    if _is_frame(data):
        _require_columns(func, label=label, score=score, group=group)
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
    compute = _compute_kwargs(scheduler)
    levels = dask.compute(*[dask.delayed(_gauc_scan, pure=True)(p, spec) for p in parts],
                          **compute)
    values = np.unique(np.concatenate(levels))
    check_binary_levels(values, spec.names["y"], func)
    pos_value = values.max() if values.size else 1
    nb = _n_buckets(npartitions, len(parts), scheduler)
    res = _group_shuffle(parts, spec_g, nb, _gauc_bucket, (weighting, pos_value), compute)
    n_total = sum(r[0] for r in res)
    gids, auc, vg = _by_group(res, (1, 2, 3))
    if auc.size == 0 or vg.sum() == 0:
        warnings.warn("Group AUC is undefined: no group contains both classes; returning nan.",
                      UndefinedMetricWarning, stacklevel=2)
        score_ = math.nan
    else:
        score_ = min(1.0, max(0.0, float(np.dot(vg, auc) / vg.sum())))
    if not return_details:
        return score_
    return GroupAUCResult(score_, int(auc.size), int(n_total - auc.size), gids, auc, vg)

