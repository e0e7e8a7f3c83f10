"""`streamrank.monitor.Monitor`: window semantics, exact counts, the test, persistence, plot.

The central property: after any sequence of predictions, late labels, re-scores,
reweights and evictions (and `to_bytes` / `from_bytes` round trips in between), the
monitor's window equals a naive list model of the documented rules, and its counts equal
a batch `pair_counts` of the labeled predictions in it.
"""

import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank import concordance_variance, pair_counts
from streamrank.monitor.drift import auc_drop_test, delong_test, hanley_mcneil_test
from streamrank.monitor import Monitor, Report
from streamrank.plot import plot_history

import variance_oracle as vo

PNG = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- a naive model
class Model:
    """The documented rules with a plain list, linear scans, no cleverness."""

    def __init__(self, window=None, period=None):
        self.window, self.period = window, period
        self.rows = []          # [key, y, s, w, t], oldest first
        self.clock = None
        self.ref = None         # (y, s, w) lists of the labeled rows at the first eviction
        self.dropped = self.late = self.unmatched = self.early = self.lead = 0
        self.events = 0
        self.gone = []          # (key, mark) of every eviction, in order
        self.orphans = {}       # key -> the event of its latest unmatched label

    def _evict(self, k):
        if k and self.ref is None:
            lab = [r for r in self.rows if r[1] is not None]
            self.ref = ([r[1] for r in lab], [r[2] for r in lab], [r[3] for r in lab])
        for r in self.rows[:k]:
            self.gone.append((r[0], len(self.gone) + 1 if self.period is None
                              else self.clock))
        del self.rows[:k]

    def _evicted_lately(self, key, clock):
        """Among the last ``window`` evicted, or evicted at a clock above ``clock -
        period`` (``clock``: before the event)."""
        marks = [m for k, m in self.gone if k == key]
        if not marks:
            return False
        if self.period is None:
            return marks[-1] > len(self.gone) - self.window
        return marks[-1] > clock - self.period

    def observe(self, key, score=None, label=None, weight=None, time=None):
        self.events += 1
        before = self.clock
        if self.period is not None and (self.clock is None or time > self.clock):
            self.clock = time
            self._evict(sum(1 for r in self.rows if r[4] <= time - self.period))
        elif time is not None and (self.clock is None or time > self.clock):
            self.clock = time
        row = next((r for r in self.rows if r[0] == key), None)
        if row is None:
            if score is None:
                if self._evicted_lately(key, before):
                    self.dropped += 1
                else:
                    self.unmatched += 1
                    self.orphans.setdefault(key, self.events)   # the first
                return
            if key in self.orphans:     # its label came first
                self.early += 1
                self.lead = max(self.lead, self.events - self.orphans.pop(key))
            if self.window is not None and len(self.rows) >= self.window:
                self._evict(len(self.rows) - self.window + 1)
            self.rows.append([key, label, score, 1 if weight is None else weight, time])
            return
        if label is not None and row[1] is None:
            self.late += 1
        for i, v in ((1, label), (2, score), (3, weight)):
            if v is not None:
                row[i] = v

    def labeled(self):
        return [r for r in self.rows if r[1] is not None]


def check_against(m: Monitor, model: Model):
    m._check()
    got = [(k, y, s, w, t) for k, y, s, w, t in m.items()]
    want = [tuple(r) for r in model.rows]
    assert got == want
    lab = model.labeled()
    if lab:
        ws = [r[3] for r in lab]
        expect = pair_counts([r[1] for r in lab], [r[2] for r in lab],
                             sample_weight=None if all(w == 1 for w in ws) else ws)
    else:
        expect = None
    r = m.report()
    if expect is None:
        assert r.n == 0 and math.isnan(r.auc)
    else:
        assert r.counts == expect
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert r.auc == expect.auc or (math.isnan(r.auc) and math.isnan(expect.auc))
    assert r.pending == len(model.rows) - len(lab)
    assert (m.stats["dropped"], m.stats["unmatched"], m.stats["late"], m.stats["early"],
            m.stats["early_lead"]) == (model.dropped, model.unmatched, model.late,
                                       model.early, model.lead)
    assert (r.dropped, r.unmatched) == (model.dropped, model.unmatched)
    if model.ref is None:
        assert m.reference_counts is None
    else:
        ry, rs, rw = model.ref
        if ry:
            assert m.reference_counts == pair_counts(
                ry, rs, sample_weight=None if all(w == 1 for w in rw) else rw)
        else:
            assert m.reference_counts.n == 0


