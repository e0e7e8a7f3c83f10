"""`streamrank demo`: exact metrics of online models, a drift alert, and the peers.

Everything runs on data that ships with the installed packages (no download):

1. **Phishing.** An online logistic regression (River) learns River's bundled
   ``Phishing`` data set (1,250 web pages) one sample at a time, predicting each sample
   before learning it (progressive validation). A `streamrank.monitor.Monitor` keeps the
   exact AUC of the last predictions; River's ``ROCAUC`` over the same window is printed
   next to it.
2. **Concept drift.** The same model learns River's ``Sine`` stream, whose concept
   switches from SINE1 (positive below ``sin(x)``) to SINE2 (positive below
   ``0.5 + 0.3 sin(3 pi x)``) at a known event (`river.datasets.synth.ConceptDriftStream`,
   Gama et al. 2004). A linear model cannot follow the wavy boundary, so its AUC falls from
   0.999 to about 0.9 and stays there; the monitor's test (the current window against a
   reference window) raises an alert shortly after the drift, and none before it.
3. **Peers.** Every batch metric of the Phishing predictions, computed by streamrank and by
   scikit-learn, SciPy and lifelines (`compare_metrics`).

Cost: the model's ``learn_one`` dominates; the monitor adds ``O(log W)`` per event and each
report is ``O(1)``. The recount that checks the monitor at every report is ``O(W log W)``
(`pair_counts` of the window), and River's binned ``ROCAUC`` costs ``O(T)`` per event for
``T = 10`` thresholds.

Examples
--------
>>> from streamrank.cli.demo_run import monitor_stream, sine_drift_stream
>>> run = monitor_stream(sine_drift_stream(drift_at=1500), n_events=3000, window=500,
...                      every=100, drift_at=1500)
>>> run.first_alert_before_drift is None, 1500 < run.first_alert_after_drift < 2000
(True, True)
>>> run.recounts_equal == len(run.reports)    # exact counts at every report
True
"""

from __future__ import annotations

import inspect
import itertools
import math
import time
from collections import deque
from dataclasses import dataclass, field
from statistics import median
from typing import Callable, Iterable, Iterator

import numpy as np

__all__ = [
    "Checkpoint",
    "MetricRow",
    "StreamRun",
    "compare_metrics",
    "format_checkpoints",
    "format_table",
    "monitor_stream",
    "online_model",
    "phishing_predictions",
    "phishing_stream",
    "progressive_predictions",
    "sine_drift_stream",
    "write_events",
]

#: Random states of the two `Sine` generators and of `ConceptDriftStream`'s mixing. The
#: demo's claim "an alert after the drift and none before it" was checked for these
#: (tests/cli/test_demo.py runs it).
SINE_RANDOM_STATES = (7, 8, 9)


# --- data and model ----------------------------------------------------------------------


def online_model():
    """River's ``StandardScaler() | LogisticRegression()``: the online model of the demo.

    Runtime complexity: ``O(d)`` per ``predict_proba_one`` / ``learn_one`` for ``d``
    features.
    """
    from river import linear_model, preprocessing

    return preprocessing.StandardScaler() | linear_model.LogisticRegression()


def phishing_stream():
    """River's bundled ``Phishing`` data set: 1,250 web pages, 9 features, no download."""
    from river import datasets

    return datasets.Phishing()


def sine_drift_stream(drift_at: int = 5_000, *, before: int = 0, after: int = 2,
                      random_states: tuple[int, int, int] = SINE_RANDOM_STATES):
    """River's ``Sine`` stream whose concept switches at event ``drift_at`` (1-based).

    A `river.datasets.synth.ConceptDriftStream` of ``Sine(before)`` followed by
    ``Sine(after)``: event ``t`` comes from the new concept with probability
    ``1 / (1 + exp(-4 (t - drift_at) / width))``. The width is 50 events (98% of the events
    before ``drift_at - 50`` are old, 98% after ``drift_at + 50`` are new), widened only as
    far as River needs to keep ``exp`` finite for a late drift. Unbounded: take what you
    need (``itertools.islice``).

    Concepts (River's numbering): 0 SINE1, ``y = 1`` below ``sin(x1)``; 1 reversed SINE1;
    2 SINE2, below ``0.5 + 0.3 sin(3 pi x1)``; 3 reversed SINE2. Two features in [0, 1].

    >>> import itertools
    >>> [y for _, y in itertools.islice(sine_drift_stream(), 8)]
    [0, 0, 0, 1, 1, 1, 1, 1]
    """
    from river.datasets import synth

    # River evaluates exp(4 (drift_at - t) / width) at t = 1, which overflows past ~709.
    width = max(50, math.ceil(4 * drift_at / 700))
    return synth.ConceptDriftStream(
        stream=synth.Sine(classification_function=before, seed=random_states[0]),
        drift_stream=synth.Sine(classification_function=after, seed=random_states[1]),
        position=drift_at, width=width, seed=random_states[2])


