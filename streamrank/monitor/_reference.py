"""The frozen reference window of a `streamrank.monitor.Monitor`: its samples, exact counts,
metric and the variances of both tests (`streamrank.monitor.drift`) and of its concordance
(`streamrank.monitor._ordinal`, for non-binary labels), computed once when it freezes
(``O(R log R)`` for ``R`` predictions). A snapshot stores the samples only, so a reference
loaded from any snapshot version gets every variance."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..batch.pairs import pair_counts
from ..counts import PairCounts
from ..exceptions import UndefinedMetricWarning
from ._ordinal import reference_variance
from .drift import delong_variance, hanley_mcneil_variance

_NAN = math.nan


class _Reference:
    """The frozen reference window: its samples, counts, metric and variances."""

    __slots__ = ("y", "s", "w", "counts", "auc", "labels", "hm_var", "delong_var",
                 "conc_var")

    def __init__(self, y, s, w):
        self.y = np.asarray(y, dtype=np.float64)
        self.s = np.asarray(s, dtype=np.float64)
        self.w = np.asarray(w, dtype=np.float64)
        unit = bool(np.all(self.w == 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            if self.y.size:
                self.counts = pair_counts(self.y, self.s,
                                          sample_weight=None if unit else self.w)
            else:
                self.counts = PairCounts(0, 0, 0, 0, 0, 0, 0, 0, 0)
            self.auc = self.counts.auc if self.y.size else _NAN
        self.labels = sorted(set(self.y.tolist()))
        self.hm_var = self.delong_var = self.conc_var = _NAN
        if len(self.labels) >= 2:   # used when the window or the reference holds 3 labels
            self.conc_var = reference_variance(self.y, self.s, None if unit else self.w)
        if len(self.labels) == 2:
            pos = self.y == self.labels[1]
            self.hm_var = hanley_mcneil_variance(self.auc, float(self.w[pos].sum()),
                                                 float(self.w[~pos].sum()))
            _, self.delong_var = delong_variance(self.y, self.s,
                                                 sample_weight=None if unit else self.w)