_SCORES = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, -1.0, 2.5])


def _ops(labels):
    key = st.integers(0, 14)
    label = st.sampled_from(labels)
    weight = st.sampled_from([None, None, None, 1, 2, 0.5, 0])
    dt = st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5])
    return st.lists(st.one_of(
        st.tuples(st.just("new"), key, _SCORES, st.one_of(st.none(), label), weight, dt),
        st.tuples(st.just("label"), key, label, dt),
        st.tuples(st.just("rescore"), key, _SCORES, dt),
        st.tuples(st.just("weight"), key, st.sampled_from([1, 3, 0.25]), dt),
        st.tuples(st.just("check")),
        st.tuples(st.just("roundtrip")),
    ), min_size=1, max_size=60)


def run_ops(m, model, ops):
    t = 0.0
    for op in ops:
        kind = op[0]
        if kind == "check":
            check_against(m, model)
            continue
        if kind == "roundtrip":
            data = m.to_bytes()
            m2 = Monitor.from_bytes(data)
            assert [r.counts for r in m2.history] == [r.counts for r in m.history]
            assert m2.stats == m.stats
            m = m2
            continue
        t += op[-1]
        time = t if (model.period is not None or op[1] % 2) else None
        kw = {}
        if kind == "new":
            kw = dict(score=op[2], label=op[3], weight=op[4])
        elif kind == "label":
            kw = dict(label=op[2])
        elif kind == "rescore":
            kw = dict(score=op[2])
        else:
            kw = dict(weight=op[2])
        m.observe(op[1], time=time, **kw)
        model.observe(op[1], time=time, **kw)
    check_against(m, model)
    return m


@settings(max_examples=60)
@given(st.integers(1, 7), st.sampled_from([(0, 1), (0, 1, 2), (-1.0, 3.5)]), _ops((0, 1)))
def test_count_window_equals_model_and_recount(window, labels, ops):
    m = Monitor(window=window, min_window=2, labels="auto")
    run_ops(m, Model(window=window), ops)


@settings(max_examples=60)
@given(st.sampled_from([1.0, 3.0, 6.0]), _ops((0, 1, 2)))
def test_period_window_equals_model_and_recount(period, ops):
    m = Monitor(period=period, min_window=2)
    run_ops(m, Model(period=period), ops)


@settings(max_examples=30)
@given(st.integers(2, 6), _ops((0, 1)))
def test_delong_and_detector_survive_round_trips(window, ops):
    m = Monitor(window=window, min_window=2, test="delong", detector="page-hinkley")
    run_ops(m, Model(window=window), ops)


# --------------------------------------------------------------------------- semantics
def test_late_label_rescore_and_drop_by_hand():
    m = Monitor(window=3, min_window=2)
    m.observe("a", score=0.9)                  # pending
    m.observe("b", score=0.1, label=0)
    assert (m.n, m.pending) == (1, 1)
    m.observe("a", label=1)                     # late label: counted now
    assert (m.n, m.pending, m.stats["late"]) == (2, 0, 1)
    assert m.counts.auc == 1.0
    m.observe("b", score=0.95)                  # re-score: one update
    assert m.counts.auc == 0.0 and m.stats["rescored"] == 1
    m.observe("c", score=0.5)
    m.observe("d", score=0.4)                   # "a" leaves the window
    assert "a" not in m and m.stats["evicted"] == 1
    m.observe("a", label=0)                     # its label is late: dropped
    assert m.stats["dropped"] == 1 and "a" not in m
    m.observe("c", label=1, weight=2)           # late label with a weight
    assert m.counts == pair_counts([0, 1], [0.95, 0.5], sample_weight=[1, 2])
    m.observe("a", score=0.3, label=1)          # an old id with a score: a new prediction
    assert "a" in m and m.stats["predictions"] == 5
    m._check()


def test_reference_is_the_first_window_as_labeled_before_it_slides():
    m = Monitor(window=4, min_window=2)
    for i, (s, y) in enumerate([(0.9, 1), (0.1, 0), (0.8, None), (0.2, 0)]):
        m.observe(i, score=s, label=y)
    m.observe(2, label=1)                       # late, before the first slide: in
    assert not m.reference_frozen
    m.observe(4, score=0.5, label=1)            # slides: the reference freezes first
    assert m.reference_counts == pair_counts([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2])
    m.observe(3, label=1)                       # changes after freezing: not in it
    assert m.reference_counts.n == 4 and m.report().reference_auc == 1.0


