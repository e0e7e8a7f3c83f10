"""`Monitor(score_drift=True)`: the window's predicted scores (labeled or not) against a
frozen reference of them, which needs no label.

The reference is the first full window of predictions (frozen just before the window
first slides) or, with ``score_reference=N``, the first ``N`` predictions (those evicted
before the N-th with their score when they left). Each report then has the score shift
(P(window score > reference score), ties 1/2, weighted: scikit-learn's AUC of the
reference as label 0 and the window as label 1), its DeLong standard error and
two-sided p-value, and the two-sample Kolmogorov-Smirnov statistic of the weighted
empirical distribution functions with its asymptotic p-value (``scipy.stats.ks_2samp``
with unit weights).

A state machine feeds random predictions, late labels, re-scores and reweights, stray
labels and blocks (`observe` and `observe_many`, whose compiled runs cross the freeze),
with snapshot round trips, weights (whole and fractional, zero) and heavy ties, and
checks after every step the reference it tracks on its own and every score field against
direct oracles. Then plain tests: the settings' errors, the alert, `observe_many` against
`observe`, pairs and segments, snapshots, and the test's power and false-alarm rate.
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from scipy.special import kolmogorov
from scipy.stats import ks_2samp, kstwo, norm
from sklearn.metrics import roc_auc_score

from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor.drift import delong_variance
from streamrank.monitor.table import table_of

pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")

NAN = math.nan
SCORE_FIELDS = ("score_shift", "score_shift_se", "score_shift_p", "ks", "ks_p",
                "score_alert")
# heavy ties (two small sets) and now and then any score
SCORES = (st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.9]) | st.sampled_from([0.2, 0.5])
          | st.floats(-5, 5, allow_nan=False, allow_infinity=False))
WEIGHTS = st.sampled_from([None, None, 1, 2, 3, 0.5, 1.5, 0.25, 0])


# ----------------------------------------------------------------------------- oracles
def same(a, b, tol=1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def pairs_oracle(ref_s, ref_w, win_s, win_w):
    """``(shift, variance)`` by the O(R W) pair matrix: the weighted share of (window,
    reference) pairs whose window score is higher, ties 1/2, and DeLong's variance from
    the placements (nan for a side of weight <= 1); ``(nan, nan)`` when a side holds no
    weight."""
    rs, rw = np.asarray(ref_s, float), np.asarray(ref_w, float)
    ws, ww = np.asarray(win_s, float), np.asarray(win_w, float)
    w0, w1 = rw.sum(), ww.sum()
    if not (w0 > 0 and w1 > 0):
        return NAN, NAN
    pair = (ws[:, None] > rs[None, :]) + 0.5 * (ws[:, None] == rs[None, :])
    shift = float((ww[:, None] * rw[None, :] * pair).sum() / (w1 * w0))
    if not (w1 > 1 and w0 > 1):
        return shift, NAN
    v10 = (pair * rw[None, :]).sum(axis=1) / w0       # each window row
    v01 = (pair * ww[:, None]).sum(axis=0) / w1       # each reference row
    s10 = float((ww * (v10 - shift) ** 2).sum() / (w1 - 1))
    s01 = float((rw * (v01 - shift) ** 2).sum() / (w0 - 1))
    return shift, s10 / w1 + s01 / w0


def sklearn_shift(ref_s, ref_w, win_s, win_w) -> float:
    """scikit-learn's weighted AUC of the reference (label 0) and the window (label 1);
    rows of zero weight left out; nan when a side holds no weight."""
    y = np.r_[np.zeros(len(ref_s)), np.ones(len(win_s))]
    s = np.r_[np.asarray(ref_s, float), np.asarray(win_s, float)]
    w = np.r_[np.asarray(ref_w, float), np.asarray(win_w, float)]
    keep = w > 0
    if len(set(y[keep])) < 2:
        return NAN
    return float(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]))


def ks_oracle(a_s, a_w, b_s, b_w) -> float:
    """The largest distance between the weighted ECDFs, at every point of either."""
    a_s, a_w = np.asarray(a_s, float), np.asarray(a_w, float)
    b_s, b_w = np.asarray(b_s, float), np.asarray(b_w, float)
    ta, tb = a_w.sum(), b_w.sum()
    if not (ta > 0 and tb > 0):
        return NAN
    return max(abs(a_w[a_s <= x].sum() / ta - b_w[b_s <= x].sum() / tb)
               for x in np.r_[a_s, b_s])


def ks_p_formula(d, a_w, b_w) -> float:
    """The documented asymptotic p-value at the rounded n1 n2 / (n1 + n2) of the weight
    sums (frequency weights): scipy's kstwo below 30, Kolmogorov's limit at
    (sqrt(n) + 0.12 + 0.11 / sqrt(n)) d from there (nan when n rounds to 0, as scipy's)."""
    n1, n2 = float(np.sum(a_w)), float(np.sum(b_w))
    if not (n1 > 0 and n2 > 0):
        return NAN
    en = np.round(n1 * n2 / (n1 + n2))
    if en < 1:
        return NAN
    if en < 30:
        return float(np.clip(kstwo.sf(d, en), 0, 1))
    root = math.sqrt(en)
    return float(np.clip(kolmogorov((root + 0.12 + 0.11 / root) * d), 0, 1))


def scipy_ks_tolerance(n1, n2) -> float:
    """How far the documented p-value may be from ``ks_2samp(method="asymp")``'s (the
    exact one-sample distribution at the same n): scipy's own below n = 30, then within
    0.018, 0.012 from n = 100 and 0.005 from 1000."""
    n = round(n1 * n2 / (n1 + n2))
    return 1e-12 if n < 30 else 0.018 if n < 100 else 0.012 if n < 1000 else 0.005


def check_shift(r, ref, win, alpha, min_window=2) -> None:
    """Every score field of report ``r`` against the oracles, for reference ``ref`` and
    window ``win`` (lists of ``(score, weight)``; ``ref`` None: not frozen); no test (nan
    p-values) while either holds fewer than ``min_window`` predictions."""
    if ref is None:
        assert all(math.isnan(getattr(r, f)) for f in SCORE_FIELDS[:-1]), r
        assert r.score_alert is False
        return
    rs, rw = (list(c) for c in zip(*ref)) if ref else ([], [])
    ws, ww = (list(c) for c in zip(*win)) if win else ([], [])
    want = sklearn_shift(rs, rw, ws, ww)
    shift, var = pairs_oracle(rs, rw, ws, ww)
    assert same(want, shift)                                # (the two oracles agree)
    assert same(r.score_shift, want), (r.score_shift, want)
    if math.isnan(want):                                    # a side without weight
        assert all(math.isnan(getattr(r, f)) for f in SCORE_FIELDS[:-1]), r
        assert r.score_alert is False
        return
    se = math.sqrt(var) if var == var else NAN
    assert same(r.score_shift_se, se), (r.score_shift_se, se)
    y = np.r_[np.zeros(len(rs)), np.ones(len(ws))]
    keep = np.r_[rw, ww] > 0
    _, dv = delong_variance(y[keep], np.r_[rs, ws][keep],
                            sample_weight=np.r_[rw, ww][keep])
    assert same(r.score_shift_se, math.sqrt(dv) if dv == dv else NAN)
    # the two-sided normal p-value of the monitor's own shift and se: 0 (1) when the
    # se is 0 and the shift is not (is) 1/2, as `auc_drop_test`'s z of a zero se
    got_se = r.score_shift_se
    if got_se > 0:
        p = float(2 * norm.sf(abs(r.score_shift - 0.5) / got_se))
    elif got_se == 0:
        p = 1.0 if r.score_shift == 0.5 else 0.0
    else:
        p = NAN
    tested = min(len(ws), len(rs)) >= min_window
    if not tested:
        p = NAN
    assert same(r.score_shift_p, p, 1e-12), (r.score_shift_p, p, r)
    assert r.score_alert is bool(p < alpha)
    d = ks_oracle(ws, ww, rs, rw)
    assert same(r.ks, d, 1e-12), (r.ks, d)
    assert same(r.ks_p, ks_p_formula(d, ww, rw) if tested else NAN)
    if tested and all(w == 1 for w in rw + ww):
        with warnings.catch_warnings():     # (scipy's n = 0 of one prediction a side)
            warnings.simplefilter("ignore", RuntimeWarning)
            res = ks_2samp(ws, rs, method="asymp")
        assert same(r.ks, float(res.statistic), 1e-12)
        assert same(r.ks_p, float(res.pvalue), scipy_ks_tolerance(len(ws), len(rs))), (
            r.ks_p, res.pvalue)


def score_fields(r) -> tuple:
    return tuple(getattr(r, f) for f in SCORE_FIELDS)


def same_fields(a, b) -> bool:
    return all(x == y or (x != x and y != y) for x, y in zip(a, b))


# ----------------------------------------------------------------------------- machine
class ScoreDrift(RuleBasedStateMachine):
    """A count window of ``window`` predictions, modelled here: ``win`` (key -> [label
    or None, score, weight], oldest first), the predictions made, those evicted before
    the scores' reference froze (``left``) and the reference expected (``ref``)."""

    @initialize(window=st.integers(2, 7), n=st.none() | st.integers(2, 12),
                many=st.booleans(), weighted=st.booleans(),
                reference=st.none() | st.just(3), wait=st.none() | st.just(3),
                labels=st.sampled_from(["auto", "binary"]))
    def start(self, window, n, many, weighted, reference, wait, labels):
        # (a label wait and binary labels keep the monitor off its per-event paths)
        self.m = Monitor(window=window, min_window=2, score_drift=True, score_reference=n,
                         reference=reference, label_wait=wait, labels=labels)
        self.window, self.n, self.many, self.weighted = window, n, many, weighted
        self.win: OrderedDict = OrderedDict()
        self.preds = 0
        self.left: list = []
        self.ref: list | None = None
        self.evicted: list = []
        self.next_key = 0

    # -- the model
    def _apply(self, key, score=None, label=None, weight=None):
        if key in self.win:
            e = self.win[key]
            if score is not None:
                e[1] = score
            if weight is not None:
                e[2] = weight
            if label is not None:
                e[0] = label
            return
        if score is None:       # a label or weight for an id not in the window
            return
        if len(self.win) >= self.window:
            if self.ref is None and self.n is None:     # the first full window
                self.ref = [(s, w) for _, s, w in self.win.values()]
            k, (_, s, w) = self.win.popitem(last=False)
            self.evicted.append(k)
            if self.ref is None:
                self.left.append((s, w))
        self.win[key] = [label, score, 1 if weight is None else weight]
        self.preds += 1
        if self.ref is None and self.n is not None and self.preds >= self.n:
            self.ref = self.left + [(s, w) for _, s, w in self.win.values()]
            self.left = []

    def _feed(self, key, **kw):
        kw = {k: v for k, v in kw.items() if v is not None}
        if self.many:
            self.m.observe_many([key], **{k: [v] for k, v in kw.items()})
        else:
            self.m.observe(key, **kw)
        self._apply(key, **kw)

    def _weight(self, w):
        return w if self.weighted else None

    # -- the rules
    @rule(s=SCORES, labeled=st.booleans(), y=st.booleans(), w=WEIGHTS)
    def predict(self, s, labeled, y, w):
        self._feed(self.next_key, score=s, label=int(y) if labeled else None,
                   weight=self._weight(w))
        self.next_key += 1

    @rule(data=st.data(), y=st.booleans())
    def late_label(self, data, y):
        pending = [k for k, e in self.win.items() if e[0] is None]
        if pending:
            self._feed(data.draw(st.sampled_from(pending)), label=int(y))

    @rule(data=st.data(), s=st.none() | SCORES, w=WEIGHTS)
    def rescore(self, data, s, w):
        w = self._weight(w)
        if self.win and (s is not None or w is not None):
            self._feed(data.draw(st.sampled_from(list(self.win))), score=s, weight=w)

    @rule(data=st.data(), y=st.booleans())
    def stray_label(self, data, y):
        """A label for an id that left the window (dropped) or that never came."""
        key = data.draw(st.sampled_from(self.evicted[-5:] + [-1 - self.next_key]))
        self._feed(key, label=int(y))

    @rule(data=st.data(), k=st.integers(1, 20), weights=st.booleans())
    def block(self, data, k, weights):
        """A block of new predictions and late labels through `observe_many` (float
        columns: compiled runs where the monitor is steady)."""
        keys, score, label, weight = [], [], [], []
        pending = [key for key, e in self.win.items() if e[0] is None]
        for _ in range(k):
            if pending and data.draw(st.booleans()):
                key = pending.pop(data.draw(st.integers(0, len(pending) - 1)))
                keys.append(key)
                score.append(NAN)
                label.append(float(data.draw(st.booleans())))
                weight.append(None)
            else:
                keys.append(self.next_key)
                self.next_key += 1
                score.append(data.draw(SCORES))
                label.append(data.draw(st.sampled_from([NAN, NAN, 0.0, 1.0])))
                weight.append(data.draw(WEIGHTS) if self.weighted and weights else None)
        columns = dict(score=np.array(score), label=np.array(label))
        if any(w is not None for w in weight):
            columns["weight"] = weight
        self.m.observe_many(keys, **columns)
        for key, s, y, w in zip(keys, score, label, weight):
            self._apply(key, score=None if s != s else s, label=None if y != y else y,
                        weight=w)

    @rule()
    def round_trip(self):
        before = self.m.report()
        self.m = Monitor.from_bytes(self.m.to_bytes())
        after = self.m.report()
        assert same_fields(score_fields(before), score_fields(after)), (before, after)

    # -- the checks, after every step
    @invariant()
    def consistent(self):
        m = self.m
        m._check()
        got = [(k, None if y is None else float(y), s, float(w))
               for k, y, s, w, _ in m.items()]
        assert got == [(k, None if y is None else float(y), s, float(w))
                       for k, (y, s, w) in self.win.items()]
        assert m.score_reference_frozen == (self.ref is not None)
        if self.ref is None:
            assert m._sref is None
            assert [(s, float(w)) for s, w in m._sref_left] == [
                (s, float(w)) for s, w in self.left]
        else:
            assert m._sref_left == []
            assert sorted(zip(m._sref.s.tolist(), m._sref.w.tolist())) == sorted(
                (float(s), float(w)) for s, w in self.ref)
            assert list(m._sref.s) == sorted(m._sref.s)
        check_shift(m.report(), self.ref, [(s, w) for _, s, w in self.win.values()],
                    m.alpha)


TestScoreDrift = ScoreDrift.TestCase
TestScoreDrift.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


# ----------------------------------------------------------------------------- settings
@pytest.mark.parametrize("cls", [Monitor, PairedMonitor])
def test_settings_errors_name_the_parameter(cls):
    with pytest.raises(ValueError, match="'score_reference'.*without score_drift=True"):
        cls(score_reference=50)
    with pytest.raises(ValueError, match="'score_alert'.*without score_drift=True"):
        cls(score_alert=True)
    for bad in (1, "yes", None):
        with pytest.raises(TypeError, match="'score_drift'.*True or False"):
            cls(score_drift=bad)
    with pytest.raises(TypeError, match="'score_alert'.*True or False"):
        cls(score_drift=True, score_alert=1)
    for bad in (1, 0, -3, 2.5):
        with pytest.raises(ValueError, match="'score_reference'"):
            cls(score_drift=True, score_reference=bad)
    m = cls(score_drift=True, score_reference=2, score_alert=True)
    unit = m.champion if cls is PairedMonitor else m
    assert (unit.score_drift, unit.score_reference, unit.score_alert) == (True, 2, True)
    with pytest.raises(ValueError, match="'score_alert'"):
        SegmentedMonitor(window=10, score_alert=True)


def test_without_score_drift_every_field_is_nan_and_in_every_output():
    m = Monitor(window=4, min_window=2)
    for i in range(10):
        m.observe(i, score=i / 10, label=i % 2)
    r = m.report()
    assert all(math.isnan(getattr(r, f)) for f in SCORE_FIELDS[:-1])
    assert r.score_alert is False and not m.score_reference_frozen
    d = Monitor(window=4, min_window=2, score_drift=True)
    for i in range(4):
        d.observe(i, score=i / 10)
    r = d.report()              # a full window, not slid yet: no reference
    assert math.isnan(r.score_shift) and not d.score_reference_frozen
    d.observe(4, score=0.9)
    r = d.report()
    assert d.score_reference_frozen
    check_shift(r, [(i / 10, 1) for i in range(4)], [(i / 10, 1) for i in (1, 2, 3)]
                + [(0.9, 1)], d.alpha)
    row = r.as_dict()
    line = table_of(r).lines()[0]
    for f in SCORE_FIELDS:
        assert row[f] == getattr(r, f) == line[f]


def test_a_period_window_freezes_its_content_before_its_first_eviction():
    m = Monitor(period=10, min_window=2, score_drift=True)
    for t in range(10):
        m.observe(t, score=float(t % 3), time=float(t))
    assert not m.score_reference_frozen
    m.observe(10, score=5.0, time=12.0)     # evicts times 0, 1 and 2
    assert sorted(m._sref.s.tolist()) == sorted(float(t % 3) for t in range(10))
    r = m.report()
    check_shift(r, [(float(t % 3), 1) for t in range(10)],
                [(float(t % 3), 1) for t in range(3, 10)] + [(5.0, 1)], m.alpha)
    m.advance(100.0)                        # the window empties: nothing to compare
    r = m.report()
    assert math.isnan(r.score_shift) and math.isnan(r.ks) and r.score_alert is False


@pytest.mark.parametrize("seed", range(24))
def test_period_windows_against_a_model(seed):
    """Time windows (``period``): evictions by new predictions, re-scores and `advance`,
    the first full window (the window just before its first eviction: one prediction or
    more) or the first N; a label wait; snapshot round trips."""
    rnd = np.random.default_rng(seed)
    period = float(rnd.choice([3.0, 5.0, 8.0]))
    n = [None, 2, 4, 9, 15][seed % 5]
    m = Monitor(period=period, min_window=2, score_drift=True, score_reference=n,
                label_wait=None if seed % 3 else 2)
    t, key, preds = 0.0, 0, 0
    win: list = []                  # [key, time, score, weight], oldest first
    left: list = []
    ref = None
    for step in range(50):
        t += float(rnd.choice([0, 0.5, 1, 2, 4]))
        kind = rnd.random()
        target = win[int(rnd.integers(len(win)))] if win and 0.7 <= kind < 0.85 else None
        if target is not None and target[1] <= t - period:
            continue                # (its prediction would leave first: a new one)
        gone = [e for e in win if e[1] <= t - period]
        if gone:                    # the event's clock evicts first
            if ref is None and n is None:
                ref = [(e[2], e[3]) for e in win]
            if ref is None:
                left += [(e[2], e[3]) for e in gone]
            win = win[len(gone):]
        if kind < 0.7:
            s = float(rnd.choice([0.1, 0.2, 0.5, rnd.random()]))
            w = [1, 1, 2, 0.5][int(rnd.integers(4))]
            y = [None, 0, 1][int(rnd.integers(3))]
            m.observe(key, score=s, weight=w, time=t, label=y)
            win.append([key, t, s, w])
            key += 1
            preds += 1
            if ref is None and n is not None and preds >= n:
                ref, left = left + [(e[2], e[3]) for e in win], []
        elif target is not None:
            target[2] = float(rnd.choice([0.3, 0.9]))
            m.observe(target[0], score=target[2], time=t)
        else:
            m.advance(t)
        m._check()
        assert m.score_reference_frozen == (ref is not None)
        check_shift(m.report(), ref, [(e[2], e[3]) for e in win], m.alpha)
        if step % 13 == 0:
            m = Monitor.from_bytes(m.to_bytes())
    assert ref is not None


def test_one_prediction_a_side_has_no_ks_p_value():
    """A window and a reference of one prediction each: the statistic, and no
    asymptotic p-value (scipy's is nan; Smirnov's at n = 1 would say 0)."""
    m = Monitor(window=1, score_drift=True)
    m.observe(1, score=0.2)
    m.observe(2, score=0.7)
    r = m.report()
    assert (r.score_shift, r.ks) == (1.0, 1.0)
    assert math.isnan(r.ks_p) and math.isnan(r.score_shift_se)
    assert math.isnan(r.score_shift_p) and not r.score_alert
    with pytest.warns(RuntimeWarning):
        assert math.isnan(ks_2samp([0.7], [0.2], method="asymp").pvalue)
    m.observe(3, score=0.2)
    assert m.report().ks == 0.0 and math.isnan(m.report().ks_p)


# ----------------------------------------------------------------------------- alert
def _shifted(m, n_ref, n_new, shift, seed=0):
    rng = np.random.default_rng(seed)
    m.observe_many(list(range(n_ref)), score=rng.normal(0, 1, n_ref))
    m.observe_many(list(range(n_ref, n_ref + n_new)), score=rng.normal(shift, 1, n_new))
    return m.report()


@pytest.mark.parametrize("cls", [Monitor, PairedMonitor])
def test_score_alert_makes_the_report_alert_only_when_asked(cls):
    def make(alert):
        return cls(window=100, score_drift=True, score_alert=alert)

    def feed(m, shift):
        rng = np.random.default_rng(5)
        for i in range(200):        # no labels: the AUC's test never runs
            s = float(rng.normal(shift if i >= 100 else 0.0, 1))
            if cls is PairedMonitor:
                m.observe(i, score=s, challenger=float(rng.normal(0, 1)))
            else:
                m.observe(i, score=s)
        r = m.report()
        return r, (r.champion if cls is PairedMonitor else r)

    for alert in (False, True):
        m = make(alert)
        r, own = feed(m, 1.0)
        assert own.score_shift_p < 1e-6 and own.score_alert is True
        assert own.score_shift > 0.7 and own.ks_p < 1e-6
        assert math.isnan(own.p_value)             # no AUC test ran
        assert r.alert is alert and own.alert is alert
        assert (len(m.alerts) == 1) is alert
        quiet = make(alert)
        r, own = feed(quiet, 0.0)
        assert own.score_shift_p >= quiet.champion.alpha if cls is PairedMonitor \
            else own.score_shift_p >= quiet.alpha
        assert own.score_alert is False and r.alert is False and not quiet.alerts


@pytest.mark.parametrize("new", [[0.9] * 50, list(np.linspace(0.6, 1.0, 50))],
                         ids=["constant", "spread"])
def test_scores_all_above_the_reference_alert(new):
    """Every window score above every reference score: the largest shift there is
    (shift 1, DeLong's se 0) alerts (p 0, as `auc_drop_test`'s z of a zero se), as the
    Kolmogorov-Smirnov test does; the same constant scores on both sides: p 1."""
    m = Monitor(window=50, score_drift=True, score_alert=True)
    m.observe_many(list(range(50)), score=np.full(50, 0.5) if new[0] == 0.9
                   else np.linspace(0.0, 0.5, 50))
    m.observe_many(list(range(50, 100)), score=np.array(new))
    r = m.report()
    assert r.score_shift == 1.0 and r.score_shift_se == 0.0 and r.ks == 1.0
    assert r.ks_p < 1e-10
    assert r.score_shift_p == 0.0 and r.score_alert and r.alert
    still = Monitor(window=50, score_drift=True, score_alert=True)
    still.observe_many(list(range(100)), score=np.full(100, 0.5))
    r = still.report()
    assert (r.score_shift, r.score_shift_se, r.score_shift_p) == (0.5, 0.0, 1.0)
    assert r.ks == 0.0 and r.ks_p == 1.0 and not r.score_alert and not r.alert


# ----------------------------------------------------------------------------- runs
def _stream(n, seed, late_every=3):
    """Keys, scores (NaN: a label event), labels (NaN: none): predictions with a label or
    none, their late labels a few events later, scores from a small set (ties)."""
    rng = np.random.default_rng(seed)
    keys, score, label, pending = [], [], [], []
    for i in range(n):
        if pending and i % late_every == 0:
            keys.append(pending.pop(0))
            score.append(NAN)
            label.append(float(rng.random() < 0.5))
        else:
            keys.append(i)
            score.append(float(rng.choice([0.1, 0.3, 0.5, 0.7])) if i % 2
                         else float(rng.random()))
            if rng.random() < 0.4:
                label.append(float(rng.random() < 0.5))
            else:
                label.append(NAN)
                pending.append(i)
    return keys, np.array(score), np.array(label)


@pytest.mark.parametrize("n_ref", [None, 7, 45])
@pytest.mark.parametrize("reference", [None, 10])
def test_observe_many_reports_equal_observe_one_by_one(n_ref, reference):
    keys, score, label = _stream(400, seed=3)
    one = Monitor(window=20, min_window=2, score_drift=True, score_reference=n_ref,
                  reference=reference)
    many = Monitor(window=20, min_window=2, score_drift=True, score_reference=n_ref,
                   reference=reference)
    rng = np.random.default_rng(4)
    i, reports = 0, 0
    froze_inside = False
    while i < len(keys):
        j = min(len(keys), i + int(rng.integers(1, 60)))
        was = many.score_reference_frozen
        many.observe_many(keys[i:j], score=score[i:j], label=label[i:j])
        froze_inside |= not was and many.score_reference_frozen and j - i > 1
        for k in range(i, j):
            one.observe(keys[k], score=None if score[k] != score[k] else float(score[k]),
                        label=None if label[k] != label[k] else float(label[k]))
        a, b = one.report(), many.report()
        assert same_fields(score_fields(a), score_fields(b)), (a, b)
        ra, rb = a.as_dict(), b.as_dict()
        assert all(ra[f] == rb[f] or (ra[f] != ra[f] and rb[f] != rb[f]) for f in ra)
        assert one.stats == many.stats
        reports += not math.isnan(b.score_shift)
        i = j
    assert froze_inside and reports > 5
    many._check()
    assert sorted(one._sref.s.tolist()) == sorted(many._sref.s.tolist())
    assert len(many._sref) == (20 if n_ref is None else n_ref)


@st.composite
def wrapper_streams(draw):
    """A stream of new predictions (a score from a small set; the challenger's score, or
    none now and then; a segment of three; a label or none) and late labels, cut into
    blocks."""
    n = draw(st.integers(5, 120))
    keys, score, chal, label, seg, pending = [], [], [], [], [], []
    for i in range(n):
        if pending and draw(st.integers(0, 3)) == 0:
            k = pending.pop(draw(st.integers(0, len(pending) - 1)))
            keys.append(k)
            score.append(NAN)
            chal.append(NAN)
            label.append(float(draw(st.booleans())))
            seg.append(None)
        else:
            keys.append(i)
            score.append(draw(st.sampled_from([0.1, 0.3, 0.5, 0.8])))
            chal.append(draw(st.sampled_from([NAN, 0.2, 0.4, 0.6, 0.6, 0.9])))
            y = draw(st.sampled_from([NAN, NAN, 0.0, 1.0]))
            label.append(y)
            seg.append(draw(st.sampled_from("abc")))
            if y != y:
                pending.append(i)
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=6))))
    return keys, np.array(score), np.array(chal), np.array(label), seg, [0, *cuts, n]


