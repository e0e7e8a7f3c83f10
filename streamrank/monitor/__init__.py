"""`Monitor`: exact rolling AUC of a live prediction stream, with drift alerts.

A deployed model emits *events*: a new prediction (an id and a score), a label that
arrives later for an earlier id, a corrected score. `Monitor.observe` takes them one at a
time and keeps the exact pair counts (`streamrank.PairCounts`: AUC with ties, Kendall's
tau, C-index, ...) of the labeled predictions of a sliding window, updated in ``O(log W)``
per event; `Monitor.report` reads them in ``O(1)``, tests the window against a frozen
reference window, and optionally feeds a River drift detector. `PairedMonitor` compares a
challenger with the champion on the same ids, `SegmentedMonitor` keeps a window per
segment; whatever the shape, a report is one table (`table_of`, `ReportTable`: a row per
(segment, model), a row per champion/challenger pair, the total rows), which
``streamrank monitor`` prints, serves to Prometheus and sums up.

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
a score or a weight, those replace the pending ones. A new label for an already labeled
prediction relabels it. A label (or weight) for an id the window does not hold is one of
two things, told apart by a memory of the ids evicted lately (the last ``window``
predictions evicted, or those evicted while the clock was above ``clock - period``; the
clock before the event): for one of them it is *late, dropped* (``stats["dropped"]``:
the window has moved past its prediction); otherwise it is *unmatched*
(``stats["unmatched"]``): no prediction of that id was seen lately, because the label
came before it, or the id was never predicted (a prediction row whose score is missing
reads as a label row), or was evicted so long ago that it is forgotten. The monitor also
remembers the ids of the last 10,000 unmatched labels: a prediction that comes for one
of them counts ``stats["early"]``, and ``stats["early_lead"]`` keeps the most events
from such a label to its prediction, the ``label_wait`` that would have joined them
(below). Both memories are a dict and a deque, ``O(1)`` amortized per event or eviction,
and part of the snapshot.

**Labels before their prediction** (log shippers reorder lines): with
``Monitor(label_wait=N)`` (events) or ``label_wait_period=T`` (time units of ``time``;
every event then needs a ``time``), a label or weight for an id that is neither in the
window nor evicted lately *waits* instead of being dropped: it joins the prediction if
that arrives within the next ``N`` events (or while the clock is below the wait's start
plus ``T``, the start being the label's time or the clock, the later, and never before
an earlier wait's start), and the prediction is counted labeled at once
(``stats["joined"]``; not ``late``); a label that waits longer runs out and is counted
unmatched then (``stats["unmatched"]``: one definition with or without a wait, a label
that met no prediction; `Monitor.waiting` counts those waiting now). A waiting event
changes nothing else: its time does not move the clock (a label logged after its
prediction but shipped before it does not push a ``period`` window past it), and the
prediction brings its own time. Several events for one waiting id: each replaces what it
carries (the last label and weight win) and the wait keeps its first start; the
prediction's own label or weight, if it has one, wins over the waiting ones; later
events for the id are late labels or re-scores as usual. With ``labels="binary"`` a
waiting label is also checked when it joins. The buffer holds at most ``N`` waits (one
per event), or those of the last ``T`` time units. A label for an id evicted *lately* is
still dropped at once (the memory above); an id evicted before that is forgotten, and
its label waits (then counts ``unmatched``, or joins a new prediction of that id). The
buffer is a dict and a deque, ``O(1)`` amortized per event, and part of the snapshot.
Without a wait (the default) nothing waits. The per-event paths below are taken only
while no label waits.

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
left the window is late, dropped.

**The reference window** is frozen once: by default the *first full window* as labeled
just before it first slides (the moment the first prediction is evicted: the labels that
arrived late while it was filling are in; labels that lag the window by more than its
length leave it with one class, and then no test ever runs: give ``reference=N``); with
``reference=N``, the first ``N``
predictions to receive a label (with their scores as of the ``N``-th label). Its counts,
AUC and variances are kept; the reference never changes afterwards.

**The test** (`streamrank.monitor.drift`): one-sided, ``H1: AUC(window) < AUC(reference)``,
``z = (A - A_ref) / sqrt(Var(A) + Var(A_ref))``, ``p = Phi(z)``, an alert when
``p < alpha``. ``test="hanley-mcneil"`` (default) uses Hanley-McNeil variances: ``O(1)``
from the exact counts and the class sizes. ``test="delong"`` uses DeLong's variance
from the engine's placement moments (``O(1)`` per report, ``O(log W)`` per change; with
fractional weights, from the window's contents at report time, ``O(W log W)``). The
variances add because the windows are independent and disjoint once the window has slid
by its own length; before that they share predictions, their AUCs are positively
correlated, and the sum overstates the variance of the difference: the test is then
conservative (fewer alerts), never anti-conservative. No test runs (``z``,
``p_value`` nan, no alert) before the reference is frozen, while the window holds fewer
than ``min_window`` labeled predictions or only one class.

**The interval**: every report carries ``Report.low`` and ``Report.high``, the interval
of the window's AUC at the monitor's ``level`` (default 0.95) by the ``test`` method: with
whole-number weights the bounds of `streamrank.roc_auc_ci` of the window's labeled
predictions; nan while the window holds one class (or a class of weight at most 1).
With non-binary labels, the logit interval of the concordance (below). ``Report.as_dict`` and ``streamrank monitor --format json|csv``
name them ``auc_low`` and ``auc_high``.

**Non-binary labels** (ordinal or real: a third label value): the reported metric is
Harrell's concordance ``(C + T/2) / P`` of the same counts (``Report.metric ==
"concordance"``; Kendall's tau and the rest are in ``Report.counts``), tested the same
way: one-sided, ``H1: c(window) < c(reference)``, ``z = (c - c_ref) / sqrt(Var(c) +
Var(c_ref))``, ``p = Phi(z)``, an alert when ``p < alpha``, with the U-statistic
(delta-method) variance of `streamrank.concordance_variance` on both windows (whatever
``test``, which picks the AUC variance of binary labels); the interval is
`streamrank.concordance_ci`'s logit interval. The same overlap caveat holds (a
conservative test until the window has slid by its length). It applies as soon as the
window or the reference holds a third label value. The reference's variance is computed
once when it freezes; the window's at each report from its labeled predictions,
``O(W log W)`` (one argsort and two compiled Fenwick-tree passes), where the binary tests
cost ``O(1)``. The variance assumes exchangeable rows: on a strongly autocorrelated
series (a time series of approval ratings) it understates the spread and alerts more
often than ``alpha``.

**Before the labels** (guide: "Before the labels arrive"): with ``estimate=True`` the
window's AUC is also estimated from its scores as calibrated probabilities, labeled or
not (``Report.estimated_auc``; of the labeled ones ``estimated_auc_labeled``); with
``score_drift=True`` the window's scores are compared with a frozen reference of them
(``Report.score_shift``, its DeLong ``score_shift_se`` and two-sided ``score_shift_p``,
and the Kolmogorov-Smirnov ``ks``, ``ks_p``; ``_scores``); every test reports the drop it
can detect (``detectable_drop``; ``labels_to_detect`` with ``detect_drop``).

**The detector** (``detector=``: ``"adwin"``, ``"page-hinkley"``, either with River
parameters, ``"adwin:delta=0.002,clock=1"``, or a River drift detector instance, cloned)
is fed one value per event: each time a prediction *becomes labeled* in the window (a new
prediction with its label, or a late label joining a pending one), its *placement value*
``(C + T/2) / (C + D + T)`` of the pairs it forms with a set of labeled predictions
(weighted by theirs). With binary labels: the share of the opposite class it orders
correctly, ties one half (for a positive, the weight of the negatives scored lower, plus
half the tied, over the negatives' weight); the mean of the placements is an AUC. The
set (``detector_signal=``, `streamrank.monitor._signal`) is the frozen reference window
by default (``"reference"``): its predictions never change, so the values are
independent given the reference; ``O(log R)`` per value (two binary searches per class
of the reference, sorted once), and nothing is fed before the reference freezes. With
``"window"``, the window after the event (``O(log W)``, read from the engine; fed from
``min_window`` labeled predictions on). Nothing is fed for a prediction of weight 0, or
when it has no comparable pair (the other class is absent); a relabel, re-score or
reweight of a labeled prediction feeds nothing. ``Report.drift`` is true when the
detector fired since the previous report; ``stats["detections"]`` counts every detection
and `Monitor.last_detection` is the event of the latest. The built-in settings are
River's defaults (``ADWIN(delta=0.002, clock=32)``, ``PageHinkley(threshold=50,
delta=0.005)``), Page-Hinkley with ``mode="down"`` (drops only, as the test). On a stream
whose AUC falls from 0.9 to 0.7 (window 1000), ADWIN fed the reference placements fires
a median 336 events after the change (Page-Hinkley 1143) and raised no false alarm in 1.5
million stationary events; fed the window placements it fires sooner (median 229) but
raised 36: those share the window's sampling error for about ``W`` events, which the
detectors' bounds do not allow for (`streamrank.monitor.detectors`,
benchmarks/RESULTS.md). A shift of all scores that keeps their ranking changes neither
signal's mean much (the AUC does not see it either). The z-test above stays the
calibrated test of the AUC itself. With a reference-fed detector a labeling event keeps
the per-event path (ADWIN: 1.7 times the cost without a detector, 3.3 us instead of
1.9 us, benchmarks/bench_monitor.py); against the window it takes the general path, the
engine is synced at once, the placement read, the detector updated (7.7 times, 14.6 us).

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

Layout, by stage. The shapes: `Monitor` (``_monitor``; its events ``_events``, its settings
``_settings``), one
window per segment (`SegmentedMonitor`, ``_segments``), champion against challenger
(`PairedMonitor`, ``_paired``; how an event reaches both models, ``_paired_events``).
The join: the label wait and the memories of late and unmatched labels (``_join``; a
window's side of it ``_join_side``, the segmented wrapper's ``_segment_join``). Blocks
of events: `observe_many` (``_many``) and its compiled runs (``_runs``, ``_cruns``). The
detector's signal (``_signal``) and the River drift detectors
(`streamrank.monitor.detectors`). The reads: a `Report` (``_report``, built by
``_read``; the reference window ``_reference``, the scores' reference ``_scores``,
the AUC-drop tests
`streamrank.monitor.drift`, the ordinal test ``_ordinal``), a `PairedReport`
(``_paired_report``), a `SegmentedReport` (``_segment_report``, read by
``_segment_read``), the one report table (`streamrank.monitor.table`), the counters
(`streamrank.monitor.counters`) and the metrics of a scrape (`streamrank.monitor.metrics`).
Persistence: the one snapshot format of every shape (``_format``; each shape writes and
reads its node in ``_state``, ``_paired_state``, ``_segment_state``) and the crash-safe
checkpoint files of ``streamrank monitor`` (`streamrank.monitor.checkpoint`). The
figure of a history is `streamrank.plot.plot_history`.

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

A label that arrives before its prediction waits for it with ``label_wait``:

>>> m = Monitor(window=4, min_window=2, label_wait=10)
>>> m.observe("a", label=1)              # the label first: it waits
>>> m.waiting, m.stats["unmatched"]
(1, 0)
>>> m.observe("a", score=0.7)            # its prediction: labeled at once
>>> m.n, m.waiting, m.stats["joined"]
(1, 0, 1)
"""

from ._monitor import TESTS, Monitor
from ._paired import ALERT_ON, PairedMonitor
from ._paired_report import PairedReport
from ._report import Report
from ._segment_report import SegmentedReport
from ._segments import SegmentedMonitor
from .table import ReportTable, table_of
from .detectors import DETECTORS

__all__ = ["ALERT_ON", "DETECTORS", "TESTS", "Monitor", "PairedMonitor", "PairedReport",
           "Report", "ReportTable", "SegmentedMonitor", "SegmentedReport", "table_of"]
