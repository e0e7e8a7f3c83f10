"""One rule across the APIs: `group_auc_score` and the River `GroupAUC` tell group ids
apart the same way (Python equality and hash, as dict keys), and `EpochTracker` orders
every score `pair_counts` orders (integers beyond 2**53 included)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank import EpochTracker, UndefinedMetricWarning, group_auc_score, pair_counts
from streamrank.metrics import GroupAUC, GroupedProba

WEIGHTINGS = ("impressions", "pairs", "uniform")


def _both(y, s, g, weighting="impressions", w=None):
    """``(batch result, (get, n_groups, n_skipped) of the River metric)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        batch = group_auc_score(y, s, g, weighting=weighting, sample_weight=w,
                                return_details=True)
    metric = GroupAUC(weighting=weighting, pos_val=1)
    for i, (yi, si, gi) in enumerate(zip(y, s, g)):
        metric.update(yi, (si, gi), 1.0 if w is None else w[i])
    return batch, (metric.get(), metric.n_groups, metric.n_skipped)


def _assert_same(y, s, g, weighting="impressions", w=None):
    batch, (got, n_groups, n_skipped) = _both(y, s, g, weighting, w)
    assert (batch.n_groups, batch.n_skipped) == (n_groups, n_skipped)
    expected = 0.0 if math.isnan(batch.score) else batch.score     # River's convention
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    return batch


# --------------------------------------------------------------------------- group ids
Y = [1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
S = [0.9, 0.1, 0.4, 0.6, 0.3, 0.3, 0.2, 0.8, 0.5, 0.7, 0.6, 0.1]
GROUP_SETS = {
    "ints": [1, 1, 2, 2, 3, 3, 1, 2, 3, 1, 2, 3],
    "strings": ["u1", "u1", "u2", "u2", "", "", "u1", "u2", "", "u1", "u2", ""],
    "nul strings": ["a", "a", "a\x00", "a\x00", "a", "a\x00", "\x00", "\x00", "a", "\x00",
                    "a\x00", "\x00"],
    "bools": [True, False, True, False, True, False, True, False, True, False, True, False],
    "mixed": [1, "1", 1.0, "1", True, 1, "1", np.int64(1), ("t", 1), ("t", 1), ("t", 1),
              "1"],
    "object array": np.array([1, "1", 1.0, "1", True, 1, "1", np.int64(1), "a", "a", 2.5,
                              "1"], dtype=object),
    "int vs float": [2**60, 2**60 + 1, float(2**60), 2**60 + 1, 2**60, 2**60 + 1, 2**60,
                     2**60 + 1, 0, -0.0, 0, 0.0],
}


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("name", sorted(GROUP_SETS))
def test_batch_and_river_group_auc_agree(name, weighting):
    g = GROUP_SETS[name]
    _assert_same(Y, S, g, weighting)
    _assert_same(Y, S, g, weighting, w=[1.0, 2.0, 0.5] * 4)


def test_one_and_string_one_are_two_groups_in_both():
    y, s = [1, 0, 1, 0], [0.9, 0.1, 0.1, 0.9]
    r = _assert_same(y, s, [1, 1, "1", "1"])
    assert r.n_groups == 2 and r.score == 0.5 and r.groups.tolist() == [1, "1"]
    r = _assert_same(y, s, [1, 1.0, True, np.int64(1)])       # equal ids: one group
    assert r.n_groups == 1 and r.groups.tolist() == [1]


def test_numpy_arrays_and_lists_agree():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 300), rng.integers(0, 20, 300) / 20
    g = rng.integers(0, 30, 300)
    a = group_auc_score(y, s, g, return_details=True)
    b = group_auc_score(y, s, g.tolist(), return_details=True)
    c = group_auc_score(y, s, [f"u{k}" for k in g], return_details=True)
    assert a.score == b.score == pytest.approx(c.score, rel=1e-12)
    assert a.groups.tolist() == b.groups.tolist()
    _assert_same(y.tolist(), s.tolist(), g.tolist())
    pd = pytest.importorskip("pandas")
    for series in (pd.Series(g), pd.Series([f"u{k}" for k in g]),
                   pd.Series([int(k) if k % 2 else f"{k}" for k in g])):
        assert group_auc_score(y, s, series) == group_auc_score(y, s, list(series))


