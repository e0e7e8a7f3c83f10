"""`Monitor(estimate=True)`: the calibration estimate of the window's AUC, which needs no
label, kept per event and read at each report.

The estimate counts each prediction of the window (labeled or pending) as a positive of
weight ``w p`` and a negative of weight ``w (1 - p)`` at its score ``p``: it equals
`sklearn.metrics.roc_auc_score` of the rows duplicated with those weights
(`estimated_auc`; of the labeled predictions only: `estimated_auc_labeled`). A state
machine checks both after random predictions, late labels, re-scores and evictions, by
`observe` and `observe_many`, with snapshot round trips; then what calibration promises:
on calibrated scores the realized AUC is centred on the estimate, and scores pushed
toward 1/2 (or toward 0 and 1) move the labeled estimate below (above) the realized AUC.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sklearn.metrics import roc_auc_score

from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor.table import table_of

pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")

NAN = math.nan
PROBS = st.sampled_from([0.0, 0.2, 0.5, 0.5, 0.8, 1.0]) | st.floats(0, 1)


def duplicated_auc(s, w) -> float:
    """scikit-learn's AUC of predictions (s, w) duplicated with weights w s, w (1 - s)."""
    s, w = np.asarray(s, float), np.asarray(w, float)
    y2, s2 = np.r_[np.ones(s.size), np.zeros(s.size)], np.r_[s, s]
    w2 = np.r_[w * s, w * (1 - s)]
    keep = w2 >= 2.0 ** -400
    if len(set(y2[keep])) < 2:
        return NAN
    return float(roc_auc_score(y2[keep], s2[keep], sample_weight=w2[keep]))


def same(a, b) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9


def check_estimates(m: Monitor, r) -> None:
    _, s, w = m.columns(labeled=False)
    y = m.columns(labeled=False)[0]
    assert same(r.estimated_auc, duplicated_auc(s, w)), (r.estimated_auc,
                                                         duplicated_auc(s, w))
    lab = ~np.isnan(y)
    assert same(r.estimated_auc_labeled, duplicated_auc(s[lab], w[lab]))


class Estimates(RuleBasedStateMachine):
    @initialize(window=st.integers(2, 8), many=st.booleans())
    def start(self, window, many):
        self.m = Monitor(window=window, min_window=2, estimate=True)
        self.many = many
        self.next_key = 0

    def _feed(self, key, **kw):
        if self.many:
            self.m.observe_many([key], **{k: [v] for k, v in kw.items()})
        else:
            self.m.observe(key, **kw)

    @rule(p=PROBS, labeled=st.booleans(), y=st.booleans())
    def predict(self, p, labeled, y):
        self._feed(self.next_key, score=p, **({"label": int(y)} if labeled else {}))
        self.next_key += 1

    @rule(data=st.data(), y=st.booleans())
    def late_label(self, data, y):
        pending = [k for k, _, yy, _, _ in self.m.items() if yy != yy]
        if pending:
            self._feed(data.draw(st.sampled_from(pending)), label=int(y))

    @rule(data=st.data(), p=PROBS, w=st.sampled_from([1, 2, 0.5]))
    def rescore(self, data, p, w):
        keys = [k for k, *_ in self.m.items()]
        if keys:
            self.m.observe(data.draw(st.sampled_from(keys)), score=p, weight=w)

    @rule()
    def report(self):
        check_estimates(self.m, self.m.report())

    @rule()
    def round_trip(self):
        before = self.m.report()
        self.m = Monitor.from_bytes(self.m.to_bytes())
        after = self.m.report()
        assert same(before.estimated_auc, after.estimated_auc)
        assert same(before.estimated_auc_labeled, after.estimated_auc_labeled)

    @invariant()
    def consistent(self):
        self.m._check()


TestEstimates = Estimates.TestCase
TestEstimates.settings = settings(max_examples=120, stateful_step_count=30, deadline=None)


def test_estimates_are_nan_without_estimate_and_in_every_output():
    m = Monitor(window=4, min_window=2)
    m.observe(1, score=0.9, label=1)
    r = m.report()
    assert math.isnan(r.estimated_auc) and math.isnan(r.estimated_auc_labeled)
    e = Monitor(window=4, min_window=2, estimate=True)
    for i, (p, y) in enumerate([(0.9, 1), (0.2, 0), (0.7, None), (0.4, None)]):
        e.observe(i, score=p, **({} if y is None else {"label": y}))
    r = e.report()
    assert r.estimated_auc == pytest.approx(duplicated_auc([0.9, 0.2, 0.7, 0.4], [1] * 4))
    assert r.estimated_auc_labeled == pytest.approx(duplicated_auc([0.9, 0.2], [1, 1]))
    row = r.as_dict()
    assert (row["estimated_auc"], row["estimated_auc_labeled"]) == (
        r.estimated_auc, r.estimated_auc_labeled)
    assert table_of(r).lines()[0]["estimated_auc"] == r.estimated_auc