def test_reference_n_is_the_first_n_labeled_predictions():
    m = Monitor(window=100, reference=4, min_window=2)
    m.observe("p", score=0.7)
    for i in range(3):
        m.observe(i, score=0.1 * i, label=i % 2)
    m.observe(1, score=0.9)                     # re-score before freezing: follows
    assert not m.reference_frozen
    m.observe("p", label=0)                     # the 4th label freezes it
    assert m.reference_frozen
    assert m.reference_counts == pair_counts([0, 1, 0, 0], [0.0, 0.9, 0.2, 0.7])
    m.observe(1, score=0.0)                     # after: the reference does not move
    assert m.reference_counts == pair_counts([0, 1, 0, 0], [0.0, 0.9, 0.2, 0.7])


def _stream(n, seed, collapse_at=None, shift=1.2, p=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < p).astype(int)
    s = rng.normal(shift * y, 1.0)
    if collapse_at is not None:
        s[collapse_at:] = rng.normal(0.0, 1.0, n - collapse_at)
    return y, s


@pytest.mark.parametrize("test", ["hanley-mcneil", "delong"])
def test_alert_fires_after_a_collapse_and_not_before(test):
    y, s = _stream(6000, 1, collapse_at=4000)
    m = Monitor(window=1000, test=test, alpha=0.001)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 100 == 0:
            m.report()
    assert m.alerts, "no alert after the collapse"
    assert all(r.events > 4000 for r in m.alerts)
    assert m.alerts[0].events <= 4600   # the window is mostly collapsed by then
    assert m.history[-1].alert and m.history[-1].p_value < 1e-6
    assert all(0 <= r.p_value <= 1 for r in m.history if r.p_value == r.p_value)


def test_stationary_stream_raises_no_alert():
    y, s = _stream(8000, 2)
    m = Monitor(window=1000, alpha=0.001)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 250 == 0:
            m.report()
    assert not m.alerts
    assert sum(r.p_value == r.p_value for r in m.history) == 28  # tests after the freeze


def test_monitor_test_equals_the_drift_functions():
    y, s = _stream(700, 3)
    s = np.round(s, 1)
    for test in ("hanley-mcneil", "delong"):
        m = Monitor(window=300, test=test)
        for i in range(y.size):
            m.observe(i, score=s[i], label=y[i])
        r = m.report()
        cy, cs = y[-300:], s[-300:]
        ry, rs = y[:300], s[:300]
        if test == "delong":
            want = delong_test(cy, cs, ry, rs)
        else:
            want = hanley_mcneil_test(
                r.auc, cy.sum(), (1 - cy).sum(), reference_auc=r.reference_auc,
                reference_n_pos=ry.sum(), reference_n_neg=(1 - ry).sum())
        assert (r.z, r.p_value, r.se) == pytest.approx((want.z, want.p_value, want.se),
                                                        rel=1e-9)


@pytest.mark.parametrize("test", ["hanley-mcneil", "delong"])
@pytest.mark.parametrize("weights", [False, True])
def test_monitor_test_equals_the_written_out_variances(test, weights):
    """The report's reference se, se, z and p against the written-out formulas
    (`variance_oracle`: DeLong's variance over every positive-negative pair of the
    reference's and the window's rows, Hanley & McNeil's from their class weights), so
    that a wrong variance on either side cannot pass."""
    y, s = _stream(500, 3)
    s = np.round(s, 1)
    w = np.random.default_rng(5).integers(1, 4, y.size) if weights else np.ones(y.size)
    m = Monitor(window=200, test=test)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i], weight=int(w[i]))
    r = m.report()
    ref, cur = slice(0, 200), slice(-200, None)
    ref_auc, ref_var = vo.delong_variance(y[ref], s[ref], w[ref])
    auc, var = vo.delong_variance(y[cur], s[cur], w[cur])
    if test == "hanley-mcneil":
        ref_var = vo.hanley_mcneil_variance(ref_auc, w[ref][y[ref] == 1].sum(),
                                            w[ref][y[ref] == 0].sum())
        var = vo.hanley_mcneil_variance(auc, w[cur][y[cur] == 1].sum(),
                                        w[cur][y[cur] == 0].sum())
    assert (r.auc, r.reference_auc) == pytest.approx((auc, ref_auc), rel=1e-12)
    assert r.reference_se == pytest.approx(math.sqrt(ref_var), rel=1e-9)
    se, z, p = vo.drop_test(auc, var, ref_auc, ref_var)
    assert (r.se, r.z, r.p_value) == pytest.approx((se, z, p), rel=1e-9)
    assert 0.01 < r.p_value < 0.99         # a value the test can get wrong