@settings(max_examples=40, deadline=None)
@given(stream=wrapper_streams(), window=st.integers(2, 9),
       n_ref=st.none() | st.integers(2, 25))
def test_pairs_and_segments_by_blocks_equal_monitors_fed_one_by_one(stream, window,
                                                                    n_ref):
    """A `PairedMonitor` and a `SegmentedMonitor` fed blocks (their compiled runs, the
    freeze inside a block) report each model's and segment's score fields as a
    `Monitor` fed only its own events one by one."""
    keys, score, chal, label, seg, cuts = stream
    opts = dict(window=window, min_window=2, score_drift=True, score_reference=n_ref)
    pm, sm = PairedMonitor(**opts), SegmentedMonitor(**opts)
    alone = {"champion": Monitor(**opts), "challenger": Monitor(**opts)}
    units: dict = {}
    where: dict = {}

    def one(m, k, s, y):
        if s == s or y == y:
            m.observe(k, score=None if s != s else float(s),
                      label=None if y != y else float(y))

    for a, b in zip(cuts, cuts[1:]):
        pm.observe_many(keys[a:b], score=score[a:b], challenger=chal[a:b],
                        label=label[a:b])
        sm.observe_many(keys[a:b], segment=seg[a:b], score=score[a:b], label=label[a:b])
        for i in range(a, b):
            k, y = keys[i], label[i]
            one(alone["champion"], k, score[i], y)
            if chal[i] == chal[i] or k in alone["challenger"]:
                one(alone["challenger"], k, chal[i], y)
            if seg[i] is not None:
                where[k] = seg[i]
            unit = units.setdefault(where[k], Monitor(**opts))
            one(unit, k, score[i], y)
        r = pm.report()
        for name in ("champion", "challenger"):
            want = alone[name].report()
            assert same_fields(score_fields(getattr(r, name)), score_fields(want)), name
        sr = sm.report()
        assert set(sr.segments) == set(units)
        for name, got in zip(sr.segments, sr.reports):
            assert same_fields(score_fields(got), score_fields(units[name].report()))
    pm._check()
    sm._check()


