"""`Monitor`: exact rolling AUC of a live prediction stream, with drift alerts.

A deployed model emits *events*: a new prediction (an id and a score), a label that
arrives later for an earlier id, a corrected score. `Monitor.observe` takes them one at a
time and keeps the exact pair counts (`streamrank.PairCounts`: AUC with ties, Kendall's
tau, C-index, ...) of the labeled predictions of a sliding window, updated in ``O(log W)``
per event; `Monitor.report` reads them in ``O(1)``, tests the window against a frozen
reference window, and optionally feeds a River drift detector.

Semantics
---------
**The window** holds the last ``window`` *predictions* (events that bring a new id with
a score), or with ``period`` the predictions whose time ``t`` satisfies
``t > clock - period``, ``clock`` being the latest time seen. The window order is the
order predictions arrived in; later events about an id never move it.

**Pending predictions**: a prediction without a label is held in the window order (it
takes its place, and leaves when its turn comes) but is not counted in the pair counts.

**Late labels**: an event with the id of a prediction still in the window and a label
puts the prediction into the exact counts (``stats["late"]``); if the event also carries
a score or a weight, those replace the pending ones. A label for a prediction that has
left the window (or that never arrived) is *late, dropped* (``stats["dropped"]``): the
window has moved past it. A new label for an already labeled prediction relabels it.

**Re-scores**: a new score (or weight) for an id in the window replaces the old one: for
a labeled prediction one ``O(log W)`` update of the counts, for a pending one a store.

**New ids**: an event with a score and an id not in the window is a new prediction (even
if the id was seen long ago and has left). An event with neither a score, a label nor a
weight is an error.

**Time**: ``time`` is optional with a count window (it is only reported) and required
with ``period``. New predictions must not go back in time (a `ValueError`: the window
has already moved past them); labels and re-scores may carry older times, which do not
move the clock. A clock that moves forward evicts the predictions at or before
``clock - period`` before the event is applied, so a label arriving after its prediction
left the window is dropped.

**The reference window** is frozen once: by default the *first full window* as labeled
just before it first slides (the moment the first prediction is evicted: the labels that
arrived late while it was filling are in); with ``reference=N``, the first ``N``
predictions to receive a label (with their scores as of the ``N``-th label). Its counts,
AUC and variances are kept; the reference never changes afterwards.

**The test** (`streamrank.monitor.drift`): one-sided, ``H1: AUC(window) < AUC(reference)``,
``z = (A - A_ref) / sqrt(Var(A) + Var(A_ref))``, ``p = Phi(z)``, an alert when
``p < alpha``. ``test="hanley-mcneil"`` (default) uses Hanley-McNeil variances: ``O(1)``
from the exact counts and the class sizes. ``test="delong"`` uses DeLong's variance
computed from the window's contents at report time (``O(W log W)`` per report). The
variances add because the windows are independent and disjoint once the window has slid
by its own length; before that they share predictions, their AUCs are positively
correlated, and the sum overstates the variance of the difference: the test is then
conservative (fewer alerts), never anti-conservative. No test runs (``z``,
``p_value`` nan, no alert) before the reference is frozen, while the window holds fewer
than ``min_window`` labeled predictions or only one class, or with non-binary labels.

**Non-binary labels** (ordinal or real: a third label value): the reported metric is
Harrell's concordance ``(C + T/2) / P`` of the same counts (``Report.metric ==
"concordance"``; Kendall's tau and the rest are in ``Report.counts``); there is no AUC
test, only the metric series and the detector.

**The detector** (``"adwin"``, ``"page-hinkley"`` or a River drift detector instance,
cloned) is fed the metric at each `report` (when defined and ``n >= min_window``);
``Report.drift`` is its ``drift_detected`` after that update. ``"adwin"`` is
``river.drift.ADWIN(clock=1)`` (a cut is tested at every report); ``"page-hinkley"`` is
``river.drift.PageHinkley(threshold=2.0, mode="down")`` (drops only, a threshold for a
series in [0, 1]; River's default 50 suits raw unbounded data). The series is
autocorrelated (consecutive windows share most predictions), so the detectors' nominal
false-alarm rates do not hold; the z-test above is the calibrated signal.

**Ties**: a positive and a negative with the same score count one half (``T / 2``
in ``(C + T/2) / P``, as ``sklearn.metrics.roc_auc_score``); two predictions with the same
label are not a comparable pair (``Ty``). Both variances of the test count ties one half
too (`streamrank.monitor.drift`).

**Exactness**: at every report, ``Report.counts`` equals `streamrank.pair_counts` of the
labeled predictions in the window (the tests check it after random sequences of
predictions, late labels, re-scores, evictions and `to_bytes` round trips).

**Errors**: a bad event (a non-finite score, label, weight or time; a prediction going
back in time; a third label with ``labels="binary"``) raises before anything changes.

Runtime complexity: `observe` ``O(1)`` amortized: the window (`streamrank.windows`: a
compiled `RowWindow` over the keyed rows of a `SlotStore`) stores the event, and the
engine receives the window's changes at the next `report` (or once 4096 are waiting),
``O(log W)`` each for binary labels (one insert, update or removal, plus one removal per
evicted labeled prediction; a prediction that came and left between two reports costs
the engine nothing). A new prediction of a count window whose reference is frozen is one
C call, about 1 us in CPython. `report` ``O(1)`` plus the changes waiting with
Hanley-McNeil, ``O(W log W)`` with DeLong. Recounting the window at each report instead
costs ``O(W log W)`` per report.

Examples
--------
>>> from streamrank.monitor import Monitor
>>> m = Monitor(window=4, min_window=2)
>>> for i, (s, y) in enumerate([(0.9, 1), (0.2, 0), (0.8, 1), (0.3, 0)]):
...     m.observe(i, score=s, label=y)
>>> m.observe(4, score=0.1)              # a prediction whose label is not known yet
>>> m.observe(4, label=1)                # ... arrives: the counts follow
>>> r = m.report()
>>> r.n, r.pending, r.auc, r.reference_auc
(4, 0, 0.5, 1.0)
>>> m.stats["late"], m.stats["evicted"]
(1, 1)
"""

