"""`SegmentedMonitor`: each segment's window AUC against an independent model of the
windows (sklearn's roc_auc_score), the total against group_auc_score, the corrections
against a direct computation, snapshots, routing rules and errors."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from streamrank import group_auc_score
from streamrank.exceptions import SnapshotError, UndefinedMetricWarning  # noqa: F401
from streamrank.monitor import Monitor, SegmentedMonitor, SegmentedReport
from streamrank.monitor._segment_report import adjust_p_values

import variance_oracle as vo

OTHER = SegmentedMonitor.OTHER
# (zero weights and one-class windows: the undefined AUCs are compared as nan)
pytestmark = pytest.mark.filterwarnings("ignore::streamrank.exceptions.UndefinedMetricWarning",
                                        "ignore::sklearn.exceptions.UndefinedMetricWarning")


class Model:
    """The windows as plain lists: segment -> [[key, t, label, score, weight], ...]."""

    def __init__(self, max_segments, window=None, period=None):
        self.max_segments, self.window, self.period = max_segments, window, period
        self.wins: dict = {}
        self.clock = None
        self.unrouted = 0       # events for an id in no window, without a unit ...
        self.dropped = self.unmatched = self.early = self.lead = self.events = 0
        self.last = {}          # ... (count windows) late: key -> its latest unit,
        self.evicted: dict = {}  # unit -> the keys it evicted, in order
        self.orphans = {}       # ... or unmatched: key -> the event

    def unit_name(self, seg):
        if seg in self.wins and seg != OTHER:
            return seg
        real = [s for s in self.wins if s != OTHER]
        return seg if len(real) < self.max_segments else OTHER

    def find(self, key):
        for name, rows in self.wins.items():
            for row in rows:
                if row[0] == key:
                    return name, row
        return None, None

    def advance(self, t):
        if t is None or (self.clock is not None and t <= self.clock):
            return
        self.clock = t
        if self.period is not None:
            for name, rows in self.wins.items():
                self.wins[name] = [r for r in rows if r[1] > t - self.period]

    def observe(self, key, seg, score, label, weight, t):
        self.events += 1
        self.advance(t)
        name, row = self.find(key)
        if row is not None:
            if score is not None:
                row[3] = score
            if label is not None:
                row[2] = label
            if weight is not None:
                row[4] = weight
            return
        if score is None:     # in its segment's unit if it has one, or here
            if seg is None or self.unit_name(seg) not in self.wins:
                self.unrouted += 1
                if self.window is not None:     # late: among its unit's last evicted
                    name = self.last.get(key)
                    if name is not None and key in self.evicted[name][-self.window:]:
                        self.dropped += 1
                    else:
                        self.unmatched += 1
                        self.orphans.setdefault(key, self.events)
            return
        if key in self.orphans:     # its label came first
            self.early += 1
            self.lead = max(self.lead, self.events - self.orphans.pop(key))
        name = self.unit_name(seg)
        self.last[key] = name
        rows = self.wins.setdefault(name, [])
        rows.append([key, t, label, score, 1 if weight is None else weight])
        if self.window is not None and len(rows) > self.window:
            self.evicted.setdefault(name, []).append(rows.pop(0)[0])

    def labeled(self, name):
        rows = [r for r in self.wins.get(name, []) if r[2] is not None]
        return ([r[2] for r in rows], [r[3] for r in rows], [r[4] for r in rows])


def _auc_or_nan(y, s, w):
    """sklearn's AUC; nan unless both classes have weight (sklearn refuses zero weights)."""
    if len({yi for yi, wi in zip(y, w) if wi > 0}) != 2:
        return math.nan
    return roc_auc_score(y, s, sample_weight=w)


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12,
                                                             abs_tol=1e-12)


