"""`delong_test`: DeLong's paired test of two (or k) correlated AUCs on the same samples.

The placements of every model come from `streamrank.batch.delong` (row by row, so that
two models' placements of one sample meet), their exact moments give DeLong's
covariance (`streamrank.intervals.delong_covariance`), and the variance of a difference
comes from the moments of the placement differences, without cancellation. Where the
moments would leave int64 (class weights from about ``2**30``), the spread of each
model's placements and of each pair's placement differences (exact integers) is taken
in a scaled domain instead (`streamrank.batch.delong.placement_spread`): any whole-number
weight gives a finite standard error.

References
----------
E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44 (1988) 837-845.
S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
of Statistics 6 (1979) 65-70.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._clevels import level_codes
from .delong import (_auc, _int64_exact, _merged_placements, _runs, _total, _undefined,
                     _wsum, integer_weights, placement_spread, row_placements)
from .._validation import (as_1d_numeric, as_score_column, check_binary_labels,
                           check_consistent_length, check_level, check_option,
                           check_weights, describe, param_error)
from ..intervals import (ALTERNATIVES, delong_spread_se, delong_variance, normal_p_value,
                         normal_quantile)

__all__ = ["PairedAUCMatrix", "PairedAUCTest", "delong_test"]

_NAN = math.nan
#: Distinct scores per class up to which a model's rows find their run by a binary
#: search in the (cache-resident) distinct scores instead of an argsort of all rows.
_FEW_LEVELS = 1 << 16


# --------------------------------------------------------------------------- paired test
@dataclass(frozen=True)
class PairedAUCTest:
    """DeLong's paired test of two AUCs on the same samples.

    Attributes
    ----------
    auc_a, auc_b : float
        The two models' AUCs (ties one half).
    difference : float
        ``auc_a - auc_b``.
    se : float
        Its standard error, from DeLong's variances and covariance of the two AUCs.
    z : float
        ``difference / se``; ``+-inf`` when ``se = 0`` and the difference is not 0, and 0
        when both are 0 (identical rankings).
    p_value : float
        The p-value of ``z`` under ``H0: AUC_a = AUC_b`` against ``alternative``.
    low, high : float
        The interval of the difference at ``level``: ``difference -+ z se``, clipped to
        ``[-1, 1]`` (two-sided); one-sided for a one-sided ``alternative`` (``high = 1``
        for ``"greater"``, ``low = -1`` for ``"less"``), the bound that matches the test.
    alternative : str
        ``"two-sided"``, ``"greater"`` (``AUC_a > AUC_b``) or ``"less"``.
    level : float
    """

    auc_a: float
    auc_b: float
    difference: float
    se: float
    z: float
    p_value: float
    low: float
    high: float
    alternative: str
    level: float


@dataclass(frozen=True)
class PairedAUCMatrix:
    """DeLong's paired tests of every pair of ``k`` models on the same samples.

    Attributes
    ----------
    aucs, se : ndarray of shape (k,)
        Each model's AUC and its DeLong standard error.
    difference, se_difference, z : ndarray of shape (k, k)
        ``aucs[i] - aucs[j]``, its standard error and ``z`` (0 on the diagonal).
    p_values : ndarray of shape (k, k)
        The p-value of model ``i`` against model ``j`` (``"greater"``: ``AUC_i >
        AUC_j``); ``nan`` on the diagonal. Holm-adjusted when ``adjust="holm"``, over the
        ``k (k - 1) / 2`` pairs (two-sided) or the ``k (k - 1)`` ordered pairs (one-sided).
    alternative : str
    adjust : str or None
    """

    aucs: np.ndarray
    se: np.ndarray
    difference: np.ndarray
    se_difference: np.ndarray
    z: np.ndarray
    p_values: np.ndarray
    alternative: str
    adjust: str | None


def _score_columns(y_score_a, y_score_b, func):
    """The ``k`` models' scores as a list of 1-D float64 arrays (validated one by one)."""
    if y_score_b is None:
        arr = np.asarray(y_score_a)
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise param_error("y_score_a", func, "a 2-D array of shape (n, k), k >= 2 (one "
                              "column per model) when y_score_b is None",
                              f"an array of shape {arr.shape}")
        cols = [as_1d_numeric(arr[:, j], "y_score_a", func) for j in range(arr.shape[1])]
    else:
        cols = [as_score_column(y_score_a, "y_score_a", func),
                as_score_column(y_score_b, "y_score_b", func)]
        check_consistent_length(func, y_score_a=cols[0], y_score_b=cols[1])
    return [c.astype(np.float64, copy=False) for c in cols]