def test_no_test_before_min_window_or_with_one_class():
    m = Monitor(window=10, min_window=5)
    for i in range(10):
        m.observe(i, score=i / 10, label=i % 2)
    m.observe(10, score=0.5, label=1)     # freezes the reference
    r = m.report()
    y, s = [i % 2 for i in range(10)] + [1], [i / 10 for i in range(10)] + [0.5]
    ref_auc, _ = vo.delong_variance(y[:10], s[:10])
    auc, _ = vo.delong_variance(y[1:], s[1:])
    want = vo.drop_test(auc, vo.hanley_mcneil_variance(auc, 6, 4), ref_auc,
                        vo.hanley_mcneil_variance(ref_auc, 5, 5))
    assert r.n == 10 and (r.se, r.z, r.p_value) == pytest.approx(want, rel=1e-9)
    m2 = Monitor(window=4, min_window=2)
    for i in range(8):
        m2.observe(i, score=i, label=int(i < 4))  # the second window: one class
    r = m2.report()
    assert math.isnan(r.auc) and math.isnan(r.p_value) and not r.alert


def test_non_binary_labels_report_concordance_and_its_test():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, 600)
    s = y + rng.normal(0, 1.5, 600)
    m = Monitor(window=200, detector="adwin")
    for i in range(600):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 50 == 0:
            m.report()
    r = m.history[-1]
    assert r.metric == "concordance"
    assert r.counts == pair_counts(y[-200:], s[-200:])
    assert r.auc == pytest.approx(pair_counts(y[-200:], s[-200:]).c_index)
    assert r.reference_auc == pytest.approx(pair_counts(y[:200], s[:200]).c_index)
    # the concordance test (tests/monitor/test_ordinal_test.py checks every report)
    c, var = concordance_variance(y[-200:], s[-200:])
    ref = concordance_variance(y[:200], s[:200])
    comp = auc_drop_test(c, var, *ref)
    assert (r.z, r.p_value, r.alert) == pytest.approx((comp.z, comp.p_value,
                                                       comp.p_value < m.alpha))


@pytest.mark.parametrize("name", ["adwin", "page-hinkley"])
def test_detector_fires_on_a_collapse(name):
    """Fed one placement value per labeled event: no drift before the collapse at event
    6000, one within 1,500 events after it; `Report.drift` is true at the first report
    after each detection, and ``stats["detections"]`` counts them. Deterministic: a
    seeded stream, and River's detectors use no randomness."""
    y, s = _stream(12000, 6, collapse_at=6000)
    m = Monitor(window=500, detector=name)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 50 == 0:
            m.report()
    drifts = [r.events for r in m.history if r.drift]
    assert drifts and 6000 < drifts[0] <= 7500, drifts
    assert m._series == []        # an exact state is kept instead of the series
    assert 1 <= m.stats["detections"] and len(drifts) <= m.stats["detections"]
    assert m.last_detection is not None and m.last_detection > 6000


def test_detector_instance_is_cloned_and_restored():
    from river import drift

    det = drift.ADWIN(delta=0.01)
    y, s = _stream(3000, 8, collapse_at=1500)
    m = Monitor(window=300, detector=det)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 25 == 0:
            m.report()
        if i == 2000:
            m2 = Monitor.from_bytes(m.to_bytes())
    assert det.n_detections == 0  # the monitor's own clone was fed
    for i in range(2001, y.size):
        m2.observe(i, score=s[i], label=y[i])
        if (i + 1) % 25 == 0:
            m2.report()
    assert [r.drift for r in m2.history] == [r.drift for r in m.history]
    assert [r.counts for r in m2.history] == [r.counts for r in m.history]