def _check_report(m, model, r, weighting, checked):
    """The report ``r`` against the model; ``checked`` counts what was compared."""
    assert set(r.segments) == set(model.wins)
    ys, ss, ws, gs = [], [], [], []
    for seg, rep in zip(r.segments, r.reports):
        y, s, w = model.labeled(seg)
        assert rep.n == len(y), seg
        assert rep.pending == len(model.wins[seg]) - len(y)
        assert _same(rep.auc, _auc_or_nan(y, s, w)), (seg, rep.auc)
        ys += y
        ss += s
        ws += w
        gs += [str(seg)] * len(y)
    if len(set(ys)) == 2 and any(len(set(model.labeled(g)[0])) == 2 for g in model.wins):
        expect = group_auc_score(ys, ss, gs, sample_weight=ws, weighting=weighting)
        assert _same(r.gauc, expect), (r.gauc, expect)
    else:
        assert math.isnan(r.gauc)
    # the correction is the textbook one of the units' own p-values
    correct = vo.holm if m.correction == "holm" else vo.bonferroni
    assert _same_seq(r.p_adjusted, correct(rep.p_value for rep in r.reports))
    assert r.alerts == tuple(bool(p < m.alpha) for p in r.p_adjusted)
    _check_wrapper_counts(m, model)
    checked["gauc"] += r.gauc == r.gauc
    checked["tests"] += sum(p == p for p in r.p_adjusted) > 1


def _check_wrapper_counts(m, model):
    """The events counted at the wrapper: late or unmatched (told apart by the model in
    count windows), the early ones; the stream's totals in the report."""
    st = m.stats
    assert st["dropped"] + st["unmatched"] == model.unrouted
    if model.window is not None:
        assert (st["dropped"], st["unmatched"], st["early"], st["early_lead"]) == (
            model.dropped, model.unmatched, model.early, model.lead)
    total = m.totals()
    assert total["dropped"] == st["dropped"] + sum(u.stats["dropped"]
                                                   for _, u in m._all())


def _same_seq(a, b):
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


_ops = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 5), st.integers(0, 3),
                          st.integers(0, 1), st.integers(0, 2), st.integers(0, 3)),
                min_size=20, max_size=150)


def _run(ops, m, model, weighting, checked, snapshot_every=None):
    keys = []
    t = 0.0
    nxt = 0
    for step, (kind, code, score, label, w, dt) in enumerate(ops):
        seg = "abcdef"[code]
        t += dt * 0.5
        time = t if model.period is not None or dt else None
        if kind <= 3 or not keys:                # a new prediction, maybe labeled
            key = f"k{nxt}"
            nxt += 1
            keys.append(key)
            ev = dict(segment=seg, score=float(score), label=float(label) if kind == 0
                      else None, weight=w + 1 if kind == 1 else None)
        else:
            key = keys[(code * 7 + score) % len(keys)]
            name, row = model.find(key)
            if kind <= 6:                        # a late label, no segment
                ev = dict(label=float(label))
            elif kind == 7:                      # a re-score
                ev = dict(score=float(score))
            elif kind == 8 and name is not None:  # a label naming its segment
                ev = dict(label=float(label), segment=_given(m, model, key))
            else:
                ev = dict(label=float(label), weight=w)
        if model.period is not None and time is None:
            time = t
        if "segment" not in ev and ev.get("score") is not None:
            row = model.find(key)[1]
            if row is None or (model.period is not None
                               and row[1] <= max(time, model.clock) - model.period):
                # a re-score of an id that has left: refused, nothing changes
                before = m.stats["events"]
                with pytest.raises(ValueError, match="new prediction"):
                    m.observe(key, time=time, **ev)
                assert m.stats["events"] == before
                m._check()
                continue
        m.observe(key, time=time, **ev)
        model.observe(key, ev.get("segment"), ev.get("score"), ev.get("label"),
                      ev.get("weight"), time)
        m._check()
        if step % 5 == 4:
            _check_report(m, model, m.report(), weighting, checked)
            m._check()
        if snapshot_every and step % snapshot_every == snapshot_every - 1:
            m = SegmentedMonitor.from_bytes(m.to_bytes())
            m._check()
    _check_report(m, model, m.report(), weighting, checked)
    return m


def _given(m, model, key):
    return m._where[key][0]