# ----------------------------------------------------------------------------- shapes
def test_both_models_and_every_segment_keep_their_score_shift():
    rng = np.random.default_rng(1)
    n = 240
    p, c = rng.random(n), rng.random(n)
    p[120:] = np.sqrt(p[120:])          # the champion's scores move up
    y = (rng.random(n) < 0.5).astype(int)
    pm = PairedMonitor(window=60, min_window=5, score_drift=True, score_reference=80)
    sm = SegmentedMonitor(window=30, min_window=5, score_drift=True)
    for i in range(n):
        pm.observe(i, score=float(p[i]), challenger=float(c[i]), label=int(y[i]))
        sm.observe(i, segment=i % 2, score=float(p[i]), label=int(y[i]))
    r = pm.report()
    for model, rep in ((pm.champion, r.champion), (pm.challenger, r.challenger)):
        _, s, w = model.columns(labeled=False)
        assert len(model._sref) == 80
        check_shift(rep, list(zip(model._sref.s, model._sref.w)), list(zip(s, w)),
                    model.alpha, model.min_window)
    assert r.champion.score_shift > 0.6 and r.champion.score_shift_p < 0.01
    np.testing.assert_allclose(sorted(pm.challenger._sref.s), sorted(c[:80]))
    np.testing.assert_allclose(sorted(pm.champion._sref.s), sorted(p[:80]))
    line = table_of(r).lines()[0]
    for f in SCORE_FIELDS:
        assert line[f] == getattr(r.champion, f)
        assert line["challenger_" + f] == getattr(r.challenger, f)
    back = PairedMonitor.from_bytes(pm.to_bytes()).report()
    assert same_fields(score_fields(back.challenger), score_fields(r.challenger))
    assert same_fields(score_fields(back.champion), score_fields(r.champion))
    sr = sm.report()
    assert sm.score_drift and len(sr.segments) == 2
    lines = table_of(sr).lines()
    for seg, rep in zip(sr.segments, sr.reports):
        unit = sm.unit(seg)
        _, s, w = unit.columns(labeled=False)
        check_shift(rep, list(zip(unit._sref.s, unit._sref.w)), list(zip(s, w)),
                    unit.alpha, unit.min_window)
        np.testing.assert_allclose(sorted(unit._sref.s), sorted(p[:60][seg::2]))
        row = next(ln for ln in lines if ln["segment"] == seg)
        for f in SCORE_FIELDS:
            assert row[f] == getattr(rep, f) or (row[f] != row[f] and
                                                 getattr(rep, f) != getattr(rep, f))
    back = SegmentedMonitor.from_bytes(sm.to_bytes()).report()
    for a, b in zip(back.reports, sr.reports):
        assert same_fields(score_fields(a), score_fields(b))


