"""The River drift detectors a `streamrank.monitor.Monitor` feeds its metric series to.

``"adwin"`` and ``"page-hinkley"`` (`DETECTORS`) are built with settings for a series of one
value per report, in [0, 1] and autocorrelated; a River drift detector instance is cloned.
A snapshot (`Monitor.to_bytes`) stores a detector as its name, or as its River class and
parameters (`_dump_detector`), and `_load_detector` restores only River drift detectors.
River is imported only when a detector is built or restored.
"""

from __future__ import annotations

from .._validation import describe, param_error

__all__ = ["DETECTORS"]

DETECTORS = ("adwin", "page-hinkley")


def _make_detector(spec):
    """A fresh River drift detector from a name or a detector instance (cloned)."""
    if spec is None:
        return None
    if isinstance(spec, str):
        from river import drift

        # River's defaults assume a raw data stream; here the detector sees one value per
        # report, in [0, 1] and autocorrelated (consecutive windows share most events).
        if spec == "adwin":
            return drift.ADWIN(clock=1)   # test for a cut at every report, not every 32nd
        if spec == "page-hinkley":
            # drops only; threshold 2 (River's 50 is for unbounded data: an AUC series
            # would need 150+ reports a full 0.3 below its mean to reach it). Chosen on
            # simulated streams (W = 500, a report every 50 events): a collapse from 0.8
            # to 0.5 detected within ~550 events, 0.8 -> 0.7 within ~1300, no false alarm
            # on 4 x 30,000 stationary events.
            return drift.PageHinkley(threshold=2.0, mode="down")
        raise param_error("detector", "Monitor", f"one of {DETECTORS}, a River drift "
                          "detector or None", describe(spec))
    if not (hasattr(spec, "update") and hasattr(spec, "drift_detected")
            and hasattr(spec, "clone")):
        raise param_error("detector", "Monitor", f"one of {DETECTORS}, a River drift "
                          "detector or None", describe(spec), TypeError)
    return spec.clone()


def _dump_detector(spec):
    """The detector setting as a snapshot stores it: None, a name, or a River drift
    detector's class, module and parameters (`_load_detector` restores it)."""
    if spec is None or isinstance(spec, str):
        return spec
    return {"class": type(spec).__name__, "module": type(spec).__module__,
            "params": spec._get_params()}


def _load_detector(spec, snap):
    """The detector setting of a snapshot: None, a name, or a River drift detector's
    class and parameters (its class checked before it is called)."""
    if not isinstance(spec, dict):
        return spec
    import importlib

    from river import base

    if not (set(spec) == {"class", "module", "params"} and type(spec["params"]) is dict
            and type(spec["module"]) is str and type(spec["class"]) is str
            and spec["module"].startswith("river.")):
        raise snap.corrupt(f"the detector {describe(spec)} is not a River drift detector "
                           "(only those can be restored)")
    try:
        kind = getattr(importlib.import_module(spec["module"]), spec["class"])
    except (ImportError, AttributeError) as exc:
        raise snap.corrupt(f"no River drift detector {spec['module']}.{spec['class']} "
                           f"({exc})") from None
    if not (isinstance(kind, type) and issubclass(
            kind, (base.DriftDetector, base.BinaryDriftDetector))):
        raise snap.corrupt(f"{spec['module']}.{spec['class']} is not a River drift "
                           "detector")
    return kind(**spec["params"])
