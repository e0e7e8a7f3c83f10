"""Group AUC (GAUC) as a River metric, and the classifier wrapper that tags predictions
with their group so that GAUC works inside River's evaluation helpers."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Literal, Union

from river import base
from river.base.typing import ClfTarget, FeatureName

from ..batch._groups import check_group_id
from .._validation import describe, param_error
from .._typing import Number
from ..engine import PairEngine
from ..structures._csums import Sums
from .._snapshot import Pickled
from . import _base
from ._base import (ClassLabel, Prediction, hold, not_held_error, recounted,
                    release)
from .roc_auc import _BinaryAUCMetric

__all__ = ["GroupAUC", "GroupedProba", "WithGroup"]

_WEIGHTINGS = ("impressions", "pairs", "uniform")


class GroupedProba(dict):
    """A classifier's ``{class: probability}`` dict that also carries the event's group.

    It *is* the plain dict of probabilities for every other metric (``Accuracy``,
    ``LogLoss``, River's ``ROCAUC``, ...), so a `GroupAUC` can sit in a
    ``river.metrics.Metrics`` next to them; `GroupAUC` reads its ``group`` attribute.
    `WithGroup` makes these.

    Examples
    --------
    >>> p = GroupedProba({False: 0.2, True: 0.8}, group="u1")
    >>> p[True], p.group, p == {False: 0.2, True: 0.8}
    (0.8, 'u1', True)
    """

    def __init__(self, proba: Mapping[Any, float] | Iterable[tuple[Any, float]] = (),
                 group: Hashable = None) -> None:
        super().__init__(proba)
        self.group = group

    def __repr__(self) -> str:
        return f"GroupedProba({dict.__repr__(self)}, group={self.group!r})"


#: ``y_pred`` of `GroupAUC`: a `GroupedProba` (from `WithGroup`) or a ``(prediction,
#: group)`` pair.
GroupedPrediction = Union[GroupedProba, tuple[Prediction, Hashable]]


class WithGroup(base.Wrapper, base.Classifier):
    """Wrap a classifier so that its predictions carry the group of ``x[key]``.

    ``predict_proba_one(x)`` returns a `GroupedProba`: the wrapped classifier's
    probabilities, tagged with ``x[key]`` (or ``key(x)`` when ``key`` is callable). That is
    how `GroupAUC` gets the group inside ``evaluate.progressive_val_score``, which only
    passes ``(y_true, y_pred)`` to the metric. Learning and ``predict_one`` go to the
    wrapped classifier unchanged; with ``drop=True`` (the default) the group feature is
    removed from ``x`` first, so that an id (a string, say) never reaches the model.

    Parameters
    ----------
    classifier : base.Classifier
        The model to evaluate.
    key
        The feature of ``x`` holding the group id, or a function ``x -> group`` (a named,
        module-level function keeps the wrapper picklable).
    drop : bool
        Remove ``x[key]`` before ``x`` reaches the classifier (only for a feature name).

    Examples
    --------
    >>> from river import linear_model
    >>> from streamrank.metrics import WithGroup
    >>> model = WithGroup(linear_model.LogisticRegression(), key="user")
    >>> model.learn_one({"user": "u1", "x": 1.0}, True)
    >>> p = model.predict_proba_one({"user": "u1", "x": 1.0})
    >>> p.group, round(p[True], 3)
    ('u1', 0.502)
    """

    def __init__(self, classifier: base.Classifier,
                 key: Hashable | Callable[[dict[FeatureName, Any]], Hashable],
                 drop: bool = True) -> None:
        self.classifier = classifier
        self.key = key
        self.drop = drop

    @property
    def _wrapped_model(self):
        return self.classifier

    @classmethod
    def _unit_test_params(cls):
        from river import linear_model

        yield {"classifier": linear_model.LogisticRegression(), "key": "group"}

    def _group(self, x):
        if callable(self.key):
            return self.key(x)
        try:
            return x[self.key]
        except KeyError:
            raise param_error("key", "WithGroup", "a feature of every x that is predicted",
                              f"{self.key!r}, which is missing from x = {describe(x)}",
                              KeyError) from None

    def _strip(self, x):
        if self.drop and not callable(self.key) and self.key in x:
            return {k: v for k, v in x.items() if k != self.key}
        return x

    def learn_one(self, x: dict[FeatureName, Any], y: ClfTarget, **kwargs: Any) -> None:
        self.classifier.learn_one(self._strip(x), y, **kwargs)

    def predict_proba_one(self, x: dict[FeatureName, Any], **kwargs: Any) -> GroupedProba:
        proba = self.classifier.predict_proba_one(self._strip(x), **kwargs)
        return GroupedProba(proba, self._group(x))

    def predict_one(self, x: dict[FeatureName, Any], **kwargs: Any) -> ClfTarget | None:
        return self.classifier.predict_one(self._strip(x), **kwargs)


class GroupAUC(Pickled, _BinaryAUCMetric):
    """Group AUC (GAUC): the exact AUC within each group, averaged over the groups that
    hold both classes.

    ``GAUC = sum_g v_g AUC_g / sum_g v_g``; within a group, ties in score count 1/2. The
    group weight ``v_g`` is, by ``weighting`` (as `streamrank.group_auc_score`, which this
    metric equals on every prefix):

    * ``"impressions"``: the weight of the group's events (their number by default);
    * ``"pairs"``: its (positive, negative) pair weight, which makes GAUC the share of
      within-group pairs ordered correctly;
    * ``"uniform"``: 1 per group.

    **Where the group comes from.** The group travels with the prediction: ``y_pred`` is
    either

    * a ``(prediction, group)`` tuple, ``prediction`` being what `ROCAUC` takes (a dict
      of probabilities or a score), for loops you write yourself; or
    * a `GroupedProba`, the dict of probabilities that `WithGroup` returns, for River's
      evaluation helpers: ``evaluate.progressive_val_score(dataset, WithGroup(model,
      key="user"), GroupAUC())`` (also inside ``utils.Rolling`` and ``metrics.Metrics``,
      where the other metrics see the plain probabilities).

    A ``y_pred`` without a group raises `TypeError`. **Group ids** compare as ``dict`` keys
    do, by Python equality and hash, as in `streamrank.group_auc_score`: ``1``, ``1.0`` and
    ``True`` are one group, ``1`` and ``"1"`` two. Any hashable value is an id except
    ``None``, ``nan``, ``inf`` and ``NaT`` (`ValueError`, nothing changes); an unhashable
    one raises `TypeError`.

    ``get()`` returns ``0.0`` while no group holds both classes (River's convention);
    `n_groups` and `n_skipped` count the groups in the mean and those left out.

    Runtime complexity: `update` O(1) amortized (buffered); applying ``k`` buffered
    updates costs ``O(log n_g)`` per update in its group's `PairEngine`
    (``labels="binary"``; or a batch counted with numpy), and O(1) per group touched to
    move the weighted mean; `get` O(1) after that. `revert` O(1) for an update still
    buffered, else ``O(log n_g)``. Memory: the engines', plus one dict
    entry per distinct ``(group, y_true, score, w)`` held (what makes `revert` exact, as
    in `ROCAUC`).

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    weighting : {"impressions", "pairs", "uniform"}
        The group weights of the mean.
    pos_val
        Value of ``y_true`` (and key of the probabilities) to treat as positive.

    Examples
    --------
    >>> from streamrank.metrics import GroupAUC
    >>> events = [(1, 0.9, "u1"), (0, 0.1, "u1"), (1, 0.2, "u2"), (0, 0.4, "u2"),
    ...           (0, 0.3, "u2"), (1, 0.5, "u3"), (1, 0.6, "u3")]
    >>> metric = GroupAUC()
    >>> for y_true, score, user in events:
    ...     metric.update(y_true, (score, user))
    >>> metric.get()        # u1: 1.0 (2 impressions), u2: 0.0 (3), u3 has no negative
    0.4
    >>> metric.n_groups, metric.n_skipped
    (2, 1)
    """

    def __init__(self, weighting: Literal["impressions", "pairs", "uniform"] = "impressions",
                 pos_val: ClassLabel = True) -> None:
        if weighting not in _WEIGHTINGS:
            raise param_error("weighting", "GroupAUC", f"one of {_WEIGHTINGS}",
                              describe(weighting))
        self.weighting = weighting
        self.pos_val = pos_val
        self._engines: dict[Hashable, PairEngine] = {}
        # group -> {(label, score, weight): copies in its engine}
        self._held: dict[Hashable, dict[tuple[float, float, Number], int]] = {}
        # group -> (v_g, v_g * AUC_g) of the groups with both classes
        self._parts: dict[Hashable, tuple[float, float]] = {}
        self._sums = Sums(True)  # sum v and sum v * AUC, compensated (the first two)
        self._changes = 0      # changes of the sums since they were last recomputed
        self._pending: dict = {}   # waiting additions: (group, (label, score, weight)) -> copies
        self._waiting = 0          # copies waiting

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"weighting": "pairs"}

    @property
    def works_with_weights(self) -> bool:
        return True

    def works_with(self, model: base.Estimator) -> bool:
        return isinstance(model, base.Classifier)

    def _grouped(self, y_true, y_pred, w, func):
        if type(y_pred) is tuple and len(y_pred) == 2:
            pred, group = y_pred
        elif isinstance(y_pred, GroupedProba):
            pred, group = y_pred, y_pred.group
        else:
            raise param_error("y_pred", func, "a (prediction, group) tuple or a "
                              "GroupedProba (see WithGroup)", describe(y_pred), TypeError)
        check_group_id(group, "y_pred", func)
        return group, self._event(y_true, pred, w, func)

    def update(self, y_true: ClassLabel, y_pred: GroupedPrediction,  # type: ignore[override]
                  w: Number = 1.0) -> None:
        """Add an event to its group. Runtime complexity: O(1) amortized (buffered)."""
        hold(self._pending, self._grouped(y_true, y_pred, w, "GroupAUC.update"))
        self._waiting += 1
        if self._waiting >= _base.MAX_PENDING:
            self._flush()

    def revert(self, y_true: ClassLabel, y_pred: GroupedPrediction,  # type: ignore[override]
                  w: Number = 1.0) -> None:
        """Remove one earlier update with these values (and group), in any order;
        `ValueError` (nothing changes) if none is held. Runtime complexity: O(1) for an
        update still buffered, else one removal from its group's engine."""
        func = "GroupAUC.revert"
        item = self._grouped(y_true, y_pred, w, func)
        if release(self._pending, item):
            self._waiting -= 1
            return
        group, event = item
        held = self._held.get(group)
        if held is None or event not in held:
            raise not_held_error(func, y_true, y_pred, w)
        engine = self._engines[group]
        old = self._part(engine)
        engine.remove(*event)
        release(held, event)
        if not len(engine):
            del self._held[group]
        else:
            recounted(engine, held)
        self._move(group, engine, old)

    def _flush(self) -> None:
        if not self._waiting:
            return
        adds, self._pending, self._waiting = self._pending, {}, 0
        by_group: dict = {}
        for (group, event), n in adds.items():
            events = by_group.get(group)
            if events is None:
                by_group[group] = {event: n}
            else:
                events[event] = n
        engines = self._engines
        for group, events in by_group.items():
            engine = engines.get(group)
            if engine is None:
                engine = engines[group] = PairEngine("binary")
                held = self._held[group] = {}
            else:
                held = self._held[group]
            for event, n in events.items():
                hold(held, event, n)
            old = self._part(engine)
            engine.apply([], events, "GroupAUC.update")
            self._move(group, recounted(engine, held), old)

    def _part(self, engine):
        """``(v_g, v_g * AUC_g)`` of a group, or None while it lacks a class."""
        counts = engine.counts
        pairs = counts.comparable      # W0 * W1 (the sum of its pair weights with floats)
        if not pairs > 0:
            return None
        if self.weighting == "impressions":
            v = float(counts.weight_sum)
        elif self.weighting == "pairs":
            v = float(pairs)
        else:
            v = 1.0
        return v, v * counts.auc

    def _move(self, group, engine, old) -> None:
        """Replace a group's part of the weighted mean after its engine changed."""
        new = self._part(engine)
        if old is not None:
            self._add(-old[0], -old[1])
            del self._parts[group]
        if new is not None:
            self._add(*new)
            self._parts[group] = new
        if not len(engine):
            del self._engines[group]
        self._changes += 1
        if self._changes > len(self._parts) + 1024:
            self._refresh()

    def _add(self, dv, dx) -> None:
        self._sums.add((dv, dx, 0.0, 0.0, 0.0), 1.0, 0.0)

    def _refresh(self) -> None:
        """Recompute both sums with `math.fsum`: O(groups), once per groups + 1024
        changes, so rounding never piles up over a long stream."""
        parts = self._parts.values()
        self._sums.reset(True)
        self._add(math.fsum(v for v, _ in parts), math.fsum(x for _, x in parts))
        self._changes = 0

    def get(self) -> float:
        """The group AUC of the events held; ``0.0`` while no group has both classes."""
        self._flush()
        if not self._parts:
            return 0.0
        v, x = self._sums.values()[:2]
        if not v > 0:
            return 0.0
        return min(1.0, max(0.0, x / v))

    @property
    def n_groups(self) -> int:
        """Groups in the mean (holding both classes)."""
        self._flush()
        return len(self._parts)

    @property
    def n_skipped(self) -> int:
        """Groups held but left out of the mean (one class only)."""
        self._flush()
        return len(self._engines) - len(self._parts)