@pytest.mark.parametrize("alert", [True, False])
def test_a_segmented_monitor_alerts_on_a_segments_score_shift(alert):
    """With ``score_alert`` a segment whose score shift is significant after the
    correction across segments alerts (and the report does); without it, none."""
    sm = SegmentedMonitor(window=50, min_window=5, score_drift=True, score_alert=alert)
    rng = np.random.default_rng(2)
    for i in range(300):
        shifted = i >= 150 and i % 2 == 0
        sm.observe(i, segment=i % 2, score=float(rng.normal(2.0 if shifted else 0.0, 1)))
    sr = sm.report()
    own = dict(zip(sr.segments, sr.reports))
    assert own[0].score_alert and not own[1].score_alert
    assert own[0].alert is alert and not own[1].alert
    assert own[0].score_shift_p * 2 < sm.alpha          # (below alpha after Holm too)
    assert sr.segments == (0, 1) and sr.alerts == (alert, False)
    assert sr.alert is alert and len(sm.alerts) == int(alert)


# ----------------------------------------------------------------------------- snapshots
@pytest.mark.parametrize("n_ref, cut", [(None, 15), (None, 60), (50, 35), (50, 49),
                                        (12, 8), (12, 90)],
                         ids=["before-freeze", "after-freeze", "partial-evicted",
                              "one-short", "partial-in-window", "frozen-n"])
