"""The batch metric functions against their peers, the seeds' worked examples and the oracle.

Peers (docs/metrics.md), all to 1e-12 on seeded random data with and without heavy ties
and with and without weights:

* ``sklearn.metrics.roc_auc_score`` (``sample_weight``, ``max_fpr``),
* ``scipy.stats.kendalltau`` (tau-b and tau-c; symmetric in its two arguments),
* ``scipy.stats.somersd(y_true, y_score)`` (asymmetric: D of the score given the label),
* ``lifelines.utils.concordance_index`` (censoring, tied times, tied scores),
* a per-group loop over ``sklearn.metrics.roc_auc_score`` for `group_auc_score`.

Peers without weights are compared on rows repeated ``w_i`` times, which equals integer
weights for every metric here (pairs between copies of one row are tied in both label and
score, and none of these metrics counts them).
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, strategies as st
from lifelines.utils import concordance_index as lifelines_cindex
from sklearn.metrics import roc_auc_score as sk_roc_auc

from oracle import auc_by_ranks, concordance_brute, pair_counts_brute
from strategies import random_data, samples
from streamrank import (
    UndefinedMetricWarning,
    concordance_index,
    goodman_kruskal_gamma,
    group_auc_score,
    kendall_tau,
    pair_counts,
    roc_auc_score,
    somers_d,
)
from paths import ROOT

TOL = 1e-12
SEEDS = [0, 1, 2]
TIES = ["none", "heavy"]


def close(a, b, tol=TOL) -> bool:
    return abs(float(a) - float(b)) <= tol


@contextlib.contextmanager
def no_undefined():
    """Turn an UndefinedMetricWarning into a test failure inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        yield


# --------------------------------------------------------------------------- worked examples
def test_rank_formula_worked_example():
    """The rank formula: sorted scores 0.1(neg) 0.35(pos) 0.4(neg) 0.8(pos) give positive ranks
    2 + 4 = 6; (6 - 2*3/2) / (2*2) = 0.75. Its second example: a perfect ranking is 1."""
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert roc_auc_score(y, s) == 0.75
    assert pair_counts(y, s).auc == 0.75
    assert float(auc_by_ranks(y, s)) == 0.75
    assert roc_auc_score([0, 1], [0.1, 0.9]) == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_rank_formula_with_average_ranks_on_ties(seed):
    """AUC by average ranks (the Mann-Whitney formula) == (C + T/2) / P, with many tied scores."""
    y, s, _ = random_data(np.random.default_rng(seed), 60, "binary", "heavy")
    assert close(roc_auc_score(y, s), auc_by_ranks(y, s))


def test_hand_checked_counts():
    """The prototype's StrictRight (C), StrictWrong (D), Pair (P), Right, Wrong on 5 samples.

    idx: 0 (y=3, s=.9), 1 (1, .2), 2 (2, .5), 3 (2, .2), 4 (1, .7); the 10 pairs:
      (0,1) C  (0,2) C  (0,3) C  (0,4) C  (1,2) C
      (1,3) T  [labels 1<2, scores .2=.2]
      (1,4) Ty [labels 1=1]   (2,3) Ty [labels 2=2]
      (2,4) D  [labels 2>1, scores .5<.7]   (3,4) D [2>1, .2<.7]
    C=5, D=2, T=1, Ty=2, Tyy=0, P=8, N0=10; Right = C+T = 6, Wrong = D+T = 3, ratio 2.
    Metrics: c-index 5.5/8, gamma 3/7, Somers' D 3/8, tau-a 3/10,
    tau-b 3/sqrt((10-2)(10-1)) = 3/sqrt(72), tau-c with m = min(3 labels, 4 scores) = 3:
    2*3*3 / (5^2 * 2) = 0.36.
    """
    y, s = [3, 1, 2, 2, 1], [0.9, 0.2, 0.5, 0.2, 0.7]
    pc = pair_counts(y, s)
    assert (pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both) == (5, 2, 1, 2, 0)
    assert (pc.comparable, pc.total, pc.right, pc.wrong) == (8, 10, 6, 3)
    assert pc.right_wrong_ratio == 2.0
    assert (pc.n_label_levels, pc.n_score_levels) == (3, 4)
    assert close(pc.c_index, 5.5 / 8) and close(concordance_index(y, s), 5.5 / 8)
    assert close(goodman_kruskal_gamma(y, s), 3 / 7)
    assert close(somers_d(y, s), 3 / 8)
    assert close(kendall_tau(y, s, variant="a"), 3 / 10)
    assert close(kendall_tau(y, s, variant="b"), 3 / math.sqrt(72))
    assert close(kendall_tau(y, s, variant="c"), 0.36)