def test_weighted_counts_follow():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300), 1)
    w = rng.choice([0.5, 1.0, 2.0], 300)
    m = Monitor(window=120, min_window=2)
    for i in range(300):
        m.observe(i, score=s[i], label=y[i], weight=w[i])
    got = m.report().counts
    want = pair_counts(y[-120:], s[-120:], sample_weight=w[-120:])
    for f in ("concordant", "discordant", "tied_score", "tied_label", "tied_both"):
        assert getattr(got, f) == pytest.approx(getattr(want, f), rel=1e-12, abs=1e-9)


# --------------------------------------------------------------------------- errors
def _snapshot(m):
    return list(m.items()), dict(m.stats), m.counts, m.clock


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(score=math.nan), ValueError, "'score'.*finite"),
    (dict(score=0.5, label=math.inf), ValueError, "'label'.*finite"),
    (dict(score="0.5"), TypeError, "'score'"),
    (dict(score=0.5, weight=-1), ValueError, "'weight'"),
    (dict(), ValueError, "needs a score, a label or a weight"),
])
def test_bad_events_raise_before_changing_state(kwargs, exc, match):
    m = Monitor(window=3, min_window=2)
    for i in range(4):
        m.observe(i, score=i / 4, label=i % 2)
    before = _snapshot(m)
    with pytest.raises(exc, match=match):
        m.observe("new", **kwargs)
    assert _snapshot(m) == before


def test_period_errors_change_nothing():
    m = Monitor(period=10.0, min_window=2)
    m.observe(1, score=0.1, label=0, time=5.0)
    m.observe(2, score=0.2, label=1, time=8.0)
    before = _snapshot(m)
    with pytest.raises(ValueError, match="at least the clock 8.0"):
        m.observe(3, score=0.3, time=7.0)
    with pytest.raises(ValueError, match="'time'.*period window"):
        m.observe(3, score=0.3)
    assert _snapshot(m) == before
    m.observe(1, label=1, time=6.0)   # a label with an older time is fine
    assert m.clock == 8.0 and m.counts.n == 2


def test_binary_labels_reject_a_third_but_allow_it_once_one_has_left():
    m = Monitor(window=3, labels="binary", min_window=2)
    m.observe(0, score=0.1, label=0)
    m.observe(1, score=0.2, label=1)
    m.observe(2, score=0.3)
    before = _snapshot(m)
    with pytest.raises(ValueError, match="at most two labels"):
        m.observe(2, label=2)             # a third label while 0 and 1 are held
    assert _snapshot(m) == before
    m.observe(3, score=0.4, label=2)      # 0 leaves as this one arrives: allowed
    assert sorted({y for _, y, *_ in m.items() if y is not None}) == [1.0, 2.0]
    m._check()


