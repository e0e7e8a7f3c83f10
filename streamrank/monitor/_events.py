"""How one event changes a `streamrank.monitor.Monitor`: `MonitorEvents`, a base of
`Monitor`, with `observe` (the per-event paths of a steady count window, then the checked
path: every check before anything changes, then the evictions and the change; one
method, as it is the per-event path of every event that is not steady: split into
named steps it took 0.15 to 0.3 us an event more, of about 2 to 3, timed ad hoc),
`advance`, the evictions and the reference's freezing. The rules are in the
`streamrank.monitor` docstring.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np

from .._typing import Number
from .._validation import check_scalar, check_weight, describe, param_error
from ._join_side import HELD as _HELD
from ._reference import _Reference
from ._scores import ScoreReference

__all__ = ["MonitorEvents"]

_NAN = math.nan


def _plain_label(label):
    """A bool or finite float label as a float, for the per-event paths; None for
    anything else (the checked path validates it)."""
    if label.__class__ is bool:
        return 1.0 if label else 0.0
    if type(label) is float and label - label == 0.0:
        return label
    return None




class MonitorEvents:
    """`Monitor`'s events: `observe`, `advance` and what they change."""

    def observe(self, key: Hashable, *, score: Number | None = None,
                label: Number | None = None, weight: Number | None = None,
                time: Number | None = None) -> None:
        """Observe one event: a new prediction, a late label, a re-score, or a reweight.

        See the module docstring for the rules. Validated before anything changes: a
        non-finite score/label/time, a negative weight, an event with nothing in it, a
        new prediction older than the clock (``period`` windows), a third label with
        ``labels="binary"`` raise `ValueError` / `TypeError`.

        Runtime complexity: ``O(1)`` amortized here; the engine's ``O(log W)`` per change
        (binary labels; plus one per evicted labeled prediction) comes at the next read.
        With a detector, an event that labels a prediction reads its placement value
        (`_signal`: ``O(log R)``; ``O(log W)`` against the window) and updates it.
        """
        if (self._fast and weight is None and time is None and type(score) is float
                and score - score == 0.0 and self._lo <= score <= self._hi
                and key is not None
                and key.__hash__ is not None):
            # the per-event paths of a steady count window (one C call each; anything
            # else goes on): a new prediction with a float score, a bool / float label or
            # none ...
            y = _NAN if label is None else _plain_label(label)
            if y is not None:
                win = self._win
                evicted = win.push_new(key, y, score, self.window)
                if evicted >= 0:
                    st = self.stats
                    st["events"] += 1
                    st["predictions"] += 1
                    if label is not None:
                        st["labeled"] += 1
                    if evicted:
                        st["evicted"] += 1
                        if evicted == 2:
                            st["evicted_pending"] += 1
                        self._gone.note(win.last_evicted, st["evicted"])
                    if self._join.orphans.mark:     # a label of this id came first?
                        self._join.predicted(key, st["events"])
                    if win.full:
                        self._fresh_counts()
                    if label is not None and self._detector is not None:
                        self._feed(y, score, 1)
                    return
        elif (self._fast and score is None and weight is None and time is None
              and label is not None and key.__hash__ is not None):
            # ... and a late label (bool or float) for a pending prediction
            y = _plain_label(label)
            if y is not None and self._win.label_pending(key, y):
                st = self.stats
                st["events"] += 1
                st["labeled"] += 1
                st["late"] += 1
                if self._win.full:
                    self._fresh_counts()
                if self._detector is not None:
                    self._feed_key(key, y)
                return
        # -- validate (the finite-float checks inline: this is the per-event hot path)
        if score is not None and not (type(score) is float and score - score == 0.0):
            score = check_scalar(score, "score", "Monitor.observe")
        if score is not None and not self._lo <= score <= self._hi:
            raise param_error("score", "Monitor.observe", "a probability in [0, 1] (the "
                              "monitor keeps an estimate)", repr(score))
        if label is not None and not (type(label) is float and label - label == 0.0):
            label = check_scalar(label, "label", "Monitor.observe")
        if weight is not None:
            weight = check_weight(weight, "Monitor.observe", "weight")
        period = self.period
        if time is not None:
            if not (type(time) is float and time - time == 0.0):
                time = check_scalar(time, "time", "Monitor.observe")
        elif period is not None or self.label_wait_period is not None:
            raise param_error("time", "Monitor.observe", "a finite number (the monitor "
                              "has a period " + ("window)" if period is not None else
                                                 "label wait)"), "None")
        if key is None or key.__hash__ is None:
            raise param_error("key", "Monitor.observe", "an id (a hashable value other "
                              "than None)", describe(key), TypeError)
        win = self._win
        row = win.store.row_of(key)
        if row < 0 and score is None and label is None and weight is None:
            raise ValueError("Monitor.observe: an event needs a score, a label or a "
                             f"weight; got none for key {key!r}.")
        # a label or weight for an id neither in the window nor evicted lately is
        # unmatched (`streamrank.monitor._join`); with a label wait, it waits (early)
        orphan = row < 0 and score is None and not self.left_lately(key)
        waits = self._join.waits
        early = waits is not None and orphan
        # -- the evictions this event causes (counted first, applied after the checks)
        evict = 0
        if period is None:
            if row < 0 and score is not None and len(win) >= self.window:
                evict = len(win) - self.window + 1
        elif not early:         # an event that waits moves no clock
            clock = self._clock
            if row < 0 and score is not None and clock is not None and time < clock:
                raise param_error("time", "Monitor.observe", f"at least the clock "
                                  f"{clock!r} for a new prediction (predictions arrive in "
                                  "time order)", repr(time))
            if clock is None or time > clock:
                horizon = time - period
                evict = win.count_through(horizon)  # O(1 + evicted): oldest first
                if row >= 0 and win.store.value(row)[0] <= horizon:
                    row = -1    # the event's own prediction leaves before it applies
        if waits is not None:
            joined = self._joining(key, row, score, label, evict, time, early)
        if label is not None and self.labels == "binary":
            self._check_binary(label, row, evict)
        # -- apply
        if evict:
            self._evict(evict, time)
        if time is not None and not early and (self._clock is None or time > self._clock):
            self._clock = time
        st = self.stats
        st["events"] += 1
        if waits is not None:
            label, weight = self._wait_step(key, label, weight, joined, early, time)
            if label is _HELD:
                return
        if row < 0:
            if score is None:   # a label or weight for a prediction outside the window
                if orphan:
                    self._join.unmatched(key, st["events"])
                else:
                    self._join.dropped()
                return
            self._join.predicted(key, st["events"])     # a label of it came first?
            w = 1 if weight is None else weight
            if win.push(_NAN if time is None else time, _NAN if label is None else label,
                        score, w, key):
                self._fresh_counts()
            st["predictions"] += 1
            if self._sref is None and self.score_reference is not None \
                    and st["predictions"] >= self.score_reference:
                self._freeze_scores()
            if label is not None:
                st["labeled"] += 1
                if self._ref is None and self.reference is not None:
                    self._ref_note(key, label, score, w)
                if self._detector is not None:
                    self._feed(label, score, w)
            return
        _, y, s, w = win.store.value(row)
        if y != y:                                  # pending
            if score is not None and score != s:
                s = score
                st["rescored"] += 1
            if weight is not None:
                w = weight
            if label is not None:
                st["labeled"] += 1
                st["late"] += 1
            if win.change(row, _NAN if label is None else label, s, w):
                self._fresh_counts()
            if label is not None and self._ref is None and self.reference is not None:
                self._ref_note(key, label, s, w)
            if label is not None and self._detector is not None:
                self._feed(label, s, w)
            return
        new_y = y if label is None else label       # labeled: re-score / relabel / weight
        new_s = s if score is None else score
        new_w = w if weight is None else weight
        if new_y == y and new_s == s and new_w == w:
            return
        if new_y != y:
            st["relabeled"] += 1
        if new_s != s:
            st["rescored"] += 1
        if win.change(row, new_y, new_s, new_w):
            self._fresh_counts()
        if self._ref is None and key in self._ref_store:
            self._ref_store[key] = [new_y, new_s, new_w]

    def advance(self, time: Number) -> None:
        """Move the clock to ``time`` without an event (nothing if it is not later), as
        an event at ``time`` would (evictions, label waits): for a wrapper that shares one
        clock (`streamrank.monitor.SegmentedMonitor`). Runtime: ``O(1 + evicted)``."""
        time = check_scalar(time, "time", "Monitor.advance")
        if self._clock is not None and time <= self._clock:
            return
        if self.period is not None:
            self._evict(self._win.count_through(time - self.period), time)
        self._clock = time
        if len(self._join):     # time waits run out as the clock moves
            self._run_out()

    def _ref_note(self, key, y, s, w) -> None:
        """A prediction got its label: count it towards ``reference=N``."""
        if self._ref is None and self.reference is not None:
            store = self._ref_store
            store[key] = [y, s, w]
            if len(store) + len(self._ref_left) >= self.reference:
                ys, ss, ws = zip(*self._ref_left, *store.values())
                self._set_reference(_Reference(ys, ss, ws))
                self._ref_store, self._ref_left = {}, []

    def _evict(self, k, time=None) -> None:
        """Drop the ``k`` oldest predictions (freezing the default reference first);
        ``time``: the clock that evicts them (``period`` windows)."""
        if not k:
            return
        if self._sref is None and self.score_drift and self.score_reference is None:
            self._freeze_scores()
        if self._ref is None and self.reference is None:
            self._freeze_window()
        st, store = self.stats, self._ref_store
        scores = self._sref_left if self._sref is None and self.score_drift else None
        for i, (key, y, s, w) in enumerate(self._win.evict(k, True)):  # engine: at a read
            if store and key in store:      # keep it for reference=N, free its id
                self._ref_left.append(store.pop(key))
            if scores is not None:          # and its score for score_reference=N
                scores.append((s, w))
            if y != y:
                st["evicted_pending"] += 1
            self._gone.note(key, st["evicted"] + i + 1 if self.period is None else time)
        st["evicted"] += k

    def _steady(self) -> bool:
        """Whether new predictions and late labels may take the per-event paths once
        the reference is frozen: a count window, not ``labels="binary"``, no label
        waiting (`streamrank.monitor._join`), no detector fed against the window, the
        scores' reference frozen (with ``score_drift``)."""
        return (self.period is None and self.labels != "binary" and not len(self._join)
                and (self._detector is None or self.detector_signal == "reference")
                and (self._sref is not None or not self.score_drift))

    @property
    def _frozen(self) -> bool:
        """Whether every reference the monitor keeps is frozen (no eviction freezes one:
        a run may evict)."""
        return self._ref is not None and (self._sref is not None or not self.score_drift)

    def _freeze_scores(self) -> None:
        """Freeze the scores' reference (``score_drift``): the predictions evicted so far
        (with ``score_reference=N``) and the window's, and bin the window's against it.
        ``O((W + R) log(W + R))``."""
        self._fresh_counts()                    # (the every-row log is handed on first)
        _, s, w = self.columns(labeled=False)
        if self._sref_left:
            left_s, left_w = zip(*self._sref_left)
            ref = ScoreReference(np.concatenate([left_s, s]), np.concatenate([left_w, w]))
        else:
            ref = ScoreReference(s, w)
        self._set_score_reference(ref)
        self._sref_left = []

    def _set_score_reference(self, ref) -> None:
        """Freeze the scores' reference ``ref`` and count the window's predictions into
        its bins (`streamrank.monitor._scores`; the every-row log handed on already)."""
        _, s, w = self.columns(labeled=False)
        self._sref = ref
        self._est = self._est[:2] + (ref.bins(s, w),)
        self._fast = self._ref is not None and self._steady()

    def _freeze_window(self) -> None:
        self._set_reference(_Reference(*self.columns()))

    def _set_reference(self, ref) -> None:
        """Freeze the reference window; from then on a count window takes new predictions
        through `RowWindow.push_new` (no reference to note, nothing to freeze)."""
        self._ref = ref
        self._fast = self._steady()