def test_count_windows_match_the_model():
    checked = Counter()

    @settings(derandomize=True, max_examples=60, deadline=None)
    @given(_ops, st.integers(1, 4), st.sampled_from(["impressions", "pairs", "uniform"]))
    def run(ops, max_segments, weighting):
        m = SegmentedMonitor(max_segments=max_segments, weighting=weighting, window=6,
                             min_window=2, reference=3)
        _run(ops, m, Model(max_segments, window=6), weighting, checked)

    run()
    # (the reports compared enough to mean something: measured 365 and 7)
    assert checked["gauc"] > 200 and checked["tests"] > 5, checked


def test_period_windows_share_the_clock():
    checked = Counter()

    @settings(derandomize=True, max_examples=60, deadline=None)
    @given(_ops, st.integers(1, 4), st.sampled_from(["holm", "bonferroni"]))
    def run(ops, max_segments, correction):
        m = SegmentedMonitor(max_segments=max_segments, correction=correction,
                             period=4.0, min_window=2, test="delong")
        _run(ops, m, Model(max_segments, period=4.0), "impressions", checked)

    run()
    assert checked["gauc"] > 20, checked     # (measured 28)


def test_snapshot_round_trips_continue_exactly():
    checked = Counter()

    @settings(derandomize=True, max_examples=40, deadline=None)
    @given(_ops, st.integers(1, 3))
    def run(ops, max_segments):
        m = SegmentedMonitor(max_segments=max_segments, period=3.0, min_window=2)
        m = _run(ops, m, Model(max_segments, period=3.0), "impressions", checked,
                 snapshot_every=7)
        back = SegmentedMonitor.from_bytes(m.to_bytes())
        back._check()
        assert back.stats == m.stats and back.segments == m.segments
        assert back.segment_alerts == m.segment_alerts
        assert [r.rows() for r in back.history] == [r.rows() for r in m.history] or all(
            _rows_equal(a, b) for a, b in zip(back.history, m.history))
        assert back.to_bytes() == m.to_bytes()

    run()
    assert checked["gauc"] > 0, checked


def _rows_equal(a, b):
    for x, y in zip(a.rows(), b.rows()):
        for k in x:
            u, v = x[k], y[k]
            if isinstance(u, float) and isinstance(v, float):
                assert _same(u, v), k
            elif k != "counts":
                assert u == v, k
    return True


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("window", [None, 8])
def test_long_seeded_streams(seed, window):
    """Long streams (fixed seeds): many reports with both classes in several segments,
    weights, ties, pooling, evictions, snapshots."""
    rng = np.random.default_rng(seed)
    ops = [tuple(int(v) for v in row) for row in np.column_stack([
        rng.choice(10, 500, p=[.2, .15, .1, .1, .15, .1, .05, .05, .05, .05]),
        rng.integers(0, 6, 500), rng.integers(0, 4, 500), rng.integers(0, 2, 500),
        rng.integers(0, 3, 500), rng.integers(0, 4, 500)])]
    max_segments = 1 + seed % 4
    weighting = ("impressions", "pairs", "uniform")[seed % 3]
    period = None if window else 6.0
    m = SegmentedMonitor(max_segments=max_segments, weighting=weighting, window=window,
                         period=period, min_window=3, reference=5,
                         correction=("holm", "bonferroni")[seed % 2])
    model = Model(max_segments, window=window, period=period)
    checked = Counter()
    m = _run(ops, m, model, weighting, checked, snapshot_every=97)
    _check_wrapper_counts(m, model)
    assert checked["gauc"] > 5, checked      # (measured 7 to 95)


def test_corrections_direct():
    rng = np.random.default_rng(7)
    for _ in range(200):
        p = rng.random(rng.integers(1, 9)) ** 3
        p[rng.random(p.size) < 0.2] = np.nan
        assert _same_seq(adjust_p_values(p, "holm").tolist(), vo.holm(p.tolist()))
        assert _same_seq(adjust_p_values(p, "bonferroni").tolist(),
                         vo.bonferroni(p.tolist()))


