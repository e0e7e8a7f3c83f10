"""`EpochTracker`: every epoch's counts equal the O(n^2) oracle, churn equals the number of
flipped pairs, after random sequences of step / step_additive / step_partial."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from oracle import pair_counts_brute
from streamrank import EpochTracker, pair_counts
from streamrank import engine as engine_module

SCORES = (-1.0, 0.0, 0.5, 1.0, 2.0)  # a tiny set: heavy ties
FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")


def _flipped(old, new, w):
    n = len(old)
    total = 0
    for i in range(n):
        for j in range(i + 1, n):
            if (old[i] - old[j]) * (new[i] - new[j]) < 0:
                total += 1 if w is None else w[i] * w[j]
    return total


def _assert_counts(tracker, y, s, w):
    got = tracker.counts
    ref = pair_counts_brute(y, s, w)
    for f, r in zip(FIELDS, (ref.C, ref.D, ref.T, ref.Ty, ref.Tyy)):
        value = getattr(got, f)
        if w is None:
            assert isinstance(value, int) and value == r, (f, value, r)
        else:
            assert value == pytest.approx(float(r), rel=1e-12, abs=1e-9), (f, value, r)
    assert got.n_score_levels == len(set(s.tolist()))
    tracker._check()


class EpochMachine(RuleBasedStateMachine):
    WEIGHT_SCALE = 1.0   # integer weights: exact counts
    @initialize(n=st.integers(2, 14), kind=st.sampled_from(["binary", "ordinal", "continuous"]),
                weighted=st.booleans(), seed=st.integers(0, 2**31))
    def setup(self, n, kind, weighted, seed):
        rng = np.random.default_rng(seed)
        self.rng = rng
        self.y = {"binary": rng.integers(0, 2, n), "ordinal": rng.integers(0, 5, n),
                  "continuous": rng.normal(size=n).round(1)}[kind]
        self.w = rng.integers(1, 4, n) * self.WEIGHT_SCALE if weighted else None
        self.tracker = EpochTracker(self.y, sample_weight=self.w)
        self.s = rng.choice(SCORES, n)
        self.tracker.step(self.s)
        assert self.tracker.churn is None

    def _after(self, new):
        expected = _flipped(self.s, new, self.w)
        self.s = new
        churn = self.tracker.churn
        assert churn == pytest.approx(expected, abs=1e-9)

    @rule()
    def step(self):
        new = self.rng.choice(SCORES, len(self.y))
        self.tracker.step(new)
        self._after(new)

    @rule(n_groups=st.integers(1, 4))
    def step_additive(self, n_groups):
        groups = self.rng.integers(0, n_groups, len(self.y))
        delta = self.rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], n_groups)
        self.tracker.step_additive(delta, groups)
        self._after(self.s + delta[groups])

    @rule(data=st.data())
    def step_partial(self, data):
        n = len(self.y)
        k = data.draw(st.integers(0, n))
        idx = self.rng.choice(n, k, replace=False)
        v = self.rng.choice(SCORES, k)
        self.tracker.step_partial(idx, v)
        new = self.s.copy()
        new[idx] = v
        self._after(new)

    @invariant()
    def counts_match_oracle(self):
        _assert_counts(self.tracker, self.y, self.s, self.w)


TestEpochMachine = EpochMachine.TestCase


class StaleRebuildEpochMachine(EpochMachine):
    """The same with fractional weights (float counts) and the engine's recount threshold
    lowered: `step_partial` recounts its engine from the scores many times per example."""

    WEIGHT_SCALE = 0.25

    def __init__(self):
        super().__init__()
        self._saved = engine_module.REBUILD_RATIO
        engine_module.REBUILD_RATIO = 0.5

    def teardown(self):
        engine_module.REBUILD_RATIO = self._saved


TestStaleRebuildEpochMachine = StaleRebuildEpochMachine.TestCase


def test_history_and_churn_bookkeeping():
    tr = EpochTracker([0, 1, 1, 0])
    tr.step([0.1, 0.2, 0.3, 0.4])
    tr.step_partial([3], [0.0])
    assert len(tr.history) == 2 and tr.churn == 3  # item 3 passed items 0, 1 and 2
    assert tr.history[-1] == pair_counts([0, 1, 1, 0], [0.1, 0.2, 0.3, 0.0])
    assert tr.churn_history == [None, 3]


def test_untracked_churn_is_none():
    tr = EpochTracker([0, 1, 1, 0], track_churn=False)
    tr.step([0.1, 0.2, 0.3, 0.4])
    tr.step([0.4, 0.3, 0.2, 0.1])
    assert tr.churn is None and tr.counts.discordant == 2  # (0.4, 0.3) and (0.4, 0.2)


def test_larger_random_epochs_agree_with_batch():
    rng = np.random.default_rng(7)
    n = 3000
    for y in (rng.integers(0, 2, n), rng.integers(0, 5, n), rng.normal(size=n)):
        tr = EpochTracker(y)
        s = rng.normal(size=n)
        tr.step(s)
        for _ in range(3):
            groups = rng.integers(0, 31, n)
            delta = rng.normal(size=31)
            s = s + delta[groups]
            assert tr.step_additive(delta, groups) == pair_counts(y, s)
            idx = rng.choice(n, 100, replace=False)
            s[idx] = rng.normal(size=100).round(1)
            assert tr.step_partial(idx, s[idx]) == pair_counts(y, s)
        tr._check()


@pytest.mark.parametrize("call, match", [
    (lambda t: t.step([0.1, 0.2]), "'y_score' parameter of EpochTracker.step must be of length 3"),
    (lambda t: t.step([0.1, np.nan, 0.2]), "'y_score' .* must be finite"),
    (lambda t: t.step_partial([0, 0], [0.1, 0.2]), "'indices' .* must be distinct"),
    (lambda t: t.step_partial([5], [0.1]), r"'indices' .* must be positions in \[0, 3\)"),
    (lambda t: t.step_partial([1], [0.1, 0.2]), "'new_scores' .* must be of length 1"),
    (lambda t: t.step_partial([1], [np.inf]), "'new_scores' .* must be finite"),
    (lambda t: t.step_additive([0.1], [0, 1, 0]), r"'groups' .* group ids in \[0, 1\)"),
    (lambda t: t.step_additive([0.1, np.nan], [0, 1, 0]), "'delta' .* must be finite"),
])
def test_bad_input_raises_and_changes_nothing(call, match):
    tr = EpochTracker([0, 1, 1])
    tr.step([0.3, 0.2, 0.1])
    before = (list(tr.history), tr.scores.copy())
    with pytest.raises(ValueError, match=match):
        call(tr)
    assert tr.history == before[0] and np.array_equal(tr.scores, before[1])
    tr._check()


def test_step_before_first_epoch_is_an_error():
    with pytest.raises(RuntimeError, match="call step"):
        EpochTracker([0, 1]).step_partial([0], [0.5])
    with pytest.raises(ValueError, match="'sample_weight' .* must be positive"):
        EpochTracker([0, 1], sample_weight=[1.0, 0.0])