from __future__ import annotations

import copy
import copyreg
import json
import math
import warnings
from collections import deque
from dataclasses import dataclass

import numpy as np

from .. import _snapshot
from .._validation import describe, param_error
from ..counts import PairCounts
from .drift import _delong, auc_drop_test, delong_variance, hanley_mcneil_variance
from ..engine import LABEL_KINDS, PairEngine, check_scalar, check_weight
from ..exceptions import UndefinedMetricWarning
from ..batch.pairs import pair_counts
from ..structures._cwindow import RowWindow
from ..windows import sync

__all__ = ["Monitor", "Report", "plot_history"]

TESTS = ("hanley-mcneil", "delong")
DETECTORS = ("adwin", "page-hinkley")

_FORMAT = "streamrank.Monitor"
_VERSION = 2    # 2: keys stored exactly (see _snapshot); 1 is still read
_NAN = math.nan
_CONFIG = {"window", "period", "reference", "test", "alpha", "detector", "labels",
           "min_window", "max_history"}
_STATS = ("events", "predictions", "labeled", "late", "rescored", "relabeled", "dropped",
          "evicted", "evicted_pending", "reports", "alerts")


@dataclass(frozen=True)
class Report:
    """One reading of a `Monitor`: the window's exact counts, metric, and the test.

    Attributes
    ----------
    events : int
        Events observed so far.
    time : float or None
        The monitor's clock (latest time seen), None if no event had a time.
    n : int
        Labeled predictions in the window (the ones counted).
    pending : int
        Predictions in the window still waiting for their label.
    counts : PairCounts
        Exact pair counts of the ``n`` labeled predictions.
    auc : float
        ``(C + T/2) / P`` of the window: the ROC AUC for binary labels, Harrell's
        concordance otherwise (see `metric`); nan when undefined.
    reference_auc : float
        The same metric on the frozen reference window (nan until frozen).
    z, p_value : float
        The one-sided test of a drop (nan when no test ran).
    alert : bool
        ``p_value < alpha``.
    drift : bool
        The drift detector fired at this report.
    se : float
        Standard error of ``auc - reference_auc`` (nan when no test ran).
    reference_se : float
        Standard error of the reference AUC (nan until frozen or non-binary).
    metric : str
        ``"auc"`` (binary labels) or ``"concordance"``.
    """

    events: int
    time: float | None
    n: int
    pending: int
    counts: PairCounts
    auc: float
    reference_auc: float
    z: float
    p_value: float
    alert: bool
    drift: bool
    se: float = _NAN
    reference_se: float = _NAN
    metric: str = "auc"

    def as_dict(self) -> dict:
        """A flat ``dict`` (the counts as ``concordant``, ``discordant``, ``tied_score``,
        ``comparable``, ``tied_label``, ``tied_both``): for tables, JSON and CSV."""
        c = self.counts
        return {
            "events": self.events, "time": self.time, "n": self.n, "pending": self.pending,
            "metric": self.metric, "auc": self.auc, "reference_auc": self.reference_auc,
            "se": self.se, "z": self.z, "p_value": self.p_value, "alert": self.alert,
            "drift": self.drift, "concordant": c.concordant, "discordant": c.discordant,
            "tied_score": c.tied_score, "comparable": c.comparable,
            "tied_label": c.tied_label, "tied_both": c.tied_both,
        }

    def _to_row(self) -> list:
        """The fields as a flat JSON-able list, the counts spliced in after ``pending``
        (a list rather than a dict: a long history's snapshot stays small)."""
        c = self.counts
        return [self.events, self.time, self.n, self.pending, c.concordant, c.discordant,
                c.tied_score, c.tied_label, c.tied_both, c.n, c.weight_sum,
                c.n_label_levels, c.n_score_levels, self.auc, self.reference_auc, self.z,
                self.p_value, self.alert, self.drift, self.se, self.reference_se,
                self.metric]

    @classmethod
    def _from_row(cls, row) -> "Report":
        """The inverse of `_to_row`; `ValueError` for a row it cannot have written."""
        ints, reals = (0, 2, 3, 9, 11, 12), (4, 5, 6, 7, 8, 10, 13, 14, 15, 16, 19, 20)
        if not (type(row) is list and len(row) == 22 and row[21] in ("auc", "concordance")
                and all(type(row[i]) is int and row[i] >= 0 for i in ints)
                and all(type(row[i]) in (int, float) for i in reals)
                and (row[1] is None or type(row[1]) in (int, float))
                and type(row[17]) is bool and type(row[18]) is bool):
            raise ValueError(f"a report {describe(row)} that to_bytes does not write")
        (events, time, n, pending, *counts), rest = row[:13], row[13:]
        return cls(events, time, n, pending, PairCounts(*counts), *rest)


