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
* Every metric keeps its counts in a `PairEngine` (`ConcordanceIndex` with censoring in
  its own engine). The engine, the multiset of the samples it holds and the updates
  waiting for it are one compiled owner (`PairEngineMetric`, on
  `streamrank.structures._cmetric.MetricCore`; `RollingROCAUC` on its window's,
  `RollingCore`): ``update`` and ``revert`` are one compiled call each, and the waiting
  updates reach the engine in one batch when the metric is read (the engine's
  vectorized ``add_many``), or once `MAX_PENDING` wait. With integer weights the counts
  are exact either way; with float weights the two paths agree to rounding.
* Beside the engine, each metric holds what the engine is recounted from when float
  weight that came and went may have left rounding behind (`PairEngine.stale`): the
  multiset of its samples (`PairEngineMetric`, `GroupAUC`), or its window
  (`RollingROCAUC`).
* A pickle carries its format version (``MetricCore.__reduce__``, `GroupAUC` through
  `streamrank._snapshot.Pickled`); one of another version, or of an earlier development
  format, raises `SnapshotError` when loaded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from operator import itemgetter
from typing import Any, Union

import numpy as np
from river import base as river_base
from river import metrics as river_metrics

from .._typing import LabelKind, Number
from .._validation import check_scalar, describe, param_error
from ..counts import quiet_metric
from ..engine import PairEngine
from ..structures._cmetric import (READ_BINARY, READ_CHECKED, READ_PAIR, MetricCore,
                                   not_held_error)

__all__ = ["MAX_PENDING", "READ_BINARY", "READ_PAIR", "ClassLabel", "ClassOrScoreMetric",
           "PairEngineMetric", "Prediction", "RankMetrics", "Target", "binary_label",
           "check_count", "class_or_score", "hold", "held_arrays", "not_held_error",
           "or_zero", "recounted", "release", "sample_arrays", "score_of"]

#: Buffered updates are applied once this many are waiting, even if nobody reads.
MAX_PENDING = 4096

#: ``y_pred`` of these River metrics: a score (any scale), or, for the binary ones, a dict
#: of class probabilities (River's ``predict_proba_one``).
Prediction = Union[Number, Mapping[Any, float]]
#: A class of the binary metrics (``pos_val`` and ``y_true``): a bool, number or string.
ClassLabel = Union[Number, str]
#: ``y_true``: a class (binary metrics), a number (the others), or a ``(time,
#: event_observed)`` pair (``ConcordanceIndex(censoring=True)``).
Target = Union[ClassLabel, tuple[Number, Number]]

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


def binary_label(y_true, pos_val, func: str, name: str = "y_true") -> int:
    """1 if ``y_true`` is the positive class ``pos_val``, 0 if it is another class.

    River compares ``y_true == pos_val`` and takes anything else as negative, so a typo
    (``"oops"``), ``None`` or ``nan`` would silently count as a negative. Here ``y_true``
    must be a class of ``pos_val``'s kind: with a bool or numeric ``pos_val`` (the default
    ``True``), a bool or a finite number (``1 == True``, as in River); with a string (or
    other) ``pos_val``, a value of the same type (``str`` and numpy's ``str_`` are one
    type, as are ``bytes`` and ``bytes_``). Anything else raises, naming ``y_true`` (or
    ``name``: the tau-style metrics read a classifier's predicted label the same way).
    """
    if y_true.__class__ is bool or y_true.__class__ is int:   # the common case
        if isinstance(pos_val, _NUMBERS):
            return 1 if y_true == pos_val else 0
    if isinstance(pos_val, _NUMBERS):
        if isinstance(y_true, (bool, np.bool_, int, np.integer)):
            return 1 if y_true == pos_val else 0
        if isinstance(y_true, (float, np.floating)) and math.isfinite(y_true):
            return 1 if y_true == pos_val else 0
        raise param_error(name, func, f"a bool or a finite number (the classes of "
                          f"pos_val={pos_val!r})", describe(y_true),
                          ValueError if isinstance(y_true, (float, np.floating)) else TypeError)
    # numpy's str_ and bytes_ (labels read from an array) are str and bytes
    kind = str if isinstance(pos_val, str) else bytes if isinstance(pos_val, bytes) \
        else type(pos_val)
    if y_true is None or not isinstance(y_true, kind):
        raise param_error(name, func, f"a {kind.__name__} (the type of "
                          f"pos_val={pos_val!r})", describe(y_true), TypeError)
    return 1 if y_true == pos_val else 0