def test_a_snapshot_gives_equal_later_reports(n_ref, cut):
    rng = np.random.default_rng(9)
    w = rng.choice([1, 2, 0.5], 200).tolist()
    s = np.round(rng.random(200), 1).tolist()
    m = Monitor(window=20, min_window=2, score_drift=True, score_reference=n_ref)
    for i in range(cut):
        m.observe(i, score=s[i], weight=w[i], label=i % 2 if i % 3 else None)
    frozen, left = m.score_reference_frozen, list(m._sref_left)
    if n_ref == 50 and cut < 50:
        assert not frozen and len(left) == cut - 20
    back = Monitor.from_bytes(m.to_bytes())
    assert back.score_reference_frozen == frozen
    assert [(a, float(b)) for a, b in back._sref_left] == [(a, float(b)) for a, b in left]
    if frozen:
        assert back._sref.s.tolist() == m._sref.s.tolist()
        assert back._sref.w.tolist() == m._sref.w.tolist()
    back._check()
    for i in range(cut, 200):
        for mon in (m, back):
            mon.observe(i, score=s[i], weight=w[i], label=i % 2 if i % 3 else None)
        if i % 7 == 0:
            a, b = m.report(), back.report()
            assert same_fields(score_fields(a), score_fields(b)), (i, a, b)
    assert m.score_reference_frozen and back.score_reference_frozen
    assert not math.isnan(b.score_shift)
    assert back._sref.s.tolist() == m._sref.s.tolist()