class _Reference:
    """The frozen reference window: its samples, counts, metric and variances."""

    __slots__ = ("y", "s", "w", "counts", "auc", "labels", "hm_var", "delong_var")

    def __init__(self, y, s, w):
        self.y = np.asarray(y, dtype=np.float64)
        self.s = np.asarray(s, dtype=np.float64)
        self.w = np.asarray(w, dtype=np.float64)
        unit = bool(np.all(self.w == 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            if self.y.size:
                self.counts = pair_counts(self.y, self.s,
                                          sample_weight=None if unit else self.w)
            else:
                self.counts = PairCounts(0, 0, 0, 0, 0, 0, 0, 0, 0)
            self.auc = self.counts.auc if self.y.size else _NAN
        self.labels = sorted(set(self.y.tolist()))
        self.hm_var = self.delong_var = _NAN
        if len(self.labels) == 2:
            pos = self.y == self.labels[1]
            self.hm_var = hanley_mcneil_variance(self.auc, float(self.w[pos].sum()),
                                                 float(self.w[~pos].sum()))
            _, self.delong_var = delong_variance(self.y, self.s,
                                                 sample_weight=None if unit else self.w)


def _plain_label(label):
    """A bool or finite float label as a float, for the per-event paths; None for
    anything else (the checked path validates it)."""
    if label.__class__ is bool:
        return 1.0 if label else 0.0
    if type(label) is float and label - label == 0.0:
        return label
    return None


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


class Monitor:
    """Exact rolling AUC (or concordance) of a prediction stream, tested against a frozen
    reference window; see the module docstring for every rule.

    Not thread-safe: feed a monitor from one thread, or guard every call (`observe`,
    `report`, `to_bytes`, reads) with one `threading.Lock`.

    Parameters
    ----------
    window : int, optional
        Number of most recent predictions held (default 1000 when ``period`` is None).
    period : float, optional
        Hold the predictions of the last ``period`` time units instead (then every event
        needs a ``time``). Exactly one of ``window`` and ``period``.
    reference : int, optional
        Freeze the reference window as the first ``reference`` labeled predictions;
        default: the first full window, just before it first slides.
    test : {"hanley-mcneil", "delong"}
        Variance of the AUC test (`streamrank.monitor.drift`).
    alpha : float
        Alert when the one-sided p-value is below ``alpha``.
    detector : {"adwin", "page-hinkley"} or River drift detector, optional
        Fed the metric at each report.
    labels : {"auto", "binary", "ordinal", "continuous"}
        How labels are held (see `streamrank.engine.PairEngine`); ``"binary"`` rejects a third
        label value.
    min_window : int
        Labeled predictions the window needs before a test runs or the detector is fed.
    max_history : int, optional
        Keep only the last ``max_history`` reports in `history` (default: all).

    Attributes
    ----------
    history : collections.deque of Report
        Every report so far (or the last ``max_history``: a ``deque(maxlen=max_history)``,
        so trimming costs ``O(1)`` per report). Index, iterate or ``list()`` it.
    alerts : collections.deque of Report
        The reports at which ``alert`` or ``drift`` was true (the last ``max_history``).
    stats : dict
        ``events``, ``predictions``, ``labeled`` (labels counted), ``late`` (labels
        after their prediction), ``rescored``, ``relabeled``, ``dropped`` (events for
        ids outside the window), ``evicted`` (predictions that left the window),
        ``evicted_pending`` (of which never labeled), ``reports``, ``alerts`` (reports
        with ``alert`` or ``drift``; kept even when `history` is trimmed).
    """

    def __init__(self, window=None, period=None, reference=None, test="hanley-mcneil",
                 alpha=0.01, detector=None, labels="auto", min_window=30, max_history=None):
        func = "Monitor"
        if window is not None and period is not None:
            raise param_error("window", func, "None when 'period' is given (a window of "
                              "events or of time, not both)", describe(window))
        if period is None:
            window = 1000 if window is None else window
            if isinstance(window, bool) or not isinstance(window, (int, np.integer)) \
                    or window < 1:
                raise param_error("window", func, "a positive int", describe(window))
            window = int(window)
        else:
            if isinstance(period, bool) or not isinstance(period, (int, float, np.number)) \
                    or not (math.isfinite(period) and period > 0):
                raise param_error("period", func, "a positive finite number",
                                  describe(period))
            period = float(period)
        if reference is not None and (isinstance(reference, bool) or not isinstance(
                reference, (int, np.integer)) or reference < 2):
            raise param_error("reference", func, "an int >= 2 or None", describe(reference))
        if test not in TESTS:
            raise param_error("test", func, f"one of {TESTS}", describe(test))
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
                or not 0 < alpha < 1:
            raise param_error("alpha", func, "a number in (0, 1)", describe(alpha))
        if labels not in LABEL_KINDS:
            raise param_error("labels", func, f"one of {LABEL_KINDS}", describe(labels))
        if isinstance(min_window, bool) or not isinstance(min_window, (int, np.integer)) \
                or min_window < 2:
            raise param_error("min_window", func, "an int >= 2", describe(min_window))
        if max_history is not None and (isinstance(max_history, bool) or not isinstance(
                max_history, (int, np.integer)) or max_history < 1):
            raise param_error("max_history", func, "a positive int or None",
                              describe(max_history))
        self.window = window
        self.period = period
        self.reference = None if reference is None else int(reference)
        self.test = test
        self.alpha = float(alpha)
        self.labels = labels
        self.min_window = int(min_window)
        self.max_history = None if max_history is None else int(max_history)
        self._detector_spec = detector
        self._detector = _make_detector(detector)
        self._series: list[float] = []          # what the detector was fed, in order
        self._engine = PairEngine(labels)       # the labeled predictions' counts
        # The window (`streamrank.windows`): keyed rows (time, label, score, weight) of
        # its SlotStore in arrival order, a NaN label while pending, a NaN time when none
        # was given; keys leave only by eviction. The engine receives its changes at a
        # read (`_fresh_counts`).
        self._win = RowWindow(tally=True)   # .classes: label -> [count, weight sum]
        self._clock = None
        self._ref: _Reference | None = None
        self._fast = False                      # see _set_reference
        # reference=N: key -> [y, s, w] of the labeled predictions in the window, and
        # those of the ones already evicted (their id may come back as a new prediction)
        self._ref_store: dict = {}
        self._ref_left: list = []
        self.stats = dict.fromkeys(_STATS, 0)
        self.history: deque[Report] = deque(maxlen=self.max_history)
        self.alerts: deque[Report] = deque(maxlen=self.max_history)

    # ------------------------------------------------------------------ reads
    def __len__(self) -> int:
        """Predictions in the window (labeled and pending)."""
        return len(self._win)

    def __contains__(self, key) -> bool:
        return key in self._win.store

    def __repr__(self):
        size = f"window={self.window}" if self.period is None else f"period={self.period}"
        return (f"Monitor({size}, test={self.test!r}, alpha={self.alpha}) holding "
                f"{self.n} labeled + {self.pending} pending predictions")

    @property
    def counts(self) -> PairCounts:
        """Exact counts of the labeled predictions in the window. Runtime: O(1)."""
        return self._fresh_counts()

    @property
    def n(self) -> int:
        """Labeled predictions in the window."""
        return self._win.n_labeled

    @property
    def pending(self) -> int:
        """Predictions in the window without a label yet."""
        return len(self._win) - self._win.n_labeled

    @property
    def clock(self):
        """The latest time seen (None if no event had a time)."""
        return self._clock

    @property
    def reference_frozen(self) -> bool:
        return self._ref is not None

    @property
    def reference_counts(self) -> PairCounts | None:
        """Counts of the frozen reference window (None until frozen)."""
        return None if self._ref is None else self._ref.counts

    def items(self):
        """``(key, label or None, score, weight, time)`` of each prediction in the window,
        oldest first."""
        for key, t, y, s, w in self._win.items():
            yield key, None if y != y else y, s, w, None if t != t else t

    # ------------------------------------------------------------------ events
    def observe(self, key, *, score=None, label=None, weight=None, time=None) -> None:
        """Observe one event: a new prediction, a late label, a re-score, or a reweight.

        See the module docstring for the rules. Validated before anything changes: a
        non-finite score/label/time, a negative weight, an event with nothing in it, a
        new prediction older than the clock (``period`` windows), a third label with
        ``labels="binary"`` raise `ValueError` / `TypeError`.

        Runtime complexity: ``O(1)`` amortized here; the engine's ``O(log W)`` per change
        (binary labels; plus one per evicted labeled prediction) comes at the next read.
        """
        if (self._fast and weight is None and time is None and type(score) is float
                and score - score == 0.0 and key is not None):
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
                    if win.full:
                        self._fresh_counts()
                    return
        elif (self._fast and score is None and weight is None and time is None
              and label is not None):
            # ... and a late label (bool or float) for a pending prediction
            y = _plain_label(label)
            if y is not None and self._win.label_pending(key, y):
                st = self.stats
                st["events"] += 1
                st["labeled"] += 1
                st["late"] += 1
                if self._win.full:
                    self._fresh_counts()
                return
        # -- validate (the finite-float checks inline: this is the per-event hot path)
        if score is not None and not (type(score) is float and score - score == 0.0):
            score = check_scalar(score, "score", "Monitor.observe")
        if label is not None and not (type(label) is float and label - label == 0.0):
            label = check_scalar(label, "label", "Monitor.observe")
        if weight is not None:
            weight = check_weight(weight, "Monitor.observe", "weight")
        period = self.period
        if time is not None:
            if not (type(time) is float and time - time == 0.0):
                time = check_scalar(time, "time", "Monitor.observe")
        elif period is not None:
            raise param_error("time", "Monitor.observe", "a finite number (the monitor "
                              "has a period window)", "None")
        if key is None:
            raise param_error("key", "Monitor.observe", "an id (a hashable value other "
                              "than None)", "None", TypeError)
        win = self._win
        row = win.store.row_of(key)
        if row < 0 and score is None and label is None and weight is None:
            raise ValueError("Monitor.observe: an event needs a score, a label or a "
                             f"weight; got none for key {key!r}.")
        # -- the evictions this event causes (counted first, applied after the checks)
        evict = 0
        if period is None:
            if row < 0 and score is not None and len(win) >= self.window:
                evict = len(win) - self.window + 1
        else:
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
        if label is not None and self.labels == "binary":
            self._check_binary(label, row, evict)
        # -- apply
        if evict:
            self._evict(evict)
        if time is not None and (self._clock is None or time > self._clock):
            self._clock = time
        st = self.stats
        st["events"] += 1
        if row < 0:
            if score is None:   # a label or weight for a prediction outside the window
                st["dropped"] += 1
                return
            w = 1 if weight is None else weight     # a new prediction
            if win.push(_NAN if time is None else time, _NAN if label is None else label,
                        score, w, key):
                self._fresh_counts()
            st["predictions"] += 1
            if label is not None:
                st["labeled"] += 1
                if self._ref is None and self.reference is not None:
                    self._ref_note(key, label, score, w)
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

    def _check_binary(self, label, row, evict) -> None:
        """Raise if ``label`` would be a third label value after this event's evictions
        (``row``: the event's prediction, -1 for none)."""
        after = {y: c[0] for y, c in self._win.classes.items()}
        for y in self._win.oldest_labels(evict):   # O(evict)
            if y == y:
                after[y] -= 1
        if row >= 0:
            y = self._win.store.value(row)[1]
            if y == y:
                after[y] -= 1
        held = {y for y, c in after.items() if c > 0}
        if len(held | {label}) > 2:
            raise param_error("label", "Monitor.observe", "one of at most two labels in all "
                              "(labels='binary')", f"{label!r} with {sorted(held)} held")

    def _ref_note(self, key, y, s, w) -> None:
        """A prediction got its label: count it towards ``reference=N``."""
        if self._ref is None and self.reference is not None:
            store = self._ref_store
            store[key] = [y, s, w]
            if len(store) + len(self._ref_left) >= self.reference:
                ys, ss, ws = zip(*self._ref_left, *store.values())
                self._set_reference(_Reference(ys, ss, ws))
                self._ref_store, self._ref_left = {}, []

    def _evict(self, k) -> None:
        """Drop the ``k`` oldest predictions (freezing the default reference first)."""
        if not k:
            return
        if self._ref is None and self.reference is None:
            self._freeze_window()
        st, store = self.stats, self._ref_store
        for key, y, s, w in self._win.evict(k, True):   # the engine follows at a read
            if store and key in store:      # keep it for reference=N, free its id
                self._ref_left.append(store.pop(key))
            if y != y:
                st["evicted_pending"] += 1
        st["evicted"] += k

    def _freeze_window(self) -> None:
        y, s, w = self._window_arrays()
        self._set_reference(_Reference(y, s, w))

    def _set_reference(self, ref) -> None:
        """Freeze the reference window; from then on a count window takes new predictions
        through `RowWindow.push_new` (no reference to note, nothing to freeze)."""
        self._ref = ref
        self._fast = self.period is None and self.labels != "binary"

    # ------------------------------------------------------------------ reports
    def report(self) -> Report:
        """Read the window: exact counts, metric, the test against the reference, the
        detector. Appends to `history` (and to `alerts` when something fired).

        Runtime complexity: O(1) with ``test="hanley-mcneil"``; ``O(W log W)`` with
        ``"delong"`` (the window's placements, vectorized).
        """
        counts = self._fresh_counts()
        n = self._win.n_labeled
        # nan without the warning while undefined (no pair of different labels)
        auc = counts.auc if n and counts.comparable != 0 else _NAN
        classes = self._win.classes
        binary = len(classes) <= 2
        ref = self._ref
        ref_auc = ref_se = z = p = se = _NAN
        alert = drift = False
        if ref is not None:
            ref_auc = ref.auc
            if len(ref.labels) == 2:
                var = ref.hm_var if self.test == "hanley-mcneil" else ref.delong_var
                ref_se = math.sqrt(var) if var == var else _NAN
        if (ref is not None and len(classes) == 2 and len(ref.labels) == 2
                and set(classes) <= set(ref.labels) and n >= self.min_window):
            lo, hi = sorted(classes)
            if self.test == "hanley-mcneil":
                var = hanley_mcneil_variance(auc, classes[hi][1], classes[lo][1])
                ref_var = ref.hm_var
            else:
                y, s, w = self._window_arrays()
                keep = w > 0                    # zero weight == absent (frequency weights)
                y, s, w = y[keep], s[keep], w[keep]
                pos = y == hi                   # the values are finite already
                unit = bool((w == 1).all())
                if pos.any() and not pos.all():
                    _, var = _delong(s[pos], None if unit else w[pos], s[~pos],
                                     None if unit else w[~pos])
                else:                           # a class of zero weight only
                    var = _NAN
                ref_var = ref.delong_var
            comp = auc_drop_test(auc, var, ref_auc, ref_var)
            z, p, se = comp.z, comp.p_value, comp.se
            alert = bool(p < self.alpha)
        det = self._detector
        if det is not None and auc == auc and n >= self.min_window:
            det.update(auc)
            self._series.append(auc)
            drift = bool(det.drift_detected)
        r = Report(self.stats["events"], self._clock, n, len(self._win) - n, counts, auc,
                   ref_auc, z, p, alert, drift, se, ref_se,
                   "auc" if binary else "concordance")
        self.history.append(r)              # a bounded deque: O(1), the oldest drops
        self.stats["reports"] += 1
        if alert or drift:
            self.stats["alerts"] += 1
            self.alerts.append(r)
        return r

    # ------------------------------------------------------------------ persistence
    def to_bytes(self) -> bytes:
        """The full state as bytes (``np.savez``, no pickled objects): settings, every
        prediction in the window in order (key, time, label or NaN when pending, score,
        weight), the reference window, the ``reference=N`` store, the statistics, the
        history and the metric series the detector was fed.

        Each prediction is stored once: `from_bytes` rebuilds the exact counts from the
        labeled ones (one vectorized ``add_many``, ``O(W log W)``) and the detector by
        replaying its series (deterministic). Keys must be all ints or all strings
        (`TypeError` otherwise) and come back equal and of the same type (any int, any
        string, NUL characters included).

        Runtime complexity: ``O(W + H + F)`` for ``H`` reports in the history and ``F``
        values fed to the detector so far (all of them, whatever ``max_history``: a
        River detector has no pickle-free state, so `from_bytes` replays them; 8 bytes
        per report).
        """
        func = "Monitor.to_bytes"
        keys, times, ys, ss, ws = [], [], [], [], []
        for key, y, s, w, t in self.items():
            keys.append(key)
            times.append(_NAN if t is None else t)
            ys.append(_NAN if y is None else y)
            ss.append(s)
            ws.append(w)
        ref = self._ref
        if ref is None and (self._ref_store or self._ref_left):
            # the evicted entries first (no key), then the ones in the window
            rkeys = list(self._ref_store)
            ry, rs, rw = (list(col) for col in zip(*self._ref_left,
                                                     *self._ref_store.values()))
        else:
            rkeys, ry, rs, rw = [], [], [], []
        det = self._detector_spec
        if det is not None and not isinstance(det, str):
            det = {"class": type(det).__name__, "module": type(det).__module__,
                   "params": det._get_params()}
        config = {"window": self.window, "period": self.period, "reference": self.reference,
                  "test": self.test, "alpha": self.alpha, "detector": det,
                  "labels": self.labels, "min_window": self.min_window,
                  "max_history": self.max_history}
        state = {"clock": self._clock, "stats": self.stats,
                 "history": [r._to_row() for r in self.history],
                 "alerts": [r._to_row() for r in self.alerts]}
        f64 = np.float64
        return _snapshot.dump(
            _FORMAT, _VERSION, config=np.array(json.dumps(config)),
            state=np.array(json.dumps(state)), **_snapshot.key_arrays(keys, "keys", func),
            times=np.array(times, dtype=f64), y=np.array(ys, dtype=f64),
            s=np.array(ss, dtype=f64), w=np.array(ws, dtype=f64),
            ref_frozen=np.array(ref is not None),
            ref_y=ref.y if ref is not None else np.empty(0),
            ref_s=ref.s if ref is not None else np.empty(0),
            ref_w=ref.w if ref is not None else np.empty(0),
            **_snapshot.key_arrays(rkeys, "store_keys", func),
            store_y=np.array(ry, dtype=f64), store_s=np.array(rs, dtype=f64),
            store_w=np.array(rw, dtype=f64), series=np.array(self._series, dtype=f64))

    @classmethod
    def from_bytes(cls, data: bytes) -> "Monitor":
        """Restore a monitor written by `to_bytes` (any snapshot version up to the
        current one), in ``O(W log W + H + F)``.

        Raises `streamrank.exceptions.SnapshotError` (a `ValueError`) for anything it
        cannot load: bytes that are not a snapshot, another structure's snapshot, a
        truncated or damaged one (including settings or a window that break the
        monitor's rules), an unsupported version (see `SnapshotError`).
        """
        snap = _snapshot.load(data, _FORMAT, _VERSION, "Monitor.from_bytes")
        config, state = snap.json("config"), snap.json("state")
        keys = snap.keys("keys")
        n = len(keys)
        times = snap.floats("times", n, finite=False)
        ys = snap.floats("y", n, finite=False)
        ss, ws = snap.floats("s", n), snap.floats("w", n, nonnegative=True)
        frozen = snap.flag("ref_frozen")
        ref_y = snap.floats("ref_y")
        ref_s, ref_w = snap.floats("ref_s", ref_y.size), snap.floats("ref_w", ref_y.size)
        store_keys = snap.keys("store_keys")
        store_y = snap.floats("store_y")
        store_s = snap.floats("store_s", store_y.size)
        store_w = snap.floats("store_w", store_y.size, nonnegative=True)
        series = snap.floats("series")
        snap.finish()
        if not (type(config) is dict and set(config) == _CONFIG and type(state) is dict
                and set(state) == {"clock", "stats", "history", "alerts"}):
            raise snap.corrupt("the settings or the state are not those to_bytes writes")
        clock, stats = state["clock"], state["stats"]
        if not (clock is None or type(clock) in (int, float) and math.isfinite(clock)) \
                or type(stats) is not dict or not set(stats) <= set(_STATS) \
                or not all(type(v) is int and v >= 0 for v in stats.values()):
            raise snap.corrupt(f"bad clock {describe(clock)} or statistics")
        if np.isinf(times).any() or np.isinf(ys).any():
            raise snap.corrupt("a time or a label is infinite")
        if len(set(keys)) != n or len(set(store_keys)) != len(store_keys) \
                or not set(store_keys) <= set(keys) or len(store_keys) > store_y.size:
            raise snap.corrupt("a key is stored twice, or the reference store does not "
                               "match the window")
        if ref_y.size and not frozen or store_y.size and (frozen or config["reference"]
                                                          is None):
            raise snap.corrupt("a reference store without reference=N, or next to a "
                               "frozen reference")
        with snap.rebuild():
            m = cls(detector=_load_detector(config["detector"], snap), **{
                k: v for k, v in config.items() if k != "detector"})
            period = m.period
            if period is None and n > m.window or period is not None and n and not (
                    clock is not None and not np.isnan(times).any()
                    and (np.diff(times) >= 0).all() and times[0] > clock - period):
                raise snap.corrupt("the window holds predictions it would have evicted")
            m._clock = clock
            m.stats = {k: stats.get(k, 0) for k in _STATS}
            win = m._win
            for key, t, y, s, w in zip(keys, times.tolist(), ys.tolist(), ss.tolist(),
                                       ws.tolist()):
                win.push(t, y, s, w, key)
            lab = ~np.isnan(ys)
            if lab.any():
                wl = ws[lab]
                m._engine.add_many(ys[lab], ss[lab], None if np.all(wl == 1) else wl,
                                   "Monitor.from_bytes")
            win.mark_synced()               # the engine holds the labeled rows
            if frozen:
                m._set_reference(_Reference(ref_y, ref_s, ref_w))
            store = [[y, s, _num(w)] for y, s, w in zip(store_y.tolist(), store_s.tolist(),
                                                       store_w.tolist())]
            left = len(store) - len(store_keys)     # the evicted entries come first
            m._ref_left = store[:left]
            m._ref_store = dict(zip(store_keys, store[left:]))
            if not (type(state["history"]) is list and type(state["alerts"]) is list):
                raise snap.corrupt("the history is not a list of reports")
            m.history.extend(Report._from_row(r) for r in state["history"])
            m.alerts.extend(Report._from_row(r) for r in state["alerts"])
            m._series = series.tolist()
            if m._detector is not None:
                for v in m._series:
                    m._detector.update(v)
        return m

    def __reduce__(self):
        """Pickle through `to_bytes`; keys it cannot store (neither all ints nor all
        strings) pickle a deep copy of the monitor's attributes (so that `copy.copy`
        is independent of the original either way)."""
        try:
            return (Monitor.from_bytes, (self.to_bytes(),))
        except TypeError:   # keys to_bytes refuses (its message says: use pickle)
            return (copyreg.__newobj__, (Monitor,), copy.deepcopy(self.__dict__))

    # ------------------------------------------------------------------ checks
    def _check(self) -> None:
        """Invariants: the engine counts equal a batch recount of the labeled items; the
        order, the items, the engine keys and the class tallies agree."""
        self._fresh_counts()  # a read recounts a stale engine, as a user's would
        win = self._win
        win._check()
        items = win.items()
        keys = [e[0] for e in items]
        assert len(keys) == len(set(keys)) == len(win.store) and None not in keys
        if self.period is None:
            assert len(win) <= self.window
        else:
            ts = [e[1] for e in items]
            assert ts == sorted(ts)
            if ts:
                assert ts[0] > self._clock - self.period, (ts[0], self._clock)
        assert self._ref is None or not (self._ref_store or self._ref_left)
        assert set(self._ref_store) <= set(keys)
        labeled = [(y, w) for _, _, y, _, w in items if y == y]
        assert len(labeled) == len(self._engine) == win.n_labeled
        tally: dict = {}
        for y, w in labeled:
            c = tally.setdefault(y, [0, 0])
            c[0] += 1
            c[1] += w
        classes = win.classes
        assert {y: c[0] for y, c in tally.items()} == {y: c[0] for y, c in classes.items()}
        total = sum(c[1] for c in tally.values())
        for y, c in tally.items():
            assert math.isclose(c[1], classes[y][1], rel_tol=1e-9, abs_tol=1e-9 * total)
        self._engine._check(*self._window_arrays())

    def _fresh_counts(self) -> PairCounts:
        """The engine's counts, after handing it the window's waiting changes
        (`streamrank.windows.sync`, ``O(k log W)`` for ``k`` of them); first, if float
        rounding from weight that came and went made them stale, a recount of the window
        (``O(W log W)``, see `PairEngine.stale`), with the per-class sums."""
        engine = sync(self._win, self._engine, "Monitor.observe", recount=False)
        if engine.stale:
            y, s, w = self._window_arrays()
            engine.rebuild(y, s, w)
            labels, code, copies = np.unique(y, return_inverse=True, return_counts=True)
            sums = np.bincount(code, weights=w, minlength=labels.size)
            self._win.classes = {yv: [int(c), float(ws)]
                           for yv, c, ws in zip(labels.tolist(), copies.tolist(), sums.tolist())}
        return engine.counts

    def _window_arrays(self):
        """``(y, s, w)`` float arrays of the labeled predictions in the window, oldest
        first: ``O(W)``, in C and numpy."""
        return self._win.columns()


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


def _num(w):
    w = float(w)
    return int(w) if w.is_integer() else w


# ---------------------------------------------------------------------- plot
def plot_history(history, path, *, extra=None, marks=None, title=None, dates=False,
                 dpi=100):
    """Draw a monitor's history to a PNG: the metric against events (or time), the
    reference and its band, the alerts and drifts marked.

    Parameters
    ----------
    history : sequence of Report
        ``Monitor.history``.
    path : str or path-like
        The PNG to write.
    extra : dict, optional
        ``{"name": (x, y)}``: more series on the same axes (e.g. River's approximate
        ``ROCAUC`` at the same events).
    marks : dict, optional
        ``{"name": x}``: labelled vertical lines (e.g. a known drift point).
    title : str, optional
        The figure title.
    dates : bool, default False
        The times are POSIX seconds (as `streamrank.io.events.parse_time` gives for ISO 8601
        timestamps): draw a calendar (UTC) axis.

    The x axis is the event count, or the time when every report has one (as numbers,
    or dates with ``dates=True``; ``extra`` and ``marks`` positions are then POSIX
    seconds too). The reference band is ``reference AUC +/- 1.96
    SE``. Alerts (``p < alpha``) are red triangles on the curve; detector drifts are
    orange dotted vertical lines. A lower panel shows the labeled and pending
    predictions in the window.

    Returns the path. Uses matplotlib's Agg canvas (no display, no global pyplot state).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    history = list(history)
    use_time = bool(history) and all(r.time is not None for r in history)
    x = np.array([r.time if use_time else r.events for r in history], dtype=float)
    as_x = _to_dates if use_time and dates else (lambda v: np.asarray(v, dtype=float))
    x = as_x(x)
    auc = np.array([r.auc for r in history], dtype=float)
    metric = history[-1].metric if history else "auc"
    ylabel = "ROC AUC" if metric == "auc" else "concordance (C-index)"
    fig = Figure(figsize=(10, 6), dpi=dpi)
    FigureCanvasAgg(fig)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot(x, auc, color="tab:blue", lw=1.6, label=f"exact {ylabel} (window)")
    ref = np.array([r.reference_auc for r in history], dtype=float)
    if np.isfinite(ref).any():
        ref_auc = ref[np.isfinite(ref)][-1]
        ref_se = next((r.reference_se for r in reversed(history)
                       if r.reference_se == r.reference_se), _NAN)
        ax.axhline(ref_auc, color="tab:green", lw=1.2, ls="--",
                   label=f"reference {ref_auc:.4f}")
        if ref_se == ref_se:
            ax.axhspan(ref_auc - 1.96 * ref_se, ref_auc + 1.96 * ref_se, color="tab:green",
                       alpha=0.15, label="reference \u00b1 1.96 SE")
    extra_colors = ("tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
    for k, (name, (ex, ey)) in enumerate((extra or {}).items()):
        ax.plot(as_x(ex), np.asarray(ey, dtype=float), lw=1.2,
                color=extra_colors[k % len(extra_colors)], label=name)
    al = [i for i, r in enumerate(history) if r.alert]
    if al:
        ax.plot(x[al], auc[al], "v", color="tab:red", ms=6, ls="none",
                label=f"alert (p < alpha): {len(al)}")
    dr = [i for i, r in enumerate(history) if r.drift]
    for j, i in enumerate(dr):
        ax.axvline(x[i], color="tab:orange", ls=":", lw=1.2,
                   label="detector drift" if j == 0 else None)
    for k, (name, pos) in enumerate((marks or {}).items()):
        ax.axvline(as_x([pos])[0], color=f"C{(k + 5) % 10}", ls="-.", lw=1.4, label=name)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8, framealpha=0.9)
    ax.set_title(title or f"streamrank monitor: exact rolling {ylabel}")
    ax2.plot(x, [r.n for r in history], color="tab:blue", lw=1.2, label="labeled")
    ax2.plot(x, [r.pending for r in history], color="tab:gray", lw=1.2, label="pending")
    ax2.set_ylabel("in window")
    ax2.set_xlabel(("time (UTC)" if dates else "time") if use_time else "events")
    if use_time and dates:
        fig.autofmt_xdate()
    ax2.grid(True, alpha=0.3)
    ax2.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


def _to_dates(seconds):
    """POSIX seconds as numpy UTC datetimes, which matplotlib draws on a calendar axis."""
    ms = np.round(np.asarray(seconds, dtype=float) * 1000).astype(np.int64)
    return ms.astype("datetime64[ms]")
