"""Score drift without labels: a `streamrank.monitor.Monitor`'s predicted scores against
a frozen reference of its scores, every prediction whether labeled or not.

`ScoreReference` holds the reference's scores (the first full window of predictions, or
the first ``score_reference`` ones): their distinct values, the weight at each, and the
count and squared weights of its predictions. Beside its window the monitor keeps a
`streamrank.structures._cscorebins.ScoreBins` over those distinct values, fed per
change from the window's every-row log (`streamrank.windows.sync`): the window's weight
at each reference score and in each gap between two, ``O(log R)`` a change, in C. Every
window score in a bin is placed alike against the reference, and the window's
distribution function is known at each reference score and just below it, so each
report reads from the bins, in ``O(R)`` (two passes in C) whatever the window holds:

* the **score shift**, the Mann-Whitney probability that a window score exceeds a
  reference score (ties one half; 0.5: no shift): the AUC of the reference's scores
  (class 0) against the window's (class 1), exact with whole-number weights (an int64
  sum of doubled placements, one division; a float sum past int64 or with fractional
  weights);
* its **DeLong standard error**, from both sides' placements (per bin and per reference
  score), and the two-sided p-value of no shift;
* the two-sample **Kolmogorov-Smirnov statistic**, the largest distance between the two
  weighted empirical distribution functions (taken at each reference score and just below
  it, where it is reached): `scipy.stats.ks_2samp`'s; and its asymptotic p-value,
  ``O(1)`` (`_ks_p_value`).

>>> import numpy as np
>>> from streamrank.structures._cscorebins import ScoreBins
>>> ref = ScoreReference(np.array([0.1, 0.2, 0.3, 0.4]), np.ones(4))
>>> bins = ScoreBins(ref.values)
>>> bins.recount(np.array([0.3, 0.5, 0.6]), np.ones(3))
>>> shift = ref.read(bins)
>>> shift.shift, round(shift.ks, 4)         # 10.5 of 12 pairs; at 0.4: 1 - 1/3
(0.875, 0.6667)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import kolmogorov
from scipy.stats import kstwo

from ..intervals import normal_p_value
from ..structures._cscorebins import ScoreBins

__all__ = ["ScoreReference", "ScoreShift"]

_NAN = math.nan


class ScoreShift(NamedTuple):
    """A window's scores against the reference's: the Mann-Whitney ``shift``, its DeLong
    standard error ``se`` and two-sided p-value ``p_value`` (of ``shift == 0.5``; with
    ``se`` 0, 0 or 1 as the shift is not 1/2 or is), the Kolmogorov-Smirnov statistic
    ``ks`` and its p-value ``ks_p_value`` (nan while the effective sizes round to 0, as
    scipy's); all nan while either side holds no weight."""

    shift: float = _NAN
    se: float = _NAN
    p_value: float = _NAN
    ks: float = _NAN
    ks_p_value: float = _NAN


class ScoreReference:
    """The frozen reference of the predicted scores (module docstring): ``s`` and ``w``,
    its predictions' scores (sorted) and weights; ``values`` the distinct scores and
    ``mass`` the weight at each."""

    __slots__ = ("s", "w", "values", "mass", "_total", "_whole")

    def __init__(self, s, w) -> None:
        s = np.asarray(s, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        order = np.argsort(s, kind="stable")
        self.s, self.w = s[order], w[order]
        self.values, at = np.unique(self.s, return_inverse=True)
        self.mass = np.bincount(at, weights=self.w, minlength=self.values.size)
        self._total = float(self.mass.sum())
        self._whole = bool(np.all((self.w == np.floor(self.w)) & (self.w < 2.0 ** 53)))

    def __len__(self) -> int:
        return self.s.size

    def bins(self, s, w) -> ScoreBins:
        """New bins over the reference's distinct scores holding window scores ``(s,
        w)``. ``O(W log R)``."""
        bins = ScoreBins(self.values)
        bins.recount(s, w)
        return bins

    def read(self, bins: ScoreBins) -> ScoreShift:
        """The `ScoreShift` of the window ``bins`` hold. ``O(R)``, in C
        (`ScoreBins.read`)."""
        rt = self._total
        num, fnum, wt, s10, s01, ks = bins.read(self.mass, rt, self._whole)
        if not (rt > 0 and wt > 0 and bins.rows):   # (rows: exact, whatever rounding)
            return ScoreShift()
        # one division of exact integers with whole-number weights
        shift = num / (2 * int(wt) * int(rt)) if num is not None else fnum / (2 * wt * rt)
        se = _NAN
        if wt > 1 and rt > 1:       # (a side of weight 1 at most: nan, as DeLong's)
            var = s10 / (wt - 1) / wt + s01 / (rt - 1) / rt
            se = math.sqrt(var) if var >= 0 else _NAN
        p = (normal_p_value((shift - 0.5) / se) if se > 0 else
             (1.0 if shift == 0.5 else 0.0) if se == 0 else _NAN)
        return ScoreShift(shift, se, p, ks, _ks_p_value(ks, wt, rt))


#: Below this rounded effective size the KS p-value is scipy's own (`_ks_p_value`).
_KS_EXACT_BELOW = 30


def _ks_p_value(d: float, n1: float, n2: float) -> float:
    """The two-sided p-value of Kolmogorov-Smirnov statistic ``d`` of samples of sizes
    ``n1``, ``n2`` (weight sums: frequency weights, as the shift's standard error and
    every test of the monitor take them), at ``n = n1 n2 / (n1 + n2)`` rounded. Below ``n = 30``, ``scipy.stats.ks_2samp(..., method="asymp")``'s
    (the exact distribution of the one-sample statistic at ``n``, `scipy.stats.kstwo`);
    from 30 on, Kolmogorov's limiting distribution at ``(sqrt(n) + 0.12 + 0.11 /
    sqrt(n)) d`` (Stephens' finite-size correction), ``O(1)``, where `kstwo`'s cost
    grows with ``n`` (0.09 ms at ``n = 140``, 0.40 s at ``5e5``: too slow for a report;
    `benchmarks/bench_estimate.py`). The
    two differ by less than 0.018 from ``n = 30``, 0.012 from 100 and 0.005 from 1000.
    nan when ``n`` rounds to 0 (one prediction a side, as scipy's).

    >>> from scipy.stats import ks_2samp
    >>> k = ks_2samp(np.arange(600.0), np.arange(500.0) + 40, method="asymp")
    >>> round(float(k.pvalue), 4), round(_ks_p_value(k.statistic, 600, 500), 4)
    (0.0079, 0.0078)
    >>> k = ks_2samp(np.arange(6.0), np.arange(5.0) + 2, method="asymp")
    >>> bool(_ks_p_value(k.statistic, 6, 5) == k.pvalue)
    True
    """
    if not (n1 > 0 and n2 > 0):
        return _NAN
    en = float(np.round(n1 * n2 / (n1 + n2)))
    if en < 1:
        return _NAN
    if en < _KS_EXACT_BELOW:
        return float(np.clip(kstwo.sf(d, en), 0.0, 1.0))
    root = math.sqrt(en)
    return float(min(1.0, max(0.0, kolmogorov((root + 0.12 + 0.11 / root) * d))))