def _prototype_merge_sort_counts(trues, preds):
    """The prototype's InversionCounter as benchmarks/mergesort_peer.py ports it to Python 3 (the
    benchmark's peer): returns (StrictRight, StrictWrong, Pair)."""
    path = ROOT / "benchmarks" / "mergesort_peer.py"
    spec = importlib.util.spec_from_file_location("mergesort_peer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counter = module.InversionCounter
    return (counter.merge_sort_count_strict_right(trues, preds),
            counter.merge_sort_count_strict_wrong(trues, preds),
            counter.merge_sort_count_pair(trues))


@pytest.mark.parametrize("label_kind", ["binary", "ordinal", "continuous"])
@pytest.mark.parametrize("ties", TIES)
def test_seed_000_merge_sort_counter_agrees(label_kind, ties):
    y, s, _ = random_data(np.random.default_rng(5), 300, label_kind, ties)
    strict_right, strict_wrong, pair = _prototype_merge_sort_counts(y.tolist(), s.tolist())
    pc = pair_counts(y, s)
    assert (pc.concordant, pc.discordant, pc.comparable) == (strict_right, strict_wrong, pair)
    assert (pc.right, pc.wrong) == (pair - strict_wrong, pair - strict_right)


# --------------------------------------------------------------------------- ROC AUC
@pytest.mark.parametrize("weights", ["none", "int", "float"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_roc_auc_matches_sklearn(seed, ties, weights):
    y, s, w = random_data(np.random.default_rng(seed), 300, "binary", ties, weights)
    with no_undefined():
        got = roc_auc_score(y, s, sample_weight=w)
    assert isinstance(got, float)
    assert close(got, sk_roc_auc(y, s, sample_weight=w))


@pytest.mark.parametrize("max_fpr", [0.01, 0.1, 0.3, 0.5, 0.77, 1.0])
@pytest.mark.parametrize("weights", ["none", "float"])
@pytest.mark.parametrize("ties", TIES)
def test_partial_roc_auc_matches_sklearn_mcclish(max_fpr, ties, weights):
    y, s, w = random_data(np.random.default_rng(3), 300, "binary", ties, weights)
    expected = sk_roc_auc(y, s, sample_weight=w, max_fpr=max_fpr)
    assert close(roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr), expected)


def test_partial_roc_auc_with_max_fpr_one_is_the_full_auc():
    y, s, _ = random_data(np.random.default_rng(4), 100, "binary", "heavy")
    assert close(roc_auc_score(y, s, max_fpr=1.0), roc_auc_score(y, s))


@pytest.mark.parametrize(
    "negative, positive",
    [(0, 1), (-1, 1), (2, 5), (0.0, 1.0), (False, True), (-3.5, -1.25)],
    ids=["0/1", "-1/1", "2/5", "float", "bool", "negative-floats"],
)
def test_roc_auc_positive_class_is_the_larger_label(negative, positive):
    y01, s, w = random_data(np.random.default_rng(6), 120, "binary", "heavy", "float")
    y = np.where(y01 == 1, positive, negative)
    expected = sk_roc_auc(y01, s, sample_weight=w)
    assert close(roc_auc_score(y, s, sample_weight=w), expected)
    assert close(roc_auc_score(y, s, sample_weight=w, pos_label=positive), expected)
    assert close(roc_auc_score(y.tolist(), s.tolist(), sample_weight=w.tolist()), expected)


@pytest.mark.parametrize("ties", TIES)
def test_roc_auc_pos_label_smaller_class_flips_the_auc(ties):
    """With ties as halves, swapping the classes gives (D + T/2) / P = 1 - AUC exactly."""
    y, s, _ = random_data(np.random.default_rng(8), 200, "binary", ties)
    y = np.where(y == 1, 7, -2)
    flipped = roc_auc_score(y, s, pos_label=-2)
    assert close(flipped, sk_roc_auc(y == -2, s))
    assert close(flipped, 1.0 - roc_auc_score(y, s))


@pytest.mark.parametrize("shift, scale", [(0.0, 1e-6), (-5.0, 3.0), (1e6, 1.0)])
def test_roc_auc_invariant_under_increasing_affine_map(shift, scale):
    y, s, w = random_data(np.random.default_rng(9), 200, "binary", "heavy", "float")
    assert close(roc_auc_score(y, shift + scale * s, sample_weight=w), roc_auc_score(y, s, sample_weight=w))


@given(data=samples("binary", weight_kind="float", min_size=2))
def test_roc_auc_equals_pair_counts_auc_and_oracle(data):
    y, s, w = data
    for weights in (None, w):
        ref = pair_counts_brute(y, s, weights).auc
        if ref is None:
            continue  # undefined: see test_undefined_metrics_return_nan_and_warn
        with no_undefined():
            got = roc_auc_score(y, s, sample_weight=weights)
        counts = pair_counts_brute(y, s, weights)
        assert close(got, ref, TOL * (1.0 if weights is None else counts.error_scale("auc")))
        assert close(got, pair_counts(y, s, sample_weight=weights).auc)


# --------------------------------------------------------------------------- Kendall, gamma, Somers
@pytest.mark.parametrize("variant", ["b", "c"])
@pytest.mark.parametrize("label_kind", ["binary", "ordinal", "continuous"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_kendall_tau_matches_scipy(seed, ties, label_kind, variant):
    y, s, _ = random_data(np.random.default_rng(seed), 300, label_kind, ties)
    expected = scipy.stats.kendalltau(y, s, variant=variant).statistic
    assert close(scipy.stats.kendalltau(s, y, variant=variant).statistic, expected)  # symmetric
    with no_undefined():
        got = kendall_tau(y, s, variant=variant)
    assert isinstance(got, float)
    assert close(got, expected)


def test_kendall_tau_default_variant_is_b():
    y, s, _ = random_data(np.random.default_rng(1), 100, "ordinal", "heavy")
    assert kendall_tau(y, s) == kendall_tau(y, s, variant="b")


@pytest.mark.parametrize("variant", ["b", "c"])
@pytest.mark.parametrize("label_kind", ["ordinal", "continuous"])
def test_weighted_kendall_tau_equals_scipy_on_repeated_rows(label_kind, variant):
    y, s, w = random_data(np.random.default_rng(12), 150, label_kind, "heavy", "int")
    expected = scipy.stats.kendalltau(np.repeat(y, w), np.repeat(s, w), variant=variant).statistic
    assert close(kendall_tau(y, s, variant=variant, sample_weight=w), expected)
    assert close(kendall_tau(y, s, variant=variant, sample_weight=w.astype(float)), expected)


@pytest.mark.parametrize("label_kind", ["binary", "ordinal", "continuous"])
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_somers_d_matches_scipy_somersd_of_score_given_label(seed, ties, label_kind):
    n = 150 if label_kind == "continuous" else 300  # scipy builds a dense crosstab
    y, s, _ = random_data(np.random.default_rng(seed), n, label_kind, ties)
    with no_undefined():
        got = somers_d(y, s)
    assert isinstance(got, float)
    assert close(got, scipy.stats.somersd(y, s).statistic)


def test_somers_d_argument_order_is_pinned():
    """Somers' D is asymmetric: streamrank's is scipy's somersd(y_true, y_score), which
    divides by pairs untied in the label -- not somersd(y_score, y_true)."""
    y, s = [0, 0, 1, 1, 2, 2, 2], [1, 3, 2, 2, 5, 1, 4.0]
    assert close(somers_d(y, s), 0.3125)  # (C - D) / P = (10 - 5) / 16
    assert close(somers_d(y, s), scipy.stats.somersd(y, s).statistic)
    assert not close(somers_d(y, s), scipy.stats.somersd(s, y).statistic, 1e-3)


@pytest.mark.parametrize("label_kind", ["binary", "ordinal"])
def test_weighted_somers_d_equals_scipy_on_repeated_rows(label_kind):
    y, s, w = random_data(np.random.default_rng(13), 150, label_kind, "heavy", "int")
    expected = scipy.stats.somersd(np.repeat(y, w), np.repeat(s, w)).statistic
    assert close(somers_d(y, s, sample_weight=w), expected)


@given(data=samples(weight_kind="float", min_size=2))
def test_correlations_equal_pair_counts_and_oracle(data):
    """kendall_tau (a, b, c), gamma and Somers' D equal the PairCounts properties and the
    oracle's exact values on tie-heavy inputs of every label kind, weighted or not (the
    weighted tolerance is scaled by `oracle.Counts.error_scale`)."""
    y, s, w = data
    for weights in (None, w):
        pc, ref = pair_counts(y, s, sample_weight=weights), pair_counts_brute(y, s, weights)
        cases = [
            (lambda: kendall_tau(y, s, variant="a", sample_weight=weights), "tau_a"),
            (lambda: kendall_tau(y, s, variant="b", sample_weight=weights), "tau_b"),
            (lambda: goodman_kruskal_gamma(y, s, sample_weight=weights), "gamma"),
            (lambda: somers_d(y, s, sample_weight=weights), "somers_d"),
        ]
        if weights is None or (weights > 0).all():  # zero-weight levels: see test_pairs
            cases.append((lambda: kendall_tau(y, s, variant="c", sample_weight=weights), "tau_c"))
        for call, name in cases:
            expected = getattr(ref, name)
            if expected is None:
                with pytest.warns(UndefinedMetricWarning):
                    assert math.isnan(call()), name
                continue
            with no_undefined():
                got = call()
            tol = TOL * (1.0 if weights is None else ref.error_scale(name))
            assert close(got, expected, tol), name
            assert close(got, getattr(pc, name)), name


@pytest.mark.parametrize("seed", SEEDS)
def test_gamma_ignores_score_ties_and_equals_weighted_repetition(seed):
    y, s, w = random_data(np.random.default_rng(seed), 200, "ordinal", "heavy", "int")
    ref = pair_counts_brute(np.repeat(y, w), np.repeat(s, w))
    assert close(goodman_kruskal_gamma(y, s, sample_weight=w), ref.gamma)
    assert close(goodman_kruskal_gamma(np.repeat(y, w), np.repeat(s, w)), ref.gamma)


# --------------------------------------------------------------------------- C-index
def _survival_data(rng, n, time_ties, score_ties, censor_rate=0.35):
    t = rng.integers(1, 12, n).astype(float) if time_ties else rng.exponential(10.0, n)
    s = t * rng.uniform(0.5, 1.5, n) + rng.normal(0.0, 2.0, n)
    if score_ties:
        s = np.round(s / 3.0)
    e = (rng.random(n) >= censor_rate).astype(int)
    return t, s, e


@pytest.mark.parametrize("score_ties", [False, True], ids=["distinct-scores", "tied-scores"])
@pytest.mark.parametrize("time_ties", [False, True], ids=["distinct-times", "tied-times"])
@pytest.mark.parametrize("seed", SEEDS)
def test_concordance_index_matches_lifelines_with_censoring(seed, time_ties, score_ties):
    t, s, e = _survival_data(np.random.default_rng(seed), 250, time_ties, score_ties)
    expected = lifelines_cindex(t, s, e)
    with no_undefined():
        got = concordance_index(t, s, e)
    assert isinstance(got, float)
    assert close(got, expected)
    assert close(concordance_index(t, s, e.astype(bool)), expected)
    assert close(concordance_index(t.tolist(), s.tolist(), e.tolist()), expected)


@pytest.mark.parametrize("time_ties", [False, True])
def test_concordance_index_without_event_observed_matches_lifelines(time_ties):
    t, s, _ = _survival_data(np.random.default_rng(21), 250, time_ties, True)
    expected = lifelines_cindex(t, s)
    assert close(concordance_index(t, s), expected)
    assert close(concordance_index(t, s, None), expected)
    assert close(concordance_index(t, s, np.ones(len(t), dtype=int)), expected)
    assert close(concordance_index(t, s), pair_counts(t, s).c_index)  # no censoring: the C-index is C + T/2 over P


def test_concordance_index_direction_higher_score_means_longer_survival():
    t = np.array([1.0, 2.0, 3.0, 4.0])
    assert concordance_index(t, t) == 1.0
    assert concordance_index(t, -t) == 0.0
    assert concordance_index(t, np.zeros(4)) == 0.5


def test_concordance_index_tied_times_rules():
    """lifelines: equal times are comparable only when exactly one is an event, which
    counts as the shorter survival; both events or both censored: not comparable."""
    # Pair (0, 1): same time, 0 died, 1 censored -> comparable, concordant if s0 < s1.
    assert concordance_index([5, 5], [1.0, 2.0], [1, 0]) == 1.0
    assert concordance_index([5, 5], [2.0, 1.0], [1, 0]) == 0.0
    assert concordance_index([5, 5], [2.0, 1.0], [0, 1]) == 1.0
    # Plus a censored sample before the others: the earlier censoring is not comparable.
    assert concordance_index([3, 5, 5], [9.0, 1.0, 2.0], [0, 1, 0]) == 1.0
    for t, s, e in ([[5, 5], [1.0, 2.0], [1, 1]], [[5, 5], [1.0, 2.0], [0, 0]]):
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(concordance_index(t, s, e))
        with pytest.raises(ZeroDivisionError):  # lifelines raises instead
            lifelines_cindex(t, s, e)


@given(data=st.data())
def test_concordance_index_matches_oracle_and_lifelines_on_tie_heavy_draws(data):
    n = data.draw(st.integers(2, 14))
    t = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    s = np.array(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), min_size=n, max_size=n)))
    e = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.25, 1.0, 2.0, 3.5]), min_size=n, max_size=n)))
    for weights in (None, w):
        ref = concordance_brute(t, s, e, weights).c_index
        if ref is None:
            with pytest.warns(UndefinedMetricWarning):
                assert math.isnan(concordance_index(t, s, e, sample_weight=weights))
            continue
        with no_undefined():
            got = concordance_index(t, s, e, sample_weight=weights)
        assert close(got, ref)
        if weights is None:
            assert close(got, lifelines_cindex(t, s, e))


