"""`Monitor`: the window, the late labels and re-scores, the reference and the reports.

The rules are in the `streamrank.monitor` docstring; how an event changes it is in
``_events``, its reads in ``_read``, its snapshot node in ``_state`` (the format in
``_format``), the reference window in ``_reference``, the detectors in
`streamrank.monitor.detectors`.
"""

from __future__ import annotations

import copy
import copyreg
import math
from collections import deque
from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Literal, Union

import numpy as np

from .._typing import Count, LabelKind

from ..counts import PairCounts
from ..engine import PairEngine
from ..structures._cscorebins import RECOUNT_AFTER
from ..structures._cwindow import RowWindow
from ..windows import sync
from . import _format, _settings, counters
from ._join import Join, Recent
from ._join_side import JoinSide
from ._events import MonitorEvents
from ._many import ManyEvents
from ._read import MonitorReads
from ._runs import WindowRuns
from ._signal import SignalFeed
from ._state import MonitorState
from ._settings import SETTINGS, TESTS
from ._reference import _Reference
from ._report import Report
from ._scores import ScoreReference
from .detectors import _make_detector, replays
from .metrics import metrics as _metrics

if TYPE_CHECKING:   # (River is imported only when a detector is built)
    from river.base import BinaryDriftDetector, DriftDetector

__all__ = ["SETTINGS", "TESTS", "Monitor"]

#: The ``detector`` of a `Monitor`: a spec (a name of `streamrank.monitor.DETECTORS`,
#: optionally with River parameters: ``"adwin:delta=0.002"``), a River drift detector
#: (cloned), or None.
_Detector = Union[str, "DriftDetector", "BinaryDriftDetector", None]