@pytest.mark.parametrize("bad, cls", [(None, ValueError), (math.nan, ValueError),
                                      (np.float32("nan"), ValueError), (-math.inf, ValueError),
                                      (np.datetime64("NaT"), ValueError), ([1], TypeError),
                                      ({"a": 1}, TypeError)])
def test_missing_and_unhashable_ids_refused_in_both(bad, cls):
    msg = "hashable group ids other than None, nan, inf and NaT"
    with pytest.raises(cls, match=f"'groups' parameter of group_auc_score must be {msg}"):
        group_auc_score([1, 0, 1], [0.1, 0.2, 0.3], ["a", bad, "a"])
    metric = GroupAUC()
    metric.update(True, (0.8, "a"))
    metric.update(False, (0.2, "a"))
    with pytest.raises(cls, match=f"'y_pred' parameter of GroupAUC.update must be {msg}"):
        metric.update(True, (0.5, bad))
    with pytest.raises(cls, match=msg):
        metric.update(True, GroupedProba({True: 0.5, False: 0.5}, group=bad))
    with pytest.raises(cls, match=f"'y_pred' parameter of GroupAUC.revert must be {msg}"):
        metric.revert(True, (0.8, bad))
    assert (metric.get(), metric.n_groups, metric.n_skipped) == (1.0, 1, 0)


def test_numpy_nan_and_nat_groups_refused():
    for g in (np.array([1.0, np.nan, 1.0]), np.array([1.0, np.inf, 1.0]),
              np.array(["2024-01-01", "NaT", "2024-01-01"], dtype="datetime64[D]")):
        with pytest.raises(ValueError, match="other than None, nan, inf and NaT"):
            group_auc_score([1, 0, 1], [0.1, 0.2, 0.3], g)


POOL = [0, 1, 1.0, True, False, 0.0, "0", "1", "a", "a\x00", "", ("t", 1), 2**60,
        float(2**60), 2**60 + 1, np.int64(7), 7, -3, "-3"]


@settings(derandomize=True, max_examples=80)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 5), st.sampled_from(POOL)),
                min_size=1, max_size=40),
       st.sampled_from(WEIGHTINGS))
def test_random_mixed_ids_agree(rows, weighting):
    y, s, g = (list(col) for col in zip(*rows))
    _assert_same(y, [v / 5 for v in s], g, weighting)


# --------------------------------------------------------------------------- epoch scores
B = 2**53


@pytest.mark.parametrize("scores", [[B, B + 1], np.array([B, B + 1]),
                                    np.array([2**63, 2**63 + 1], dtype=np.uint64),
                                    [-B - 1, -B]])
def test_epoch_tracker_orders_integers_float64_would_tie(scores):
    tracker = EpochTracker([0, 1])
    assert tracker.step(scores) == pair_counts([0, 1], scores)
    assert tracker.counts.auc == 1.0 and tracker.counts.tied_score == 0
    tracker._check()


