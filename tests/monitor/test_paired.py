"""`PairedMonitor`: champion against challenger.

The oracle of every report: each model's window AUC is `roc_auc_score` of that model's
window rows (`Monitor.items`), and the paired test is DeLong's paired test written out
over every positive-negative pair (`variance_oracle.paired_delong_test`) of the ids
labeled in both windows, recomputed here from the windows' contents, after random streams with
ties, late labels, challenger scores on their own rows, re-scores, evictions and
snapshot round trips (hypothesis, derandomized).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from streamrank.exceptions import SnapshotError
from streamrank.intervals import normal_cdf
from streamrank.monitor import ALERT_ON, Monitor, PairedMonitor, PairedReport

import variance_oracle as vo

ALTERNATIVE = {"worse": "less", "better": "greater", "both": "two-sided"}


def window_rows(mon):
    return {k: (y, s, w) for k, y, s, w, _ in mon.items() if y is not None}


def expected_test(pm, alert_on):
    """``(n, test)``: the written-out paired test (a dict of its fields) of the ids
    labeled in both windows (label, weight: the champion's), challenger against
    champion; None when the monitor runs no test."""
    a, b = window_rows(pm.champion), window_rows(pm.challenger)
    keys = [k for k in b if k in a]
    y = np.array([a[k][0] for k in keys])
    sa = np.array([a[k][1] for k in keys])
    sb = np.array([b[k][1] for k in keys])
    w = np.array([a[k][2] for k in keys], dtype=float)
    if len(keys) < pm.min_window or np.unique(y).size != 2:
        return len(keys), None
    return len(keys), vo.paired_delong_test(y, sb, sa, w, ALTERNATIVE[alert_on],
                                            pm.champion.level)


def same(got, want):
    return (got != got and want != want) or got == pytest.approx(want, rel=1e-9,
                                                                  abs=1e-12)


def check_report(pm, r, alert_on="both"):
    for mon, rep in ((pm.champion, r.champion), (pm.challenger, r.challenger)):
        rows = window_rows(mon)
        y = np.array([v[0] for v in rows.values()])
        if np.unique(y).size == 2:
            want = roc_auc_score(y, [v[1] for v in rows.values()],
                                 sample_weight=[v[2] for v in rows.values()])
            assert rep.auc == pytest.approx(want, rel=1e-12, abs=1e-15)
        else:
            assert math.isnan(rep.auc)
    n, t = expected_test(pm, alert_on)
    assert r.n == n
    if t is None:
        assert math.isnan(r.p_value) and math.isnan(r.difference) and not r.paired_alert
    else:
        # nan where DeLong's se is undefined; +-inf where it is 0
        for f in ("p_value", "difference", "se", "z", "low", "high"):
            assert same(getattr(r, f), t[f]), (f, getattr(r, f), t[f])
        assert r.paired_alert == (t["p_value"] < pm.alpha)
    assert r.alert == (r.paired_alert or r.champion.alert or r.challenger.alert)


# an event: (kind, id index, score level, challenger level, label)
EVENT = st.tuples(st.sampled_from(["both", "champion", "challenger", "label", "rescore_a",
                                   "rescore_b", "report"]),
                  st.integers(0, 40), st.integers(0, 5), st.integers(0, 5),
                  st.integers(0, 1))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(events=st.lists(EVENT, min_size=1, max_size=160),
       window=st.integers(4, 25), alert_on=st.sampled_from(ALERT_ON),
       with_label=st.booleans(), roundtrip=st.integers(0, 200))
def test_every_report_equals_delong_test_of_the_windows(events, window, alert_on,
                                                         with_label, roundtrip):
    pm = PairedMonitor(window=window, min_window=3, alert_on=alert_on, alpha=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (kind, k, s, c, y) in enumerate(events):
            key = f"k{k}"
            label = y if with_label and k % 3 else None
            if kind == "both":
                pm.observe(key, score=s / 5, challenger=c / 5, label=label)
            elif kind == "champion":
                pm.observe(key, score=s / 5)
            elif kind == "challenger":
                pm.observe(key, challenger=c / 5)
            elif kind == "label":
                pm.observe(key, label=y)
            elif kind == "rescore_a":
                pm.observe(key, score=(s + 0.5) / 5)
            elif kind == "rescore_b":
                pm.observe(key, challenger=(c + 0.5) / 5)
            else:
                check_report(pm, pm.report(), alert_on)
                pm._check()
            if i == roundtrip:
                pm = PairedMonitor.from_bytes(pm.to_bytes())
        check_report(pm, pm.report(), alert_on)
    pm._check()


@settings(derandomize=True, max_examples=25, deadline=None)
@given(n=st.integers(20, 120), noise=st.floats(0.2, 3.0), weights=st.booleans(),
       period=st.booleans())
def test_period_windows_and_weights(n, noise, weights, period):
    rng = np.random.default_rng(n)
    pm = PairedMonitor(period=15.0 if period else None, window=None if period else 30,
                       min_window=5, test="delong")
    for i in range(n):
        y = int(rng.random() < 0.4)
        w = int(rng.integers(1, 4)) if weights else None
        t = float(i) if period else None
        pm.observe(i, score=round(y + rng.normal(), 1),
                   challenger=round(y + noise * rng.normal(), 1), weight=w, time=t)
        if i >= 3:
            pm.observe(i - 3, label=int(rng.random() < 0.4), time=t)
        if i % 7 == 0:
            check_report(pm, pm.report())
    check_report(pm, pm.report())
    pm._check()


def _worse_stream(pm, n=400, seed=3):
    rng = np.random.default_rng(seed)
    for i in range(n):
        y = int(rng.random() < 0.5)
        pm.observe(i, score=y + 0.5 * rng.normal(), challenger=y + 3 * rng.normal(),
                   label=y)
    return pm.report()


def test_alert_on_semantics():
    r = {a: _worse_stream(PairedMonitor(window=200, alert_on=a)) for a in ALERT_ON}
    z = r["both"].z
    assert z < -3 and r["worse"].z == z == r["better"].z
    assert r["worse"].p_value == pytest.approx(normal_cdf(z), rel=1e-12)
    assert r["better"].p_value == pytest.approx(normal_cdf(-z), rel=1e-12)
    assert r["both"].p_value == pytest.approx(2 * normal_cdf(z), rel=1e-12)
    assert r["worse"].paired_alert and r["both"].paired_alert
    assert not r["better"].paired_alert
    assert (r["worse"].alternative, r["better"].alternative, r["both"].alternative) == (
        "less", "greater", "two-sided")
    # one-sided intervals, the bound that matches the test
    assert r["worse"].low == -1.0 and r["worse"].high < 0
    assert r["better"].high == 1.0
    # a better challenger: the mirror image
    rng = np.random.default_rng(5)
    pm = PairedMonitor(window=200, alert_on="better")
    for i in range(400):
        y = int(rng.random() < 0.5)
        pm.observe(i, score=y + 3 * rng.normal(), challenger=y + 0.5 * rng.normal(),
                   label=y)
    rb = pm.report()
    assert rb.paired_alert and rb.difference > 0
    assert pm.stats["paired_alerts"] == 1 and pm.stats["alerts"] >= 1
    assert list(pm.alerts) == [rb]


def test_identical_models_never_alert():
    pm = PairedMonitor(window=50, min_window=5)
    rng = np.random.default_rng(0)
    for i in range(100):
        s = float(rng.random())
        pm.observe(i, score=s, challenger=s, label=int(rng.random() < 0.5))
    r = pm.report()
    assert r.difference == 0 and r.z == 0 and r.p_value == 1.0 and not r.paired_alert


def test_a_snapshot_resumes_exactly():
    def feed(pm, lo, hi):
        rng = np.random.default_rng(lo)
        out = []
        for i in range(lo, hi):
            y = int(rng.random() < 0.5)
            pm.observe(i, score=round(y + rng.normal(), 1))
            pm.observe(i, challenger=round(y + 2 * rng.normal(), 1))
            if i >= 5:
                pm.observe(i - 5, label=int(rng.random() < 0.5))
            if i % 20 == 0:
                out.append(pm.report().as_dict())
        return out

    kw = dict(window=60, min_window=10, detector="adwin", max_history=5, alert_on="worse")
    one = PairedMonitor(**kw)
    want = feed(one, 0, 200) + feed(one, 200, 400)
    two = PairedMonitor(**kw)
    got = feed(two, 0, 200)
    two = PairedMonitor.from_bytes(two.to_bytes())
    two._check()
    got += feed(two, 200, 400)
    assert _same(got, want)
    assert two.stats == one.stats
    assert _same([r.as_dict() for r in two.history], [r.as_dict() for r in one.history])
    assert len(two.history) == 5
    assert [r.events for r in two.alerts] == [r.events for r in one.alerts]
    two._check()


def _same(a, b):
    return all(x.keys() == y.keys() and all(
        (isinstance(x[k], float) and math.isnan(x[k]) and math.isnan(y[k])) or x[k] == y[k]
        for k in x) for x, y in zip(a, b)) and len(a) == len(b)


def test_snapshot_errors():
    with pytest.raises(SnapshotError, match="not a PairedMonitor snapshot"):
        PairedMonitor.from_bytes(Monitor().to_bytes())
    with pytest.raises(SnapshotError):
        PairedMonitor.from_bytes(b"garbage")


def test_bad_events_change_nothing():
    pm = PairedMonitor(period=10.0, min_window=2)
    pm.observe("a", score=0.3, challenger=0.4, time=5.0)
    pm.observe("b", score=0.2, time=9.0)   # the champion's clock is 9, the challenger's 5
    before = pm.to_bytes()
    with pytest.raises(ValueError, match="'challenger' parameter of PairedMonitor.observe"):
        pm.observe("c", score=0.5, challenger=math.nan, time=9.0)
    with pytest.raises(ValueError, match="'score' parameter of PairedMonitor.observe"):
        pm.observe("c", score=math.inf, challenger=0.5, time=9.0)
    with pytest.raises(ValueError, match="needs a score, a challenger score"):
        pm.observe("c", time=9.0)
    # new to both, older than the champion's clock only: the champion refuses first
    with pytest.raises(ValueError, match="'time' parameter"):
        pm.observe("c", score=0.5, challenger=0.5, time=7.0)
    assert pm.to_bytes() == before
    # the challenger refuses (a new prediction older than its clock) after the champion
    # would have accepted it (a re-score of 'b'): nothing changes in either window
    pm.observe("d", challenger=0.1, time=9.5)
    before = pm.to_bytes()
    with pytest.raises(ValueError, match="'time' parameter"):
        pm.observe("b", score=0.9, challenger=0.9, time=8.0)
    assert pm.to_bytes() == before
    with pytest.raises(ValueError, match="alert_on"):
        PairedMonitor(alert_on="sideways")
    with pytest.raises(ValueError, match="'window' parameter of Monitor"):
        PairedMonitor(window=0)


def test_a_third_label_refused_by_both_changes_nothing():
    pm = PairedMonitor(window=10, labels="binary", min_window=2)
    for i, y in enumerate([0, 1, 0, 1]):
        pm.observe(i, score=i / 4, challenger=i / 5, label=y)
    before = pm.to_bytes()
    with pytest.raises(ValueError, match="at most two labels"):
        pm.observe(9, score=0.5, challenger=0.5, label=2)
    assert pm.to_bytes() == before
    pm._check()


def test_metrics_and_protocol():
    pm = PairedMonitor(window=50, min_window=5)
    d = pm.metrics()
    assert math.isnan(d["auc_difference"]) and d["paired_labeled"] == 0
    r = _worse_stream(pm, 100)
    d = pm.metrics()
    assert d["window_auc"] == r.champion.auc
    assert d["challenger_window_auc"] == r.challenger.auc
    assert (d["auc_difference"], d["paired_p_value"], d["paired_z"], d["paired_labeled"]) \
        == (r.difference, r.p_value, r.z, r.n)
    assert d["paired_alerts"] == pm.stats["paired_alerts"]
    assert d["events"] == pm.champion.stats["events"] == 100
    # the Monitor's reading surface
    for name in ("observe", "report", "metrics", "to_bytes", "from_bytes", "_check",
                 "stats", "history", "alerts"):
        assert hasattr(pm, name) and hasattr(Monitor(), name)
    assert pm.window == 50 and pm.alpha == 0.01 and pm.n == pm.champion.n
    assert isinstance(r, PairedReport) and set(r.as_dict()) >= set(
        r.champion.as_dict())
    assert pm.stats["events"] == 100 and pm.stats["predictions"] == 100


def test_a_third_label_the_champion_takes_and_the_challenger_refuses_is_undone():
    pm = PairedMonitor(window=3, labels="binary", min_window=2)
    pm.observe("a", score=0.1, challenger=0.2, label=0)
    pm.observe("b", score=0.9, challenger=0.8, label=1)
    pm.observe("x", score=0.7, label=1)     # the champion's only: {0, 1, 1} there
    before = pm.to_bytes()
    # the champion's new prediction evicts 'a' (label 0): {1, 1, 2} is fine there; the
    # challenger evicts nothing and still holds {0, 1}
    with pytest.raises(ValueError, match="at most two labels"):
        pm.observe("c", score=0.5, challenger=0.4, label=2)
    assert pm.to_bytes() == before
    pm._check()
    pm.observe("c", score=0.5, challenger=0.4, label=1)
    pm._check()


def test_pickle_and_copy_go_through_the_snapshot():
    import copy
    import pickle

    pm = PairedMonitor(window=20, min_window=3)
    _worse_stream(pm, 50)
    for other in (pickle.loads(pickle.dumps(pm)), copy.copy(pm), copy.deepcopy(pm)):
        assert other.to_bytes() == pm.to_bytes()
        other._check()
    odd = PairedMonitor(window=5)
    odd.observe((1, 2), score=0.5, challenger=0.4, label=1)     # a key to_bytes refuses
    with pytest.raises(TypeError, match="all ints or all strings"):
        odd.to_bytes()
    twin = pickle.loads(pickle.dumps(odd))
    assert (1, 2) in twin and twin.stats == odd.stats
    twin._check()


def test_labels_before_predictions_wait_in_both_windows():
    """With label_wait, a label shipped before its prediction joins it in both models'
    windows: the reports equal those of the ordered stream."""
    rng = np.random.default_rng(11)
    rows = [(i, float(rng.integers(0, 20)) / 20, float(rng.integers(0, 20)) / 20,
             int(rng.random() < 0.4)) for i in range(300)]
    ordered = PairedMonitor(window=100, min_window=10, label_wait=5)
    early = PairedMonitor(window=100, min_window=10, label_wait=5)
    for i, s, c, y in rows:
        ordered.observe(i, score=s, challenger=c)
        ordered.observe(i, label=y)
        early.observe(i, label=y)               # the label first ...
        early.observe(i, score=s, challenger=c)  # ... then its prediction
        early._check()
    a, b = ordered.report(), early.report()
    assert (a.champion.counts, a.challenger.counts) == (b.champion.counts, b.challenger.counts)
    assert a.p_value == b.p_value and a.difference == b.difference
    assert early.stats["joined"] == 300 and early.waiting == 0
    assert early.stats["dropped"] == early.stats["unmatched"] == 0
    again = PairedMonitor.from_bytes(early.to_bytes())
    assert again.label_wait == 5 and again.stats == early.stats


def test_detector_signal_reaches_both_models_and_their_snapshots():
    m = PairedMonitor(window=50, min_window=5, detector="adwin", detector_signal="window")
    for i in range(120):
        m.observe(i, score=(i % 7) / 7, challenger=(i % 5) / 5, label=i % 2)
    m.report()
    assert m.champion.detector_signal == m.challenger.detector_signal == "window"
    again = PairedMonitor.from_bytes(m.to_bytes())
    again._check()
    assert again.detector_signal == again.challenger.detector_signal == "window"
    assert again.metrics() == m.metrics()
    with pytest.raises(ValueError, match="detector_signal"):
        PairedMonitor(detector_signal="sliding")


def test_period_windows_that_hold_one_id_at_two_times_are_not_aligned():
    """The challenger's score first, the champion's later: the windows hold the same ids
    but evict them at different times, so a report must not take them as aligned."""
    m = PairedMonitor(period=3.0, min_window=2)
    m.observe("x", challenger=0.7, time=0.0)
    m.observe("x", score=0.9, time=2.5)
    m.report()
    m.observe("y", score=0.2, challenger=0.3, time=4.0)   # x leaves the challenger only
    m._check()
    m.observe("y", label=1, time=4.1)
    m.observe("x", label=0, time=4.2)
    r = m.report()
    m._check()
    assert [k for k, *_ in m.champion.items()] == ["x", "y"]
    assert [k for k, *_ in m.challenger.items()] == ["y"]
    assert r.n == 1                          # y alone is labeled in both windows


def test_advance_keeps_the_pairs_statistics():
    p = PairedMonitor(period=3.0, min_window=2)
    p.observe("a", score=0.5, challenger=0.4, label=1, time=0.0)
    p.advance(10.0)
    p._check()
    assert p.stats["evicted"] == p.champion.stats["evicted"] == 1


def test_an_unhashable_key_is_refused_by_name():
    with pytest.raises(TypeError, match="'key' parameter of PairedMonitor.observe"):
        PairedMonitor(window=4).observe([1], score=0.5, challenger=0.4)