class Monitor(MonitorEvents, JoinSide, WindowRuns, MonitorReads, SignalFeed, MonitorState,
              ManyEvents):
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
        default: the first full window, just before it first slides (with labels that lag
        the window it may hold one class: then no test runs; pass ``reference=N``).
    test : {"hanley-mcneil", "delong"}
        Variance of the AUC test (`streamrank.monitor.drift`) of binary labels; with a
        third label value the concordance is tested with its U-statistic variance.
    alpha : float
        Alert when the one-sided p-value is below ``alpha``.
    detector : str or River drift detector, optional
        Fed each newly labeled prediction's placement value (module docstring):
        ``"adwin"``, ``"page-hinkley"``, or either with River constructor parameters,
        ``"adwin:delta=0.002,clock=1"``, ``"page-hinkley:threshold=50,mode=down"``
        (`streamrank.monitor.detectors.parse_detector`; a bad spec raises a
        `ValueError` naming the parameter); or a River drift detector instance (cloned).
    detector_signal : {"reference", "window"}
        The detector's placements against the frozen reference (independent values;
        none before it freezes) or the window (more false alarms); see `_signal`.
    labels : {"auto", "binary", "ordinal", "continuous"}
        How labels are held (see `streamrank.engine.PairEngine`); ``"binary"`` rejects a third
        label value.
    min_window : int
        Labeled predictions the window needs before a test runs (or a window-fed detector).
    max_history : int, optional
        Keep only the last ``max_history`` reports in `history` (default: all).
    level : float in (0, 1)
        The confidence level of each report's interval of the window's AUC
        (``Report.low``, ``Report.high``, by the ``test`` method), independent of
        ``alpha``.
    label_wait : int, optional
        A label (or weight) whose prediction has not arrived yet waits for it during
        the next ``label_wait`` events, and joins it when it comes (the module
        docstring's "Labels before their prediction"); default: no wait (such a label
        is counted unmatched at once).
    label_wait_period : float, optional
        The same, for ``label_wait_period`` time units of the clock (then every event
        needs a ``time``). At most one of ``label_wait`` and ``label_wait_period``.
    estimate : bool
        Keep the calibration estimate of the window's AUC, which needs no label
        (`Report.estimated_auc`, and `Report.estimated_auc_labeled` of the labeled
        predictions): the scores must then be probabilities in [0, 1] (a score outside
        raises `ValueError`). Each prediction of the window, labeled or not, counts as a
        positive of weight ``p`` and a negative of weight ``1 - p`` at its score ``p``
        (times its weight): the expected AUC if the scores are calibrated. ``O(log W)``
        per change, read in ``O(1)``.
    detect_drop : float, optional
        A drop of the AUC that matters: each report then says how many more labeled
        predictions the window needs before its test detects that drop with power 0.8
        (`Report.labels_to_detect`).
    score_drift : bool
        Compare the window's predicted scores, labeled or not, with a frozen reference of
        them (`streamrank.monitor._scores`): `Report.score_shift` (the Mann-Whitney
        probability that a window score exceeds a reference score, ties one half) with
        its DeLong standard error and two-sided p-value; `Report.ks` (the two-sample
        Kolmogorov-Smirnov statistic) with its p-value. ``O(log R)`` per change of the
        window, ``O(R)`` per report, for ``R`` distinct scores in the reference.
    score_reference : int, optional
        With ``score_drift``: freeze the scores' reference as the first
        ``score_reference`` predictions; default: the first full window of predictions
        (frozen just before the window first slides).
    score_alert : bool
        With ``score_drift``: a report also alerts when the score shift's p-value is
        below ``alpha`` (`Report.score_alert`; no test while the window or the scores'
        reference holds fewer than ``min_window`` predictions); off by default, as score
        drift without a drop of the AUC is often harmless.

    Attributes
    ----------
    history : collections.deque of Report
        Every report so far (or the last ``max_history``: a ``deque(maxlen=max_history)``,
        so trimming costs ``O(1)`` per report). Index, iterate or ``list()`` it.
    alerts : collections.deque of Report
        The reports at which ``alert`` or ``drift`` was true (the last ``max_history``).
    stats : dict
        The counters of `streamrank.monitor.counters.MONITOR`, in its order:
        ``events``, ``predictions``, ``labeled`` (labels counted), ``late`` (labels
        after their prediction), ``rescored``, ``relabeled``; for ids outside the
        window, ``dropped`` (late: labels or weights whose prediction was evicted
        lately) and ``unmatched`` (labels or weights that met no prediction: early or
        never predicted; with a label wait, counted when the wait runs out), ``early``
        (unmatched ones whose prediction came afterwards) and ``early_lead`` (the most
        events from such a label to its prediction: the ``label_wait`` that would have
        joined them; `streamrank.monitor._join`); ``evicted`` (predictions that left
        the window), ``evicted_pending`` (of which never labeled), ``reports``,
        ``alerts`` (reports with ``alert`` or ``drift``; kept even when `history` is
        trimmed), ``joined`` (waiting labels or weights that met their prediction),
        ``detections`` (times the detector fired); `waiting` is the number waiting now.
    """

    def __init__(self, window: int | None = None, period: float | None = None,
                 reference: int | None = None,
                 test: Literal["hanley-mcneil", "delong"] = "hanley-mcneil",
                 alpha: float = 0.01, detector: _Detector = None, labels: LabelKind = "auto",
                 min_window: int = 30, max_history: int | None = None,
                 level: float = 0.95, label_wait: int | None = None,
                 label_wait_period: float | None = None,
                 detector_signal: Literal["reference", "window"] = "reference",
                 estimate: bool = False, detect_drop: float | None = None,
                 score_drift: bool = False, score_reference: int | None = None,
                 score_alert: bool = False) -> None:
        v = _settings.checked(window, period, reference, test, alpha, labels, min_window,
                              max_history, level, label_wait, label_wait_period,
                              detector_signal, estimate, detect_drop, score_drift,
                              score_reference, score_alert)
        window, period = v["window"], v["period"]
        self.window, self.period, self.reference, self.test = window, period, \
            v["reference"], v["test"]
        self.alpha, self.labels, self.min_window = v["alpha"], v["labels"], v["min_window"]
        self.max_history, self.level = v["max_history"], v["level"]
        self.label_wait, self.label_wait_period = v["label_wait"], v["label_wait_period"]
        self.estimate, self.detect_drop = v["estimate"], v["detect_drop"]
        self.score_drift, self.score_reference = v["score_drift"], v["score_reference"]
        self.score_alert = v["score_alert"]
        self.stats: dict[str, int] = counters.zeros(counters.MONITOR)
        # the ids evicted lately (`left_lately`), and the join (`streamrank.monitor._join`):
        # the labels waiting, the ids of the unmatched ones
        self._gone = Recent(window if period is None else period)
        self._join = Join(label_wait, label_wait_period, (self.stats,))
        self._detector_spec, self._detector = _make_detector(detector)
        self.detector_signal, self._placer = detector_signal, None  # (`SignalFeed`'s)
        # what the detector was fed, in order: kept only for a detector without an exact
        # state to snapshot (`streamrank.monitor.detectors.replays`)
        self._replay = self._detector is not None and replays(self._detector)
        self._series: list[float] = []
        self._drift_since_report = False        # the detector fired since the last report
        self._last_detection: int | None = None     # stats["events"] when it last fired
        self._engine = PairEngine(labels)       # the labeled predictions' counts
        # The window (`streamrank.windows`): keyed rows (time, label, score, weight) of
        # its SlotStore in arrival order, a NaN label while pending, a NaN time when none
        # was given; keys leave only by eviction. The engine receives its changes at a
        # read (`_fresh_counts`). Its .classes: label -> [count, weight sum]; binary:
        # its runs (`streamrank.monitor._runs`) take no third label.
        self._win = RowWindow(tally=True, binary=self.labels == "binary",
                              every_row=self.estimate or self.score_drift,
                              probabilities=self.estimate)
        # What is fed with the window at the same reads (`_fresh_counts`), or None:
        # estimate=True, the engines of the calibration estimate of every prediction in
        # the window and of the labeled ones; score_drift=True, the bins of the window's
        # scores against their reference (None until it freezes: `_scores`)
        self._est = None if not (self.estimate or self.score_drift) else (
            (PairEngine(), PairEngine(), None) if self.estimate else (None, None, None))
        # score_drift: the scores' reference once frozen, and before that with
        # score_reference=N the (score, weight) of the predictions already evicted
        self._sref: ScoreReference | None = None
        self._sref_left: list = []
        # the scores observe takes: probabilities with estimate=True, else any finite
        self._lo, self._hi = (0.0, 1.0) if self.estimate else (-math.inf, math.inf)
        self._clock: float | None = None
        self._ref: _Reference | None = None
        self._fast = False                      # see _set_reference
        # reference=N: key -> [y, s, w] of the labeled predictions in the window, and
        # those of the ones already evicted (their id may come back as a new prediction)
        self._ref_store: dict = {}
        self._ref_left: list = []
        self.history: deque[Report] = deque(maxlen=self.max_history)
        self.alerts: deque[Report] = deque(maxlen=self.max_history)

    # ------------------------------------------------------------------ reads
    def __len__(self) -> int:
        """Predictions in the window (labeled and pending)."""
        return len(self._win)

    def __contains__(self, key: object) -> bool:
        return key in self._win.store

    def __repr__(self) -> str:
        size = f"window={self.window}" if self.period is None else f"period={self.period}"
        return f"Monitor({size}, test={self.test!r}, alpha={self.alpha}) holding " \
            f"{self.n} labeled + {self.pending} pending predictions"

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
    def clock(self) -> float | None:
        """The latest time seen (None if no event had a time)."""
        return self._clock

    @property
    def last_detection(self) -> int | None:
        """``stats["events"]`` at the detector's latest detection (None if it never
        fired, or without a detector)."""
        return self._last_detection

    @property
    def reference_frozen(self) -> bool:
        return self._ref is not None

    @property
    def reference_levels(self) -> int | None:
        """Label values in the frozen reference window (None until frozen): with two (or
        one) its metric is the AUC, with more the concordance; with fewer than two no
        test can run against it."""
        return None if self._ref is None else len(self._ref.labels)

    @property
    def detector(self) -> _Detector:
        """The ``detector`` setting: its spec (``"adwin"``, ...), the River detector
        given (a clone of it is fed), or None."""
        return self._detector_spec

    @property
    def score_reference_frozen(self) -> bool:
        """Whether the scores' reference (``score_drift``) is frozen."""
        return self._sref is not None

    @property
    def reference_counts(self) -> PairCounts | None:
        """Counts of the frozen reference window (None until frozen)."""
        return None if self._ref is None else self._ref.counts

    def items(self) -> Iterator[tuple[Hashable, float | None, float, Count, float | None]]:
        """``(key, label or None, score, weight, time)`` of each prediction in the window,
        oldest first."""
        for key, t, y, s, w in self._win.items():
            yield key, None if y != y else y, s, w, None if t != t else t

    def columns(self, labeled: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(y, s, w)``: float64 arrays of the labels, scores and weights of the window's
        labeled predictions (``labeled=False``: of all of them, nan for a label not yet
        known), oldest first. ``O(W)``, in C.

        >>> m = Monitor(window=3)
        >>> m.observe("a", score=0.2, label=0); m.observe("b", score=0.7)
        >>> [c.tolist() for c in m.columns(labeled=False)]
        [[0.0, nan], [0.2, 0.7], [1.0, 1.0]]
        """
        return self._win.columns(labeled=labeled)

    def label_counts(self) -> dict[float, int]:
        """The labels held by the window's predictions, each with how many hold it.
        ``O(number of label values)``.

        >>> m = Monitor(window=3)
        >>> m.observe("a", score=0.2, label=0); m.observe("b", score=0.7, label=1)
        >>> m.label_counts()
        {0.0: 1, 1.0: 1}
        """
        return {y: c[0] for y, c in self._win.classes.items() if c[0] > 0}

    # ------------------------------------------------------------------ reports
    def report(self) -> Report:
        """Read the window: exact counts, metric, the test against the reference, and
        ``drift``: whether the detector fired since the previous report. Appends to
        `history` (and to `alerts` when something fired).

        Runtime complexity: O(1) with ``test="hanley-mcneil"``, and with ``"delong"``
        and whole-number weights (the engine's placement moments, ``O(W)`` at the first
        report); ``O(W log W)`` with ``"delong"`` and fractional weights (the window's
        placements, vectorized), and with non-binary labels (the concordance's variance).
        """
        return self._make_report()

    def metrics(self) -> dict[str, float | int]:
        """The numbers a metrics scrape exposes (`streamrank monitor --metrics-port`), as
        a plain dict: of the latest report, ``window_auc`` (or the concordance),
        ``window_auc_low`` and ``window_auc_high`` (its interval), ``reference_auc``,
        ``p_value``, ``window_labeled``, ``window_pending`` (nan / 0 before the first
        report); then the counters with a metrics key, in the order of
        `streamrank.monitor.counters.MONITOR`: ``events``, ``predictions``, ``labels``
        (``stats["labeled"]``), ``rescored``, ``late_dropped`` (``stats["dropped"]``),
        ``unmatched_labels`` (``stats["unmatched"]``), ``alerts``, ``joined_labels``
        (``stats["joined"]``), ``detections``; and ``waiting_labels`` (`waiting`, now).

        Changes nothing (no report is made): a scraping thread may call it while another
        feeds the monitor (README, "Thread safety": a lock makes its numbers add up).
        Runtime: O(1).

        >>> m = Monitor(window=8, min_window=2)
        >>> for i, (s, y) in enumerate([(0.9, 1), (0.2, 0), (0.6, 1), (0.4, 0)]):
        ...     m.observe(i, score=s, label=y)
        >>> r = m.report()
        >>> d = m.metrics()
        >>> d["window_auc"] == r.auc == 1.0, d["window_labeled"], d["events"]
        (True, 4, 4)
        """
        return _metrics(self)

    # ------------------------------------------------------------------ persistence
    def to_bytes(self) -> bytes:
        """The full state as bytes (``np.savez``, no pickled objects; the one format of
        every monitor, `streamrank.monitor._format`, lists what is stored): settings, the
        window's predictions in order, the reference, the memories and waits of the late
        and early labels, the statistics, the history and the detector: River's ADWIN
        and Page-Hinkley as their exact state (``O(log F)`` and ``O(1)`` in size for
        ``F`` values fed), any other as the series it was fed.

        `from_bytes` rebuilds the exact counts from the labeled predictions (one
        vectorized ``add_many``, ``O(W log W)``). Keys must be all ints or all strings
        (`TypeError` otherwise) and come back equal and of the same type.

        Runtime complexity: ``O(W + H + log F)`` for ``H`` reports in the history;
        ``O(W + H + F)`` with a detector that is neither River's ADWIN nor its
        Page-Hinkley (all ``F`` values it was fed, whatever ``max_history``, 8 bytes
        each: River detectors have no pickle-free state in general).
        """
        out = _format.Out("Monitor.to_bytes")
        self._write(out)
        return out.to_bytes("Monitor")

    @classmethod
    def from_bytes(cls, data: bytes) -> "Monitor":
        """Restore a monitor written by `to_bytes` (the current snapshot version), in
        ``O(W log W + H)`` (plus the replay of a series, ``O(F)``).

        Raises `streamrank.exceptions.SnapshotError` (a `ValueError`) for anything it
        cannot load: bytes that are not a snapshot, another structure's snapshot, a
        truncated or damaged one (including settings or a window that break the
        monitor's rules), an unsupported version (see `SnapshotError`).
        """
        with _format.reading(data, "Monitor", "Monitor.from_bytes") as snap:
            return cls._read(snap)

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
        assert self._win.binary == (self.labels == "binary")
        self._check_invariants()

    def _fresh_counts(self) -> PairCounts:
        """The engine's counts, after handing it the window's waiting changes, and a
        recount of the window if float rounding made them stale (`streamrank.windows.sync`:
        ``O(k log W)`` for ``k`` changes, ``O(W log W)`` for a recount); the same for the
        engines of the estimate and the score drift's bins (``O(k log R)``; recounted
        after `RECOUNT_AFTER` changes of a fractional weight)."""
        counts = sync(self._win, self._engine, "Monitor.observe", True, self._est).counts
        if self._sref is not None and self._est[2].fractional >= RECOUNT_AFTER:
            self._est[2].recount(*self._win.columns(labeled=False)[1:])
        return counts