@pytest.mark.parametrize("time_ties", [False, True])
def test_weighted_concordance_index_equals_lifelines_on_repeated_rows(time_ties):
    rng = np.random.default_rng(22)
    t, s, e = _survival_data(rng, 120, time_ties, True)
    w = rng.integers(1, 4, len(t))
    expected = lifelines_cindex(np.repeat(t, w), np.repeat(s, w), np.repeat(e, w))
    assert close(concordance_index(t, s, e, sample_weight=w), expected)


# --------------------------------------------------------------------------- GAUC
def _gauc_data(rng, n=400, n_groups=15, weights="none"):
    y, s, w = random_data(rng, n, "binary", "heavy", weights)
    g = rng.integers(0, n_groups, n)
    # Make a few groups single-class (skipped) and one a single sample.
    y[g == 0] = 1
    y[g == 1] = 0
    g[0] = n_groups + 5  # a group of one
    return y, s, g, w


def _gauc_reference(y, s, g, weighting, w=None):
    """Per-group loop over sklearn: (score, evaluated ids, scores, weights, n_skipped).

    ``GroupAUCResult.n_groups`` counts the evaluated groups (both classes present),
    ``n_skipped`` the others, ``groups`` lists the evaluated ids."""
    ids, scores, gw, skipped = [], [], [], 0
    for gid in np.unique(g):
        m = g == gid
        yy, ss = y[m], s[m]
        ww = np.ones(m.sum()) if w is None else np.asarray(w, float)[m]
        pos, neg = ww[yy == 1].sum(), ww[yy != 1].sum()
        if pos == 0 or neg == 0:
            skipped += 1
            continue
        ids.append(gid)
        scores.append(sk_roc_auc(yy, ss, sample_weight=None if w is None else ww))
        gw.append({"impressions": ww.sum(), "pairs": pos * neg, "uniform": 1.0}[weighting])
    score = float(np.dot(scores, gw) / np.sum(gw))
    return score, ids, scores, gw, skipped


