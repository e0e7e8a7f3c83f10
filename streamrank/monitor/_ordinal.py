"""The test of a `streamrank.monitor.Monitor` with non-binary labels (a third label value,
in the window or in the reference): Harrell's concordance ``c = (C + T/2) / P`` of the
window against the reference's, with the U-statistic variance of
`streamrank.batch.concordance` on both sides.

``z = (c - c_ref) / sqrt(Var(c) + Var(c_ref))``, ``p = Phi(z)`` (one-sided, ``H1: c <
c_ref``, `streamrank.monitor.drift.auc_drop_test`), an alert when ``p < alpha``; the
report's interval is the logit interval of ``c`` with ``sqrt(Var(c))``
(`streamrank.intervals.logit_interval`). The reference's variance is computed once when it
freezes (``O(R log R)``); the window's at each report from its labeled predictions
(``O(W log W)``: one argsort, two compiled Fenwick-tree passes). The ``test`` option
(Hanley-McNeil or DeLong) chooses the variance of the AUC test of binary labels only.
"""

from __future__ import annotations

import math

from ..batch.concordance import concordance_variance_arrays
from ..intervals import logit_interval
from .drift import auc_drop_test

__all__ = ["applies", "ordinal_test", "reference_variance"]

_NAN = math.nan


def applies(classes, ref) -> bool:
    """Whether the concordance test replaces the AUC test: a third label value in the
    window (``classes``) or in the frozen reference ``ref``. O(1)."""
    return len(classes) > 2 or (ref is not None and len(ref.labels) > 2)


def reference_variance(y, s, w) -> float:
    """The U-statistic variance of the reference's concordance (nan with one label)."""
    return concordance_variance_arrays(y, s, w)[1]


def ordinal_test(c, n, classes, columns, ref, level, min_window, alpha):
    """``(low, high, ref_se, z, p, se, alert)`` of a report with non-binary labels: ``c``
    is the window's concordance from the engine's counts, ``n`` its labeled predictions,
    ``classes`` its label tallies, ``columns()`` its labeled ``(y, s, w)`` arrays (read
    only for the interval: ``O(W log W)``), ``ref`` the frozen reference or None, and
    ``level``, ``min_window``, ``alpha`` the monitor's settings."""
    low = high = ref_se = z = p = se = _NAN
    alert = False
    var = _NAN
    if c == c and len(classes) > 1:
        var = concordance_variance_arrays(*columns())[1]
        low, high = logit_interval(c, math.sqrt(var) if var == var else _NAN, level)
    if ref is not None:
        ref_var = ref.conc_var
        ref_se = math.sqrt(ref_var) if ref_var == ref_var else _NAN
        if n >= min_window:
            comp = auc_drop_test(c, var, ref.auc, ref_var)
            z, p, se = comp.z, comp.p_value, comp.se
            alert = bool(p < alpha)
    return low, high, ref_se, z, p, se, alert
