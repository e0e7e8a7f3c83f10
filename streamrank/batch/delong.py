"""DeLong's placements and the AUC's interval (`roc_auc_ci`); the paired test is `paired`.

**Placements.** The placement of a positive is the share of negatives it out-scores, the
placement of a negative the share of positives that out-score it; ties count one half,
as in `roc_auc_score`. They are computed here in *half pairs* (`streamrank.intervals`):
``p_i = 2 W0(s < s_i) + W0(s == s_i)``, ``q_j = 2 W1(s > s_j) + W1(s == s_j)``, integers
with unit or integer weights. One sort per class and one linear merge of the two classes'
distinct sorted scores: ``O(n log n)``, instead of the ``O(n_pos n_neg)`` pair matrix, and
without the three midrank passes per model of the usual implementation of
Sun & Xu (2014). While int64 holds them, their moments (sums of placements, of their
squares, of the products of two models' placements) are exact Python ints (`int_sum`),
and `streamrank.intervals` turns them into DeLong's variance and covariance without
cancellation. Past that (class weights from about ``2**30``), each class's
`placement_spread` is computed in a scaled domain, from exact deviations of its
placements, and `streamrank.intervals.delong_spread_se` gives the standard error: no
weight overflows anything, and an exact variance of 0 gives a standard error of 0.

**Weights** are frequency weights: an integer weight ``k`` is exactly ``k`` copies of the
row; weight 0 drops it. Any whole number float64 holds is taken (the placements are
int64 while the total stays below ``2**62``, Python ints beyond). DeLong's variance is not
defined for other weights (its ``W - 1`` denominators count samples): `roc_auc_ci` and
`delong_test` refuse them, naming ``sample_weight``; `bootstrap_ci` takes any
nonnegative weights.

References
----------
E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44 (1988) 837-845.
X. Sun and W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under
correlated receiver operating characteristic curves", IEEE Signal Processing Letters 21
(2014) 1389-1393.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _cplacements
from ._kernels import count_pairs, int_sum, run_starts, scale_weights
from .._validation import (as_score_column, check_binary_labels, check_consistent_length,
                           check_int, check_level, check_option, check_weights, param_error)
from ..exceptions import UndefinedMetricWarning
from ..intervals import (AUCInterval, delong_spread_se, delong_variance, hanley_mcneil_se,
                         logit_interval, scaled_ratio)

__all__ = ["as_exact_weights", "class_placements", "delong_auc_variance",
           "integer_weights", "placement_moments", "placement_spread", "roc_auc_ci",
           "row_placements"]

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
    return int(t) if cum.dtype.kind in "iO" else float(t)


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
    go back to the rows (`streamrank.batch._cplacements.row_placements`, in C). ``w``:
    None, int64 (exact) or float64 positive weights. Both classes non-empty. Runtime
    complexity: ``O(n log n)``, one argsort and two ``O(n)`` passes: what the paired test
    needs to align two models' placements row by row.
    """
    vals, w1, w0 = _cplacements.row_placements(s, pos, np.argsort(s), w)
    return vals[pos], vals[~pos], w1, w0


def _int64_exact(w, a, b=None) -> bool:
    """Whether `_wsum` sums ``w a b`` exactly in int64 arithmetic: integer arrays whose
    products stay below ``2**62`` (the weights' product split in two halves of 31 bits
    where needed). O(n) for the maxima."""
    if a.dtype.kind != "i" or (w is not None and w.dtype.kind != "i") or \
            (b is not None and b.dtype.kind != "i"):
        return False
    if a.size == 0:
        return True
    tmax = int(a.max()) * (1 if b is None else int(b.max()))
    if tmax >= _EXACT:
        return False
    return w is None or tmax * int(w.max()) < _EXACT or int(w.max()) < 1 << 31


def _wsum(w, a, b=None):
    """``sum w a b`` (``b`` omitted: ``sum w a``) of nonnegative arrays: an exact Python
    int where `_int64_exact` holds (terms split in two halves of 31 bits when their product
    with the weights could leave int64), a float64 sum otherwise."""
    if a.size == 0:
        return 0
    if _int64_exact(w, a, b):
        t = a if b is None else a * b
        if w is None:
            return int_sum(t)
        if int(t.max()) * int(w.max()) < _EXACT:
            return int_sum(t * w)
        return (int_sum((t >> 31) * w) << 31) + int_sum((t & ((1 << 31) - 1)) * w)
    t = a.astype(np.float64) if b is None else a.astype(np.float64) * b
    return float(t.sum() if w is None else np.dot(w.astype(np.float64), t))