_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)


def class_or_score(y_true, y_pred, pos_val, func: str) -> tuple:
    """``(y, s)``, the two numbers a tau-style metric ranks, from an event of a regressor
    or of a classifier.

    * ``y_pred`` a dict of class probabilities (a classifier's ``predict_proba_one``,
      which River's evaluation hands a metric whose ``requires_labels`` is False): ``s``
      is the probability of ``pos_val`` (``0.0`` if absent), read as `ROCAUC` reads it
      (`score_of`), and ``y`` is the class, 1 for ``pos_val`` and 0 for another
      (`binary_label`);
    * ``y_pred`` a predicted class that is not a number, where ``pos_val`` is not one
      either (string classes): ``s`` is 1 for ``pos_val``, 0 for another class, and
      ``y`` as above;
    * otherwise (a regressor's prediction, or a bool / numeric class): both are numbers,
      read as they are (`check_scalar`; a bool is 0 / 1).

    >>> class_or_score(False, {False: 0.8, True: 0.2}, True, "f")
    (0, 0.2)
    >>> class_or_score("spam", "ham", "spam", "f")
    (1, 0.0)
    >>> class_or_score(2.5, 1, True, "f")
    (2.5, 1.0)
    """
    if isinstance(y_pred, dict):
        return binary_label(y_true, pos_val, func), score_of(y_pred, pos_val, func)
    if (y_pred is not None and not isinstance(y_pred, _NUMBERS)
            and not isinstance(pos_val, _NUMBERS)):
        return (binary_label(y_true, pos_val, func),
                float(binary_label(y_pred, pos_val, func, "y_pred")))
    return check_scalar(y_true, "y_true", func), check_scalar(y_pred, "y_pred", func)


def check_count(value, name: str, func: str, minimum: int = 1) -> int:
    """A count parameter of a constructor, as River's takes it: an ``int`` or numpy
    integer ``>= minimum``, returned as an ``int``. Another type (a float, even ``2.0``,
    a string, None, a bool) is a `TypeError`, as River's ``range(n)`` / ``int`` raise for
    them; an int below ``minimum`` a `ValueError`. The message names ``name``.

    >>> check_count(np.int64(3), "window_size", "f")
    3
    >>> check_count(2.0, "n_thresholds", "f", minimum=2)
    Traceback (most recent call last):
    ...
    TypeError: The 'n_thresholds' parameter of f must be an int >= 2. Got 2.0 instead.
    """
    what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise param_error(name, func, what, describe(value), TypeError)
    if value < minimum:
        raise param_error(name, func, what, describe(value))
    return int(value)


def or_zero(value: float) -> float:
    """River's convention for an undefined metric: ``0.0`` instead of ``nan``."""
    return 0.0 if value != value else value


def quiet(counts, name: str) -> float:
    """``getattr(counts, name)`` without the `UndefinedMetricWarning`, ``nan`` -> 0.0."""
    return or_zero(quiet_metric(counts, name))


def sample_arrays(samples) -> tuple:
    """``(labels, scores, weights)`` float64 arrays of a sequence of ``(label, score,
    weight)`` tuples; ``weights`` is None when every weight is 1 (the engine's exact
    unit-weight path). Runtime complexity: ``O(k)`` (``np.fromiter``)."""
    k = len(samples)
    y = np.fromiter(map(_first, samples), np.float64, k)
    s = np.fromiter(map(_second, samples), np.float64, k)
    w = np.fromiter(map(_third, samples), np.float64, k)
    return y, s, (None if bool((w == 1.0).all()) else w)


_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)


