"""DeLong's placements, the AUC's interval, and the paired test of correlated AUCs.

**Placements.** The placement of a positive is the share of negatives it out-scores, the
placement of a negative the share of positives that out-score it; ties count one half,
as in `roc_auc_score`. They are computed here in *half pairs* (`streamrank.intervals`):
``p_i = 2 W0(s < s_i) + W0(s == s_i)``, ``q_j = 2 W1(s > s_j) + W1(s == s_j)``, integers
with unit or integer weights. One sort per class and one linear merge of the two classes'
distinct sorted scores: ``O(n log n)``, instead of the ``O(n_pos n_neg)`` pair matrix, and
without the three midrank passes per model of the usual implementation of
Sun & Xu (2014). Their moments (sums of placements, of their squares, of the products of
two models' placements) are exact Python ints (`int_sum`), and `streamrank.intervals`
turns them into DeLong's variance and covariance without cancellation.

**Weights** are frequency weights: an integer weight ``k`` is exactly ``k`` copies of the
row; weight 0 drops it. DeLong's variance is not defined for other weights (its
``W - 1`` denominators count samples): `roc_auc_ci` and `delong_test` refuse them, naming
``sample_weight``; `bootstrap_ci` takes any nonnegative weights.

References
----------
E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44 (1988) 837-845.
X. Sun and W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under
correlated receiver operating characteristic curves", IEEE Signal Processing Letters 21
(2014) 1389-1393.
S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
of Statistics 6 (1979) 65-70.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ._kernels import count_pairs, int_sum, run_starts, scale_weights
from .._validation import (as_1d_numeric, as_score_column, check_binary_labels,
                           check_consistent_length, check_int, check_level, check_option,
                           check_weights, describe, param_error)
from ..exceptions import UndefinedMetricWarning
from ..intervals import (ALTERNATIVES, AUCInterval, delong_variance, hanley_mcneil_variance,
                         logit_interval, normal_p_value, normal_quantile)

__all__ = ["PairedAUCMatrix", "PairedAUCTest", "as_exact_weights", "class_placements",
           "delong_auc_variance", "delong_test", "integer_weights", "placement_moments",
           "roc_auc_ci", "row_placements"]

_NAN = math.nan
METHODS = ("delong", "hanley-mcneil", "bootstrap")
_EXACT = 2 ** 62


# --------------------------------------------------------------------------- kernel
def _runs(s, w):
    """The runs of tied scores of one class: ``(distinct values, run lengths, run
    weights, cumulative run weights with a leading 0)``; one ``np.sort`` with unit
    weights, one argsort with weights."""
    if w is None:
        ss, ws = np.sort(s), None
    else:
        order = np.argsort(s)
        ss, ws = s[order], w[order]
    starts = run_starts(ss)
    lengths = np.diff(starts, append=ss.size)
    size = lengths if ws is None else np.add.reduceat(ws, starts)
    cum = np.empty(size.size + 1, dtype=size.dtype)
    cum[0] = 0
    np.cumsum(size, out=cum[1:])
    return ss[starts], lengths, size, cum


def _merged_placements(pv, pcum, nv, ncum):
    """Half-pair placements of each distinct positive and negative score.

    ``pv``, ``nv``: the classes' distinct scores, sorted; ``pcum``, ``ncum``: their
    cumulative run weights with a leading 0. One merge of the two sorted arrays (a stable
    argsort of their concatenation, which timsort does in linear time), negatives first
    among equal values: a positive value ``x`` at merged position ``k`` (the ``i``-th
    positive value) has ``r = k - i`` negative values ``<= x``, the last of them equal
    to ``x`` when the classes tie there; the same, mirrored, for the negatives.
    """
    both = np.concatenate((nv, pv))
    order = np.argsort(both, kind="stable")
    is_pos = order >= nv.size
    r = np.flatnonzero(is_pos)
    r -= np.arange(pv.size)                    # negative values <= each positive value
    rn = np.flatnonzero(~is_pos)
    rn -= np.arange(nv.size)                   # positive values < each negative value
    # ties between the classes: the negative value just below (or at) x equals x
    tie_p = r > 0
    tie_p[tie_p] = nv[r[tie_p] - 1] == pv[tie_p]
    tie_n = rn < pv.size
    tie_n[tie_n] = pv[rn[tie_n]] == nv[tie_n]
    nsize = np.diff(ncum)
    psize = np.diff(pcum)
    p = 2 * ncum[r]
    p[tie_p] -= nsize[r[tie_p] - 1]            # 2 W0(< x) + W0(== x)
    q = 2 * (pcum[-1] - pcum[rn])
    q[tie_n] -= psize[rn[tie_n]]               # 2 W1(> x) + W1(== x)
    return p, q


def _total(cum):
    t = cum[-1]
    return int(t) if cum.dtype.kind == "i" else float(t)


def class_placements(sp, wp, sn, wn, *, input_order=True):
    """Half-pair placements ``(p, q, W1, W0, wp, wn)`` of the positives and the negatives.

    ``sp``, ``sn``: the classes' float64 scores (both non-empty); ``wp``, ``wn``: their
    positive weights, or None (unit weights). Integer weights are passed as int64 arrays
    (`as_exact_weights`): the placements are then exact int64, as with unit weights;
    float weights give float64 placements. ``W1``, ``W0`` are the class weights (ints or
    floats).

    With ``input_order=True`` ``p`` and ``q`` hold one placement per sample, in input
    order, with the weights given. With ``input_order=False`` they hold one placement per
    *run of tied scores* of the class, in score order, and ``wp``, ``wn`` come back as
    the runs' weights (their lengths with unit weights): sums over samples, all a variance
    needs, are the same, and the merge runs on distinct values only.

    Runtime complexity: ``O(n log n)``: one sort per class (``np.sort``, an argsort with
    weights) and one linear merge of the classes' distinct scores; with ``input_order``,
    `row_placements` (one argsort of both classes).
    """
    if input_order:
        s = np.concatenate((sp, sn))
        pos = np.zeros(s.size, dtype=bool)
        pos[:sp.size] = True
        w = None if wp is None else np.concatenate((wp, wn))
        p, q, w1, w0 = row_placements(s, pos, w)
        return p, q, w1, w0, wp, wn
    pv, plen, psize, pcum = _runs(sp, wp)
    nv, nlen, nsize, ncum = _runs(sn, wn)
    w1, w0 = _total(pcum), _total(ncum)
    p, q = _merged_placements(pv, pcum, nv, ncum)
    return p, q, w1, w0, psize, nsize


def row_placements(s, pos, w):
    """Half-pair placements ``(p, q, W1, W0)`` of every positive and every negative, each
    class in input order (``p`` of ``s[pos]``, ``q`` of ``s[~pos]``).

    One argsort of all the scores; in that order, the runs of tied scores and running
    sums of each class's weight give every run's placements (``2 W0(below) + W0(in the
    run)`` for its positives, ``2 W1(above) + W1(in the run)`` for its negatives), which
    go back to the rows through the argsort. ``w``: None, int64 (exact) or float64
    positive weights. Both classes non-empty. Runtime complexity: ``O(n log n)``, one
    argsort and ``O(n)`` passes: what the paired test needs to align two models'
    placements row by row.
    """
    order = np.argsort(s)
    ss, lab = s[order], pos[order]
    starts = run_starts(ss)
    if w is None and starts.size == ss.size:   # no tied scores: every run is one sample
        cp = np.cumsum(lab)                     # positives up to and including i
        w1 = int(cp[-1])
        w0 = ss.size - w1
        # a positive at i has i + 1 - cp[i] negatives below; a negative, w1 - cp[i] above
        sorted_vals = np.where(lab, np.arange(1, ss.size + 1) - cp, w1 - cp)
        sorted_vals *= 2
    else:
        ends = np.append(starts[1:], ss.size)
        if w is None:
            cp = np.empty(ss.size + 1, dtype=np.int64)
            cp[0] = 0
            np.cumsum(lab, out=cp[1:])
            p_before, p_in = cp[starts], cp[ends] - cp[starts]
            n_before = starts - p_before
            n_in = (ends - starts) - p_in
            w1, w0 = int(cp[-1]), int(ss.size - cp[-1])
        else:
            ws = w[order]
            cp = np.concatenate(([0], np.cumsum(np.where(lab, ws, 0))))
            cn = np.concatenate(([0], np.cumsum(np.where(lab, 0, ws))))
            p_before, p_in = cp[starts], cp[ends] - cp[starts]
            n_before, n_in = cn[starts], cn[ends] - cn[starts]
            w1, w0 = _total(cp), _total(cn)
        lengths = ends - starts
        pr = np.repeat(2 * n_before + n_in, lengths)
        qr = np.repeat(2 * (w1 - p_before) - p_in, lengths)
        sorted_vals = np.where(lab, pr, qr)
    vals = np.empty(ss.size, dtype=sorted_vals.dtype)
    vals[order] = sorted_vals
    neg = ~pos
    return vals[pos], vals[neg], w1, w0


def _wsum(w, a, b=None):
    """``sum w a b`` (``b`` omitted: ``sum w a``) of nonnegative arrays: an exact Python
    int for integer arrays (terms split in two halves of 31 bits when their product with
    the weights could leave int64), a float64 sum otherwise."""
    if a.size == 0:
        return 0
    ints = a.dtype.kind == "i" and (w is None or w.dtype.kind == "i") \
        and (b is None or b.dtype.kind == "i")
    if ints:
        amax = int(a.max())
        tmax = amax * (1 if b is None else int(b.max()))
        if tmax < _EXACT:
            t = a if b is None else a * b
            if w is None:
                return int_sum(t)
            wmax = int(w.max())
            if tmax * wmax < _EXACT:
                return int_sum(t * w)
            if wmax < 1 << 31:
                return (int_sum((t >> 31) * w) << 31) + int_sum((t & ((1 << 31) - 1)) * w)
    t = a.astype(np.float64) if b is None else a.astype(np.float64) * b
    return float(t.sum() if w is None else np.dot(w.astype(np.float64), t))


def placement_moments(p, q, wp, wn):
    """``(U, Q1, Q0)``: ``sum w p`` over the positives, ``sum w p^2`` and ``sum w q^2``
    (exact ints with integer placements, `_wsum`). ``U`` is also ``sum w q``."""
    return _wsum(wp, p), _wsum(wp, p, p), _wsum(wn, q, q)


def delong_auc_variance(sp, wp, sn, wn) -> tuple[float, float]:
    """DeLong's ``(auc, variance)`` of validated class arrays (both non-empty; positive
    weights, None, int64 or float64). ``O(n log n)``. The variance is ``nan`` when a
    class has weight ``<= 1``."""
    p, q, w1, w0, wps, wns = class_placements(sp, wp, sn, wn, input_order=False)
    u, q1, q0 = placement_moments(p, q, wps, wns)
    return _auc(u, w1, w0), delong_variance(w1, w0, u, q1, u, q0)


def _auc(u, w1, w0) -> float:
    if isinstance(u, int) and isinstance(w1, int) and isinstance(w0, int):
        return u / (2 * w1 * w0)   # exact rational, one rounding
    return min(1.0, max(0.0, float(u) / (2.0 * float(w1) * float(w0))))


# --------------------------------------------------------------------------- inputs
def integer_weights(w, func):
    """Validated weights as int64 (None stays None), or `ValueError` naming
    ``sample_weight`` for weights that are not whole numbers: DeLong's and Hanley-McNeil's
    variances take frequency weights only. Zero weights are kept (callers drop them)."""
    if w is None:
        return None
    bad = w != np.floor(w)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise param_error("sample_weight", func, "whole numbers (frequency weights: a "
                          "weight k is k copies of the row) for the DeLong and "
                          "Hanley-McNeil variances; method='bootstrap' takes any weights",
                          f"{w[i]!r} at index {i}")
    return as_exact_weights(w)


def as_exact_weights(w):
    """Float64 weights as int64 when they are whole numbers whose sum float64 holds
    exactly (below ``2**53``): the placements and their moments are then exact integers.
    Other weights (and None) are returned as they are. Runtime: ``O(n)``."""
    if w is None or w.dtype.kind == "i" or not w.size:
        return w
    if float(w.sum()) >= 2.0 ** 53 or not (w == np.floor(w)).all():
        return w
    return w.astype(np.int64)


def _split(pos, s, w):
    """``(sp, wp, sn, wn)`` without zero-weight rows, or None when a class is empty."""
    if w is not None:
        keep = w > 0
        if not keep.all():
            pos, s, w = pos[keep], s[keep], w[keep]
    if not pos.any() or pos.all():
        return None
    if w is None:
        return s[pos], None, s[~pos], None
    return s[pos], w[pos], s[~pos], w[~pos]


def _undefined(func):
    warnings.warn(f"Only one class is present in y_true (with nonzero weight): the ROC AUC "
                  f"and its interval are undefined in {func}; returning nan.",
                  UndefinedMetricWarning, stacklevel=3)


# --------------------------------------------------------------------------- intervals
def roc_auc_ci(y_true, y_score, *, sample_weight=None, level=0.95, method="delong",
               pos_label=None, n_resamples=1000, random_state=None) -> AUCInterval:
    """ROC AUC with its standard error and a confidence interval inside ``[0, 1]``.

    The AUC is `roc_auc_score`'s, ties in score counting one half. Its standard error:

    * ``"delong"``: DeLong, DeLong & Clarke-Pearson's (1988) nonparametric variance, from
      the placement values of every sample (ties one half), computed from exact integer
      placement moments (`streamrank.intervals.delong_variance`);
    * ``"hanley-mcneil"``: Hanley & McNeil's (1982) formula from the AUC and the class
      sizes (exact for exponential-shaped scores, a quick estimate otherwise);
    * ``"bootstrap"``: `bootstrap_ci` of the AUC (BCa, resampling each class separately).

    The DeLong and Hanley-McNeil intervals are Wald intervals on the logit scale
    (`streamrank.intervals.logit_interval`): never outside ``[0, 1]``, and the single
    point ``(A, A)`` at ``A = 0`` or ``1``, where these variances are 0.

    Runtime complexity: ``O(n log n)`` for ``"delong"`` (one sort per class, a binary
    search per sample), as `roc_auc_score` for ``"hanley-mcneil"``, and ``n_resamples``
    pair counts (plus a jackknife of ``n`` for BCa) for ``"bootstrap"``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary class labels of any type, as in `roc_auc_score`.
    y_score : array-like of shape (n,) or (n, 1)
        Finite scores; higher means "more likely positive".
    sample_weight : array-like of shape (n,), optional
        Frequency weights: whole numbers, a weight ``k`` counting as ``k`` copies of the
        row (``ValueError`` otherwise, except with ``"bootstrap"``).
    level : float in (0, 1)
        The confidence level.
    method : {"delong", "hanley-mcneil", "bootstrap"}
    pos_label : label, optional
        The positive class; by default the greater label, as in `roc_auc_score`.
    n_resamples : int
        Bootstrap resamples (``"bootstrap"`` only).
    random_state : None, int or numpy Generator
        The bootstrap's random numbers (``"bootstrap"`` only): an int repeats the interval.

    Returns
    -------
    AUCInterval
        All ``nan`` (with an `UndefinedMetricWarning`) when one class is missing; ``se``
        and the bounds ``nan`` when a class has a single sample (weight 1).

    Examples
    --------
    >>> from streamrank import roc_auc_ci
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.5, 0.5]
    >>> r = roc_auc_ci(y, s)
    >>> r.auc, round(r.se, 4), round(r.low, 4), round(r.high, 4)
    (0.84375, 0.151, 0.3641, 0.9807)
    >>> roc_auc_ci(y, s, method="hanley-mcneil").method
    'hanley-mcneil'
    """
    func = "roc_auc_ci"
    method = check_option(method, "method", func, METHODS)
    level = check_level(level, func)
    n_resamples = check_int(n_resamples, "n_resamples", func)
    pos = check_binary_labels(y_true, pos_label, func)
    s = as_score_column(y_score, "y_score", func).astype(np.float64, copy=False)
    n = check_consistent_length(func, y_true=pos, y_score=s)
    w = check_weights(sample_weight, n, func)
    if method == "bootstrap":
        from .bootstrap import bootstrap_arrays

        return bootstrap_arrays("auc", pos, s, w, level, n_resamples, "BCa", random_state,
                                True, func)
    w = integer_weights(w, func)
    split = _split(pos, s, w)
    if split is None:
        _undefined(func)
        return AUCInterval(_NAN, _NAN, _NAN, _NAN, method, level)
    if method == "delong":
        auc, var = delong_auc_variance(*split)
    else:
        auc = count_pairs(pos, s, None if w is None
                          else scale_weights(w.astype(np.float64))[0]).auc
        w1 = split[0].size if w is None else float(split[1].sum())
        w0 = split[2].size if w is None else float(split[3].sum())
        var = hanley_mcneil_variance(auc, w1, w0) if w1 > 1 and w0 > 1 else _NAN
    se = math.sqrt(var) if var == var else _NAN
    low, high = logit_interval(auc, se, level)
    return AUCInterval(auc, low, high, se, method, level)


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
    variance of ``d`` is computed directly from the moments of the placement
    *differences*, in exact integers, so that two nearly identical models do not
    lose it to cancellation.

    Runtime complexity: ``O(k n log n + k^2 n)``: one sort per class and model, a binary
    search per sample, and one product sum per pair of models.

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
        res = _matrix(_moments(pos, S, w), k, alternative, level)
    aucs, se, d, se_d, z, p, low, high = res
    if y_score_b is not None:
        return PairedAUCTest(float(aucs[0]), float(aucs[1]), float(d[0, 1]),
                             float(se_d[0, 1]), float(z[0, 1]), float(p[0, 1]),
                             float(low[0, 1]), float(high[0, 1]), alternative, level)
    if adjust == "holm":
        p = _holm(p, alternative)
    return PairedAUCMatrix(aucs, se, d, se_d, z, p, alternative, adjust)


def _moments(pos, S, w):
    """``(W1, W0, U, Xp, Xn)`` of the k models: class weights, each model's placement sum
    and the k x k sums of products of placements over the positives and the negatives."""
    wp, wn = (None, None) if w is None else (w[pos], w[~pos])
    k = len(S)
    ps, qs, U = [], [], []
    for j in range(k):
        p, q, w1, w0 = row_placements(S[j], pos, w)
        ps.append(p)
        qs.append(q)
        U.append(_wsum(wp, p))
    Xp = [[None] * k for _ in range(k)]
    Xn = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            Xp[i][j] = Xp[j][i] = _wsum(wp, ps[i], ps[j])
            Xn[i][j] = Xn[j][i] = _wsum(wn, qs[i], qs[j])
    return w1, w0, U, Xp, Xn


def _matrix(mom, k, alternative, level):
    """Every output of `delong_test` as k-vectors and k x k matrices."""
    aucs, se = np.full(k, _NAN), np.full(k, _NAN)
    d, se_d, z, p, low, high = (np.full((k, k), _NAN) for _ in range(6))
    if mom is None:
        return aucs, se, d, se_d, z, p, low, high
    w1, w0, U, Xp, Xn = mom
    for i in range(k):
        aucs[i] = _auc(U[i], w1, w0)
        var = delong_variance(w1, w0, U[i], Xp[i][i], U[i], Xn[i][i])
        se[i] = math.sqrt(var) if var == var else _NAN
    one_sided = alternative != "two-sided"
    zq = normal_quantile(level if one_sided else 0.5 + 0.5 * level)
    for i in range(k):
        for j in range(k):
            du = U[i] - U[j]
            diff = _diff(du, w1, w0)
            var = delong_variance(w1, w0, du, Xp[i][i] - 2 * Xp[i][j] + Xp[j][j], du,
                                  Xn[i][i] - 2 * Xn[i][j] + Xn[j][j])
            s = math.sqrt(var) if var == var else _NAN
            d[i, j], se_d[i, j] = diff, s
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
            low[i, j], high[i, j] = max(-1.0, lo), min(1.0, hi)
    return aucs, se, d, se_d, z, p, low, high


def _diff(du, w1, w0) -> float:
    if isinstance(du, int) and isinstance(w1, int) and isinstance(w0, int):
        return du / (2 * w1 * w0)
    return float(du) / (2.0 * float(w1) * float(w0))