@pytest.mark.parametrize("bad", [1.5, -0.1, 1 + 1e-12])
def test_a_score_that_is_not_a_probability_is_refused_and_changes_nothing(bad):
    m = Monitor(window=4, min_window=2, estimate=True)
    m.observe("a", score=0.4, label=1)
    before = m.to_bytes()
    with pytest.raises(ValueError, match=r"The 'score' parameter of Monitor.observe must "
                                         r"be a probability in \[0, 1\]"):
        m.observe("b", score=bad)
    with pytest.raises(ValueError, match="probability"):
        m.observe("a", score=bad)       # a re-score
    assert m.to_bytes() == before
    # a block: the events before the bad one apply (observe_many's rule), it does not
    with pytest.raises(ValueError, match="probability") as info:
        m.observe_many(["c", "d"], score=np.array([0.5, bad]))
    assert info.value.index == 1 and "c" in m and "d" not in m
    free = Monitor(window=4)                # without an estimate: any finite score
    free.observe("x", score=bad)
    assert "x" in free


def test_both_models_and_every_segment_keep_their_estimates():
    rng = np.random.default_rng(1)
    p, c = rng.random(200), rng.random(200)
    y = (rng.random(200) < p).astype(int)
    pm = PairedMonitor(window=50, min_window=5, estimate=True)
    sm = SegmentedMonitor(factory=lambda: Monitor(window=25, min_window=5, estimate=True))
    for i in range(200):
        pm.observe(i, score=float(p[i]), challenger=float(c[i]), label=int(y[i]))
        sm.observe(i, segment=i % 2, score=float(p[i]), label=int(y[i]))
    r = pm.report()
    for model, rep in ((pm.champion, r.champion), (pm.challenger, r.challenger)):
        _, s, w = model.columns(labeled=False)
        assert rep.estimated_auc == pytest.approx(duplicated_auc(s, w), abs=1e-9)
    line = table_of(r).lines()[0]
    assert line["challenger_estimated_auc"] == r.challenger.estimated_auc
    sr = sm.report()
    for seg, rep in zip(sr.segments, sr.reports):
        _, s, w = sm.unit(seg).columns(labeled=False)
        assert rep.estimated_auc == pytest.approx(duplicated_auc(s, w), abs=1e-9)
    back = PairedMonitor.from_bytes(pm.to_bytes()).report()
    assert back.challenger.estimated_auc == pytest.approx(r.challenger.estimated_auc)


def _calibrated_windows(n_windows, size, shrink, seed):
    """``(auc, estimated_auc_labeled)`` of windows of a model whose true probabilities
    are drawn from Beta(2, 2) and whose scores are ``0.5 + shrink (q - 0.5)`` (1:
    calibrated; < 1: pushed toward 1/2; > 1: toward 0 and 1, clipped)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_windows):
        q = rng.beta(2, 2, size)
        y = (rng.random(size) < q).astype(int)
        s = np.clip(0.5 + shrink * (q - 0.5), 0, 1)
        m = Monitor(window=size, min_window=2, estimate=True)
        m.observe_many(list(range(size)), score=s, label=y)
        r = m.report()
        out.append((r.auc, r.estimated_auc_labeled, r.estimated_auc))
    return np.array(out)


def test_calibrated_scores_centre_the_realized_auc_on_the_estimate():
    got = _calibrated_windows(500, 200, 1.0, seed=7)
    diff = got[:, 0] - got[:, 1]
    assert abs(diff.mean()) <= 2 * diff.std(ddof=1) / math.sqrt(diff.size), diff.mean()
    np.testing.assert_array_equal(got[:, 1], got[:, 2])   # every prediction labeled


@pytest.mark.parametrize("shrink, direction", [(0.4, -1), (1.8, 1)])
def test_miscalibrated_scores_move_the_labeled_estimate_as_documented(shrink, direction):
    got = _calibrated_windows(100, 200, shrink, seed=11)
    diff = got[:, 1] - got[:, 0]       # estimated minus realized
    assert np.sign(diff.mean()) == direction
    assert abs(diff.mean()) > 4 * diff.std(ddof=1) / math.sqrt(diff.size)
