"""Score drift without labels: a `streamrank.monitor.Monitor`'s predicted scores against
a frozen reference of its scores, every prediction whether labeled or not.

`ScoreReference` holds the reference's scores (the first full window of predictions, or
the first ``score_reference`` ones) and the monitor keeps one more engine beside its
window: the reference's scores as rows of label 0, the window's as rows of label 1, fed
per change from the window's every-row log (`streamrank.windows.sync`). That engine's
AUC is the **score shift**, the Mann-Whitney probability that a window score exceeds a
reference score (ties one half; 0.5: no shift), kept exact in ``O(log(W + R))`` per
change and read in ``O(1)``; its DeLong standard error comes from the engine's placement
moments (``O(1)`` with whole-number weights). The two-sample **Kolmogorov-Smirnov**
statistic, the largest distance between the two empirical distribution functions, has
no such update (the window's distribution function moves at every point as the window's
size changes): it is computed at each report in ``O((W + R) log(W + R))``, vectorized.

>>> import numpy as np
>>> ref = ScoreReference(np.array([0.1, 0.2, 0.3, 0.4]), np.ones(4))
>>> engine = ref.engine(np.array([0.3, 0.5, 0.6]), np.ones(3))
>>> shift = ref.read(engine, np.array([0.3, 0.5, 0.6]), np.ones(3))
>>> shift.shift, round(shift.ks, 4)         # 10.5 of 12 pairs; at 0.4: 1 - 1/3
(0.875, 0.6667)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr
from scipy.stats import kstwo

from .. import _engine_ci
from ..engine import PairEngine
from .drift import _delong

__all__ = ["ScoreReference", "ScoreShift"]

_NAN = math.nan


class ScoreShift(NamedTuple):
    """A window's scores against the reference's: the Mann-Whitney ``shift``, its DeLong
    standard error ``se`` and two-sided p-value ``p_value`` (of ``shift == 0.5``), the
    Kolmogorov-Smirnov statistic ``ks`` and its p-value ``ks_p_value``; all nan while
    either side holds no weight."""

    shift: float = _NAN
    se: float = _NAN
    p_value: float = _NAN
    ks: float = _NAN
    ks_p_value: float = _NAN


class ScoreReference:
    """The frozen reference of the predicted scores: sorted scores and their weights."""

    __slots__ = ("s", "w")

    def __init__(self, s, w) -> None:
        s = np.asarray(s, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        order = np.argsort(s, kind="stable")
        self.s, self.w = s[order], w[order]

    def __len__(self) -> int:
        return self.s.size

    def rows(self, s, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(y, s, w)`` of the score-shift engine holding window scores ``(s, w)``: the
        reference's rows of label 0, then the window's of label 1. ``O(W + R)``."""
        s = np.asarray(s, dtype=np.float64)
        y = np.concatenate([np.zeros(self.s.size), np.ones(s.size)])
        return y, np.concatenate([self.s, s]), np.concatenate([self.w, w])

    def engine(self, s, w) -> PairEngine:
        """A new score-shift engine holding window scores ``(s, w)``. ``O((W + R)
        log(W + R))``."""
        y, ss, ww = self.rows(s, w)
        engine = PairEngine()
        engine.add_many(y, ss, None if bool((ww == 1).all()) else ww, "Monitor.observe")
        return engine

    def read(self, engine: PairEngine, s, w) -> ScoreShift:
        """The `ScoreShift` of window scores ``(s, w)`` (every prediction of the window),
        ``engine`` holding them (`engine`). ``O(1)`` for the shift and its standard
        error with whole-number weights (``O((W + R) log(W + R))`` otherwise), and
        ``O((W + R) log(W + R))`` for the Kolmogorov-Smirnov statistic."""
        shift = engine.auc_or(_NAN)
        if shift != shift:
            return ScoreShift()
        var = _engine_ci.delong_window_variance(engine)
        if var is None:             # the engine cannot give its moments: from the rows
            keep = w > 0
            var = _delong(s[keep], w[keep], self.s[self.w > 0], self.w[self.w > 0])[1]
        se = math.sqrt(var) if var == var and var >= 0 else _NAN
        p = float(2 * ndtr(-abs(shift - 0.5) / se)) if se > 0 else _NAN
        ks, ks_p = ks_two_sample(s, w, self.s, self.w)
        return ScoreShift(shift, se, p, ks, ks_p)


def ks_two_sample(s1, w1, s2, w2) -> tuple[float, float]:
    """The two-sample Kolmogorov-Smirnov statistic of weighted samples ``(s1, w1)`` and
    ``(s2, w2)`` (frequency weights: the largest distance between their weighted
    empirical distribution functions) and its two-sided p-value by Smirnov's asymptotic
    distribution (`scipy.stats.kstwo` at the rounded ``n1 n2 / (n1 + n2)``, each ``n``
    the sample's effective size ``(sum w)^2 / sum w^2``): with unit weights both equal
    ``scipy.stats.ks_2samp(s1, s2, method="asymp")``'s. ``(nan, nan)`` while a sample
    holds no weight. ``O((n1 + n2) log(n1 + n2))``.

    >>> d, p = ks_two_sample(np.array([1.0, 2.0, 3.0]), np.ones(3), np.array([2.5, 4.0]),
    ...                      np.ones(2))
    >>> round(d, 4)                             # at 2: 2/3 - 0
    0.6667
    """
    t1, t2 = float(w1.sum()), float(w2.sum())
    if not (t1 > 0 and t2 > 0):
        return _NAN, _NAN
    at = np.concatenate([s1, s2])
    d = float(np.abs(_cdf(s1, w1, at) / t1 - _cdf(s2, w2, at) / t2).max())
    n1, n2 = t1 * t1 / float((w1 * w1).sum()), t2 * t2 / float((w2 * w2).sum())
    en = n1 * n2 / (n1 + n2)
    return d, float(np.clip(kstwo.sf(d, max(1.0, np.round(en))), 0.0, 1.0))


def _cdf(s, w, at) -> np.ndarray:
    """The weight of sample ``(s, w)`` at or below each of ``at``."""
    order = np.argsort(s, kind="stable")
    cum = np.concatenate([[0.0], np.cumsum(w[order])])
    return cum[np.searchsorted(s[order], at, side="right")]