def _scaled(a, d) -> np.ndarray:
    """``a / d`` as float64 for an int64, Python-int (object) or float array ``a`` and a
    positive number ``d``: each value rounded once from its exact quotient for Python
    ints. O(n)."""
    if a.dtype.kind == "O":
        return np.true_divide(a, d).astype(np.float64)
    return a.astype(np.float64) / float(d)


def placement_spread(p, w, total, scale) -> tuple[float, tuple[float, int]]:
    """``(mean, spread)`` of one class's placements ``p`` (weights ``w`` summing to
    ``total``; None: unit weights) in units of ``scale`` (twice the other class's weight):
    ``mean = sum w p / (total scale)``, the AUC (of placement differences: the difference
    of two AUCs), and ``spread = sum w (p / scale - mean)**2 / total`` as ``(m, e)``, the
    value ``m 2**-e`` (`streamrank.intervals.scaled_ratio`), what
    `streamrank.intervals.delong_spread_se` takes.

    Computed in a scaled domain: the placements' deviations from the placement of the
    heaviest row are exact (integers stay integers: int64, or Python ints past
    ``2**62``), divided by the largest of them, and their spread is a two-pass sum around
    their mean with its correction term (Chan, Golub and LeVeque); the scale comes back
    as a power of two. So nothing overflows or underflows at any weight, the spread is
    accurate to rounding relative to itself (the heaviest row holds at least ``1 / n`` of
    the weight, so the mean is within ``sqrt(n)`` standard deviations of it), and a class
    whose placements are all equal has a spread of exactly 0. Runtime: ``O(n)``.
    """
    if w is None:
        w = np.ones(p.size, dtype=np.int64)
    ref = p[int(np.argmax(w))]
    d = p - ref
    top = max(d.max(), -d.min())
    ref_mean = (int(ref) / int(scale)) if d.dtype.kind in "iO" else float(ref) / scale
    if top == 0:
        return ref_mean, (0.0, 0)
    x = _scaled(d, top)
    share = _scaled(w, total)
    m = float(np.dot(share, x))
    r = x - m
    c = float(np.dot(share, r))
    spread = max(0.0, float(np.dot(share, r * r)) - c * c)
    f, e = scaled_ratio(int(top) if d.dtype.kind in "iO" else float(top), scale)
    return ref_mean + math.ldexp(m * f, -e), (spread * f * f, 2 * e)


def placement_moments(p, q, wp, wn):
    """``(U, Q1, Q0)``: ``sum w p`` over the positives, ``sum w p^2`` and ``sum w q^2``
    (exact ints with integer placements, `_wsum`). ``U`` is also ``sum w q``."""
    return _wsum(wp, p), _wsum(wp, p, p), _wsum(wn, q, q)


def delong_auc_variance(sp, wp, sn, wn) -> tuple[float, float]:
    """DeLong's ``(auc, variance)`` of validated class arrays (both non-empty; positive
    weights, None, int64, Python ints or float64). ``O(n log n)``. The variance is
    ``nan`` when a class has weight ``<= 1``."""
    return _delong_auc(sp, wp, sn, wn)[:2]


def _delong_auc(sp, wp, sn, wn) -> tuple[float, float, float]:
    """DeLong's ``(auc, variance, standard error)`` of validated class arrays, from the
    placements of each run of tied scores: exact integer moments (`placement_moments`,
    `streamrank.intervals.delong_variance`) while int64 holds them, else each class's
    `placement_spread` (`streamrank.intervals.delong_spread_se`). ``O(n log n)``."""
    p, q, w1, w0, wps, wns = class_placements(sp, wp, sn, wn, input_order=False)
    if _int64_exact(wps, p, p) and _int64_exact(wns, q, q):
        u, q1, q0 = placement_moments(p, q, wps, wns)
        var = delong_variance(w1, w0, u, q1, u, q0)
        return _auc(u, w1, w0), var, math.sqrt(var) if var == var else _NAN
    auc, spread_pos = placement_spread(p, wps, w1, 2 * w0)
    spread_neg = placement_spread(q, wns, w0, 2 * w1)[1]
    se = delong_spread_se(spread_pos, w1, spread_neg, w0)
    return min(1.0, max(0.0, auc)), se * se, se


def _auc(u, w1, w0) -> float:
    if isinstance(u, int) and isinstance(w1, int) and isinstance(w0, int):
        return u / (2 * w1 * w0)   # exact rational, one rounding
    return min(1.0, max(0.0, float(u) / (2.0 * float(w1) * float(w0))))


