"""How one event of a `streamrank.monitor.PairedMonitor` reaches its two models.

A mixin of `PairedMonitor` (its methods read the pair's models, join and statistics),
apart so that the pair's module keeps its settings, reports and snapshot: an event is
checked once (`PairEvents._checked`), split into each model's part (`_calls`: a model
given a score, and a model holding the id when the event carries a label or a weight),
fed to both or neither (`_apply`), and a label for an id neither model holds goes to the
pair's join (`_outside`).
"""

from __future__ import annotations

import copy

from .._validation import check_scalar, check_weight, describe, param_error

__all__ = ["PairEvents"]


class PairEvents:
    """`PairedMonitor`'s steps of one event (module docstring)."""

    __slots__ = ()

    def _checked(self, key, score, challenger, label, weight, time) -> tuple:
        """The event's values, checked as `Monitor.observe` checks them."""
        func = "PairedMonitor.observe"
        if score is not None and not (type(score) is float and score - score == 0.0):
            score = check_scalar(score, "score", func)
        if challenger is not None and not (type(challenger) is float
                                           and challenger - challenger == 0.0):
            challenger = check_scalar(challenger, "challenger", func)
        if label is not None and not (type(label) is float and label - label == 0.0):
            label = check_scalar(label, "label", func)
        if weight is not None:
            weight = check_weight(weight, func, "weight")
        if time is not None:
            if not (type(time) is float and time - time == 0.0):
                time = check_scalar(time, "time", func)
        elif self.period is not None or self.label_wait_period is not None:
            raise param_error("time", func, "a finite number (the monitor has a period "
                              + ("window)" if self.period is not None else
                                 "label wait)"), "None")
        if key is None or key.__hash__ is None:
            raise param_error("key", func, "an id (a hashable value other than None)",
                              describe(key), TypeError)
        if score is None and challenger is None and label is None and weight is None:
            raise ValueError(f"{func}: an event needs a score, a challenger score, a label "
                             f"or a weight; got none for key {key!r}.")
        return score, challenger, label, weight, time

    def _calls(self, key, scores, held, label, weight, joined) -> list:
        """``(model, score, label, weight)`` of each model this event reaches: a model
        given a score, and a model holding the id when the event carries a label or a
        weight. A new prediction of a model takes the id's label and weight when the
        event has none: the waiting ones it ``joined``, or those the other model holds
        for the id."""
        models = (self.champion, self.challenger)
        shared = label is not None or weight is not None
        calls = []
        for i, (mon, s) in enumerate(zip(models, scores)):
            if s is None and not (held[i] and shared):
                continue
            lab, w = label, weight
            if s is not None and not held[i]:
                src = joined
                if src is None and held[1 - i]:
                    y, _, w_other = models[1 - i].prediction(key)
                    src = (y, w_other)
                if src is not None:
                    lab = src[0] if lab is None else lab
                    w = src[1] if w is None else w
            calls.append((mon, s, lab, w))
        return calls

    def _apply(self, key, calls, time) -> None:
        """Feed the models their part of the event, both or neither: a model that may
        refuse it goes first; if both may, the first is copied and restored when the
        second refuses."""
        backup = None
        if len(calls) == 2:
            risk = [_may_refuse(m, key, s, lab, time) for m, s, lab, _ in calls]
            if risk[1] and not risk[0]:
                calls = calls[::-1]
            elif risk[0] and risk[1]:
                backup = copy.copy(calls[0][0])
        for i, (mon, s, lab, w) in enumerate(calls):
            try:
                mon.observe(key, score=s, label=lab, weight=w, time=time)
            except (ValueError, TypeError):
                if i and backup is not None:    # undo the first model's event
                    if calls[0][0] is self.champion:
                        self.champion = backup
                    else:
                        self.challenger = backup
                    self._share_counts()
                raise

    def _outside(self, key, label, weight, time) -> None:
        """A label or weight for an id neither model holds (the pair's join): late,
        dropped, if a model evicted the prediction lately (or evicts it at ``time``);
        otherwise unmatched, or it waits with a label wait (moving no clock)."""
        a, b = self.champion, self.challenger
        if label is not None:
            a.check_label(label, time, "PairedMonitor.observe")
            b.check_label(label, time, "PairedMonitor.observe")
        join, st = self._join, self.stats
        late = key in a or key in b or self.left_lately(key)
        if join.waits is not None and not late:
            st["events"] += 1
            join.hold(key, label, weight, join.start(st["events"], self.clock, time))
        else:
            if time is not None:
                a.advance(time)
                b.advance(time)
            st["events"] += 1
            if late:
                join.dropped()
            else:
                join.unmatched(key, st["events"])
        self._run_out()
        self._copy_stats()


def _may_refuse(mon, key, score, label, time) -> bool:
    """Whether ``mon`` may refuse this event for a reason of its own window (the checks
    of the inputs both models share are the same in both): a new prediction older than
    its clock (exact), or a label that may be a third one with ``labels="binary"`` (two
    other labels held)."""
    if (score is not None and mon.period is not None and mon.clock is not None
            and type(time) in (int, float) and time < mon.clock):
        try:
            return key not in mon
        except TypeError:       # an unhashable key: both refuse it alike
            return False
    if label is not None and mon.labels == "binary":
        return len(set(mon.label_counts()) - {label}) >= 2
    return False
