"""The River drift detectors a `streamrank.monitor.Monitor` feeds its per-event signal to.

A detector is given as a *spec* string, ``"adwin"`` or ``"page-hinkley"`` (`DETECTORS`),
optionally with River constructor parameters: ``"adwin:delta=0.002,clock=1"``,
``"page-hinkley:threshold=50,delta=0.005,mode=down"`` (`parse_detector`), or as a River
drift detector instance (cloned). The signal is one *placement value* per newly labeled
prediction (`streamrank.monitor._signal`): a number in [0, 1] whose mean is an AUC,
against the frozen reference (``detector_signal="reference"``, the default) or the window
(``"window"``). The built-in settings are River's defaults (``ADWIN(delta=0.002, clock=32,
max_buckets=5, min_window_length=5, grace_period=10)``, ``PageHinkley(min_instances=30,
delta=0.005, threshold=50, alpha=0.9999)``), except that Page-Hinkley watches drops only
(``mode="down"``: a better model is no alarm, as in the monitor's one-sided test).
Formerly, with one window AUC per report (autocorrelated: consecutive windows share most
predictions, and few values), ADWIN was tested at every report (``clock=1``) and
Page-Hinkley given ``threshold=2``; per event, River's defaults detect a fall of the AUC
from 0.9 to 0.7 (window 1000) a few hundred events after it. Placements against the
reference are independent given the reference, as the detectors' bounds assume: ADWIN
and Page-Hinkley with River's defaults raised no false alarm in 1.5 million stationary
events (benchmarks/bench_detector.py, benchmarks/RESULTS.md; median delays 336 and 1,143
events). Placements against the window share the window's sampling error for about
``W`` events (a window that happens to hold high-scoring negatives lowers every
positive's placement until they leave), which the bounds do not allow for: about one
false alarm per 40,000 stationary events with ADWIN's ``delta=0.002`` (one per 190,000
with ``delta=2e-5``; Page-Hinkley one per 115,000), for shorter delays (229 and 540).
Choose with ``"adwin:delta=..."``, ``"page-hinkley:threshold=..."``.

A snapshot (`Monitor.to_bytes`) stores the setting (`_dump_detector`: the canonical spec,
or a River class and parameters) and, for River's ``ADWIN`` and ``PageHinkley``, their
exact state (`detector_state`, `restore_state`: ADWIN's own serialized state, Page-Hinkley's
six numbers), so that a restored monitor's detector continues exactly where it was.
Other River detectors are restored by replaying the values they were fed.
River is imported only when a detector is built or restored.
"""

from __future__ import annotations

import math
from collections import deque

from .._extras import require
from .._validation import describe, param_error

__all__ = ["DETECTORS", "parse_detector"]

DETECTORS = ("adwin", "page-hinkley")

_RIVER = {"adwin": "ADWIN", "page-hinkley": "PageHinkley"}
_I32 = 2**31 - 1    # ADWIN's integers are 32-bit in River's compiled core

#: name -> parameter -> (kind, lower, lower open, upper, upper open or the choices, the
#: built-in default). The parameters are River's constructor parameters.
_PARAMS = {
    "adwin": {
        "delta": ("float", 0.0, True, 1.0, True, 0.002),
        "clock": ("int", 1, False, _I32, False, 32),
        "max_buckets": ("int", 1, False, _I32, False, 5),
        "min_window_length": ("int", 1, False, _I32, False, 5),
        "grace_period": ("int", 0, False, _I32, False, 10),
    },
    "page-hinkley": {
        "min_instances": ("int", 1, False, None, False, 30),
        "delta": ("float", 0.0, False, None, False, 0.005),
        "threshold": ("float", 0.0, True, None, False, 50.0),
        "alpha": ("float", 0.0, True, 1.0, False, 1 - 0.0001),
        "mode": ("choice", None, None, None, ("up", "down", "both"), "down"),
    },
}


def _allowed(kind, lo, lo_open, hi, hi_open) -> str:
    if kind == "choice":
        return "one of " + ", ".join(hi_open)
    what = "an integer" if kind == "int" else "a finite number"
    lo, hi = (v if v is None or kind == "int" else f"{v:g}" for v in (lo, hi))
    if hi is None:
        return f"{what} {'>' if lo_open else '>='} {lo}"
    return f"{what} in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"


