"""`PairCounts`: the immutable result of every pair count, with every metric as a property.

Definitions (the full list, with each metric's peer, is in ``docs/metrics.md``). Samples carry a label ``y``, a score ``s`` and a weight
``w > 0``; an unordered pair {i, j} has weight ``w_i * w_j``.

==============  =========================================================  ===============
attribute       pairs counted                                              symbol
==============  =========================================================  ===============
concordant      ``y_i != y_j`` and the scores order them as the labels do  ``C``
discordant      ``y_i != y_j`` and the scores order them the other way     ``D``
tied_score      ``y_i != y_j`` and ``s_i == s_j``                          ``T``
comparable      ``y_i != y_j`` (``C + D + T``)                             ``P``
tied_label      ``y_i == y_j``                                             ``Ty``
tied_both       ``y_i == y_j`` and ``s_i == s_j``                          ``Tyy``
total           all pairs (``P + Ty``)                                     ``N0``
==============  =========================================================  ===============

With unit weights every count is an exact Python ``int`` (no overflow at any ``n``); with
weights they are float sums.
"""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass
from numbers import Real

from .exceptions import UndefinedMetricWarning

__all__ = ["PairCounts", "half_ties", "quiet_metric", "structural_zero"]

#: Set while `quiet_metric` reads a metric in this thread: `_ratio` then does not warn.
_QUIET = threading.local()


