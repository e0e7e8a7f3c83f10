"""`ScoreBins`: a window's scores binned against the distinct scores of a frozen
reference (the monitor's score drift). A state machine adds and removes scores (on the
reference's scores, between them, outside them; whole and fractional weights) and checks
the bins after every change against a recount and against a direct count of the window;
then the reading of `streamrank.monitor._scores.ScoreReference` against scikit-learn,
DeLong's variance and SciPy's Kolmogorov-Smirnov test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from streamrank.monitor._scores import ScoreReference
from streamrank.monitor.drift import delong_variance
from streamrank.structures._cscorebins import ScoreBins

SCORES = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 2.0]) | st.floats(-2, 3)
WEIGHTS = st.sampled_from([1.0, 1.0, 2.0, 0.0, 0.5, 3.25])


class Bins(RuleBasedStateMachine):
    @initialize(ref=st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1,
                             max_size=8))
    def start(self, ref):
        self.ref = np.unique(ref)
        self.bins = ScoreBins(self.ref)
        self.held: list[tuple[float, float]] = []

    @rule(s=SCORES, w=WEIGHTS)
    def add(self, s, w):
        self.bins.change(s, w, 1)
        self.held.append((s, w))

    @rule(data=st.data())
    def remove(self, data):
        if self.held:
            s, w = self.held.pop(data.draw(st.integers(0, len(self.held) - 1)))
            self.bins.change(s, w, -1)

    @invariant()
    def equals_a_direct_count(self):
        s = np.array([h[0] for h in self.held])
        w = np.array([h[1] for h in self.held])
        self.bins._check(s, w)
        lt, eq = self.bins.arrays()
        edges = np.r_[-np.inf, self.ref]
        for j in range(self.ref.size + 1):
            inside = (s > edges[j]) & (s < (self.ref[j] if j < self.ref.size else np.inf))
            assert math.isclose(lt[j], float(w[inside].sum()), abs_tol=1e-9)
        for j, r in enumerate(self.ref):
            assert math.isclose(eq[j], float(w[s == r].sum()), abs_tol=1e-9)
        assert self.bins.rows == len(self.held)


TestBins = Bins.TestCase
TestBins.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (scipy at one per side)
@settings(max_examples=80, deadline=None)
@given(ref=st.lists(st.tuples(SCORES, WEIGHTS), min_size=1, max_size=30),
       win=st.lists(st.tuples(SCORES, WEIGHTS), min_size=1, max_size=30))
def test_the_reading_equals_the_peers(ref, win):
    rs, rw = (np.array(c) for c in zip(*ref))
    ws, ww = (np.array(c) for c in zip(*win))
    reference = ScoreReference(rs, rw)
    bins = reference.bins(ws, ww)
    got = reference.read(bins)
    if not (rw.sum() > 0 and ww.sum() > 0):
        assert all(v != v for v in got)
        return
    y = np.r_[np.zeros(rs.size), np.ones(ws.size)]
    s, w = np.r_[rs, ws], np.r_[rw, ww]
    keep = w > 0
    assert math.isclose(got.shift, roc_auc_score(y[keep], s[keep], sample_weight=w[keep]),
                        abs_tol=1e-12)
    if rw.sum() > 1 and ww.sum() > 1:
        var = delong_variance(y[keep], s[keep], sample_weight=w[keep])[1]
        assert math.isclose(got.se, math.sqrt(var), rel_tol=1e-9, abs_tol=1e-12)
    # the KS statistic: the largest distance of the weighted distribution functions at
    # every score either side holds
    at = np.unique(s)
    f1 = np.array([ww[ws <= x].sum() for x in at]) / ww.sum()
    f2 = np.array([rw[rs <= x].sum() for x in at]) / rw.sum()
    assert math.isclose(got.ks, float(np.abs(f1 - f2).max()), abs_tol=1e-12)
    if np.all(rw == 1) and np.all(ww == 1):
        k = ks_2samp(ws, rs, method="asymp")
        assert math.isclose(got.ks, k.statistic, abs_tol=1e-12)
        n = round(rs.size * ws.size / (rs.size + ws.size))
        assert got.ks_p_value == pytest.approx(k.pvalue, abs=1e-12 if n < 30 else 0.018,
                                               nan_ok=True)


def test_the_shift_is_exact_with_whole_weights():
    """Whole-number weights: the shift is one division of exact integer sums (a million
    window scores against a million reference ones, far past what float sums keep)."""
    rng = np.random.default_rng(0)
    ref = ScoreReference(rng.integers(0, 1000, 10**6).astype(float), np.ones(10**6))
    ws = rng.integers(0, 1000, 10**6).astype(float)
    got = ref.read(ref.bins(ws, np.full(ws.size, 3.0))).shift
    rs = np.sort(ref.s)
    below, upto = np.searchsorted(rs, ws, "left"), np.searchsorted(rs, ws, "right")
    num = int((below + upto).sum())          # 2 below + ties
    assert got == num / (2 * 10**6 * 10**6)


def test_sums_past_int64_fall_back_to_floats():
    """Whole weights whose doubled placement sums pass int64 (2**40 a score against as
    much): the shift is the float sum's, within rounding of scikit-learn's."""
    rng = np.random.default_rng(1)
    rs, ws = rng.integers(0, 50, 300).astype(float), rng.integers(10, 60, 200).astype(float)
    big = 2.0 ** 40
    ref = ScoreReference(rs, np.full(rs.size, big))
    got = ref.read(ref.bins(ws, np.full(ws.size, big))).shift
    y = np.r_[np.zeros(rs.size), np.ones(ws.size)]
    assert math.isclose(got, roc_auc_score(y, np.r_[rs, ws]), rel_tol=1e-12)