def _error(func, expected, got, cls=ValueError):
    """`param_error` naming ``detector`` of ``func``; for ``func=None`` (the command line,
    whose option names itself) only what was expected and received."""
    if func is None:
        return cls(f"expected {expected}; got {got}.")
    return param_error("detector", func, expected, got, cls)


def _value(name, param, text, spec, func):
    kind, lo, lo_open, hi, hi_open, _ = _PARAMS[name][param]

    def bad():
        return _error(func, f"a spec whose {param} is "
                      f"{_allowed(kind, lo, lo_open, hi, hi_open)} (River's "
                      f"{_RIVER[name]} parameter)", f"{spec!r} ({param}={text})")
    if kind == "choice":
        if text not in hi_open:
            raise bad()
        return text
    try:
        v = int(text) if kind == "int" else float(text)
    except ValueError:
        raise bad() from None
    if not math.isfinite(v) or v < lo or lo_open and v == lo or hi is not None and (
            v > hi or hi_open and v == hi):
        raise bad()
    return v


def parse_detector(spec: str, func: str | None = "Monitor") -> tuple[str, str, dict]:
    """Parse a detector spec ``NAME[:PARAM=VALUE,...]``.

    Returns ``(canonical spec, name, River parameters)``: the parameters are the built-in
    defaults updated with the spec's; the canonical spec lists only the parameters that
    differ from the defaults, sorted (``"adwin:delta=0.002"`` is ``"adwin"``), so equal
    settings have equal specs. Raises a `ValueError` naming ``detector``, the parameter,
    what is allowed and what was received (``func`` names the caller; None: the command
    line's wording): an unknown name or parameter, a parameter given twice, a malformed
    item, a value out of range. Runtime: O(len(spec)).

    >>> parse_detector("page-hinkley:threshold=20,mode=down")
    ('page-hinkley:threshold=20.0', 'page-hinkley', {'min_instances': 30, 'delta': 0.005, \
'threshold': 20.0, 'alpha': 0.9999, 'mode': 'down'})
    >>> parse_detector("adwin:delta=0.002")[0]
    'adwin'
    """
    if not isinstance(spec, str):
        raise _error(func, "a spec string", describe(spec), TypeError)
    name, sep, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in _PARAMS:
        raise _error(func, f"one of {', '.join(DETECTORS)}, optionally with River "
                     "parameters ('adwin:delta=0.002')" + (
                         "" if func is None else ", a River drift detector or None"),
                     describe(spec))
    table = _PARAMS[name]
    given: dict = {}
    for item in (rest.split(",") if sep else []):
        param, eq, text = (p.strip() for p in item.partition("="))
        if not eq or not param or not text:
            raise _error(func, f"'{name}:PARAM=VALUE,...'",
                         f"{spec!r} (the item {item.strip()!r})")
        if param not in table:
            raise _error(func, f"a spec with parameters among {', '.join(table)} "
                         f"(River's {_RIVER[name]})", f"{spec!r} (unknown parameter "
                         f"{param!r})")
        if param in given:
            raise _error(func, "each parameter at most once", f"{spec!r} ({param} twice)")
        given[param] = _value(name, param, text, spec, func)
    params = {p: given.get(p, d[-1]) for p, d in table.items()}
    changed = sorted((p, v) for p, v in given.items() if v != table[p][-1])
    canonical = name + (":" + ",".join(f"{p}={v}" for p, v in changed) if changed else "")
    return canonical, name, params


def _make_detector(spec):
    """``(setting, fresh River drift detector)`` from a spec (the setting: its canonical
    form), a detector instance (cloned; the setting: the instance) or None."""
    if spec is None:
        return None, None
    if isinstance(spec, str):
        canonical, name, params = parse_detector(spec)
        drift = require("river.drift", "river", f"the detector {spec!r}")
        return canonical, getattr(drift, _RIVER[name])(**params)
    if not (hasattr(spec, "update") and hasattr(spec, "drift_detected")
            and hasattr(spec, "clone")):
        raise param_error("detector", "Monitor", f"one of {DETECTORS}, a River drift "
                          "detector or None", describe(spec), TypeError)
    return spec, spec.clone()


def replays(det) -> bool:
    """True when ``det`` has no exact state `detector_state` can store: it is restored by
    replaying what it was fed (so the monitor keeps that series)."""
    kind = (type(det).__module__, type(det).__name__)
    if kind == ("river.drift.page_hinkley", "PageHinkley"):
        return False
    # River's ADWIN runs on a compiled (Rust) core with a serialized state (bytes);
    # the Cython core of older River versions has none: those replay
    return not (kind == ("river.drift.adwin", "ADWIN") and type(
        getattr(det, "_helper", None)).__module__.startswith("river._river_rust"))