# ----------------------------------------------------------------------------- the test
def test_a_shift_is_detected_and_no_shift_alarms_at_about_alpha():
    rng = np.random.default_rng(2026)
    size, runs, alpha = 80, 200, 0.05
    alarms = ks_alarms = 0
    ps = []
    for _ in range(runs):
        m = Monitor(window=size, score_drift=True, alpha=alpha)
        m.observe_many(list(range(2 * size)), score=rng.normal(0, 1, 2 * size))
        r = m.report()      # the window holds none of the reference's predictions
        alarms += r.score_alert
        ks_alarms += r.ks_p < alpha
        ps.append(r.score_shift_p)
    # Binomial(200, 0.05): mean 10, sd 3.1
    assert 2 <= alarms <= 21, alarms
    assert ks_alarms <= 21, ks_alarms          # (the asymptotic KS p is conservative)
    assert 0.4 <= float(np.mean(ps)) <= 0.6
    assert 0.15 <= float(np.mean(np.array(ps) < 0.25)) <= 0.35
    for shift, kind in ((0.6, "location"), (0.0, "scale")):
        m = Monitor(window=300, score_drift=True)
        rng = np.random.default_rng(1)
        m.observe_many(list(range(300)), score=rng.normal(0, 1, 300))
        m.observe_many(list(range(300, 600)),
                       score=rng.normal(shift, 1 if kind == "location" else 3, 300))
        r = m.report()
        if kind == "location":      # both tests see it
            assert r.score_shift > 0.6 and r.score_shift_p < 1e-5 and r.ks_p < 1e-5
        else:                       # the same median: only Kolmogorov-Smirnov
            assert abs(r.score_shift - 0.5) < 0.05 and r.ks_p < 1e-5


