"""Shared pieces of the River metrics: reading River's ``y_pred``, the undefined-value
convention, and the buffered update path of the metrics built on `PairEngine`.

Conventions every metric of the package follows (and the tests pin):

* ``update(y_true, y_pred, w=1.0)`` validates first: a bad event raises (`ValueError` or
  `TypeError`, naming the parameter, the allowed values and the value received) and
  changes nothing.
* ``revert(y_true, y_pred, w=1.0)`` removes one earlier update with these values, in any
  order: the engines are multisets of values, so undoing an update is removing its
  values. Reverting values that are not held raises `ValueError` and changes nothing
  (`RollingROCAUC` follows River instead: see there).
* ``get()`` never raises and never warns. When the metric is undefined (one class only,
  every score tied, fewer than two events, ...) it returns ``0.0``, River's convention
  (``river.metrics.RollingROCAUC`` returns ``0.0`` there, and River's own test suite
  compares against that). The batch functions of `streamrank` return ``nan`` with an
  `UndefinedMetricWarning` instead.
* Updates are buffered and applied in batches when the metric is read (the engine's
  vectorized ``add_many``), or once `MAX_PENDING` are waiting. With integer weights the
  counts are exact either way; with float weights the two paths agree to rounding.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import describe, param_error
from ..engine import PairEngine, check_scalar, check_weight
from ..exceptions import UndefinedMetricWarning

__all__ = ["MAX_PENDING", "SCALAR_FLUSH", "PairEngineMetric", "binary_label", "label_of",
           "not_held_error",
           "or_zero", "score_of", "weight_of"]

#: Buffered updates are applied once this many are waiting, even if nobody reads.
MAX_PENDING = 4096

#: Fewer buffered updates than this are applied one at a time: building numpy arrays
#: costs more than a few single inserts (benchmarks/bench_river.py --calibrate).
SCALAR_FLUSH = 16


def score_of(y_pred, pos_val, func: str) -> float:
    """The score of the positive class in River's ``y_pred``: a dict of class
    probabilities (``y_pred.get(pos_val, 0.0)``, as River's ``ROCAUC``), a number or a
    bool (any scale: only the order matters)."""
    if isinstance(y_pred, dict):
        p = y_pred.get(pos_val, 0.0)
        if not isinstance(p, (bool, int, float, np.integer, np.floating)) or (
                isinstance(p, (float, np.floating)) and not math.isfinite(p)):
            raise param_error("y_pred", func, "a dict whose probability of pos_val "
                              f"{pos_val!r} is a finite number", describe(y_pred), TypeError
                              if not isinstance(p, (float, np.floating)) else ValueError)
        return float(p)
    if isinstance(y_pred, (bool, int, float, np.integer, np.floating, np.bool_)):
        return check_scalar(y_pred, "y_pred", func)
    raise param_error("y_pred", func, "a finite number, a bool, or a dict of class "
                      "probabilities", describe(y_pred), TypeError)


def binary_label(y_true, pos_val, func: str) -> int:
    """1 if ``y_true`` is the positive class ``pos_val``, 0 if it is another class.

    River compares ``y_true == pos_val`` and takes anything else as negative, so a typo
    (``"oops"``), ``None`` or ``nan`` would silently count as a negative. Here ``y_true``
    must be a class of ``pos_val``'s kind: with a bool or numeric ``pos_val`` (the default
    ``True``), a bool or a finite number (``1 == True``, as in River); with a string (or
    other) ``pos_val``, a value of the same type. Anything else raises, naming ``y_true``.
    """
    if y_true.__class__ is bool or y_true.__class__ is int:   # the common case
        if isinstance(pos_val, (bool, int, float, np.integer, np.floating)):
            return 1 if y_true == pos_val else 0
    if isinstance(pos_val, (bool, int, float, np.integer, np.floating)):
        if isinstance(y_true, (bool, np.bool_, int, np.integer)):
            return 1 if y_true == pos_val else 0
        if isinstance(y_true, (float, np.floating)) and math.isfinite(y_true):
            return 1 if y_true == pos_val else 0
        raise param_error("y_true", func, f"a bool or a finite number (the classes of "
                          f"pos_val={pos_val!r})", describe(y_true),
                          ValueError if isinstance(y_true, (float, np.floating)) else TypeError)
    if y_true is None or not isinstance(y_true, type(pos_val)):
        raise param_error("y_true", func, f"a {type(pos_val).__name__} (the type of "
                          f"pos_val={pos_val!r})", describe(y_true), TypeError)
    return 1 if y_true == pos_val else 0


def label_of(y_true, func: str, name: str = "y_true") -> float:
    """A real-valued ``y_true`` (regression-style metrics)."""
    return check_scalar(y_true, name, func)


def weight_of(w, func: str):
    """A weight ``>= 0``: an int when integer-valued (exact counts), else a float."""
    return check_weight(w, func)


def not_held_error(func: str, y_true, y_pred, w) -> ValueError:
    """The error of a ``revert`` whose values match no update held."""
    return param_error("y_true, y_pred, w", func, "the values of an update that is held "
                       "(updated and not reverted yet)",
                       f"y_true={y_true!r}, y_pred={y_pred!r}, w={w!r}")


def or_zero(value: float) -> float:
    """River's convention for an undefined metric: ``0.0`` instead of ``nan``."""
    return 0.0 if value != value else value


def quiet(counts, name: str) -> float:
    """``getattr(counts, name)`` without the `UndefinedMetricWarning`, ``nan`` -> 0.0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return or_zero(getattr(counts, name))


class PairEngineMetric:
    """Mixin: a `PairEngine` of ``(label, score, weight)`` samples fed through a buffer.

    Subclasses set ``self._engine = PairEngine(...)`` and ``self._pending = []`` in
    ``__init__``, turn ``(y_true, y_pred)`` into a sample with ``_sample`` and read the
    counts with ``_counts()``.
    """

    def _sample(self, y_true, y_pred, w, func):  # pragma: no cover - overridden
        raise NotImplementedError

    def update(self, y_true, y_pred, w=1.0) -> None:
        sample = self._sample(y_true, y_pred, w, f"{type(self).__name__}.update")
        pending = self._pending
        pending.append(sample)
        if len(pending) >= MAX_PENDING:
            self._flush()

    def revert(self, y_true, y_pred, w=1.0) -> None:
        func = f"{type(self).__name__}.revert"
        sample = self._sample(y_true, y_pred, w, func)
        try:
            self._pending.remove(sample)  # an update not applied yet: drop it
            return
        except ValueError:
            pass
        try:
            self._engine.remove(*sample)
        except ValueError:
            raise not_held_error(func, y_true, y_pred, w) from None

    def _flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        engine = self._engine
        if len(pending) < SCALAR_FLUSH:
            for y, s, w in pending:
                engine.add(y, s, w)
        else:
            y, s, w = zip(*pending)
            weights = np.array(w, dtype=np.float64)
            engine.add_many(np.array(y, np.float64), np.array(s, np.float64),
                            None if all(type(x) is int and x == 1 for x in w) else weights,
                            func=f"{type(self).__name__}.update")
        self._pending = []

    def _counts(self):
        """The engine's `PairCounts` after applying the buffered updates."""
        self._flush()
        return self._engine.counts

    @property
    def works_with_weights(self) -> bool:
        return True

    # No ``requires_labels`` here: River reads it only on classification metrics, and a
    # ``Metrics`` whose first member has it asks every member for it, so ``KendallTau() +
    # MAE()`` would fail in ``Metrics.update`` (MAE has none).


def new_engine(labels: str = "auto") -> PairEngine:
    return PairEngine(labels)
