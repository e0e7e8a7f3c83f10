"""The settings of a `streamrank.monitor.Monitor`: their names and their checks.

`checked` validates every setting of a `Monitor` but its ``detector`` (built and checked
by `streamrank.monitor.detectors`) once, with the one message format of
`streamrank._validation`; `SETTINGS` names them all, each a read-only attribute of a
monitor (a `PairedMonitor`'s are its champion's, and both models' agree).
"""

from __future__ import annotations

from .._validation import check_int, check_level, check_option, check_period, describe, \
    param_error
from ..engine import LABEL_KINDS
from ._signal import SIGNALS
from .detectors import same_detector

__all__ = ["SETTINGS", "TESTS", "checked", "same_settings"]

#: The drop tests of a window against its reference.
TESTS = ("hanley-mcneil", "delong")
#: The names of the settings of a `Monitor` (``detector`` included).
SETTINGS = ("window", "period", "reference", "test", "alpha", "labels", "min_window",
            "max_history", "level", "detector", "label_wait", "label_wait_period",
            "detector_signal", "estimate", "detect_drop", "score_drift",
            "score_reference", "score_alert")


def checked(window, period, reference, test, alpha, labels, min_window, max_history,
            level, label_wait, label_wait_period, detector_signal, estimate=False,
            detect_drop=None, score_drift=False, score_reference=None,
            score_alert=False) -> dict:
    """The settings of a `Monitor` (every one of `SETTINGS` but ``detector``), checked
    and in their canonical types: ``window`` 1000 when neither it nor ``period`` is
    given, ``alpha`` a float. Raises `ValueError` / `TypeError` naming the first bad one.

    >>> checked(None, None, None, "delong", 0.05, "auto", 30, None, 0.95, None, None,
    ...         "reference")["window"]
    1000
    """
    func = "Monitor"
    check_option(detector_signal, "detector_signal", func, SIGNALS)
    for name, flag in (("estimate", estimate), ("score_drift", score_drift),
                       ("score_alert", score_alert)):
        if type(flag) is not bool:
            raise param_error(name, func, "True or False", describe(flag), TypeError)
    if not score_drift and (score_reference is not None or score_alert):
        name = "score_alert" if score_alert else "score_reference"
        raise param_error(name, func, f"{'False' if score_alert else 'None'} without "
                          "score_drift=True (the scores' reference and test are score "
                          "drift's)", describe(score_alert if score_alert
                                               else score_reference))
    score_reference = check_int(score_reference, "score_reference", func, minimum=2,
                                allow_none=True)
    if detect_drop is not None and (isinstance(detect_drop, bool) or not isinstance(
            detect_drop, (int, float)) or not 0 < detect_drop < 1):
        raise param_error("detect_drop", func, "None or a drop of the AUC in (0, 1)",
                          describe(detect_drop))
    if label_wait is not None and label_wait_period is not None:
        raise param_error("label_wait", func, "None when 'label_wait_period' is given "
                          "(a wait of events or of time, not both)", describe(label_wait))
    label_wait = check_int(label_wait, "label_wait", func, allow_none=True)
    if label_wait_period is not None:
        label_wait_period = check_period(label_wait_period, "label_wait_period", func)
    if window is not None and period is not None:
        raise param_error("window", func, "None when 'period' is given (a window of "
                          "events or of time, not both)", describe(window))
    if period is None:
        window = 1000 if window is None else window
        window = check_int(window, "window", func)
    else:
        period = check_period(period, "period", func)
    reference = check_int(reference, "reference", func, minimum=2, allow_none=True)
    check_option(test, "test", func, TESTS)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
            or not 0 < alpha < 1:
        raise param_error("alpha", func, "a number in (0, 1)", describe(alpha))
    check_option(labels, "labels", func, LABEL_KINDS)
    min_window = check_int(min_window, "min_window", func, minimum=2)
    max_history = check_int(max_history, "max_history", func, allow_none=True)
    level = check_level(level, func)
    return {"window": window, "period": period, "reference": reference, "test": test,
            "alpha": float(alpha), "labels": labels, "min_window": int(min_window),
            "max_history": None if max_history is None else int(max_history),
            "level": level, "label_wait": label_wait,
            "label_wait_period": label_wait_period, "detector_signal": detector_signal,
            "estimate": estimate,
            "detect_drop": None if detect_drop is None else float(detect_drop),
            "score_drift": score_drift,
            "score_reference": None if score_reference is None else int(score_reference),
            "score_alert": score_alert}


def same_settings(a, b) -> bool:
    """Whether two monitors (a `PairedMonitor`'s models) have the same settings: each of
    `SETTINGS` equal, the detectors by `streamrank.monitor.detectors.same_detector`."""
    return all(getattr(a, k) == getattr(b, k) for k in SETTINGS if k != "detector") \
        and same_detector(a.detector, b.detector)