def _holm(p, alternative):
    """Holm's step-down adjustment of the off-diagonal p-values of a k x k matrix."""
    k = p.shape[0]
    iu = np.triu_indices(k, 1) if alternative == "two-sided" else \
        np.nonzero(~np.eye(k, dtype=bool))
    flat = p[iu]
    ok = ~np.isnan(flat)
    vals = flat[ok]
    m = vals.size
    order = np.argsort(vals, kind="stable")
    adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * vals[order]))
    out = np.empty(m)
    out[order] = adj
    flat = flat.copy()
    flat[ok] = out
    res = np.full_like(p, _NAN)
    res[iu] = flat
    if alternative == "two-sided":
        res.T[iu] = flat
    return res


def delong_test(y_true, y_score_a, y_score_b=None, *, sample_weight=None,
                alternative="two-sided", level=0.95, adjust=None, pos_label=None):
    """DeLong's test of two (or ``k``) correlated AUCs: models scored on the same rows.

    Is the challenger better than the champion? With the placements of both models
    (ties one half), DeLong's covariance gives the variance of the difference
    ``d = AUC_a - AUC_b``; ``z = d / se`` is compared with the standard normal. The
    variance of ``d`` is computed directly from the placement *differences* (their exact
    integer moments, or their spread in a scaled domain at large weights), so that two
    nearly identical models do not lose it to cancellation.

    Runtime complexity: ``O(k n log n + k^2 n)``: one argsort per model (its placements
    row by row, `row_placements`) and one exact product sum per pair of models.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary class labels of any type, as in `roc_auc_score`.
    y_score_a : array-like of shape (n,), (n, 1) or (n, k)
        Model a's scores; or, with ``y_score_b=None``, the scores of ``k >= 2`` models,
        one column each.
    y_score_b : array-like of shape (n,) or (n, 1), optional
        Model b's scores.
    sample_weight : array-like of shape (n,), optional
        Frequency weights (whole numbers: a weight ``k`` is ``k`` copies of the row).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: ``AUC_a > AUC_b`` (column ``i`` better than column ``j``).
    level : float in (0, 1)
        The level of the interval of the difference.
    adjust : {None, "holm"}
        Holm's adjustment of the matrix of p-values (``k`` models).
    pos_label : label, optional

    Returns
    -------
    PairedAUCTest or PairedAUCMatrix
        The test of a against b, or (``y_score_b=None``) the matrix of every pair. All
        ``nan`` (with an `UndefinedMetricWarning`) when a class is missing.

    Examples
    --------
    >>> from streamrank import delong_test
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    >>> a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.5, 0.5, 0.9, 0.3]
    >>> b = [0.3, 0.2, 0.3, 0.6, 0.5, 0.4, 0.6, 0.5, 0.7, 0.1]
    >>> r = delong_test(y, a, b)
    >>> r.auc_a, r.auc_b, round(r.difference, 2), round(r.se, 4), round(r.p_value, 4)
    (0.9, 0.74, 0.16, 0.1456, 0.2718)
    >>> import numpy as np
    >>> m = delong_test(y, np.column_stack([a, b, b]), adjust="holm")
    >>> m.aucs.tolist(), round(float(m.p_values[0, 1]), 4), float(m.p_values[1, 2])
    ([0.9, 0.74, 0.74], 0.8155, 1.0)
    """
    func = "delong_test"
    alternative = check_option(alternative, "alternative", func, ALTERNATIVES)
    level = check_level(level, func)
    adjust = check_option(adjust, "adjust", func, (None, "holm"))
    if adjust is not None and y_score_b is not None:
        raise param_error("adjust", func, "None when two models are compared (Holm's "
                          "adjustment is of the k x k matrix of a 2-D y_score_a)",
                          describe(adjust))
    pos = check_binary_labels(y_true, pos_label, func)
    S = _score_columns(y_score_a, y_score_b, func)
    n = check_consistent_length(func, y_true=pos, y_score_a=S[0])
    w = integer_weights(check_weights(sample_weight, n, func), func)
    k = len(S)
    if w is not None and not (w > 0).all():
        keep = w > 0
        pos, S, w = pos[keep], [c[keep] for c in S], w[keep]
    if not pos.any() or pos.all():
        _undefined(func)
        res = _matrix(None, k, alternative, level)
    else:
        res = _matrix(_statistics(pos, S, w), k, alternative, level)
    aucs, se, d, se_d, z, p, low, high = res
    if y_score_b is not None:
        return PairedAUCTest(float(aucs[0]), float(aucs[1]), float(d[0, 1]),
                             float(se_d[0, 1]), float(z[0, 1]), float(p[0, 1]),
                             float(low[0, 1]), float(high[0, 1]), alternative, level)
    if adjust == "holm":
        p = _holm(p, alternative)
    return PairedAUCMatrix(aucs, se, d, se_d, z, p, alternative, adjust)