def held_arrays(held: dict) -> tuple:
    """A multiset ``{(label, score, weight): copies}`` as the arrays of `sample_arrays`,
    each sample repeated by its copies (what `PairEngine.add_many` and
    `PairEngine.rebuild` take). Runtime complexity: ``O(n)``."""
    arrays = sample_arrays(list(held))
    copies = np.fromiter(held.values(), np.int64, len(held))
    if bool((copies == 1).all()):
        return arrays
    return tuple(None if a is None else np.repeat(a, copies) for a in arrays)


def hold(held: dict, sample, copies: int = 1) -> None:
    """Count ``copies`` more of ``sample`` in a multiset ``{sample: copies}``."""
    held[sample] = held.get(sample, 0) + copies


def release(held: dict, sample) -> bool:
    """Count one copy of ``sample`` less in ``held``; False (nothing changes) if none."""
    n = held.get(sample)
    if not n:
        return False
    if n == 1:
        del held[sample]
    else:
        held[sample] = n - 1
    return True


def recounted(engine: PairEngine, held: dict) -> PairEngine:
    """``engine``, recounted from ``held`` (the multiset of samples it holds) first when
    float rounding of weight that came and went may be large (`PairEngine.stale`):
    ``O(n log n)`` then, O(1) otherwise."""
    if engine.stale:
        engine.rebuild(*held_arrays(held))
    return engine


class PairEngineMetric(MetricCore):
    """Base of the River metrics over a `PairEngine`: the compiled `MetricCore` owns the
    engine, the multiset of the samples it holds and the updates waiting for it, so that
    ``update`` and ``revert`` are one compiled call each.

    Subclasses call ``self._init_engine(labels)`` in ``__init__``, turn ``(y_true, y_pred,
    w)`` into a ``(label, score, weight)`` sample with ``_sample`` (the checked reader,
    with the errors; `MetricCore` reads the common event in C the same way, as ``_READ``
    says) and read the counts with ``_counts()``. The multiset ``{sample: copies}`` of the
    engine's samples (one dict entry per distinct sample) makes `revert` exact: it takes
    the values of an update held, weight included, where the engine alone can only bound
    the weight of one copy among several; and it is what the engine is recounted from
    when its float rounding turns `PairEngine.stale`.
    """

    #: How `MetricCore` reads the common event in C (``_sample`` reads the rest).
    _READ = READ_CHECKED

    def _init_engine(self, labels: LabelKind = "auto") -> None:
        self._bind(PairEngine(labels), self._READ, MAX_PENDING)

    def _sample(self, y_true, y_pred, w, func):  # pragma: no cover - overridden
        raise NotImplementedError

    def _recount(self) -> None:
        """Rebuild the engine from the samples held (`MetricCore._counted` calls it when
        the engine turns `PairEngine.stale`). ``O(n log n)``."""
        self._engine.rebuild(*held_arrays(self._held))

    def _counts(self):
        """The engine's `PairCounts` after applying the buffered updates."""
        return self._counted().counts

    @property
    def works_with_weights(self) -> bool:
        return True

    # No ``requires_labels`` here: the AUC metrics say False as River's binary metrics
    # do, and the tau-style ones get it from `ClassOrScoreMetric`. A ``Metrics`` whose
    # first member says False asks every member for it, and River's regression metrics
    # (MAE, ...) have none: hence the `RankMetrics` that ``KendallTau() + MAE()`` makes.