def _degrading_stream(m, n=3000, seed=3):
    """Segment 'b' degrades after half the stream; 'a' and 'c' do not."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        seg = "abc"[i % 3]
        y = int(rng.random() < 0.5)
        sep = 2.0 if not (seg == "b" and i > n // 2) else 0.0
        m.observe(i, segment=seg, score=float(rng.normal(sep * y)), label=y)
    return m.report()


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_a_degrading_segment_alerts_alone(correction):
    m = SegmentedMonitor(window=600, correction=correction, alpha=0.01)
    r = _degrading_stream(m)
    assert r.alerts == (False, True, False) and r.alert
    assert m.segment_alerts == {"b": 1}
    assert r["b"].auc < 0.65 < 0.85 < r["a"].auc
    assert m.alerts[-1] is r and m.stats["alerts"] >= 1
    whole = Monitor(window=1800, alpha=0.01)
    rng = np.random.default_rng(3)
    for i in range(3000):
        seg = "abc"[i % 3]
        y = int(rng.random() < 0.5)
        sep = 2.0 if not (seg == "b" and i > 1500) else 0.0
        whole.observe(i, score=float(rng.normal(sep * y)), label=y)
    assert whole.report().auc > r["b"].auc + 0.15      # the whole stream hides it


def test_labels_without_segment_route_by_id_and_errors_change_nothing():
    m = SegmentedMonitor(max_segments=1, window=10, min_window=2)
    m.observe("x", segment="fr", score=0.3)
    m.observe("y", segment="de", score=0.6)             # pooled
    m.observe("z", segment="it", score=0.1)             # pooled too
    before = m.to_bytes()
    with pytest.raises(ValueError, match="'segment' parameter .* must be 'fr'"):
        m.observe("x", segment="de", label=1)
    with pytest.raises(ValueError, match="'segment' parameter .*new prediction"):
        m.observe("new", score=0.5)
    with pytest.raises(ValueError, match="pooled segment's name"):
        m.observe("new", segment=OTHER, score=0.5)
    with pytest.raises(ValueError, match="'segment' parameter"):
        m.observe("new", segment=float("nan"), score=0.5)
    with pytest.raises(TypeError, match="'key' parameter"):
        m.observe(["unhashable"], segment="fr", score=0.5)
    with pytest.raises(ValueError, match="'score' parameter"):
        m.observe("new", segment="es", score=float("inf"))
    with pytest.raises(ValueError, match="'label' parameter"):
        m.observe("gone", label=float("nan"))
    assert m.to_bytes() == before and m.segments == ("fr", OTHER)
    m.observe("x", label=1)
    m.observe("y", label=0, segment="de")               # its own (pooled) value
    m.observe("z", label=1)
    m.observe("gone", label=1)                          # in no window
    assert (m.stats["dropped"], m.stats["unmatched"]) == (0, 1)    # never predicted
    assert m.stats["pooled_events"] == 4
    assert m.stats["pooled_predictions"] == 2
    r = m.report()
    assert r[OTHER].auc == 0.0 and r["fr"].n == 1 and r.gauc == 0.0
    assert m.totals()["unmatched"] == 1 and m.totals()["labeled"] == 3
    assert (r.dropped, r.unmatched, r.rows()[-1]["unmatched"]) == (0, 1, 1)


def test_period_back_in_time_and_shared_eviction():
    m = SegmentedMonitor(period=10.0, min_window=2)
    m.observe(1, segment="a", score=0.5, time=0.0)
    m.observe(2, segment="b", score=0.5, time=5.0)
    with pytest.raises(ValueError, match="'time' parameter .* at least the clock 5.0"):
        m.observe(3, segment="a", score=0.5, time=4.0)
    with pytest.raises(ValueError, match="'time' parameter"):
        m.observe(3, segment="a", score=0.5)
    m.observe(2, label=1, time=12.0)        # an event of 'b' moves the clock of 'a' too
    r = m.report()
    assert r["a"].n + r["a"].pending == 0 and r["b"].n == 1 and r["a"].time == 12.0
    m.observe(1, label=1, time=12.0)        # prediction 1 has left: late, dropped here
    assert (m.stats["dropped"], m.stats["unmatched"]) == (1, 0)
    m.observe(1, segment="b", score=0.7, time=13.0)   # the id comes back elsewhere
    assert m.unit("b").stats["predictions"] == 2


def test_custom_factory_units_and_settings():
    with pytest.raises(ValueError, match="'factory' parameter"):
        SegmentedMonitor(factory=lambda: Monitor(window=5), window=5)
    with pytest.raises(ValueError, match="'correction' parameter"):
        SegmentedMonitor(correction="sidak")
    with pytest.raises(ValueError, match="'max_segments' parameter"):
        SegmentedMonitor(max_segments=0)
    with pytest.raises(ValueError, match="'alpha' parameter of Monitor"):
        SegmentedMonitor(alpha=2.0)
    with pytest.raises(TypeError, match="'options' parameter .* Got windw instead"):
        SegmentedMonitor(windw=5)

    class Unit(Monitor):
        pass

    m = SegmentedMonitor(factory=lambda: Unit(window=5, min_window=2))
    for i in range(8):
        m.observe(i, segment=i % 2, score=i / 10, label=i % 3 == 0)
    assert type(m.unit(0)) is Unit and m.unit(1).window == 5
    with pytest.raises(SnapshotError, match="pass unit_type"):
        SegmentedMonitor.from_bytes(m.to_bytes())
    back = SegmentedMonitor.from_bytes(m.to_bytes(), unit_type=Unit)
    back._check()
    assert back.segments == (0, 1) and back.template().window == 5
    with pytest.raises(TypeError, match="all ints or all strings"):
        mixed = SegmentedMonitor(window=5)
        mixed.observe(1, segment=1, score=0.1)
        mixed.observe(2, segment="a", score=0.1)
        mixed.to_bytes()


def test_pickle_and_unit_fields():
    import pickle

    m = SegmentedMonitor(window=5, min_window=2)
    for i in range(6):
        m.observe(i, segment="ab"[i % 2], score=i / 6, label=i % 3 == 0)
    back = pickle.loads(pickle.dumps(m))
    back._check()
    assert back.to_bytes() == m.to_bytes()
    before = m.to_bytes()
    with pytest.raises(TypeError, match="challenger"):   # a Monitor unit takes none
        m.observe(9, segment="c", score=0.5, challenger=0.4)
    assert m.to_bytes() == before and m.segments == ("a", "b")


def test_damaged_snapshots_are_refused():
    m = SegmentedMonitor(window=5)
    m.observe(1, segment="a", score=0.1, label=1)
    data = m.to_bytes()
    with pytest.raises(SnapshotError, match="not a SegmentedMonitor snapshot"):
        SegmentedMonitor.from_bytes(Monitor(window=5).to_bytes())
    with pytest.raises(SnapshotError):
        SegmentedMonitor.from_bytes(data[: len(data) // 2])


def test_metrics_and_rows():
    m = SegmentedMonitor(window=50, min_window=2, reference=6)
    assert math.isnan(m.metrics()["window_gauc"]) and m.metrics()["segments"] == {}
    for i in range(40):
        m.observe(i, segment="ab"[i % 2], score=(i % 7) / 7, label=i % 3 == 0)
    r = m.report()
    assert isinstance(r, SegmentedReport)
    d = m.metrics()
    assert set(d["segments"]) == {"a", "b"} and d["window_gauc"] == r.gauc
    assert d["segments"]["a"]["window_auc"] == r["a"].auc
    assert d["segments"]["b"]["p_adjusted"] == r.p_adjusted[1] >= r["b"].p_value
    rows = r.rows()
    assert [x["segment"] for x in rows] == ["a", "b", None]
    assert rows[-1]["auc"] == r.gauc and rows[-1]["n"] == r["a"].n + r["b"].n
    with pytest.raises(KeyError):
        r["zz"]