# ----------------------------------------------------------------------------- edges
def test_an_emptied_window_reads_nan_whatever_rounding_its_bins_keep():
    """Fractional weights leave rounding in the bins once their rows left: the window's
    row count (exact) says it is empty."""
    m = Monitor(period=10, score_drift=True)
    m.observe("r0", score=0.1, time=0.0)
    m.observe("r1", score=0.9, time=0.5)
    for i, w in enumerate([0.282, 0.756, 0.618, 0.251, 0.91, 0.983]):
        m.observe(i, score=0.5, weight=w, time=11.0 + i / 100)
    assert m.report().score_shift == 0.5
    m.advance(40.0)
    r = m.report()
    assert len(m) == 0 and all(math.isnan(getattr(r, f)) for f in SCORE_FIELDS[:-1])
    m._check()


def test_weights_are_frequencies_in_both_tests():
    """A weight k counts as k copies in the shift's standard error and in the KS p-value
    alike: weights 3 read as each score three times."""
    rng = np.random.default_rng(4)
    ref, win = rng.normal(0, 1, 200), rng.normal(0.1, 1, 150)
    got = []
    for k in (1, 3):
        m = Monitor(window=150, score_drift=True, score_reference=200)
        for i, s in enumerate(np.r_[ref, win]):
            m.observe(i, score=float(s), weight=k)
        got.append(m.report())
    tripled = ks_2samp(np.repeat(win, 3), np.repeat(ref, 3), method="asymp")
    assert got[1].ks == pytest.approx(got[0].ks, abs=1e-12)
    assert got[1].ks == pytest.approx(tripled.statistic, abs=1e-12)
    assert got[1].ks_p == pytest.approx(tripled.pvalue, abs=0.005) and got[1].ks_p < got[0].ks_p
    y = np.r_[np.zeros(200), np.ones(150)]
    se3 = math.sqrt(delong_variance(y, np.r_[ref, win], sample_weight=np.full(350, 3.0))[1])
    assert got[1].score_shift_se == pytest.approx(se3, rel=1e-9)