def _ratio(num: int | float, den: int | float, name: str) -> float:
    """``num / den`` as a float; ``nan`` with an `UndefinedMetricWarning` when ``den == 0``."""
    if den == 0:
        if getattr(_QUIET, "on", False):
            return math.nan
        warnings.warn(
            f"{name} is undefined (its denominator is 0: one label class only, all scores "
            "tied, or fewer than 2 samples); returning nan.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan
    if isinstance(num, int) and isinstance(den, int):
        # Exact integer division rounds correctly even past 2**53.
        return num / den
    return float(num) / float(den)


def quiet_metric(counts: "PairCounts", name: str) -> float:
    """``getattr(counts, name)``, ``nan`` without the `UndefinedMetricWarning` where the
    metric is undefined: what the streaming metrics, the epoch summaries and
    `PairCounts.as_dict` read. A flag of this thread, not a warnings filter (which would
    cost microseconds per read and touch every thread's filters). O(1).

    >>> quiet_metric(PairCounts(0, 0, 0, 0, 0, 1, 1, 1, 1), "auc")   # one sample: no pair
    nan
    """
    was = getattr(_QUIET, "on", False)
    _QUIET.on = True
    try:
        return getattr(counts, name)
    finally:
        _QUIET.on = was


def _clamp(x: float, lo: float, hi: float) -> float:
    # Float rounding in weighted sums can push a ratio a hair outside its range.
    return x if math.isnan(x) else min(hi, max(lo, x))


def half_ties(C: int | float, T: int | float, P: int | float, name: str = "AUC") -> float:
    """``(C + T / 2) / P``: the one tie rule of every AUC and concordance index here.

    Exact for integer counts (``(2C + T) / 2P``, one rounding); clipped to ``[0, 1]`` for
    float counts, whose rounding can step a hair outside; ``nan`` with an
    `UndefinedMetricWarning` naming ``name`` when ``P == 0``. O(1).

    >>> half_ties(5, 1, 6)
    0.9166666666666666
    """
    num: int | float
    den: int | float
    if isinstance(C, int) and isinstance(T, int) and isinstance(P, int):
        num, den = 2 * C + T, 2 * P
    else:
        num, den = C + 0.5 * T, P
    return _clamp(_ratio(num, den, name), 0.0, 1.0)


@dataclass(frozen=True)
class PairCounts:
    """Concordant / discordant / tied pair counts of one set of (label, score, weight) samples.

    Every metric (``docs/metrics.md``) is a property computed from the counts in O(1). A
    metric whose denominator is 0 returns ``nan`` and warns `UndefinedMetricWarning`.

    Parameters
    ----------
    concordant, discordant, tied_score, tied_label, tied_both : int or float
        The counts ``C``, ``D``, ``T``, ``Ty`` and ``Tyy`` (see the module docstring).
    n : int
        Number of samples.
    weight_sum : int or float
        Sum of the sample weights (``n`` with unit weights).
    n_label_levels, n_score_levels : int
        Numbers of distinct labels and distinct scores (used by Kendall's tau-c).

    Examples
    --------
    >>> from streamrank import pair_counts
    >>> pc = pair_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> pc.concordant, pc.discordant, pc.tied_score, pc.comparable, pc.total
    (3, 1, 0, 4, 6)
    >>> pc.auc
    0.75
    """

    concordant: int | float
    discordant: int | float
    tied_score: int | float
    tied_label: int | float
    tied_both: int | float
    n: int
    weight_sum: int | float
    n_label_levels: int
    n_score_levels: int

    # ---------------------------------------------------------------- derived counts
    @property
    def comparable(self) -> int | float:
        """``P = C + D + T``: pairs with different labels."""
        return self.concordant + self.discordant + self.tied_score

    @property
    def total(self) -> int | float:
        """``N0 = P + Ty``: all pairs, ``n (n - 1) / 2`` with unit weights."""
        return self.comparable + self.tied_label

    @property
    def tied_score_all(self) -> int | float:
        """``Ts = T + Tyy``: all pairs tied in score, whatever their labels."""
        return self.tied_score + self.tied_both

    @property
    def right(self) -> int | float:
        """``Right = C + T``: comparable pairs not ordered against the labels."""
        return self.concordant + self.tied_score

    @property
    def wrong(self) -> int | float:
        """``Wrong = D + T``: comparable pairs not ordered with the labels."""
        return self.discordant + self.tied_score

    @property
    def weighted(self) -> bool:
        """True when the counts are float sums of weights rather than exact integers."""
        return not isinstance(self.concordant, int)

    # ---------------------------------------------------------------- metrics
    def _half_ties(self, name: str) -> float:
        return half_ties(self.concordant, self.tied_score, self.comparable, name)

    @property
    def auc(self) -> float:
        """ROC AUC with ties as one half: ``(C + T / 2) / P`` (binary labels)."""
        return self._half_ties("AUC")

    @property
    def c_index(self) -> float:
        """Harrell's C without censoring: ``(C + T / 2) / P``, any label kind."""
        return self._half_ties("C-index")

    @property
    def gamma(self) -> float:
        """Goodman-Kruskal gamma: ``(C - D) / (C + D)``."""
        return _clamp(
            _ratio(self.concordant - self.discordant, self.concordant + self.discordant, "gamma"),
            -1.0,
            1.0,
        )

    @property
    def somers_d(self) -> float:
        """Somers' D of the score given the label: ``(C - D) / P``."""
        return _clamp(
            _ratio(self.concordant - self.discordant, self.comparable, "Somers' D"), -1.0, 1.0
        )

    @property
    def tau_a(self) -> float:
        """Kendall's tau-a: ``(C - D) / N0``."""
        return _clamp(_ratio(self.concordant - self.discordant, self.total, "tau-a"), -1.0, 1.0)

    @property
    def tau_b(self) -> float:
        """Kendall's tau-b: ``(C - D) / sqrt((N0 - Ty) (N0 - Ts))``, ``Ts = T + Tyy``."""
        a = self.total - self.tied_label
        b = self.total - self.tied_score_all
        if a <= 0 or b <= 0:
            return _ratio(0, 0, "tau-b")
        if isinstance(a, int) and isinstance(b, int):
            # Two square roots instead of sqrt(a * b): the product of two ~1e19 counts
            # would lose nothing as a Python int, but float(a * b) can overflow past 1e308.
            den = math.sqrt(a) * math.sqrt(b)
        else:
            den = math.sqrt(float(a)) * math.sqrt(float(b))
        return _clamp(float(self.concordant - self.discordant) / den, -1.0, 1.0)

    @property
    def tau_c(self) -> float:
        """Stuart's tau-c: ``2 m (C - D) / (W^2 (m - 1))``, ``m = min(#labels, #scores)``.

        ``W`` is the number of samples (the weight sum when weighted).
        """
        m = min(self.n_label_levels, self.n_score_levels)
        if m < 2 or self.weight_sum == 0:
            return _ratio(0, 0, "tau-c")
        w = self.weight_sum
        num = 2 * m * (self.concordant - self.discordant)
        den = w * w * (m - 1)
        return _clamp(_ratio(num, den, "tau-c"), -1.0, 1.0)

    @property
    def pairwise_accuracy(self) -> float:
        """``C / P``: the share of comparable pairs ordered correctly (ties count as wrong)."""
        return _ratio(self.concordant, self.comparable, "pairwise accuracy")

    @property
    def pairwise_error(self) -> float:
        """``D / P``: the share of comparable pairs ordered against the labels."""
        return _ratio(self.discordant, self.comparable, "pairwise error")

    @property
    def right_wrong_ratio(self) -> float:
        """The pairwise ranking ratio ``Right / Wrong = (C + T) / (D + T)``; ``inf`` if only
        ``Wrong`` is 0 and there are comparable pairs."""
        if self.wrong == 0 and self.right > 0:
            return math.inf
        return _ratio(self.right, self.wrong, "right/wrong ratio")

    # ---------------------------------------------------------------- export
    def as_dict(self) -> dict[str, int | float]:
        """Every count and metric as a plain ``dict`` (for tables, JSON and logs)."""
        return {name: quiet_metric(self, name) for name in _REPORTED}

    def _check(self) -> None:
        """Assert the identities of the definitions (``P = C + D + T``, ``N0 = P + Ty``,
        ``Tyy <= Ty``, every count >= 0, ``N0`` from ``n`` with unit weights)."""
        for name in ("concordant", "discordant", "tied_score", "tied_label", "tied_both"):
            value = getattr(self, name)
            assert isinstance(value, Real), (name, value)
            assert value >= 0, (name, value, self)
        slack = 0 if not self.weighted else 1e-9 * float(self.weight_sum) ** 2  # rounding
        assert self.tied_both <= self.tied_label + slack, self
        if not self.weighted:   # integer weights: N0 = (W^2 - sum w^2) / 2 <= W (W - 1) / 2
            w = self.weight_sum
            assert 2 * self.total <= w * (w - 1), self
            if w == self.n and self.n_score_levels <= self.n:  # unit weights (or equivalent)
                assert self.total <= self.n * (self.n - 1) // 2, self


_REPORTED = (
    "n", "weight_sum", "concordant", "discordant", "tied_score", "comparable", "tied_label",
    "tied_both", "total", "right", "wrong", "auc", "c_index", "gamma", "somers_d", "tau_a",
    "tau_b", "tau_c", "pairwise_accuracy", "pairwise_error", "right_wrong_ratio",
)


def structural_zero(pc: PairCounts, field: str) -> bool:
    """Whether the count ``field`` is zero by structure for samples with the level counts
    of ``pc``: ``C`` and ``D`` with one label or one score level, ``T`` with one label
    level. Such a count must be exactly 0, whatever weight came and went.

    >>> from streamrank import pair_counts
    >>> structural_zero(pair_counts([1, 1, 1], [0.1, 0.5, 0.9]), "concordant")
    True
    """
    if field in ("concordant", "discordant"):
        return pc.n_label_levels <= 1 or pc.n_score_levels <= 1
    if field == "tied_score":
        return pc.n_label_levels <= 1
    return False