@pytest.mark.parametrize("weights", ["none", "float"])
@pytest.mark.parametrize("weighting", ["impressions", "pairs", "uniform"])
@pytest.mark.parametrize("seed", SEEDS)
def test_group_auc_matches_per_group_sklearn_loop(seed, weighting, weights):
    y, s, g, w = _gauc_data(np.random.default_rng(seed), weights=weights)
    score, ids, scores, gw, skipped = _gauc_reference(y, s, g, weighting, w)
    got = group_auc_score(y, s, g, weighting=weighting, sample_weight=w)
    assert close(got, score)
    res = group_auc_score(y, s, g, weighting=weighting, sample_weight=w, return_details=True)
    assert close(res.score, score)
    assert list(res.groups) == ids
    assert np.allclose(res.group_scores, scores, rtol=0, atol=TOL)
    assert np.allclose(res.group_weights, gw, rtol=1e-12, atol=0)
    assert res.n_skipped == skipped == 3
    assert res.n_groups == len(ids)  # groups evaluated (both classes present)


def test_group_auc_default_weighting_is_impressions():
    y, s, g, _ = _gauc_data(np.random.default_rng(30))
    assert group_auc_score(y, s, g) == group_auc_score(y, s, g, weighting="impressions")


@pytest.mark.parametrize("weighting", ["impressions", "pairs", "uniform"])
def test_group_auc_of_one_group_is_the_auc(weighting):
    y, s, w = random_data(np.random.default_rng(31), 200, "binary", "heavy", "float")
    g = np.full(len(y), 4)
    assert close(group_auc_score(y, s, g, weighting=weighting, sample_weight=w),
                 roc_auc_score(y, s, sample_weight=w))