def _statistics(pos, S, w):
    """``(aucs, se, d, se_d)``: each of the k models' AUC and standard error, and each
    pair's difference and its standard error (k x k). From exact integer moments while
    int64 holds them (`_exact_statistics`); else from the spreads of each model's
    placements and of each pair's placement differences (`_scaled_statistics`)."""
    wp, wn = (None, None) if w is None else (w[pos], w[~pos])
    neg = ~pos
    models = [_model_placements(s, pos, neg, wp, wn, w) for s in S]
    w1, w0 = models[0][2], models[0][3]
    ps, qs = [m[0] for m in models], [m[1] for m in models]
    if all(_int64_exact(wp, p, p) and _int64_exact(wn, q, q) for p, q in zip(ps, qs)):
        return _exact_statistics(ps, qs, wp, wn, w1, w0)
    return _scaled_statistics(ps, qs, wp, wn, w1, w0)


def _exact_statistics(ps, qs, wp, wn, w1, w0):
    """`_statistics` from the exact moments: each model's placement sum and the k x k sums
    of products of placements over the positives and the negatives; the variance of a
    difference from the moments of the placement differences, without cancellation."""
    k = len(ps)
    U = [_wsum(wp, p) for p in ps]
    Xp = [[None] * k for _ in range(k)]
    Xn = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            Xp[i][j] = Xp[j][i] = _wsum(wp, ps[i], ps[j])
            Xn[i][j] = Xn[j][i] = _wsum(wn, qs[i], qs[j])
    aucs, se = np.full(k, _NAN), np.full(k, _NAN)
    d, se_d = np.full((k, k), _NAN), np.full((k, k), _NAN)
    for i in range(k):
        aucs[i] = _auc(U[i], w1, w0)
        se[i] = _root(delong_variance(w1, w0, U[i], Xp[i][i], U[i], Xn[i][i]))
        for j in range(k):
            du = U[i] - U[j]
            d[i, j] = _diff(du, w1, w0)
            se_d[i, j] = _root(delong_variance(w1, w0, du, Xp[i][i] - 2 * Xp[i][j] + Xp[j][j],
                                               du, Xn[i][i] - 2 * Xn[i][j] + Xn[j][j]))
    return aucs, se, d, se_d