def test_no_score_test_below_min_window_predictions():
    """As the AUC's test: a window or a reference of fewer than ``min_window``
    predictions gives no score p-value and no score alert (four scores, perfectly
    separated, are not evidence at alpha 0.01)."""
    for min_window, tested in ((2, True), (3, False)):
        m = Monitor(window=2, score_drift=True, score_reference=2, score_alert=True,
                    min_window=min_window)
        for i, s in enumerate([0.1, 0.2, 0.3, 0.4]):
            m.observe(i, score=s)
        r = m.report()
        assert r.score_shift == 1.0 and r.ks == 1.0
        assert (r.score_shift_p == 0.0) is tested and math.isnan(r.ks_p) is not tested
        assert r.alert is tested and r.score_alert is tested


def test_segments_show_their_corrected_score_shift_p_values():
    """With segments each score-shift p-value is corrected across the segments (as the
    drop tests'), in the line's ``score_shift_p_adjusted``, which decides the alert."""
    from streamrank.monitor._segment_report import adjust_p_values

    sm = SegmentedMonitor(window=40, min_window=5, score_drift=True, score_alert=True)
    rng = np.random.default_rng(6)
    for i in range(300):
        g = i % 3
        sm.observe(i, segment=g, score=float(rng.normal(1.0 if g == 0 and i > 150 else 0, 1)))
    sr = sm.report()
    lines = {ln["segment"]: ln for ln in table_of(sr).lines() if ln["segment"] is not None}
    want = adjust_p_values([r.score_shift_p for r in sr.reports], "holm")
    for seg, q in zip(sr.segments, want.tolist()):
        assert lines[seg]["score_shift_p_adjusted"] == q
        assert lines[seg]["alert"] is bool(q < sm.alpha or lines[seg]["p_adjusted"] < sm.alpha)
    assert lines[0]["alert"] and not lines[1]["alert"]


@pytest.mark.parametrize("frozen, s, settings", [
    (True, [], {}),                                  # a frozen reference of nothing
    (True, [0.1, 0.2], {"score_reference": 3}),      # not the first 3
    (False, [0.1], {"score_reference": 3}),          # nothing was evicted yet
    (True, [0.1, 0.2], {"score_drift": False}),      # no score drift
])
def test_a_snapshot_with_a_scores_reference_the_settings_do_not_keep_is_refused(
        frozen, s, settings):
    import io

    from streamrank.exceptions import SnapshotError

    opts = {"window": 4, "score_drift": True, **settings}
    data = Monitor(**opts).to_bytes()
    with np.load(io.BytesIO(data)) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(score_ref_frozen=np.array(frozen), score_ref_s=np.array(s, float),
                  score_ref_w=np.ones(len(s)))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with pytest.raises(SnapshotError, match="scores' reference the settings do not keep"):
        Monitor.from_bytes(buf.getvalue())