def test_group_auc_uses_the_global_positive_class_and_any_group_ids():
    """Labels {-1, 1} and string or float group ids give the same GAUC as 0/1 and ints."""
    y, s, g, _ = _gauc_data(np.random.default_rng(32))
    expected = group_auc_score(y, s, g)
    assert close(group_auc_score(np.where(y == 1, 1, -1), s, g), expected)
    assert close(group_auc_score(y, s, g.astype(float) / 2), expected)
    assert close(group_auc_score(y, s, np.array([f"user-{k:03d}" for k in g])), expected)


def test_group_auc_seed_002_impression_weighting_by_hand():
    """Group a: y=[0,1,1], s=[.2,.1,.3] -> AUC 1/2, 3 impressions, 2 pairs.
    Group b: y=[0,1], s=[.5,.9] -> AUC 1, 2 impressions, 1 pair. Group c: one class."""
    y = [0, 1, 1, 0, 1, 1, 1]
    s = [0.2, 0.1, 0.3, 0.5, 0.9, 0.4, 0.6]
    g = ["a", "a", "a", "b", "b", "c", "c"]
    assert close(group_auc_score(y, s, g, weighting="impressions"), (3 * 0.5 + 2 * 1.0) / 5)
    assert close(group_auc_score(y, s, g, weighting="pairs"), (2 * 0.5 + 1 * 1.0) / 3)
    assert close(group_auc_score(y, s, g, weighting="uniform"), 0.75)
    res = group_auc_score(y, s, g, return_details=True)
    assert (res.n_groups, res.n_skipped, list(res.groups)) == (2, 1, ["a", "b"])