def detector_state(det) -> dict:
    """The exact state of River's ``ADWIN`` (its compiled core's own serialized state, as
    hex, with the River version that wrote it) or ``PageHinkley`` (its six numbers), as
    JSON-able data. Runtime: O(size of the state): O(log n) for ADWIN's ``n`` values held."""
    import river

    if type(det).__name__ == "ADWIN":
        h = det._helper
        return {"kind": "ADWIN", "river": river.__version__,
                "core": h.__getstate__().hex(), "width": h.get_width(),
                "total": h.get_total(), "n_detections": h.get_n_detections(),
                "drift_detected": bool(det._drift_detected)}
    m = det._x_mean
    return {"kind": "PageHinkley", "n": m.n, "mean": m._mean,
            "sums": [det._sum_increase, det._sum_decrease, det._min_increase,
                     det._max_decrease], "drift_detected": bool(det._drift_detected)}


def restore_state(det, state, snap) -> None:
    """Put `detector_state`'s ``state`` into the fresh detector ``det`` (of the same class
    and parameters), or raise ``snap.corrupt``: a state of another kind, damaged, or an
    ADWIN state that this River cannot read."""
    num = (int, float)
    if not (type(state) is dict and state.get("kind") == type(det).__name__
            and type(state.get("drift_detected")) is bool):
        raise snap.corrupt(f"the detector state does not fit {type(det).__name__}")
    if state["kind"] == "ADWIN":
        import river

        h = det._helper
        probe = type(det)(**det._get_params())._helper
        try:
            core = bytes.fromhex(state["core"])
            h.__setstate__(core)
            ok = (h.get_width(), h.get_total(), h.get_n_detections()) == (
                state["width"], state["total"], state["n_detections"])
            probe.__setstate__(core)
            probe.update(0.5)       # a damaged state fails here rather than later
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:   # noqa: BLE001 (what River's core raises: its Rust
            ok = False          # panics are BaseExceptions)
        if not ok:
            raise snap.corrupt(f"the ADWIN state (written by River {state.get('river')}) "
                               f"cannot be read by this River {river.__version__}")
    else:
        sums = state.get("sums")
        if not (type(sums) is list and len(sums) == 4 and all(
                type(v) in num for v in [state.get("n"), state.get("mean"), *sums])):
            raise snap.corrupt("the Page-Hinkley state is damaged")
        det._x_mean.n, det._x_mean._mean = float(state["n"]), float(state["mean"])
        det._sum_increase, det._sum_decrease, det._min_increase, det._max_decrease = sums
    det._drift_detected = state["drift_detected"]


def _dump_detector(spec):
    """The detector setting as a snapshot stores it: None, a spec, or a River drift
    detector's class, module and parameters (`_load_detector` restores it): JSON
    numbers, strings, booleans and None, sequences (a deque of initial data) as lists.
    A parameter of another kind raises `TypeError` naming it."""
    if spec is None or isinstance(spec, str):
        return spec
    params = {}
    for name, value in spec._get_params().items():
        if isinstance(value, (list, tuple, deque)):
            value = list(value)
        if not all(v is None or type(v) in (bool, int, float, str)
                   for v in (value if type(value) is list else [value])):
            raise TypeError(f"Monitor.to_bytes: the detector {type(spec).__name__}'s "
                            f"parameter {name!r} is {describe(value)}, which a snapshot "
                            "cannot store (numbers, strings and lists of them)")
        params[name] = value
    return {"class": type(spec).__name__, "module": type(spec).__module__,
            "params": params}


def same_detector(a, b) -> bool:
    """Whether two ``detector`` settings are the same: equal specs, or River detectors
    of one class with equal parameters (two restored copies of one are not the same
    object)."""
    if a is b or a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    try:
        return type(a) is type(b) and _dump_detector(a) == _dump_detector(b)
    except TypeError:       # parameters a snapshot cannot store: only the same object
        return False


def _load_detector(spec, snap):
    """The detector setting of a snapshot: None, a spec, or a River drift detector's
    class and parameters (its class checked before it is called)."""
    if not isinstance(spec, dict):
        return spec
    import importlib

    base = require("river.base", "river", "a snapshot with a River detector")
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