# --------------------------------------------------------------------------- composition
class ClassOrScoreMetric:
    """Mixin of the tau-style metrics (`KendallTau`, `GoodmanKruskalGamma`, `SomersD`,
    `ConcordanceIndex`, `PairwiseAccuracy`, `RightWrongRatio`): River regression metrics
    that also take a binary classifier's output.

    * ``works_with`` a regressor or a classifier (as River's binary metrics, any
      classifier: a multiclass one is read as ``pos_val`` against the other classes);
    * ``requires_labels`` is False, so that River's evaluation (`progressive_val_score`,
      `Metrics`, the model selectors) hands the metric ``predict_proba_one``'s dict; the
      event is then read by `class_or_score`;
    * ``+`` forms a ``river.metrics.Metrics`` with a classification metric or a regression
      metric (`RankMetrics`), and the AUC metrics take a tau-style metric on their right.

    They stay `RegressionMetric` only, not `ClassificationMetric`: River's
    ``ARFRegressor`` feeds its ``metric`` ``predict_proba_one`` when that metric is a
    ``ClassificationMetric`` that does not require labels, and its regression trees have
    none, so ``ARFRegressor(metric=KendallTau())`` would fail. The price: River's own
    classification metrics refuse a tau-style metric on their right
    (``metrics.Accuracy() + KendallTau()``, River's ``__add__`` checks the class); put the
    streamrank metric first (``KendallTau() + metrics.Accuracy()``).

    ``pos_val``, the class whose probability is the score, is kept in the instance's
    ``__dict__`` (it shadows `MetricCore`'s slot, which the binary metrics use): a metric
    pickled before it existed reads the default ``True``.
    """

    @property
    def pos_val(self) -> ClassLabel:
        return self.__dict__.get("_pos_val", True)

    @pos_val.setter
    def pos_val(self, value: ClassLabel) -> None:
        self.__dict__["_pos_val"] = value

    @property
    def requires_labels(self) -> bool:
        return False

    def works_with(self, model: river_base.Estimator) -> bool:
        return isinstance(model, (river_base.Regressor, river_base.Classifier))

    def __add__(self, other):
        if _kind(other) is None:
            raise ValueError(f"{type(self).__name__} and {type(other).__name__} metrics "
                             "are not compatible")
        return RankMetrics([self, other])


def _kind(metric) -> str | None:
    """What River's ``+`` compares: ``"either"`` for a tau-style metric, ``"class"`` /
    ``"regression"`` for River's two kinds, None for anything else."""
    if isinstance(metric, ClassOrScoreMetric):
        return "either"
    if isinstance(metric, river_metrics.base.ClassificationMetric):
        return "class"
    if isinstance(metric, river_metrics.base.RegressionMetric):
        return "regression"
    return None


def _compatible(a, b) -> bool:
    ka, kb = _kind(a), _kind(b)
    return ka is not None and kb is not None and (ka == kb or "either" in (ka, kb))


class RankMetrics(river_metrics.base.Metrics):
    """The ``river.metrics.Metrics`` that ``+`` makes from a tau-style metric on the left.

    River's `Metrics` asks every member for ``requires_labels`` as soon as one member
    says False, and River's regression metrics (``MAE``, ...) have none: a plain
    ``Metrics([KendallTau(), MAE()])`` fails in ``update`` with an `AttributeError`
    (``Metrics([MAE(), KendallTau()])``, or ``MAE() + KendallTau()``, does not). This one
    reads a missing ``requires_labels`` as "takes ``y_pred`` as it comes", and otherwise
    updates as River's does: when some member takes probabilities, a member that requires
    labels gets the most probable class. ``+`` appends a metric compatible with every
    member (the tau-style metrics with either kind, River's kinds with their own).

    >>> from river import metrics
    >>> from streamrank.metrics import KendallTau
    >>> both = KendallTau() + metrics.MAE()
    >>> for y_true, y_pred in [(1.0, 1.5), (2.0, 1.0), (3.0, 3.5)]:
    ...     both.update(y_true, y_pred)
    >>> both
    KendallTau: 0.333333
    MAE: 0.666667
    """

    def update(self, y_true, y_pred, w=1.0) -> None:
        self._each("update", y_true, y_pred, w)

    def revert(self, y_true, y_pred, w=1.0) -> None:
        self._each("revert", y_true, y_pred, w)

    def _each(self, verb: str, y_true, y_pred, w) -> None:
        mixed = isinstance(y_pred, dict) and not self.requires_labels
        for m in self:
            if mixed and getattr(m, "requires_labels", False):   # River's Metrics, too
                getattr(m, verb)(y_true, max(y_pred, key=y_pred.get), w)
            else:
                getattr(m, verb)(y_true, y_pred, w)

    @property
    def requires_labels(self) -> bool:
        return all(getattr(m, "requires_labels", True) for m in self)

    def __add__(self, other):
        for m in self:
            if not _compatible(m, other):
                raise ValueError(f"{type(m).__name__} and {type(other).__name__} metrics "
                                 "are not compatible")
        self.append(other)
        return self
