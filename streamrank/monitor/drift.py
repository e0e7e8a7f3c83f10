"""Is the current window's ROC AUC lower than a reference window's? Two variances, one test.

An AUC estimated from ``n_pos`` positives and ``n_neg`` negatives has a sampling variance;
two AUCs from *independent, disjoint* windows (a frozen reference window and the current
window) differ by ``d = A - A_ref`` with variance ``Var(A) + Var(A_ref)``. The one-sided
test of ``H0: AUC >= AUC_ref`` against ``H1: AUC < AUC_ref`` uses::

    z = (A - A_ref) / sqrt(Var(A) + Var(A_ref)),      p = Phi(z)

(``Phi`` the standard normal CDF): a small p-value says the current window ranks worse
than the reference did. Two estimates of ``Var(A)`` are offered.

* **Hanley & McNeil (1982)**, `hanley_mcneil_variance`: from the AUC and the class sizes
  only, ``O(1)``, so it is available from the exact running counts at any moment::

      Q1 = A / (2 - A),    Q2 = 2 A^2 / (1 + A)
      Var(A) = [A (1 - A) + (n_pos - 1)(Q1 - A^2) + (n_neg - 1)(Q2 - A^2)] / (n_pos n_neg)

  It assumes the two score distributions are (roughly) exponential-shaped; it is the
  standard quick estimate, accurate to a few ten per cent on most data.

* **DeLong, DeLong & Clarke-Pearson (1988)**, `delong_variance`: the nonparametric
  variance from the *placement values* of each sample (the share of the other class it
  beats, ties counting one half)::

      V10_i = [W0(s < s_i) + W0(s == s_i) / 2] / W0     for each positive i
      V01_j = [W1(s > s_j) + W1(s == s_j) / 2] / W1     for each negative j
      A     = sum_i w_i V10_i / W1
      S10   = sum_i w_i (V10_i - A)^2 / (W1 - 1),   S01 = sum_j w_j (V01_j - A)^2 / (W0 - 1)
      Var(A) = S10 / W1 + S01 / W0

  ``W1``, ``W0`` are the positive and negative weight sums (the class sizes with unit
  weights). Runtime complexity ``O(n log n)``: one sort per class and a binary search of
  every sample in the other class's sorted scores (in the spirit of Sun & Xu 2014's fast
  DeLong, with sorts instead of midranks), instead of the ``O(n_pos n_neg)`` pair matrix.
  The placements and the formulas are those of `streamrank.roc_auc_ci` and
  `streamrank.delong_test` (`streamrank.batch.delong`, `streamrank.intervals`), where the
  paired test of two models on the same samples lives.

**Non-binary labels** (a `Monitor` whose window or reference holds a third label value)
are tested by `auc_drop_test` too, on Harrell's concordance ``(C + T/2) / P`` with the
U-statistic variance of `streamrank.concordance_variance` (`streamrank.monitor._ordinal`).

**Weights** are *frequency* weights in both: a sample of integer weight ``k`` gives
exactly the variance of ``k`` copies of it (``n_pos``, ``n_neg`` are weight sums).

**Ties** in score between the classes count one half in the AUC and in the placements,
as in `streamrank.roc_auc_score` and ``sklearn.metrics.roc_auc_score``.

**Degenerate windows** (one class only, no samples, a non-finite AUC) give ``nan``
variances and an all-``nan`` `AUCComparison` (``p_value`` nan); nothing here raises or
warns for them. DeLong's ``S10`` needs ``W1 > 1`` (and ``S01`` ``W0 > 1``): a class of
weight ``<= 1`` gives ``nan`` too.

References
----------
J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a receiver operating
characteristic (ROC) curve", Radiology 143 (1982) 29-36.
E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the areas under two or more
correlated receiver operating characteristic curves: a nonparametric approach",
Biometrics 44 (1988) 837-845.
X. Sun and W. Xu, "Fast implementation of DeLong's algorithm for comparing the areas under
correlated receiver operating characteristic curves", IEEE Signal Processing Letters 21
(2014) 1389-1393.

Examples
--------
>>> from streamrank.monitor.drift import hanley_mcneil_test
>>> r = hanley_mcneil_test(0.70, 300, 700, reference_auc=0.80, reference_n_pos=300,
...                        reference_n_neg=700)
>>> round(r.difference, 2), round(r.z, 2), r.p_value < 0.01
(-0.1, -3.97, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._typing import Number
from .._validation import as_1d_numeric, check_consistent_length, check_weights, param_error
from ..batch.delong import as_exact_weights, class_placements, delong_auc_variance
from ..intervals import hanley_mcneil_variance, normal_cdf, normal_quantile

__all__ = [
    "AUCComparison",
    "auc_drop_test",
    "delong_placements",
    "detectable_drop",
    "labels_to_detect",
    "delong_test",
    "delong_variance",
    "hanley_mcneil_test",
    "hanley_mcneil_variance",
    "normal_cdf",
]

_NAN = math.nan


@dataclass(frozen=True)
class AUCComparison:
    """The one-sided test that the current AUC is lower than the reference AUC.

    Attributes
    ----------
    auc, reference_auc : float
        The current and the reference window's AUC.
    difference : float
        ``auc - reference_auc`` (negative: the current window ranks worse).
    se : float
        ``sqrt(Var(auc) + Var(reference_auc))`` (independent, disjoint windows).
    z : float
        ``difference / se``; ``-inf`` / ``+inf`` when ``se == 0`` and the difference is not
        0, and 0 when both are 0.
    p_value : float
        ``Phi(z)``, in ``[0, 1]``: the probability of a difference this low or lower if the
        true AUC had not dropped. ``nan`` when either AUC or variance is undefined.
    """

    auc: float
    reference_auc: float
    difference: float
    se: float
    z: float
    p_value: float


def _binary_split(y_true, y_score, sample_weight, func):
    """Validated scores and weights of each class: ``(s_pos, w_pos, s_neg, w_neg)``, or
    ``None`` when fewer than two classes are present. The higher label is positive."""
    y = as_1d_numeric(y_true, "y_true", func, allow_empty=True)
    s = as_1d_numeric(y_score, "y_score", func, allow_empty=True).astype(np.float64,
                                                                         copy=False)
    n = check_consistent_length(func, y_true=y, y_score=s)
    w = check_weights(sample_weight, n, func)
    if y.size:
        lo, hi = y.min(), y.max()   # two O(n) passes instead of a sort (np.unique)
        if lo != hi and not ((y == lo) | (y == hi)).all():
            levels = np.unique(y)
            raise param_error("y_true", func, "binary (at most two distinct labels)",
                              f"{levels.size} labels such as {levels[:3].tolist()}")
    if w is not None and not (w > 0).all():
        keep = w > 0  # zero weight == the row is absent
        y, s, w = y[keep], s[keep], w[keep]
    if y.size == 0 or y.min() == y.max():
        return None
    pos = y == y.max()
    if w is None:
        return s[pos], None, s[~pos], None
    return s[pos], w[pos], s[~pos], w[~pos]


def _delong(sp, wp, sn, wn) -> tuple[float, float]:
    """DeLong's ``(auc, variance)`` of validated class arrays (both non-empty), by
    `streamrank.batch.delong.delong_auc_variance` (whole-number weights exactly)."""
    return delong_auc_variance(sp, as_exact_weights(wp), sn, as_exact_weights(wn))


def delong_placements(y_true: ArrayLike, y_score: ArrayLike, *,
                      sample_weight: ArrayLike | None = None,
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """DeLong's placement values ``(V10, V01)`` of the positives and the negatives.

    ``V10_i`` is the (weighted) share of negatives that positive ``i`` out-scores, ties one
    half; ``V01_j`` the share of positives that out-score negative ``j``. The AUC is the
    weighted mean of either. Runtime complexity: ``O(n log n)``. Returns two empty arrays
    when a class is missing.

    >>> v10, v01 = delong_placements([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8])
    >>> v10.tolist(), v01.tolist()
    ([0.75, 1.0], [1.0, 0.75])
    """
    split = _binary_split(y_true, y_score, sample_weight, "delong_placements")
    if split is None:
        return np.empty(0), np.empty(0)
    sp, wp, sn, wn = split
    p, q, w1, w0, _, _ = class_placements(sp, as_exact_weights(wp), sn, as_exact_weights(wn))
    return p / (2.0 * w0), q / (2.0 * w1)


def delong_variance(y_true: ArrayLike, y_score: ArrayLike, *,
                    sample_weight: ArrayLike | None = None) -> tuple[float, float]:
    """``(auc, variance)``: the AUC and DeLong's (1988) nonparametric variance of it.

    See the module docstring for the formula (placements, ``S10 / W1 + S01 / W0``). Ties
    between the classes count one half; weights are frequency weights (an integer weight
    ``k`` equals ``k`` copies of the row; zero weight drops the row). The higher label is
    the positive class.

    Runtime complexity: ``O(n log n)`` (one sort per class, four binary searches per
    sample, all numpy), against ``O(n_pos n_neg)`` for the pair matrix of the textbook
    formula.

    Returns ``(nan, nan)`` with one class only, ``(auc, nan)`` when a class has weight
    ``<= 1`` (its placement variance is not estimable). Raises `ValueError` for more than
    two labels or invalid input.

    >>> auc, var = delong_variance([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.4, 0.8, 0.3, 0.2])
    >>> round(auc, 6), round(var, 6)
    (0.722222, 0.061728)
    """
    split = _binary_split(y_true, y_score, sample_weight, "delong_variance")
    if split is None:
        return _NAN, _NAN
    return _delong(*split)


def auc_drop_test(auc: Number, variance: Number, reference_auc: Number,
                  reference_variance: Number) -> AUCComparison:
    """One-sided z-test that ``auc`` is lower than ``reference_auc`` (independent windows).

    ``z = (auc - reference_auc) / sqrt(variance + reference_variance)``, ``p = Phi(z)``.
    Runtime complexity: O(1). Any ``nan`` input gives ``nan`` ``se``/``z``/``p_value``
    (never an exception).

    >>> r = auc_drop_test(0.75, 0.0004, 0.80, 0.0005)
    >>> round(r.z, 4), round(r.p_value, 4)
    (-1.6667, 0.0478)
    """
    auc, ref = float(auc), float(reference_auc)
    diff = auc - ref
    var = float(variance) + float(reference_variance)
    if not (math.isfinite(diff) and math.isfinite(var)) or var < 0:
        return AUCComparison(auc, ref, diff, _NAN, _NAN, _NAN)
    se = math.sqrt(var)
    if se > 0:
        z = diff / se
    else:  # both AUCs at 0 or 1 (zero variance): the sign of the difference decides
        z = math.copysign(math.inf, diff) if diff != 0 else 0.0
    p = min(1.0, max(0.0, normal_cdf(z)))
    return AUCComparison(auc, ref, diff, se, z, p)


def detectable_drop(reference_auc: Number, reference_variance: Number, auc: Number,
                    variance: Number, n_pos: Number, n_neg: Number, alpha: Number,
                    power: Number = 0.8) -> float:
    """The smallest drop ``D`` of a window's AUC below ``reference_auc`` that
    `auc_drop_test` at level ``alpha`` detects with probability ``power``, for a window
    of ``n_pos`` positives and ``n_neg`` negatives (weights).

    ``D = (z_(1-alpha) + z_power) sigma_D``: a window whose AUC is ``reference_auc - D``
    gives a difference that is normal around ``-D`` with standard error ``sigma_D``, and
    the test, which estimates that same standard error, alerts when the difference falls
    below ``-z_(1-alpha) sigma_D``. ``sigma_D = sqrt(v(reference_auc - D) +
    reference_variance)``, the window's variance at an AUC ``A`` taken from its
    ``variance`` now (at ``auc``) by the ratio of Hanley and McNeil's variances at ``A``
    and at ``auc`` (the Hanley-McNeil variance itself when that is the test). ``D`` solves
    the equation by fixed-point steps (``sigma_D`` moves slowly with ``D``). nan when an
    input is undefined. Runtime complexity: O(1).

    >>> from streamrank.intervals import hanley_mcneil_variance as hm
    >>> d = detectable_drop(0.8, hm(0.8, 150, 350), 0.8, hm(0.8, 150, 350), 150, 350, 0.01)
    >>> round(d, 4)
    0.1135
    """
    ref, auc, alpha, power = float(reference_auc), float(auc), float(alpha), float(power)
    hm_now = hanley_mcneil_variance(auc, n_pos, n_neg)
    if not (math.isfinite(ref) and hm_now > 0 and math.isfinite(float(variance))
            and math.isfinite(float(reference_variance)) and 0 < alpha < 1):
        return _NAN
    scale = float(variance) / hm_now

    def sigma(a: float) -> float:
        return math.sqrt(scale * hanley_mcneil_variance(a, n_pos, n_neg)
                         + float(reference_variance))

    z = normal_quantile(1 - alpha) + normal_quantile(power)
    d = z * sigma(ref)
    for _ in range(50):
        nxt = z * sigma(max(0.0, ref - d))
        if abs(nxt - d) <= 1e-12:
            break
        d = nxt
    return min(d, ref)


def labels_to_detect(drop: Number, reference_auc: Number, reference_variance: Number,
                     auc: Number, variance: Number, n_pos: Number, n_neg: Number,
                     alpha: Number, power: Number = 0.8) -> float:
    """How many more labeled predictions the window needs (its classes in the same
    proportions) before `detectable_drop` is at most ``drop``: 0 when it is already, inf
    when no window can (the reference's own variance alone is too large), nan when an
    input is undefined. The window's variance is taken to shrink as Hanley and McNeil's
    does with its counts. Runtime complexity: O(log) steps of `detectable_drop`.

    >>> from streamrank.intervals import hanley_mcneil_variance as hm
    >>> v, r = hm(0.8, 150, 350), hm(0.8, 1500, 3500)
    >>> labels_to_detect(0.05, 0.8, r, 0.8, v, 150, 350, 0.01)
    1158
    >>> labels_to_detect(0.2, 0.8, r, 0.8, v, 150, 350, 0.01)
    0
    """
    drop = float(drop)
    if not drop > 0:
        return _NAN

    hm_now = hanley_mcneil_variance(auc, n_pos, n_neg)

    def at(k: float) -> float:      # the detectable drop of a window k times as large
        n1, n0 = k * float(n_pos), k * float(n_neg)
        v = float(variance) * hanley_mcneil_variance(auc, n1, n0) / hm_now
        return detectable_drop(reference_auc, reference_variance, auc, v, n1, n0, alpha,
                               power)

    now = at(1.0) if hm_now > 0 else _NAN
    if now != now:
        return _NAN
    if now <= drop:
        return 0
    lo, hi = 1.0, 2.0
    while at(hi) > drop:
        if hi > 2.0 ** 60:          # the reference's variance alone exceeds the bound
            return math.inf
        lo, hi = hi, 2 * hi
    n = float(n_pos) + float(n_neg)
    while (hi - lo) * n > 0.5:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if at(mid) <= drop else (mid, hi)
    return math.ceil(hi * n - n)


def hanley_mcneil_test(auc: Number, n_pos: Number, n_neg: Number, *, reference_auc: Number,
                       reference_n_pos: Number, reference_n_neg: Number) -> AUCComparison:
    """`auc_drop_test` with Hanley-McNeil variances of both windows. Runtime: O(1).

    >>> hanley_mcneil_test(0.7, 0, 10, reference_auc=0.8, reference_n_pos=5,
    ...                    reference_n_neg=5).p_value
    nan
    """
    return auc_drop_test(auc, hanley_mcneil_variance(auc, n_pos, n_neg), reference_auc,
                         hanley_mcneil_variance(reference_auc, reference_n_pos,
                                                reference_n_neg))


def delong_test(y_true: ArrayLike, y_score: ArrayLike, reference_true: ArrayLike,
                reference_score: ArrayLike, *, sample_weight: ArrayLike | None = None,
                reference_weight: ArrayLike | None = None) -> AUCComparison:
    """`auc_drop_test` with DeLong variances computed from both windows' contents.

    Runtime complexity: ``O(n log n + m log m)`` for windows of ``n`` and ``m`` samples.

    >>> r = delong_test([0, 1, 0, 1], [0.2, 0.1, 0.3, 0.4],
    ...                 [0, 1, 0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8, 0.3, 0.7])
    >>> r.auc, r.reference_auc, 0.0 <= r.p_value <= 1.0
    (0.5, 1.0, True)
    """
    auc, var = delong_variance(y_true, y_score, sample_weight=sample_weight)
    ref, ref_var = delong_variance(reference_true, reference_score,
                                   sample_weight=reference_weight)
    return auc_drop_test(auc, var, ref, ref_var)