def test_group_auc_zero_weight_rows_are_dropped_rows():
    """A group whose only negative has weight 0 is one-class: skipped, like a dropped row."""
    y = np.array([0, 1, 1, 0, 1, 0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    g = np.array([1, 1, 1, 2, 2, 2])
    w = np.array([0.0, 1.0, 2.0, 1.0, 1.0, 1.0])
    res = group_auc_score(y, s, g, sample_weight=w, return_details=True)
    dropped = group_auc_score(y[1:], s[1:], g[1:], return_details=True)
    assert (res.n_groups, res.n_skipped, list(res.groups)) == (1, 1, [2])
    assert res.score == dropped.score
    assert close(res.score, sk_roc_auc(y[3:], s[3:]))


# --------------------------------------------------------------------------- undefined
UNDEFINED = [
    ("roc_auc one class", lambda: roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3])),
    ("roc_auc one sample", lambda: roc_auc_score([1], [0.3])),
    ("roc_auc one class after zero weights", lambda: roc_auc_score([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[0, 1, 1])),
    ("roc_auc partial one class", lambda: roc_auc_score([0, 0], [0.1, 0.2], max_fpr=0.5)),
    ("tau-b all scores tied", lambda: kendall_tau([0, 1, 2], [1.0, 1.0, 1.0])),
    ("tau-b all labels tied", lambda: kendall_tau([2, 2, 2], [1.0, 2.0, 3.0])),
    ("tau-c all scores tied", lambda: kendall_tau([0, 1, 2], [1.0, 1.0, 1.0], variant="c")),
    ("tau-a one sample", lambda: kendall_tau([0], [1.0], variant="a")),
    ("tau-b one sample", lambda: kendall_tau([0], [1.0])),
    ("gamma all scores tied", lambda: goodman_kruskal_gamma([0, 1, 2], [3, 3, 3])),
    ("gamma all labels tied", lambda: goodman_kruskal_gamma([1, 1, 1], [1, 2, 3])),
    ("somers one class", lambda: somers_d([1, 1, 1], [1, 2, 3])),
    ("somers one sample", lambda: somers_d([1], [1])),
    ("cindex all censored", lambda: concordance_index([1, 2, 3], [1, 2, 3], [0, 0, 0])),
    ("cindex one sample", lambda: concordance_index([1.0], [2.0])),
    ("cindex all times tied", lambda: concordance_index([4, 4, 4], [1, 2, 3])),
    ("gauc every group one class", lambda: group_auc_score([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], [7, 7, 8, 8])),
    ("gauc all zero weights", lambda: group_auc_score([0, 1], [0.1, 0.2], [1, 1], sample_weight=[0.0, 0.0])),
]


@pytest.mark.parametrize("call", [c for _, c in UNDEFINED], ids=[i for i, _ in UNDEFINED])
def test_undefined_metrics_return_nan_and_warn(call):
    with pytest.warns(UndefinedMetricWarning):
        value = call()
    assert math.isnan(value)


DEFINED_EDGES = [
    # All scores tied: AUC and C-index are 1/2 (ties count half), not undefined.
    ("roc_auc all scores tied", lambda: roc_auc_score([0, 1, 1, 0], [0.3] * 4), 0.5),
    ("cindex all scores tied", lambda: concordance_index([1, 2, 3], [0.0] * 3), 0.5),
    ("somers all scores tied", lambda: somers_d([0, 1, 2], [5, 5, 5]), 0.0),
    ("tau-a all scores tied", lambda: kendall_tau([0, 1, 2], [5, 5, 5], variant="a"), 0.0),
    ("roc_auc two samples", lambda: roc_auc_score([1, 0], [0.1, 0.9]), 0.0),
    ("gamma two samples", lambda: goodman_kruskal_gamma([1, 0], [0.1, 0.9]), -1.0),
]


@pytest.mark.parametrize("call, expected", [(c, e) for _, c, e in DEFINED_EDGES],
                         ids=[i for i, _, _ in DEFINED_EDGES])
def test_defined_edge_cases_do_not_warn(call, expected):
    with no_undefined():
        assert call() == expected


# --------------------------------------------------------------------------- input handling
def _all_calls(y, s, w, t, e, g):
    return {
        "pair_counts": lambda: pair_counts(y, s, sample_weight=w).as_dict(),
        "roc_auc_score": lambda: roc_auc_score(y, s, sample_weight=w),
        "roc_auc_score/max_fpr": lambda: roc_auc_score(y, s, sample_weight=w, max_fpr=0.4),
        "group_auc_score": lambda: group_auc_score(y, s, g, sample_weight=w),
        "kendall_tau/c": lambda: kendall_tau(y, s, variant="c", sample_weight=w),
        "goodman_kruskal_gamma": lambda: goodman_kruskal_gamma(y, s, sample_weight=w),
        "somers_d": lambda: somers_d(y, s, sample_weight=w),
        "concordance_index": lambda: concordance_index(t, s, e, sample_weight=w),
    }


def _inputs(seed=40, n=60):
    rng = np.random.default_rng(seed)
    y, s, w = random_data(rng, n, "binary", "heavy", "float")
    t = rng.integers(1, 8, n).astype(float)
    e = rng.integers(0, 2, n).astype(bool)
    g = rng.integers(0, 5, n)
    return y, s, w, t, e, g


def test_inputs_are_not_modified_and_read_only_inputs_work():
    arrays = _inputs()
    copies = [a.copy() for a in arrays]
    for a in arrays:
        a.flags.writeable = False
    results = {k: call() for k, call in _all_calls(*arrays).items()}
    for a, c in zip(arrays, copies):
        assert np.array_equal(a, c)
    assert all(v is not None for v in results.values())


@pytest.mark.parametrize("layout", ["strided", "reversed-view", "big-endian", "lists"])
def test_memory_layout_and_byte_order_do_not_matter(layout):
    base = _inputs(n=120)
    if layout == "strided":
        arrays = [a[::2] for a in base]
        expected_inputs = [np.ascontiguousarray(a) for a in arrays]
    elif layout == "reversed-view":
        arrays = [a[::-1] for a in base]
        expected_inputs = [a[::-1].copy() for a in base]
    elif layout == "big-endian":
        arrays = [a.astype(a.dtype.newbyteorder(">")) if a.dtype.itemsize > 1 else a for a in base]
        expected_inputs = base
    else:
        arrays = [a.tolist() for a in base]
        expected_inputs = base
    got = {k: call() for k, call in _all_calls(*arrays).items()}
    expected = {k: call() for k, call in _all_calls(*expected_inputs).items()}
    for key in expected:
        if key == "pair_counts":
            assert got[key] == pytest.approx(expected[key], rel=1e-12), key
        else:
            assert close(got[key], expected[key]), key