def _scaled_statistics(ps, qs, wp, wn, w1, w0):
    """`_statistics` from `placement_spread`: of each model's placements, and of each
    pair's placement differences (exact integers, or floats), whose mean is the
    difference of the AUCs."""
    k = len(ps)
    aucs, se = np.full(k, _NAN), np.full(k, _NAN)
    d, se_d = np.zeros((k, k)), np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            mean, spread_pos = placement_spread(ps[i] - ps[j] if j > i else ps[i], wp, w1,
                                                2 * w0)
            spread_neg = placement_spread(qs[i] - qs[j] if j > i else qs[i], wn, w0,
                                          2 * w1)[1]
            s = delong_spread_se(spread_pos, w1, spread_neg, w0)
            if j == i:
                aucs[i], se[i] = min(1.0, max(0.0, mean)), s
            else:
                d[i, j], d[j, i], se_d[i, j] = mean, -mean, s
                se_d[j, i] = s
        if se[i] != se[i]:
            se_d[i, i] = _NAN
    return aucs, se, d, se_d


def _root(var: float) -> float:
    return math.sqrt(var) if var == var else _NAN


def _model_placements(s, pos, neg, wp, wn, w):
    """One model's placements row by row. When the first rows hold ties, each class is
    sorted (``np.sort``, cheap); with few distinct scores (at most `_FEW_LEVELS` per class) the merge gives every run's
    placements and each row finds its run by a branch-free binary search in the class's
    distinct scores (`level_codes`, in cache); with more, `row_placements` (one argsort
    of all rows, whose random memory access is slower than those searches in cache)."""
    head = s[:4096]
    if np.unique(head).size < 0.9 * head.size:   # ties in a sample: perhaps few values
        sp, sn = s[pos], s[neg]
        pv, _, _, pcum = _runs(sp, wp)
        nv, _, _, ncum = _runs(sn, wn)
        if pv.size <= _FEW_LEVELS and nv.size <= _FEW_LEVELS:
            p_run, q_run = _merged_placements(pv, pcum, nv, ncum)
            return (p_run[level_codes(sp, pv)], q_run[level_codes(sn, nv)], _total(pcum),
                    _total(ncum))
    return row_placements(s, pos, w)


def _matrix(stats, k, alternative, level):
    """Every output of `delong_test` as k-vectors and k x k matrices, from `_statistics`
    (None: a class is missing, all ``nan``)."""
    if stats is None:
        return (np.full(k, _NAN), np.full(k, _NAN)) + tuple(np.full((k, k), _NAN)
                                                           for _ in range(6))
    aucs, se, d, se_d = stats
    z, p, low, high = (np.full((k, k), _NAN) for _ in range(4))
    one_sided = alternative != "two-sided"
    zq = normal_quantile(level if one_sided else 0.5 + 0.5 * level)
    for i in range(k):
        for j in range(k):
            diff, s = float(d[i, j]), float(se_d[i, j])
            if s > 0:
                zz = diff / s
            elif s == 0:   # identical rankings (diff 0), or both AUCs at 0 or 1
                zz = math.copysign(math.inf, diff) if diff != 0 else 0.0
            else:
                zz = _NAN
            z[i, j] = zz
            p[i, j] = _NAN if i == j else normal_p_value(zz, alternative)
            lo, hi = diff - zq * s, diff + zq * s
            if alternative == "greater":
                hi = 1.0
            elif alternative == "less":
                lo = -1.0
            low[i, j], high[i, j] = (max(-1.0, lo), min(1.0, hi)) if s == s else (_NAN, _NAN)
    return aucs, se, d, se_d, z, p, low, high


def _diff(du, w1, w0) -> float:
    if isinstance(du, int) and isinstance(w1, int) and isinstance(w0, int):
        return du / (2 * w1 * w0)
    return float(du) / (2.0 * float(w1) * float(w0))