def progressive_predictions(stream: Iterable, model=None, *, n_events: int | None = None,
                            progress: bool = False, desc: str | None = None
                            ) -> Iterator[tuple[bool, float]]:
    """Yield ``(label, score)`` of each sample, predicted before the model learns it.

    Progressive validation (River's ``evaluate.progressive_val_score``): every score is an
    honest out-of-sample prediction. ``score`` is the predicted probability of the positive
    class (``True`` / ``1``). Runtime complexity: one ``predict_proba_one`` and one
    ``learn_one`` per sample.
    """
    from tqdm import tqdm

    model = online_model() if model is None else model
    if n_events is not None:
        stream = itertools.islice(stream, n_events)
    for x, y in tqdm(stream, total=n_events, desc=desc, disable=not progress, leave=False,
                     unit=" events", mininterval=0.2):
        proba = model.predict_proba_one(x)
        score = proba.get(True, 0.0)
        y = bool(y)
        model.learn_one(x, y)
        yield y, score


def phishing_predictions(progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Labels and progressive-validation scores of River's logistic regression on Phishing.

    Returns ``(y_true, y_score)``: booleans and predicted probabilities of the positive
    class, each prediction made before the model saw its sample.
    """
    stream = phishing_stream()
    pairs = list(progressive_predictions(stream, n_events=stream.n_samples, progress=progress,
                                         desc="learning Phishing online"))
    return np.array([y for y, _ in pairs]), np.array([s for _, s in pairs])


# --- the monitored run -------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """One monitor report, with River's binned ``ROCAUC`` of the same window beside it."""

    events: int
    auc: float
    river_auc: float
    p_value: float
    alert: bool

    @property
    def river_diff(self) -> float:
        """``|exact - River|``: River's binning error on this window."""
        return abs(self.auc - self.river_auc)


@dataclass
class StreamRun:
    """What `monitor_stream` saw: the predictions, the reports and the alerts.

    ``y`` and ``scores`` hold every prediction in stream order, so the window of the report
    at ``events = e`` is ``y[e - window:e]`` (a test recomputes it with scikit-learn).
    """

    window: int
    every: int
    alpha: float
    drift_at: int | None
    y: np.ndarray
    scores: np.ndarray
    checkpoints: list[Checkpoint]
    reports: list = field(repr=False)   # the monitor's Report objects, in order
    recounts_equal: int = 0             # reports whose counts equal pair_counts of the window
    adwin_alarms: list[int] = field(default_factory=list)   # River's ADWIN on the errors
    seconds: float = 0.0

    @property
    def alert_events(self) -> list[int]:
        """Events of the reports whose test raised an alert."""
        return [c.events for c in self.checkpoints if c.alert]

    @property
    def first_alert(self) -> Checkpoint | None:
        """The first report with an alert, or ``None``."""
        return next((c for c in self.checkpoints if c.alert), None)

    @property
    def first_alert_before_drift(self) -> int | None:
        """Event of the first alert at or before the drift point (a false alarm), if any."""
        if self.drift_at is None:
            return self.first_alert.events if self.first_alert else None
        return next((e for e in self.alert_events if e <= self.drift_at), None)

    @property
    def first_alert_after_drift(self) -> int | None:
        """Event of the first alert after the drift point, if any."""
        if self.drift_at is None:
            return None
        return next((e for e in self.alert_events if e > self.drift_at), None)

    @property
    def max_river_diff(self) -> float:
        """Largest ``|exact - River ROCAUC|`` over the reports with a full window."""
        diffs = [c.river_diff for c in self.checkpoints
                 if c.events >= self.window and not math.isnan(c.river_auc)]
        return max(diffs, default=float("nan"))


def _river_window_rocauc(window: int):
    """River's binned ``ROCAUC`` over the last ``window`` events (`utils.Rolling`)."""
    from river import metrics, utils

    if "cls" in inspect.signature(utils.Rolling.__init__).parameters:   # River >= 0.24
        return utils.Rolling(metrics.ROCAUC, window_size=window)
    return utils.Rolling(metrics.ROCAUC(), window_size=window)


def monitor_stream(stream: Iterable, *, n_events: int, window: int = 1_000, every: int = 100,
                   alpha: float = 0.01, drift_at: int | None = None, model=None,
                   adwin: bool = True, progress: bool = False, desc: str | None = None
                   ) -> StreamRun:
    """Learn ``stream`` online and watch the model's exact rolling AUC with a `Monitor`.

    Each prediction is observed by the monitor as a user would (``observe(i, score=...,
    label=...)``) and the monitor reports every ``every`` events. Beside it: River's binned
    ``ROCAUC`` over the same window, and (``adwin=True``) River's ADWIN fed the model's 0/1
    errors at threshold 0.5, a second alarm that watches the error rate rather than the
    ranking. At every report the monitor's counts are compared with `pair_counts` of the
    window, recomputed from scratch (`StreamRun.recounts_equal`).

    This ADWIN watches the error rate; ``Monitor(detector="adwin")`` would watch the
    ranking instead (each label's placement value, `streamrank.monitor`).

    Runtime complexity: the model's cost per event, plus ``O(log W)`` (monitor), ``O(1)``
    amortized (ADWIN) and ``O(T)`` (River's ROCAUC, ``T = 10``) per event, plus
    ``O(W log W)`` per report for the recount.
    """
    from river import drift

    from ..monitor import Monitor
    from ..batch.pairs import pair_counts

    t0 = time.perf_counter()
    monitor = Monitor(window=window, alpha=alpha)
    river_auc = _river_window_rocauc(window)
    detector = drift.ADWIN() if adwin else None
    held: deque = deque(maxlen=window)     # the window, for the recount
    ys, ss, checkpoints, reports, alarms = [], [], [], [], []
    recounts = 0
    pairs = progressive_predictions(stream, model, n_events=n_events, progress=progress,
                                    desc=desc)
    for i, (y, s) in enumerate(pairs, start=1):
        ys.append(y)
        ss.append(s)
        held.append((y, s))
        monitor.observe(i, score=s, label=y)
        river_auc.update(y, s)
        if detector is not None:
            detector.update(float(y != (s >= 0.5)))
            if detector.drift_detected:
                alarms.append(i)
        if i % every == 0 or i == n_events:
            r = monitor.report()
            reports.append(r)
            wy, ws = zip(*held)
            recounts += _same_counts(r.counts, pair_counts(np.array(wy), np.array(ws)))
            checkpoints.append(Checkpoint(
                events=i, auc=float(r.auc), river_auc=float(river_auc.get()),
                p_value=float(r.p_value), alert=bool(r.alert)))
    return StreamRun(window=window, every=every, alpha=alpha, drift_at=drift_at,
                     y=np.array(ys, dtype=bool), scores=np.array(ss, dtype=float),
                     checkpoints=checkpoints, reports=reports, recounts_equal=recounts,
                     adwin_alarms=alarms, seconds=time.perf_counter() - t0)


def _same_counts(a, b) -> bool:
    """Every count of two `PairCounts` equal (exact integers with unit weights)."""
    fields = ("concordant", "discordant", "tied_score", "comparable", "tied_label",
              "tied_both", "total")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


# --- an event log for `streamrank monitor` ------------------------------------------------


def write_events(path, y, scores, *, label_delay: int = 25, seconds_apart: int = 4,
                 start: str = "2026-01-01T00:00:00") -> int:
    """Write predictions as the event log a production service would keep, with late labels.

    Prediction ``i`` (1-based) is a row ``id=i, ts, score`` with an empty label at
    ``start + i * seconds_apart`` seconds; its label arrives ``label_delay`` predictions
    later as a row ``id=i, ts, label`` with an empty score (the outcome is known only
    after a while). Rows are in time order, a label before the prediction of the same
    second. Columns ``id,ts,score,label``; ``ts`` is ISO 8601 (UTC). This is what
    ``streamrank monitor`` reads: the label row joins its prediction by ``id``.

    Returns the number of rows written (``2 n``). Vectorized: one pyarrow table, one CSV
    write; ``O(n log n)`` for the merge by time.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "events.csv")
    >>> write_events(path, [1, 0, 1], [0.9, 0.2, 0.7], label_delay=1)
    6
    >>> print(open(path).read().strip())
    id,ts,score,label
    1,2026-01-01T00:00:04,0.9,
    1,2026-01-01T00:00:08,,1
    2,2026-01-01T00:00:08,0.2,
    2,2026-01-01T00:00:12,,0
    3,2026-01-01T00:00:12,0.7,
    3,2026-01-01T00:00:16,,1
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    y = np.asarray(y).astype(np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    n = y.size
    ids = np.arange(1, n + 1, dtype=np.int64)
    step = np.timedelta64(seconds_apart, "s")
    t0 = np.datetime64(start, "s")
    # Arrival slots: prediction i at slot i, its label at slot i + delay; a label comes
    # before the prediction of the same slot (kind 0 before kind 1).
    slot = np.concatenate((ids, np.minimum(ids + label_delay, ids[-1] + label_delay)
                           if n else ids))
    kind = np.concatenate((np.ones(n, np.int8), np.zeros(n, np.int8)))
    order = np.lexsort((kind, slot))
    is_pred = kind[order] == 1
    rows = np.concatenate((ids, ids))[order]
    table = pa.table({
        "id": rows,
        "ts": np.datetime_as_string(t0 + slot[order] * step, unit="s"),
        "score": pa.array(np.concatenate((scores, scores))[order], mask=~is_pred),
        "label": pa.array(np.concatenate((y, y))[order], mask=is_pred),
    })
    with open(path, "wb") as f:   # pyarrow always quotes a header: write it plain
        f.write(b"id,ts,score,label\n")
        pcsv.write_csv(table, f, pcsv.WriteOptions(include_header=False,
                                                   quoting_style="none"))
    return 2 * n


# --- output ------------------------------------------------------------------------------


def _fmt_p(p: float) -> str:
    if math.isnan(p):
        return "-"
    return f"{p:.2f}" if p >= 0.01 else f"{p:.0e}"


def format_checkpoints(run: StreamRun, every: int) -> str:
    """An aligned table of the reports at multiples of ``every`` events and the first alert.

    >>> run = StreamRun(window=2, every=1, alpha=0.01, drift_at=None, y=np.array([]),
    ...                 scores=np.array([]), reports=[], checkpoints=[
    ...     Checkpoint(1000, 0.998712, 0.993, 0.5, False),
    ...     Checkpoint(1100, 0.95, 0.94, 1e-7, True)])
    >>> print(format_checkpoints(run, every=1000))
      events  exact AUC  River ROCAUC   |diff|  p-value  alert
       1,000   0.998712      0.993000  5.7e-03     0.50      -
       1,100   0.950000      0.940000  1.0e-02    1e-07  ALERT  <- first alert
    """
    first = run.first_alert
    rows = [c for c in run.checkpoints
            if c.events % every == 0 or c is first or c is run.checkpoints[-1]]
    head = f"{'events':>8}  {'exact AUC':>9}  {'River ROCAUC':>12}  {'|diff|':>7}  " \
           f"{'p-value':>7}  {'alert':>5}"
    lines = [head]
    for c in rows:
        river = "-" if math.isnan(c.river_auc) else f"{c.river_auc:.6f}"
        diff = "-" if math.isnan(c.river_auc) else f"{c.river_diff:.1e}"
        line = f"{c.events:>8,}  {c.auc:>9.6f}  {river:>12}  {diff:>7}  " \
               f"{_fmt_p(c.p_value):>7}  {'ALERT' if c.alert else '-':>5}"
        if c is first:
            line += "  <- first alert"
        lines.append(line)
    return "\n".join(lines)


# --- streamrank against its peers --------------------------------------------------------


@dataclass(frozen=True)
class MetricRow:
    """One metric computed by streamrank and, where one exists, by a peer library."""

    metric: str
    streamrank: float
    streamrank_seconds: float
    peer: str
    peer_value: float
    peer_seconds: float

    @property
    def abs_diff(self) -> float:
        return abs(self.streamrank - self.peer_value)


def _timed(fn: Callable[[], float], repeats: int) -> tuple[float, float]:
    """The value of ``fn()`` and its median wall time over ``repeats`` calls."""
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return float(value), median(times)


def compare_metrics(y_true, y_score, repeats: int = 5) -> list[MetricRow]:
    """Every batch metric of streamrank next to its peer's value and both timings.

    Labels are binary. The C-index and Kendall's tau use the labels as an ordinal outcome.
    Peers that are not installed are reported as ``nan``.
    """
    import scipy.stats

    import streamrank as sr

    y_true = np.asarray(y_true)
    y_score = np.asarray(y_score, dtype=float)
    y_int = y_true.astype(int)
    rows = []

    def add(metric, ours, peer_name, peer):
        value, seconds = _timed(ours, repeats)
        try:
            pvalue, pseconds = _timed(peer, repeats) if peer else (float("nan"), float("nan"))
        except ImportError:
            pvalue, pseconds = float("nan"), float("nan")
        rows.append(MetricRow(metric, value, seconds, peer_name, pvalue, pseconds))

    def sklearn_auc(**kw):
        def auc():
            from sklearn.metrics import roc_auc_score
            return roc_auc_score(y_true, y_score, **kw)
        return auc

    def lifelines_cindex():
        from lifelines.utils import concordance_index
        return concordance_index(y_int, y_score)

    add("ROC AUC", lambda: sr.roc_auc_score(y_true, y_score),
        "sklearn roc_auc_score", sklearn_auc())
    add("partial AUC (max_fpr=0.1)", lambda: sr.roc_auc_score(y_true, y_score, max_fpr=0.1),
        "sklearn roc_auc_score", sklearn_auc(max_fpr=0.1))
    add("Kendall tau-b", lambda: sr.kendall_tau(y_int, y_score),
        "scipy kendalltau", lambda: scipy.stats.kendalltau(y_int, y_score).statistic)
    add("Kendall tau-c", lambda: sr.kendall_tau(y_int, y_score, variant="c"),
        "scipy kendalltau(c)",
        lambda: scipy.stats.kendalltau(y_int, y_score, variant="c").statistic)
    add("Somers' D", lambda: sr.somers_d(y_int, y_score),
        "scipy somersd", lambda: scipy.stats.somersd(y_int, y_score).statistic)
    add("C-index", lambda: sr.concordance_index(y_int, y_score),
        "lifelines concordance_index", lifelines_cindex)
    add("Goodman-Kruskal gamma", lambda: sr.goodman_kruskal_gamma(y_int, y_score), "-", None)
    add("Kendall tau-a", lambda: sr.kendall_tau(y_int, y_score, variant="a"), "-", None)
    return rows


def format_table(rows: list[MetricRow]) -> str:
    """A compact plain-text table of `compare_metrics` rows: each value, its distance to
    the peer's, both median times in milliseconds and the peer, in at most 89 characters
    a line (95 with the demo's indent: a longer metric or peer name is cut short with an
    ellipsis).

    >>> print(format_table([MetricRow("ROC AUC", 0.75, 1e-4, "sklearn roc_auc_score", 0.75,
    ...                               2e-3), MetricRow("tau-a", 0.5, 1e-4, "-", math.nan,
    ...                                                math.nan)]))
    metric   streamrank  |diff|  ms ours/peer  peer
    ROC AUC    0.750000   0e+00     0.10/2.00  sklearn roc_auc_score
    tau-a      0.500000       -        0.10/-
    """
    width = min(25, max(len("metric"), *(len(r.metric) for r in rows)))
    lines = [f"{'metric':<{width}}  {'streamrank':>10}  {'|diff|':>6}  "
             f"{'ms ours/peer':>12}  peer"]
    for r in rows:
        missing = math.isnan(r.peer_value)
        diff = "-" if missing else f"{r.abs_diff:.0e}"
        ms = f"{1e3 * r.streamrank_seconds:.2f}/" + \
            ("-" if math.isnan(r.peer_seconds) else f"{1e3 * r.peer_seconds:.2f}")
        lines.append(f"{_cut(r.metric, width):<{width}}  {r.streamrank:>10.6f}  {diff:>6}  "
                     f"{ms:>12}  {'' if missing else _cut(r.peer, 28)}".rstrip())
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut short with an ellipsis."""
    return text if len(text) <= width else text[:width - 1] + "…"
