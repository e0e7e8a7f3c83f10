"""The ROC AUC interval of the samples a `PairEngine` holds, read from its running state.

One implementation under `PairCounter.auc_ci`, `SlidingPairCounter.auc_ci`,
`TimeSlidingPairCounter.auc_ci`, the River metrics' ``get_ci`` and the reports of
`streamrank.monitor.Monitor`: the same `AUCInterval` as `streamrank.roc_auc_ci` of the
samples held (to rounding where that one takes its scaled domain: class weights past about
``2**30``), from the same formulas (`streamrank.intervals`):

* ``"delong"``: DeLong's variance from the engine's *placement moments*
  (`PairEngine.placement_moments`, exact ints kept at ``O(log n)`` per change): a read is
  ``O(1)`` after the first (``O(n)``, which turns them on);
* ``"hanley-mcneil"``: Hanley & McNeil's formula from the AUC and the class weights (the
  same moments' ``w1``, ``w0``).

Both read the interval of frequency weights, as `streamrank.roc_auc_ci` does: an engine
that holds more than two labels, counts in floats (a fractional weight was held, or a
total weight past ``2**62``), or keeps its samples in the dominance counter
(``labels="continuous"``, or more than 16 label levels seen with ``labels="auto"``) has
no such interval. `auc_ci` raises a `ValueError` saying which; `interval_or_nan` (the
River metrics, the monitor) returns the interval with ``nan`` bounds instead.
"""

from __future__ import annotations

import math
import warnings

from ._validation import check_level, check_option, describe, param_error
from .engine import PairEngine
from .exceptions import UndefinedMetricWarning
from .intervals import AUCInterval, delong_variance, hanley_mcneil_se, logit_interval

__all__ = ["METHODS", "auc_ci", "check_method", "delong_window_variance", "interval_or_nan",
           "undefined_reason"]

#: The methods an incremental interval supports (the bootstrap needs the samples).
METHODS = ("delong", "hanley-mcneil")
_NAN = math.nan


def undefined_reason(engine: PairEngine) -> str | None:
    """Why ``engine`` has no interval of frequency weights (a sentence), or None when it
    has one (or while a class is missing: then the interval is all ``nan``). O(1)."""
    levels = engine.counts.n_label_levels
    if levels > 2:
        return (f"{levels} label levels are held; an ROC AUC interval needs two (the "
                "greater label positive)")
    if engine.weighted:
        return ("the counts are floats: a fractional weight was held (or a total weight "
                "past 2**62), and DeLong's and Hanley-McNeil's variances take whole-number "
                "frequency weights only, as streamrank.roc_auc_ci does (clear() resets)")
    if engine.continuous and levels == 2:
        return ("the samples are held in the dominance counter (labels='continuous', or "
                "more than 16 label levels seen with labels='auto'), which keeps no "
                "placement moments; use labels='binary', 'ordinal' or 'auto'")
    return None


def _interval(engine: PairEngine, method: str, level: float) -> AUCInterval:
    """The interval of an engine `undefined_reason` accepts (all ``nan`` while a class
    has no weight). O(1) after the first read of the moments."""
    moments = engine.placement_moments() if engine.counts.n_label_levels == 2 else None
    if moments is None:                     # a class without weight
        return AUCInterval(_NAN, _NAN, _NAN, _NAN, method, level)
    w1, w0, u, q1, q0 = moments
    auc = u / (2 * w1 * w0)                 # exact ints: one rounding
    if method == "delong":
        var = delong_variance(w1, w0, u, q1, u, q0)
        se = math.sqrt(var) if var == var else _NAN
    else:
        se = hanley_mcneil_se(auc, w1, w0) if w1 > 1 and w0 > 1 else _NAN
    low, high = logit_interval(auc, se, level)
    return AUCInterval(auc, low, high, se, method, level)


def check_method(method, func: str) -> str:
    """``method`` if it is one of `METHODS`, else a `ValueError` naming it (and saying
    where the bootstrap is)."""
    if method == "bootstrap":
        raise param_error("method", func, f"one of {METHODS} (the bootstrap resamples the "
                          "samples: streamrank.roc_auc_ci of them)", describe(method))
    return check_option(method, "method", func, METHODS)


def delong_window_variance(engine: PairEngine) -> float | None:
    """DeLong's variance of the AUC of the samples held, from the placement moments
    (``nan`` while a class has no weight), or None for an engine `undefined_reason`
    refuses (the caller computes it from the samples). O(1) after the first read."""
    if undefined_reason(engine) is not None:
        return None
    moments = engine.placement_moments() if engine.counts.n_label_levels == 2 else None
    if moments is None:
        return _NAN
    w1, w0, u, q1, q0 = moments
    return delong_variance(w1, w0, u, q1, u, q0)


def auc_ci(engine: PairEngine, level, method, func: str) -> AUCInterval:
    """``func``'s interval (`PairCounter.auc_ci` and the windows'): ``level`` and
    ``method`` validated (`ValueError` naming them), then a `ValueError` naming the
    method and the reason for an engine `undefined_reason` refuses; all ``nan`` with an
    `UndefinedMetricWarning` while a class is missing, as `streamrank.roc_auc_ci`.
    Runtime complexity: O(1) (``O(n)`` at the first call, which turns the moments on)."""
    method = check_method(method, func)
    level = check_level(level, func)
    reason = undefined_reason(engine)
    if reason is not None:
        raise ValueError(f"{func}: no method={method!r} interval of the ROC AUC: {reason}.")
    ci = _interval(engine, method, level)
    if ci.auc != ci.auc:
        warnings.warn(f"Only one class is present (with nonzero weight): the ROC AUC and "
                      f"its interval are undefined in {func}; returning nan.",
                      UndefinedMetricWarning, stacklevel=3)
    return ci


def interval_or_nan(engine: PairEngine, level: float, method: str) -> AUCInterval:
    """The interval of validated ``level`` and ``method``, or the `AUCInterval` with
    ``nan`` fields (the estimate ``nan`` too) where `auc_ci` would raise or warn: River's
    convention of a read that never fails. O(1) after the first read."""
    if undefined_reason(engine) is not None:
        return AUCInterval(_NAN, _NAN, _NAN, _NAN, method, level)
    return _interval(engine, method, level)