@pytest.mark.parametrize("kwargs,match", [
    (dict(window=0), "'window'.*positive int"),
    (dict(window=10, period=5), "'window'.*not both"),
    (dict(period=-1), "'period'.*positive finite"),
    (dict(test="t"), "'test'.*hanley-mcneil"),
    (dict(alpha=1.5), "'alpha'"),
    (dict(detector="kswin"), "'detector'"),
    (dict(labels="binaryish"), "'labels'"),
    (dict(reference=1), "'reference'"),
    (dict(min_window=1), "'min_window'"),
])
def test_constructor_validation(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Monitor(**kwargs)


# --------------------------------------------------------------------------- persistence
def test_to_bytes_round_trip_and_pickle():
    y, s = _stream(2500, 10, collapse_at=2000)
    m = Monitor(window=500, detector="adwin", max_history=30)
    for i in range(y.size):
        if i % 3 == 0:
            m.observe(f"k{i}", score=s[i])               # pending, labeled later
        else:
            m.observe(f"k{i}", score=s[i], label=y[i], time=float(i))
        if i % 3 == 0 and i >= 9:
            m.observe(f"k{i - 9}", label=y[i - 9])
        if (i + 1) % 50 == 0:
            m.report()
    assert len(m.history) == 30
    copies = [Monitor.from_bytes(m.to_bytes()), pickle.loads(pickle.dumps(m))]
    before = ([r.as_dict() for r in m.history], [r.as_dict() for r in m.alerts],
              list(m.items()), dict(m.stats), m.clock, m.reference_counts, list(m._series))
    r1 = m.report()
    for m2 in copies:
        m2._check()
        after = ([r.as_dict() for r in m2.history], [r.as_dict() for r in m2.alerts],
                 list(m2.items()), dict(m2.stats), m2.clock, m2.reference_counts,
                 list(m2._series))
        assert repr(after) == repr(before)  # repr: nan == nan
        r2 = m2.report()
        assert (r1.counts, r1.z, r1.drift) == (r2.counts, r2.z, r2.drift)


def test_to_bytes_needs_int_or_str_keys():
    m = Monitor(window=5)
    m.observe(("a", 1), score=0.5)
    with pytest.raises(TypeError, match="all ints or all strings"):
        m.to_bytes()
    with pytest.raises(ValueError, match="not a streamrank snapshot"):
        Monitor.from_bytes(pickle.dumps(0)[:0] or b"PK\x05\x06" + bytes(18))


def test_pickles_of_mixed_keys_round_trip_and_the_one_module_layout_is_gone():
    """A monitor whose keys `to_bytes` refuses pickles its attributes and loads back; a
    pickle of the development layout where the monitor was one module (its classes named
    ``streamrank.monitor._Reference``, ...) fails in pickle, naming the class."""
    m = Monitor(window=3, min_window=2)
    for key, s, y in [(1, 0.9, 1), ("b", 0.2, 0), (3, 0.8, 1), ("d", 0.3, 0)]:
        m.observe(key, score=s, label=y)
        m.report()
    assert m.reference_frozen
    data = pickle.dumps(m, protocol=2)      # GLOBAL opcodes: "c<module>\n<name>\n"
    back = pickle.loads(data)
    back._check()
    assert repr((list(back.items()), back.history, back.reference_counts, back.stats)) == \
        repr((list(m.items()), m.history, m.reference_counts, m.stats))   # repr: nan == nan
    assert back.report().counts == m.report().counts
    assert b"cstreamrank.monitor._reference\n" in data
    old = data.replace(b"cstreamrank.monitor._reference\n", b"cstreamrank.monitor\n")
    with pytest.raises(AttributeError, match="_Reference"):
        pickle.loads(old)


def test_reference_n_keeps_evicted_predictions_when_their_id_comes_back():
    """``reference=N`` counts the first N labeled *predictions*, not ids: a prediction
    that left the window stays in it even when a new prediction reuses its id."""
    m = Monitor(window=2, reference=4, min_window=2)
    m.observe("a", score=0.9, label=1)
    m.observe("b", score=0.1, label=0)
    m.observe("c", score=0.8, label=1)          # "a" leaves the window
    m = Monitor.from_bytes(m.to_bytes())        # the store survives a round trip
    m.observe("a", score=0.2, label=0)          # a new prediction with an old id
    assert m.reference_frozen
    assert m.reference_counts == pair_counts([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2])
    m._check()


def test_max_history_keeps_the_last_reports():
    m = Monitor(window=4, min_window=2, max_history=3)
    for i in range(10):
        m.observe(i, score=i, label=i % 2)
        m.report()
    assert [r.events for r in m.history] == [8, 9, 10]
    assert m.stats["reports"] == 10
    m2 = Monitor.from_bytes(m.to_bytes())
    assert list(m2.history) == list(m.history) and m2.history.maxlen == 3


# --------------------------------------------------------------------------- reports, plot
def test_report_as_dict_and_history():
    m = Monitor(window=4, min_window=2)
    for i in range(6):
        m.observe(i, score=i, label=i % 2)
    r = m.report()
    assert isinstance(r, Report) and list(m.history) == [r]
    d = r.as_dict()
    assert d["events"] == 6 and d["n"] == 4 and d["concordant"] == r.counts.concordant
    assert set(d) >= {"auc", "reference_auc", "z", "p_value", "alert", "drift", "time"}


def test_plot_history_writes_a_png(tmp_path):
    import matplotlib.image as mpimg

    y, s = _stream(4000, 11, collapse_at=2500)
    m = Monitor(window=500, detector="adwin")
    xs, ys = [], []
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
        if (i + 1) % 50 == 0:
            r = m.report()
            xs.append(r.events)
            ys.append(r.auc + 0.01)
    out = tmp_path / "m.png"
    assert plot_history(m.history, out, extra={"shifted": (xs, ys)},
                        marks={"drift point": 2500}, title="t") == out
    data = out.read_bytes()
    assert data.startswith(PNG) and len(data) > 10_000
    img = mpimg.imread(out)
    assert img.shape[0] >= 400 and img.shape[1] >= 800
    # an empty history still draws
    plot_history([], tmp_path / "empty.png")
    assert (tmp_path / "empty.png").read_bytes().startswith(PNG)