def test_epoch_tracker_integer_epochs_stay_exact():
    y = [0, 1, 0, 1, 2, 2]
    tracker = EpochTracker(y)
    tracker.step([B + 5, B + 1, B + 2, B + 3, B, B + 4])
    tracker.step_partial([0, 4], [B + 1, B + 6])                  # ints: exact
    assert tracker.counts == pair_counts(y, tracker.scores) and tracker.counts.tied_score
    tracker.step_additive(np.array([1, -1]), np.array([0, 1, 0, 1, 0, 1]))
    assert tracker.counts == pair_counts(y, tracker.scores)
    assert tracker.scores.dtype == np.int64
    tracker.step_partial([1], [3.0])            # an integral float: held as int64
    assert tracker.scores.dtype == np.int64 and tracker.scores[1] == 3
    assert tracker.counts == pair_counts(y, tracker.scores)
    tracker._check()
    before = (tracker.scores.copy(), tracker.counts, len(tracker.history))
    with pytest.raises(ValueError, match="'new_scores' parameter of EpochTracker."
                       "step_partial must be scores that compare exactly"):
        tracker.step_partial([1], [3.5])        # next to ints beyond 2**53: refused
    with pytest.raises(ValueError, match="'delta' parameter of EpochTracker.step_additive"):
        tracker.step_additive(np.array([0.5, 0.0]), np.zeros(6, dtype=int))
    with pytest.raises(ValueError, match="a move that overflows"):
        tracker.step_additive(np.array([2**63 - 1, 0]), np.zeros(6, dtype=int))
    assert (tracker.scores == before[0]).all() and tracker.counts == before[1]
    assert len(tracker.history) == before[2]


def test_epoch_tracker_small_integers_mix_with_floats():
    tracker = EpochTracker([0, 1, 1])
    tracker.step([1, 2, 3])
    tracker.step_partial([0], [2.5])            # ints within 2**53: float64, exact
    assert tracker.scores.dtype == np.float64
    assert tracker.counts == pair_counts([0, 1, 1], [2.5, 2.0, 3.0])
    tracker.step_additive(np.array([1, 2]), np.array([0, 1, 1]))
    assert tracker.counts == pair_counts([0, 1, 1], [3.5, 4.0, 5.0])
    tracker._check()


@settings(derandomize=True, max_examples=40)
@given(st.integers(1, 12), st.sampled_from([2, 4, 20]), st.data())
def test_epoch_tracker_random_big_integer_epochs(n, levels, data):
    base = data.draw(st.sampled_from([B, 2**62, -(2**62)]))
    small = st.integers(-6, 6)
    y = data.draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n))
    tracker = EpochTracker(y)
    tracker.step([base + v for v in data.draw(st.lists(small, min_size=n, max_size=n))])
    for _ in range(4):
        if data.draw(st.booleans()):
            idx = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
            tracker.step_partial(idx, [base + data.draw(small) for _ in idx])
        else:
            leaves = data.draw(st.integers(1, 3))
            g = np.array(data.draw(st.lists(st.integers(0, leaves - 1), min_size=n,
                                            max_size=n)))
            tracker.step_additive(np.array([data.draw(small) for _ in range(leaves)]), g)
        assert tracker.counts == pair_counts(y, tracker.scores)
        tracker._check()


def test_epoch_tracker_binary_engine_hands_over_to_exact_integers():
    y = [0, 1, 0, 1, 1]
    tracker = EpochTracker(y)
    tracker.step([5, 1, 2, 3, 4])
    tracker.step_partial([0, 2], [0, 7])          # within 2**53: the engine counts
    assert tracker._engine is not None
    assert tracker.counts == pair_counts(y, tracker.scores)
    tracker.step_partial([1], [B + 1])            # beyond: float64 would round it
    assert tracker._engine is None and tracker.scores[1] == B + 1
    assert tracker.counts == pair_counts(y, tracker.scores)
    tracker.step_partial([3], [B + 2])            # held scores beyond 2**53: no engine
    assert tracker._engine is None
    assert tracker.counts == pair_counts(y, tracker.scores) and tracker.counts.auc == 5 / 6
    tracker.step_partial([1, 3], [3, 1])          # back within 2**53 (held: not yet)
    assert tracker._engine is None
    assert tracker.counts == pair_counts(y, tracker.scores)
    tracker.step_partial([4], [6])                # every score within: the engine again
    assert tracker._engine is not None
    assert tracker.counts == pair_counts(y, tracker.scores)
    tracker._check()