# --------------------------------------------------------------------------- inputs
def integer_weights(w, func):
    """Validated weights as exact integers: int64 (`as_exact_weights`), or Python ints (an
    object array) when their total reaches ``2**62`` (None stays None); `ValueError`
    naming ``sample_weight`` for weights that are not whole numbers: DeLong's and
    Hanley-McNeil's variances take frequency weights only. Zero weights are kept (callers
    drop them)."""
    if w is None:
        return None
    bad = w != np.floor(w)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        hint = ("; method='bootstrap' takes any weights" if func == "roc_auc_ci" else
                "; streamrank.bootstrap_ci takes any weights")
        raise param_error("sample_weight", func, "whole numbers (frequency weights: a "
                          "weight k is k copies of the row) for the DeLong and "
                          "Hanley-McNeil variances" + hint, f"{w[i]!r} at index {i}")
    exact = as_exact_weights(w)
    return exact if exact.dtype.kind == "i" else np.array([int(v) for v in w.tolist()],
                                                           dtype=object)


def as_exact_weights(w):
    """Float64 weights as int64 when they are whole numbers whose total stays below
    ``2**62``: the placements (at most twice a class's weight) are then exact int64.
    Other weights (and None) are returned as they are. Runtime: ``O(n)``."""
    if w is None or w.dtype.kind == "i" or not w.size:
        return w
    if float(w.max()) >= _EXACT or not (w == np.floor(w)).all():
        return w
    exact = w.astype(np.int64)
    return exact if int_sum(exact) < _EXACT else w


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


def _class_weight(w) -> int:
    """The exact total of a class's integer weights (int64 or Python ints)."""
    return int_sum(w) if w.dtype.kind == "i" else int(w.sum())


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
      placement moments (`streamrank.intervals.delong_variance`), or at weights whose
      moments leave int64 in a scaled domain (module docstring): any whole-number weight
      gives a finite standard error, 0 where the exact variance is 0;
    * ``"hanley-mcneil"``: Hanley & McNeil's (1982) formula from the AUC and the class
      sizes (exact for exponential-shaped scores, a quick estimate otherwise);
    * ``"bootstrap"``: `bootstrap_ci` of the AUC (BCa, resampling each class separately).

    The DeLong and Hanley-McNeil intervals are Wald intervals on the logit scale
    (`streamrank.intervals.logit_interval`): never outside ``[0, 1]``, and the single
    point ``(A, A)`` where the variance is 0: at ``A = 0`` or ``1``, and (DeLong) when
    every score is tied, a model that does not rank (``A = 1/2``).

    Runtime complexity: ``O(n log n)`` for ``"delong"`` (one ``np.sort`` per class and a
    linear merge of their distinct scores), as `roc_auc_score` for ``"hanley-mcneil"``, and ``n_resamples``
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
        The `Interval` of ``metric="auc"`` (``auc`` its ``estimate``). All ``nan`` (with
        an `UndefinedMetricWarning`) when one class is missing; ``se`` and the bounds
        ``nan`` when a class has a single sample (weight 1).

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
    n_resamples = check_int(n_resamples, "n_resamples", func, minimum=2)
    pos = check_binary_labels(y_true, pos_label, func)
    s = as_score_column(y_score, "y_score", func).astype(np.float64, copy=False)
    n = check_consistent_length(func, y_true=pos, y_score=s)
    w = check_weights(sample_weight, n, func)
    if method == "bootstrap":
        from .bootstrap import bootstrap_arrays

        ci = bootstrap_arrays("auc", pos, s, w, level, n_resamples, "BCa", random_state,
                              True, func)
        assert isinstance(ci, AUCInterval)      # make_interval's interval of "auc"
        return ci
    w = integer_weights(w, func)
    split = _split(pos, s, w)
    if split is None:
        _undefined(func)
        return AUCInterval(_NAN, _NAN, _NAN, _NAN, method, level)
    if method == "delong":
        auc, _, se = _delong_auc(*split)
    else:
        auc = count_pairs(pos, s, None if w is None
                          else scale_weights(w.astype(np.float64))[0]).auc
        w1 = split[0].size if w is None else _class_weight(split[1])
        w0 = split[2].size if w is None else _class_weight(split[3])
        se = hanley_mcneil_se(auc, w1, w0) if w1 > 1 and w0 > 1 else _NAN
    low, high = logit_interval(auc, se, level)
    return AUCInterval(auc, low, high, se, method, level)
