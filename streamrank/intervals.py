"""How sure is the number: the result type of an interval and the formulas behind it.

Nothing here looks at data: the batch functions (`streamrank.roc_auc_ci`,
`streamrank.delong_test`) and any incremental engine compute their sums and call the same
formulas, so every path gives the same interval for the same data.

* `Interval`: the result of every interval: a metric's estimate with its standard error
  and interval (``metric``, ``estimate``, ``low``, ``high``, ``se``, ``method``,
  ``level``); `AUCInterval`, its subclass for the ROC AUC (``metric == "auc"``, with
  ``auc`` the estimate); `make_interval` builds the right one of a metric's name.
* `normal_cdf`, `normal_quantile`, `normal_p_value`: the standard normal, from the
  standard library (`statistics.NormalDist`, ``math.erfc``); no scipy.
* `logit_interval`: the Wald interval of a proportion on the logit scale, mapped back, so
  that it stays inside ``[0, 1]`` (a plain ``A +- z se`` steps above 1 near ``A = 1``).
* `hanley_mcneil_variance`, `hanley_mcneil_se`: the variance of an AUC (its standard
  error) from the AUC and the class sizes.
* `delong_covariance`, `delong_variance`: DeLong's (1988) variance and covariance of AUCs
  from the *placement moments* of each class: its weight, the sums of its placements and
  of their squares (or cross products, for two models). In exact integer arithmetic when
  the sums are integers, so ``W1 Q1 - U^2`` does not cancel.
* `delong_spread_se`: DeLong's standard error from each class's *placement spread* (the
  weighted variance of its placement values), the form a batch computes when the moments
  would leave int64 (`streamrank.batch.delong`).

**Any class weight.** Class weights enter as ``1 / W`` scaled by a power of two
(``m 2**-e``, `scaled_ratio`), and a variance as a sum of such terms brought to its
largest power of two: nothing overflows or underflows however large the weights (Python
ints of any size, or floats), and a standard error is the square root of that scaled sum,
so it is correct even where the variance itself is below the smallest float.

**Placements in half pairs.** The placement of a positive ``i`` is counted here as
``p_i = 2 W0(s < s_i) + W0(s == s_i)``: twice the weight of the negatives it out-scores,
ties counting one half; DeLong's placement value is ``V10_i = p_i / (2 W0)``. The
placement of a negative ``j`` is ``q_j = 2 W1(s > s_j) + W1(s == s_j)``. With unit or
integer weights both are integers, and so are their sums: ``U = sum_i w_i p_i =
sum_j w_j q_j = 2 C + T`` (concordant and tied pairs), and ``AUC = U / (2 W1 W0)``.

References
----------
E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the areas under two or more
correlated receiver operating characteristic curves: a nonparametric approach",
Biometrics 44 (1988) 837-845.
J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a receiver operating
characteristic (ROC) curve", Radiology 143 (1982) 29-36.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


__all__ = [
    "AUCInterval",
    "Interval",
    "delong_covariance",
    "delong_spread_se",
    "delong_variance",
    "hanley_mcneil_se",
    "hanley_mcneil_variance",
    "logit_interval",
    "make_interval",
    "normal_cdf",
    "normal_p_value",
    "normal_quantile",
    "scaled_ratio",
]

_NAN = math.nan
ALTERNATIVES = ("two-sided", "greater", "less")


def _g(x: float) -> str:
    return f"{x:.6g}"


@dataclass(frozen=True, repr=False)
class Interval:
    """A rank metric's estimate, its standard error and its confidence interval: the
    result of every interval of streamrank.

    One type for every metric, ``metric`` naming which: `streamrank.bootstrap_ci` of
    ``"tau_b"`` gives ``metric="tau_b"``, `streamrank.concordance_ci` ``"c_index"`` (the
    `PairCounts.c_index` it estimates). **The ROC AUC's intervals are the subclass
    `AUCInterval`**, and only they: `streamrank.roc_auc_ci`, the counters' and windows'
    ``auc_ci()``, the River metrics' ``get_ci()`` and ``bootstrap_ci("auc", ...)`` return
    an `AUCInterval`, whose ``metric`` is always ``"auc"`` and whose ``auc`` is its
    ``estimate``; every other metric's interval is a plain `Interval`, without ``auc``.
    That is the one mechanism: ``Interval(metric="auc", ...)`` is refused (build it as
    ``AUCInterval(estimate, low, high, se, method, level)``, or by the metric's name with
    `streamrank.intervals.make_interval`), so that an AUC interval has one type, one
    repr, and compares equal to the same interval however it was computed.

    Frozen (hashable), picklable, compared field by field and by type (an interval of
    one metric never equals one of another).

    Attributes
    ----------
    metric : str
        The metric's name, a `PairCounts` property: ``"auc"``, ``"c_index"``,
        ``"tau_b"``, ``"somers_d"``, ``"gamma"``, ...
    estimate : float
        The point estimate, the same number as the batch metric of the data
        (`streamrank.roc_auc_score` for ``"auc"``, `streamrank.kendall_tau` with
        ``variant="b"`` for ``"tau_b"``, `PairCounts.c_index` for ``"c_index"``, ...).
    low, high : float
        The interval's bounds, ``low <= estimate <= high`` (``nan`` when the standard
        error is undefined).
    se : float
        The standard error of the estimate (``nan`` when undefined).
    method : str
        How it was computed: ``"delong"``, ``"hanley-mcneil"``, ``"bootstrap"``,
        ``"u-statistic"`` or ``"jackknife"``.
    level : float
        The confidence level, such as 0.95.

    Examples
    --------
    >>> Interval("tau_b", 0.41, 0.2, 0.6, 0.1, "bootstrap", 0.95)
    Interval(metric='tau_b', estimate=0.41, low=0.2, high=0.6, se=0.1, method='bootstrap',
             level=0.95)
    >>> Interval("tau_b", 0.41, 0.2, 0.6, 0.1, "bootstrap", 0.95).estimate
    0.41
    """

    metric: str
    estimate: float
    low: float
    high: float
    se: float
    method: str
    level: float

    def __post_init__(self) -> None:
        if self.metric == "auc" and not isinstance(self, AUCInterval):
            raise ValueError("The interval of the ROC AUC is an AUCInterval: build it as "
                             "AUCInterval(estimate, low, high, se, method, level), or "
                             "with make_interval('auc', ...).")

    def __repr__(self) -> str:
        return (f"Interval(metric={self.metric!r}, estimate={_g(self.estimate)}, "
                f"low={_g(self.low)}, high={_g(self.high)}, se={_g(self.se)}, "
                f"method={self.method!r}, level={self.level!r})")


@dataclass(frozen=True, repr=False, init=False)
class AUCInterval(Interval):
    """The `Interval` of a ROC AUC: ``metric`` is ``"auc"`` (fixed, not an argument) and
    ``auc`` is another name of ``estimate``.

    Built as ``AUCInterval(estimate, low, high, se, method, level)``; its repr names the
    estimate ``auc``. `Interval` says which functions return it.

    Examples
    --------
    >>> r = AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    >>> r
    AUCInterval(auc=0.8, low=0.7, high=0.88, se=0.045, method='delong', level=0.95)
    >>> r.metric, r.auc == r.estimate, r.high, isinstance(r, Interval)
    ('auc', True, 0.88, True)
    """

    metric: str = field(default="auc", init=False)

    def __init__(self, estimate: float, low: float, high: float, se: float, method: str,
                 level: float) -> None:
        # the dataclass's __init__ without its object.__setattr__ per field (a window's
        # auc_ci() builds one per read)
        self.__dict__.update(metric="auc", estimate=estimate, low=low, high=high, se=se,
                             method=method, level=level)

    @property
    def auc(self) -> float:
        """The ROC AUC: ``estimate``."""
        return self.estimate

    def __repr__(self) -> str:
        return (f"AUCInterval(auc={_g(self.estimate)}, low={_g(self.low)}, "
                f"high={_g(self.high)}, se={_g(self.se)}, method={self.method!r}, "
                f"level={self.level!r})")


def make_interval(metric: str, estimate: float, low: float, high: float, se: float,
                  method: str, level: float) -> Interval:
    """The interval of the metric named ``metric``: an `AUCInterval` for ``"auc"``, an
    `Interval` otherwise. O(1).

    >>> make_interval("auc", 0.8, 0.7, 0.88, 0.045, "bootstrap", 0.95).auc
    0.8
    >>> make_interval("gamma", 0.5, 0.1, 0.8, 0.2, "bootstrap", 0.9).metric
    'gamma'
    """
    if metric == "auc":
        return AUCInterval(estimate, low, high, se, method, level)
    return Interval(metric, estimate, low, high, se, method, level)


# --------------------------------------------------------------------------- the normal
def normal_cdf(z: float) -> float:
    """``Phi(z)``, the standard normal CDF, accurate in the tails (``erfc``, not ``1 - erf``).

    ``Phi(-inf) = 0``, ``Phi(inf) = 1``, ``Phi(nan) = nan``. Runtime: O(1).

    >>> round(normal_cdf(-1.959964), 4)
    0.025
    """
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """``Phi^-1(p)``, the standard normal quantile, for ``0 < p < 1``. Runtime: O(1); the
    quantiles of the last few levels asked for are kept (a window's interval read every
    event asks for the same one).

    >>> round(normal_quantile(0.975), 6)
    1.959964
    """
    z = _QUANTILES.get(p)
    if z is None:
        from statistics import NormalDist   # loaded on first use (import time of the CLI)

        if len(_QUANTILES) >= 64:
            _QUANTILES.clear()
        z = _QUANTILES[p] = NormalDist().inv_cdf(p)
    return z


_QUANTILES: dict[float, float] = {}


def normal_p_value(z: float, alternative: str = "two-sided") -> float:
    """The p-value of a standard normal statistic ``z``.

    ``"two-sided"``: ``2 Phi(-|z|)``; ``"greater"`` (the alternative says the statistic is
    positive): ``Phi(-z)``; ``"less"``: ``Phi(z)``. ``nan`` for ``z = nan``. Runtime: O(1).

    >>> round(normal_p_value(1.959964), 4), round(normal_p_value(1.959964, "greater"), 4)
    (0.05, 0.025)
    """
    if math.isnan(z):
        return _NAN
    if alternative == "two-sided":
        return min(1.0, 2.0 * normal_cdf(-abs(z)))
    return normal_cdf(-z) if alternative == "greater" else normal_cdf(z)


# --------------------------------------------------------------------------- intervals
def logit_interval(estimate: float, se: float, level: float = 0.95) -> tuple[float, float]:
    """The Wald interval of a proportion on the logit scale: it never leaves ``[0, 1]``.

    With ``L = log(A / (1 - A))`` and its delta-method standard error
    ``se_L = se / (A (1 - A))``, the interval is ``expit(L -+ z se_L)``, ``z`` the normal
    quantile of ``(1 + level) / 2``. It is asymmetric near 0 and 1, as the AUC's sampling
    distribution is, and always contains ``A``. Runtime: O(1).

    Edge cases, in this order:

    * ``A`` or ``se`` is ``nan`` (undefined): ``(nan, nan)``;
    * ``se = 0``: the single point ``(A, A)``. DeLong's variance is 0 when every
      placement is the same: at ``A = 0`` or ``A = 1``, and when every score is tied
      (``A = 1/2``, a model that does not rank); Hanley-McNeil's at ``A = 0`` or ``1``.
      Those estimators then see no sampling spread at all, whatever the sample size;
    * ``A = 0`` or ``A = 1`` with ``se > 0``: the logit is infinite, and the interval
      reaches from the bound the estimate sits at to the plain Wald bound on the other
      side, clipped to ``[0, 1]`` (``(1 - z se, 1)`` at ``A = 1``);
    * ``se = inf``: ``(0, 1)``.

    >>> low, high = logit_interval(0.99, 0.01)
    >>> round(low, 4), round(high, 4), high <= 1
    (0.9318, 0.9986, True)
    >>> logit_interval(1.0, 0.0)
    (1.0, 1.0)
    """
    a, se = float(estimate), float(se)
    if math.isnan(a) or math.isnan(se):
        return _NAN, _NAN
    if se == 0:
        return a, a
    if math.isinf(se):
        return 0.0, 1.0
    z = normal_quantile(0.5 + 0.5 * level)
    if a <= 0.0 or a >= 1.0:
        a = min(1.0, max(0.0, a))
        return (a, min(1.0, z * se)) if a == 0.0 else (max(0.0, 1.0 - z * se), a)
    centre = math.log(a) - math.log1p(-a)
    half = z * se / (a * (1.0 - a))
    # (expit(logit(A)) can round a hair off A: a tiny se keeps A inside all the same)
    return min(a, _expit(centre - half)), max(a, _expit(centre + half))


def _expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def scaled_ratio(a, b) -> tuple[float, int]:
    """``a / b`` (``a >= 0``, ``b > 0``; ints of any size, or floats) as ``(m, e)``, the
    value ``m 2**-e`` with ``m`` in ``(0.5, 2)`` (or 0): one rounding of the exact quotient
    for ints, no overflow or underflow at any size. O(1).

    >>> scaled_ratio(1, 10 ** 400)
    (0.5859144944198497, 1328)
    """
    if a == 0:
        return 0.0, 0
    if isinstance(a, int) and isinstance(b, int):
        e = b.bit_length() - a.bit_length()
        return ((a << e) / b if e >= 0 else a / (b << -e)), e
    (fa, ea), (fb, eb) = math.frexp(float(a)), math.frexp(float(b))
    return fa / fb, eb - ea


def _scaled_sum(terms) -> tuple[float, int]:
    """``sum m 2**-e`` of ``(m, e)`` terms as ``(M, E)``, ``M 2**-E``: each term brought to
    the scale of the largest, so no term underflows before it is added. O(len(terms))."""
    live = []
    for m, e in terms:
        if m != 0:
            f, k = math.frexp(m)
            live.append((f, e - k))
    if not live:
        return 0.0, 0
    top = min(e for _, e in live)
    return math.fsum(math.ldexp(m, top - e) for m, e in live), top


def _value(scaled, root: bool = False) -> float:
    """The float of a `_scaled_sum` of a variance (clamped at 0 against rounding), or its
    square root (halving an even exponent: a standard error stays exact where its
    variance would underflow)."""
    m, e = scaled
    m = max(m, 0.0)
    if not root:
        return math.ldexp(m, -e)
    if e & 1:
        m, e = 2.0 * m, e + 1
    return math.ldexp(math.sqrt(m), -(e // 2))


def _hanley_mcneil_terms(auc, n_pos, n_neg):
    """Hanley & McNeil's variance as `_scaled_sum` terms, or None where it is ``nan``:
    ``(Q1 - A^2)(1 - 1/n_pos)/n_neg + (Q2 - A^2)(1 - 1/n_neg)/n_pos + A(1 - A)/(n_pos n_neg)``,
    the formula of `hanley_mcneil_variance` with ``1 / n`` scaled (`scaled_ratio`) and
    ``Q1 - A^2 = A (1 - A)^2 / (2 - A)``, ``Q2 - A^2 = A^2 (1 - A) / (1 + A)`` written out
    (their difference would cancel near ``A = 1``)."""
    auc = float(auc)
    if not (math.isfinite(auc) and 0.0 <= auc <= 1.0) or not (n_pos > 0 and n_neg > 0):
        return None
    b = 1.0 - auc
    (m1, e1), (m0, e0) = scaled_ratio(1, n_pos), scaled_ratio(1, n_neg)
    i1, i0 = math.ldexp(m1, -e1), math.ldexp(m0, -e0)
    return [(auc * b * b / (2.0 - auc) * (1.0 - i1) * m0, e0),
            (auc * auc * b / (1.0 + auc) * (1.0 - i0) * m1, e1),
            (auc * b * m1 * m0, e1 + e0)]


def hanley_mcneil_variance(auc, n_pos, n_neg) -> float:
    """Hanley & McNeil's (1982) variance of an AUC from ``n_pos`` positives, ``n_neg``
    negatives.

    ``Var = [A(1-A) + (n_pos-1)(Q1-A^2) + (n_neg-1)(Q2-A^2)] / (n_pos n_neg)`` with
    ``Q1 = A/(2-A)``, ``Q2 = 2A^2/(1+A)``: the exact variance when both classes' scores
    are exponential-shaped, a quick estimate otherwise. Runtime complexity: O(1).

    ``n_pos`` and ``n_neg`` may be (frequency) weight sums of any size, ints or floats:
    computed with ``1 / n`` scaled (module docstring), nothing overflows. Returns ``nan``
    when the AUC is not finite or a class is empty; clamps a rounding-negative result to
    0 (``A`` = 0 or 1 gives exactly 0).

    >>> round(hanley_mcneil_variance(0.8, 50, 50), 6)
    0.00198
    >>> hanley_mcneil_variance(float("nan"), 50, 50)
    nan
    >>> hanley_mcneil_variance(0.75, 2e154, 2e154) > 0   # n_pos n_neg past float64
    True
    """
    terms = _hanley_mcneil_terms(auc, n_pos, n_neg)
    return _NAN if terms is None else _value(_scaled_sum(terms))


def hanley_mcneil_se(auc, n_pos, n_neg) -> float:
    """The square root of `hanley_mcneil_variance`, taken in the scaled domain (module
    docstring): correct where the variance would underflow. O(1).

    >>> round(hanley_mcneil_se(0.8, 50, 50), 6)
    0.044502
    """
    terms = _hanley_mcneil_terms(auc, n_pos, n_neg)
    return _NAN if terms is None else _value(_scaled_sum(terms), root=True)


def delong_spread_se(spread_pos, w_pos, spread_neg, w_neg) -> float:
    """DeLong's standard error from each class's placement spread.

    ``spread_pos = (m, e)`` is ``m 2**-e``, the weighted variance (divided by the class
    weight, not by ``W1 - 1``) of the positives' placement values ``V10_i = p_i / (2
    W0)``, kept scaled (`scaled_ratio`) because it can be far below the smallest float;
    ``spread_neg`` the same of the negatives' ``V01_j``; ``w_pos``, ``w_neg`` the class
    weights (ints or floats of any size). Then ``Var = spread_pos / (W1 - 1) + spread_neg
    / (W0 - 1)``, DeLong's ``S10 / W1 + S01 / W0``, and its square root is taken in the
    scaled domain (module docstring). ``nan`` when a class has weight ``<= 1`` or a spread
    is not finite; exactly 0 when both spreads are. O(1).

    >>> # p = [3, 4], q = [4, 3] of W0 = W1 = 2: V10 = [3/4, 1], spread 1/64 each
    >>> delong_spread_se((1 / 64, 0), 2, (1 / 64, 0), 2) == delong_variance(2, 2, 7, 25, 7, 25) ** 0.5
    True
    """
    if not (w_pos > 1 and w_neg > 1) or not all(math.isfinite(m) for m, _ in
                                                (spread_pos, spread_neg)):
        return _NAN
    terms = []
    for (m, e), w in zip((spread_pos, spread_neg), (w_pos, w_neg)):
        f, k = scaled_ratio(1, w - 1)
        terms.append((max(0.0, m) * f, e + k))
    return _value(_scaled_sum(terms), root=True)


def _exact(x):
    """An int stays an int; a float becomes the rational it is exactly (or None)."""
    from fractions import Fraction   # loaded on first use (import time of the CLI)

    if isinstance(x, int):
        return x
    x = float(x)
    if not math.isfinite(x):
        return None
    return int(x) if x.is_integer() else Fraction(x)


def delong_covariance(w_pos, w_neg, pos_a, pos_b, pos_cross, neg_a, neg_b,
                      neg_cross) -> float:
    """DeLong's covariance of two AUCs on the same samples, from placement moments.

    For models ``a`` and ``b`` scored on the same rows, with placements counted in half
    pairs (module docstring: ``p_i = 2 W0 V10_i`` of each positive, ``q_j = 2 W1 V01_j``
    of each negative):

    * ``w_pos``, ``w_neg``: the class weights ``W1``, ``W0`` (the class sizes with unit
      weights);
    * ``pos_a = sum_i w_i p_i^a``, ``pos_b = sum_i w_i p_i^b``,
      ``pos_cross = sum_i w_i p_i^a p_i^b`` over the positives;
    * ``neg_a``, ``neg_b``, ``neg_cross``: the same over the negatives with ``q``.

    Then ``S10 = (W1 X1 - U_a U_b) / (4 W0^2 W1 (W1 - 1))`` (``X1`` = ``pos_cross``), the
    same for ``S01`` with the classes swapped, and ``Cov = S10 / W1 + S01 / W0``. The
    numerators are computed exactly: Python ints stay ints, floats are taken as the
    rationals they are, so nothing cancels and the only rounding is the final division.
    With ``b = a`` (``pos_cross`` the sum of squares) this is DeLong's variance,
    `delong_variance`. Runtime: O(1) (a few big-integer products).

    Returns ``nan`` when a class has weight ``<= 1`` (its placement variance is not
    estimable) or an input is not finite.

    >>> # y = [0, 0, 1, 1]; a = [0.1, 0.4, 0.4, 0.8]: p = [3, 4], q = [4, 3];
    >>> # b = [0.1, 0.2, 0.3, 0.8]: p = [4, 4], q = [4, 4] (b separates the classes)
    >>> delong_covariance(2, 2, 7, 8, 3 * 4 + 4 * 4, 7, 8, 4 * 4 + 3 * 4)
    0.0
    """
    vals = (w_pos, w_neg, pos_a, pos_b, pos_cross, neg_a, neg_b, neg_cross)
    ints = all(type(v) is int for v in vals)
    if not ints:
        vals = tuple(_exact(x) for x in vals)
        if any(v is None for v in vals):
            return _NAN
    w1, w0, ua, ub, x1, va, vb, x0 = vals
    if not (w1 > 1 and w0 > 1):
        return _NAN
    if ints:            # the sum below over one common denominator, an int: rounded once
        num = (w0 - 1) * (w1 * x1 - ua * ub) + (w1 - 1) * (w0 * x0 - va * vb)
        return num / (4 * w1 * w1 * w0 * w0 * (w1 - 1) * (w0 - 1))
    from fractions import Fraction

    s10 = Fraction(w1 * x1 - ua * ub, 4 * w0 * w0 * w1 * (w1 - 1))
    s01 = Fraction(w0 * x0 - va * vb, 4 * w1 * w1 * w0 * (w0 - 1))
    return float(s10 / w1 + s01 / w0)


def delong_variance(w_pos, w_neg, pos_sum, pos_squares, neg_sum, neg_squares) -> float:
    """DeLong's variance of an AUC from placement moments (`delong_covariance` with
    ``b = a``).

    ``pos_sum = sum_i w_i p_i`` and ``pos_squares = sum_i w_i p_i^2`` over the positives'
    placements in half pairs (``p_i = 2 W0(s < s_i) + W0(s == s_i)``), ``neg_sum`` and
    ``neg_squares`` the same over the negatives (``q_j = 2 W1(s > s_j) + W1(s == s_j)``).
    Exact integer arithmetic for integer sums; never negative (``W Q - U^2 >= 0`` by
    Cauchy-Schwarz, exactly). ``nan`` when a class has weight ``<= 1``. Runtime: O(1).

    >>> # y = [0, 0, 1, 1], s = [0.1, 0.4, 0.4, 0.8]: p = [3, 4], q = [4, 3]
    >>> round(delong_variance(2, 2, 7, 25, 7, 25), 6)
    0.03125
    """
    var = delong_covariance(w_pos, w_neg, pos_sum, pos_sum, pos_squares, neg_sum, neg_sum,
                            neg_squares)
    return var if math.isnan(var) else max(var, 0.0)
