"""The compiled batch kernels (`streamrank.batch._ckernels`, `streamrank.batch._clevels`) and the
paths built on them.

* `sort_count` (merge-sort inversion count), `sort_runs`, `tie_pairs`, `group_rows`
  against plain pair loops and numpy's stable sorts, on tie-heavy Hypothesis data
  (derandomized) long enough for every merge of the sort (insertion blocks, single and
  paired parity merges, unequal tail merges, already-ordered runs);
* the kernels of `streamrank.batch._kernels` and `streamrank.batch.survival` that use them (continuous
  labels, counts in score order, discordant pairs / churn, the censored C-index) against
  the O(n^2) oracles, with heavy ties and weights;
* the public functions against scipy's ``kendalltau`` and lifelines'
  ``concordance_index``, and `EpochTracker.churn` against a pair count;
* the ranking metrics on rows not grouped by query (the compiled grouping) against the
  same rows grouped, and against the per-query oracle.
"""

from __future__ import annotations

import contextlib
import doctest
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st
from lifelines.utils import concordance_index as lifelines_cindex

import streamrank.batch._ckernels as ck
import streamrank.batch._cgroups as cg
import streamrank.batch._clevels as cl
import streamrank.batch._kernels as kernels
from oracle import concordance_brute, pair_counts_brute, pair_counts_matrix
from ranking_oracle import ndcg_list, per_query
from strategies import samples
from streamrank import EpochTracker, concordance_index, kendall_tau
from streamrank.batch._kernels import (
    _count_continuous, count_in_score_order, count_inversions, dense_ranks, discordant_pairs,
)
from streamrank.ranking import (
    dcg_at_k, err_score, lambdarank_gradients, map_score, mrr_score,
    ndcg_at_k, pairwise_errors, precision_at_k, r_precision, recall_at_k,
)
from streamrank.ranking._layout import group_by_query
from streamrank.batch.survival import censored_counts

EPS = 2.0 ** -52

# Keys with heavy ties, both signed zeros, and integers that float64 would merge.
_KEYS = {
    "float": st.sampled_from([-3.5, -1.0, -0.0, 0.0, 0.25, 1.0, 7.0]),
    "int": st.sampled_from([-(2**62), -5, 0, 3, 2**53, 2**53 + 1, 2**62]),
    "uint": st.sampled_from([0, 1, 2**53, 2**53 + 1, 2**63, 2**64 - 1]),
}
_DTYPES = {"float": np.float64, "int": np.int64, "uint": np.uint64}


@st.composite
def keyed(draw, max_size=150):
    """``(keys, left, right)``: keys of one kind; weights None, int or float."""
    kind = draw(st.sampled_from(sorted(_KEYS)))
    n = draw(st.integers(0, max_size))
    keys = np.array(draw(st.lists(_KEYS[kind], min_size=n, max_size=n)), dtype=_DTYPES[kind])
    wkind = draw(st.sampled_from(["none", "int", "float", "same"]))
    if wkind == "none":
        return keys, None, None
    if wkind == "int":
        w = st.integers(0, 5)
        return (keys, np.array(draw(st.lists(w, min_size=n, max_size=n)), dtype=np.int64),
                np.array(draw(st.lists(w, min_size=n, max_size=n)), dtype=np.int64))
    w = st.sampled_from([0.0, 1e-3, 0.5, 1.0, 3.0, 1e3])
    left = np.array(draw(st.lists(w, min_size=n, max_size=n)), dtype=np.float64)
    if wkind == "same":
        return keys, left, left
    return keys, left, np.array(draw(st.lists(w, min_size=n, max_size=n)), dtype=np.float64)


def inversions_loop(keys, left=None, right=None):
    """``sum_{i<j, k_i > k_j} left_i right_j``, exactly (Python ints or Fractions)."""
    k = keys.tolist()
    lw = [1] * len(k) if left is None else [Fraction(x) for x in left.tolist()]
    rw = [1] * len(k) if right is None else [Fraction(x) for x in right.tolist()]
    return sum(lw[i] * rw[j] for i in range(len(k)) for j in range(i + 1, len(k)) if k[i] > k[j])


def assert_count(got, exact, n, floats):
    if floats:
        assert isinstance(got, float)
        assert abs(Fraction(got) - exact) <= (2 * n + 2) * EPS * exact
    else:
        assert type(got) is int and got == exact


# --------------------------------------------------------------------------- kernels
@given(keyed())
def test_sort_count_equals_the_pair_loop(data):
    keys, left, right = data
    count, out, lo, ro = ck.sort_count(keys.copy(), left, right)
    floats = left is not None and left.dtype.kind == "f"
    assert_count(count, inversions_loop(keys, left, right), keys.size, floats)
    stable = np.argsort(keys, kind="stable")
    assert out.tolist() == keys[stable].tolist()
    if left is not None:
        assert lo.tolist() == left[stable].tolist() and ro.tolist() == right[stable].tolist()
        assert (lo is ro) == (left is right)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 64, 65, 1000, 4097])
def test_sort_count_orders_and_extremes(n):
    rng = np.random.default_rng(n)
    ascending = np.arange(n, dtype=np.float64)
    assert ck.sort_count(ascending.copy())[0] == 0
    assert ck.sort_count(ascending[::-1].copy())[0] == n * (n - 1) // 2
    assert ck.sort_count(np.zeros(n))[0] == 0                  # ties never count
    keys = rng.integers(0, 7, n)
    w = rng.uniform(0.0, 2.0, n)
    exact = pair_counts_matrix(np.arange(n), keys, w).D        # positions as labels
    assert_count(ck.sort_count(keys.astype(np.int64), w, w)[0], exact, n, True)
    assert ck.sort_count(keys.astype(np.int64))[0] == pair_counts_matrix(np.arange(n), keys).D


def test_sort_count_large_exact_against_blocks():
    rng = np.random.default_rng(7)
    keys = np.round(rng.normal(size=6000), 1)
    expected = sum(int(np.count_nonzero(keys[i] > keys[i + 1:])) for i in range(keys.size))
    before = keys.copy()
    assert ck.sort_count(keys.copy())[0] == expected
    assert count_inversions(keys) == expected
    assert np.array_equal(keys, before)                      # count_inversions copies


def test_count_inversions_leaves_its_input_and_refuses_overflowing_int_weights():
    seq = np.array([3, 1, 2], dtype=np.int64)
    assert count_inversions(seq) == 2 and seq.tolist() == [3, 1, 2]
    big = np.full(8, 2**63 - 1, dtype=np.uint64)
    with pytest.raises(OverflowError, match="2\\*\\*128"):
        ck.sort_count(seq.repeat(8)[:8].copy(), big, big)
    with pytest.raises(ValueError, match="nonnegative"):
        ck.sort_count(seq.copy(), np.array([1, -1, 1]), None)


@given(keyed(), st.data())
def test_sort_runs_sorts_each_run_stably(data, draw):
    keys, left, _ = data
    n = keys.size
    cuts = draw.draw(st.lists(st.integers(1, max(1, n - 1)), max_size=8)) if n > 1 else []
    starts = np.unique(np.array([0] + cuts, dtype=np.intp)) if n else np.zeros(0, np.intp)
    got = keys.copy()
    w = None if left is None else left.astype(np.float64)
    gw = None if w is None else w.copy()
    ck.sort_runs(got, starts, gw, gw) if w is not None else ck.sort_runs(got, starts)
    for a, b in zip(starts, np.append(starts[1:], n)):
        o = np.argsort(keys[a:b], kind="stable")
        assert got[a:b].tolist() == keys[a:b][o].tolist()
        if w is not None:
            assert gw[a:b].tolist() == w[a:b][o].tolist()


@given(keyed(max_size=60))
def test_tie_pairs(data):
    keys = np.sort(data[0])
    _, counts = np.unique(keys, return_counts=True)
    assert cl.tie_pairs(keys) == (int((counts * (counts - 1) // 2).sum()), counts.size)


@given(st.lists(st.integers(-3, 40), max_size=120), st.integers(-5, 5))
def test_group_rows_is_a_stable_counting_sort(ids, shift):
    ids = np.array(ids, dtype=np.int64)
    lo = int(ids.min()) if ids.size else 0
    m = int(ids.max()) - lo + 1 + max(shift, 0) if ids.size else 1
    s = np.arange(ids.size) * 0.5
    perm, counts, grouped = cg.group_rows(ids, lo, m, (s, ids.astype(np.uint8)))
    assert counts.tolist() == np.bincount(ids - lo, minlength=m).tolist()
    runs = 0 if ids.size == 0 else 1 + int(np.count_nonzero(ids[1:] != ids[:-1]))
    if runs == np.count_nonzero(counts):
        assert perm is None and grouped is None             # already contiguous
    else:
        assert perm.tolist() == np.argsort(ids, kind="stable").tolist()
        assert grouped[0].tolist() == s[perm].tolist()
        assert grouped[1].tolist() == ids.astype(np.uint8)[perm].tolist()
    if ids.size:
        with pytest.raises(ValueError, match="must lie in"):
            cg.group_rows(ids, lo + 1, m)


@pytest.mark.parametrize("module", [ck, cl, cg], ids=["_ckernels", "_clevels", "_cgroups"])
def test_doctests_of_the_compiled_modules(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


# ---------------------------------------------------------------- paths on the kernels
def _same_counts(pc, oracle, floats, n):
    for got, exact in zip((pc.concordant, pc.discordant, pc.tied_score, pc.tied_label,
                           pc.tied_both), oracle.as_tuple()):
        if floats:
            assert abs(Fraction(got) - exact) <= 8 * n * EPS * max(oracle.N0, 1)
        else:
            assert got == exact


@given(samples(max_size=40), st.sampled_from(["none", "float"]),
       st.sampled_from(["coded", "merge sort"]))
@settings(max_examples=60)
def test_continuous_path_equals_the_oracle_for_any_labels(sample, wkind, route):
    y, s, _ = sample
    w = None if wkind == "none" else np.linspace(0.25, 3.0, y.size)
    if y.size == 0:
        return
    if route == "coded":
        pc = kernels._count_coded(y, s, w, np.unique(y), np.unique(s))
    else:
        saved = kernels._few_values
        kernels._few_values = lambda x: False         # always the merge sort
        try:
            pc = _count_continuous(y, s, w)  # the continuous path, even for few levels
        finally:
            kernels._few_values = saved
    _same_counts(pc, pair_counts_brute(y, s, w), w is not None, y.size)
    assert pc.n_label_levels == np.unique(y).size and pc.n_score_levels == np.unique(s).size


@contextlib.contextmanager
def tree_levels(value):
    """Within the block, at most ``value`` label levels take the Fenwick path of
    `count_in_score_order` (0: always the merge sort; None: unchanged)."""
    saved = kernels._TREE_MAX_LEVELS
    kernels._TREE_MAX_LEVELS = saved if value is None else value
    try:
        yield
    finally:
        kernels._TREE_MAX_LEVELS = saved


@given(samples(max_size=40), st.booleans(), st.sampled_from(["tree", "merge sort"]))
def test_counts_in_score_order_equal_the_oracle(sample, weighted, path):
    y, s, _ = sample
    w = np.linspace(0.5, 2.0, y.size) if weighted else None
    y_rank, n_levels = dense_ranks(y)
    order = np.argsort(s, kind="stable")
    with tree_levels(None if path == "tree" else 0):
        pc = count_in_score_order(y_rank[order], n_levels, s[order],
                                  None if w is None else w[order])
    _same_counts(pc, pair_counts_brute(y, s, w), weighted, y.size)


@pytest.mark.parametrize("score_values", [5, 10_000])     # histogram / tree mode
@pytest.mark.parametrize("weighted", [False, True])
def test_level_counts_equal_the_oracle(score_values, weighted):
    rng = np.random.default_rng(score_values)
    s = np.sort(rng.integers(0, score_values, 600))
    y = rng.integers(0, 7, s.size)
    w = rng.uniform(0.5, 2.0, s.size) if weighted else None
    N0, Ty, Ts, Tyy, D = cl.level_counts(y, 7, np.flatnonzero(np.r_[True, s[1:] != s[:-1]]), w)
    ref = pair_counts_matrix(y, s, w)
    for got, exact in ((N0, ref.N0), (Ty, ref.Ty), (Ts, ref.Ts), (Tyy, ref.Tyy), (D, ref.D)):
        if weighted:
            assert abs(Fraction(got) - exact) <= 8 * s.size * EPS * ref.N0
        else:
            assert type(got) is int and got == exact


def test_level_counts_keep_degenerate_counts_equal():
    rng = np.random.default_rng(3)
    w = rng.uniform(1e-3, 1e3, 500)
    starts = np.flatnonzero(np.r_[True, rng.random(499) < 0.3])
    N0, Ty, Ts, Tyy, D = cl.level_counts(np.zeros(500, np.int64), 1, starts, w)
    assert Ty == N0 and Tyy == Ts and D == 0.0              # one label: bit for bit
    labels = rng.integers(0, 4, 500)
    N0, Ty, Ts, Tyy, D = cl.level_counts(labels, 4, np.array([0]), w)
    assert Ts == N0 and Tyy == Ty and D == 0.0              # one score: bit for bit
    with pytest.raises(ValueError, match="must lie in"):
        cl.level_counts(labels, 3, starts)


@given(samples(max_size=40), st.booleans(), st.booleans())
def test_discordant_pairs_equal_the_oracle(sample, weighted, with_order):
    x, y, _ = sample
    w = np.linspace(0.5, 2.0, x.size) if weighted else None
    got = discordant_pairs(x, y, w, np.argsort(x) if with_order else None)
    exact = pair_counts_brute(x, y, w).D
    if weighted:
        assert abs(Fraction(got) - exact) <= 8 * x.size * EPS * max(exact, 1)
    else:
        assert got == exact


_TIMES = {   # exit keys: float bits, integer offsets, or ranks (negative floats)
    "float": ([-0.0, 0.0, 0.5, 1.0, 2.0, 3.0], np.float64),
    "negative": ([-2.5, -1.0, 0.0, 1.0], np.float64),
    "int": ([-(2**40), -3, 0, 3], np.int64),
    "uint": ([0, 2**62, 2**64 - 1], np.uint64),
    "uint small": ([2**63 + 5, 2**63 + 6, 2**63 + 9], np.uint64),
}


@st.composite
def survival(draw):
    n = draw(st.integers(1, 40))
    values, dtype = _TIMES[draw(st.sampled_from(sorted(_TIMES)))]
    t = np.array(draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)), dtype=dtype)
    s = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.0, 2.5]), min_size=n, max_size=n)))
    e = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    w = None if draw(st.booleans()) else np.array(
        draw(st.lists(st.sampled_from([0.5, 1.0, 4.0]), min_size=n, max_size=n)))
    return t, s, e, w


@given(survival())
@settings(max_examples=80)
def test_censored_counts_equal_the_pair_loop(data):
    t, s, e, w = data
    P, D, T = censored_counts(t, s, e, w)
    ref = concordance_brute(t, s, e, w)
    if w is None:
        assert (P, D, T) == (ref.comparable, ref.discordant, ref.tied_score)
        assert all(type(x) is int for x in (P, D, T))
    else:
        for got, exact in ((P, ref.comparable), (D, ref.discordant), (T, ref.tied_score)):
            assert abs(Fraction(got) - exact) <= 8 * t.size * EPS * max(ref.comparable, 1)


# --------------------------------------------------------------------------- peers
@pytest.mark.parametrize("ties", ["none", "scores", "both"])
def test_kendall_tau_equals_scipy_on_continuous_labels(ties):
    rng = np.random.default_rng({"none": 0, "scores": 1, "both": 2}[ties])
    y = rng.normal(size=200_000)
    s = y + rng.normal(size=y.size)
    if ties != "none":
        s = np.round(s, 1)
    if ties == "both":
        y = np.round(y, 1)
    for variant in ("b", "c"):
        expected = scipy.stats.kendalltau(y, s, variant=variant).statistic
        assert kendall_tau(y, s, variant=variant) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("censored", [0.0, 0.3, 0.8])
def test_concordance_index_equals_lifelines(censored):
    rng = np.random.default_rng(int(censored * 10))
    t = np.round(rng.exponential(size=3000), 1)             # tied times
    s = np.round(np.log(t + 0.1) + rng.normal(size=t.size), 1)
    e = rng.random(t.size) >= censored
    assert concordance_index(t, s, e) == pytest.approx(lifelines_cindex(t, s, e), abs=1e-12)


def _flips(a, b, w=None):
    """Pairs ordered strictly opposite ways by ``a`` and ``b`` (weight ``w_i w_j``)."""
    da = np.sign(a[:, None] - a[None, :])
    db = np.sign(b[:, None] - b[None, :])
    flip = np.triu((da * db) < 0, 1)
    return int(flip.sum()) if w is None else float((np.outer(w, w) * flip).sum())


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("labels", ["continuous", "binary"])
def test_epoch_churn_equals_the_flipped_pairs(weighted, labels):
    rng = np.random.default_rng(5)
    n = 400
    y = np.round(rng.normal(size=n), 1) if labels == "continuous" else rng.integers(0, 2, n)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    tr = EpochTracker(y, sample_weight=w)
    s = np.round(rng.normal(size=n), 1)
    tr.step(s)
    for epoch in range(4):
        if epoch % 2:
            groups = rng.integers(0, 5, n)
            delta = np.round(rng.normal(size=5), 1)
            new = s + delta[groups]
            tr.step_additive(delta, groups)
        else:
            new = np.round(s + 0.3 * rng.normal(size=n), 1)
            tr.step(new)
        assert tr.churn == pytest.approx(_flips(s, new, w), rel=1e-12)
        if not weighted:
            assert type(tr.churn) is int
        s = new


# --------------------------------------------------------------------------- ranking
_METRICS = {
    "ndcg@10": lambda q, y, s: ndcg_at_k(q, y, s, k=10, gain="exponential",
                                          return_per_query=True),
    "ndcg": lambda q, y, s: ndcg_at_k(q, y, s, gain="linear", return_per_query=True),
    "dcg@5": lambda q, y, s: dcg_at_k(q, y, s, k=5, ties="pessimistic", return_per_query=True),
    "ap": lambda q, y, s: map_score(q, y, s, return_per_query=True),
    "ap@5": lambda q, y, s: map_score(q, y, s, k=5, ties="optimistic",
                                                     return_per_query=True),
    "mrr": lambda q, y, s: mrr_score(q, y, s, return_per_query=True),
    "err": lambda q, y, s: err_score(q, y, s, return_per_query=True),
    "p@3": lambda q, y, s: precision_at_k(q, y, s, k=3, return_per_query=True),
    "r@3": lambda q, y, s: recall_at_k(q, y, s, k=3, return_per_query=True),
    "rprec": lambda q, y, s: r_precision(q, y, s, return_per_query=True),
}

_IDS = {
    "small ints": lambda codes: codes,
    "negative ints": lambda codes: codes * 3 - 100,
    "wide ints": lambda codes: codes * (2**40) - 2**45,
    "uint64": lambda codes: codes.astype(np.uint64) * np.uint64(2**60),
    "strings": lambda codes: np.char.add("q", codes.astype(str)),
    "floats": lambda codes: codes * 0.5,
}


def _ranking_data(seed, equal_lengths):
    rng = np.random.default_rng(seed)
    nq = 60
    lengths = np.full(nq, 12) if equal_lengths else rng.integers(1, 20, nq)
    codes = np.repeat(np.arange(nq), lengths)
    y = rng.integers(0, 4, codes.size)
    s = np.round(rng.random(codes.size), 1)                 # heavy ties
    return codes, y, s, rng.permutation(codes.size)


@pytest.mark.parametrize("ids", sorted(_IDS))
@pytest.mark.parametrize("equal_lengths", [True, False])
def test_ranking_metrics_on_shuffled_rows_equal_grouped_rows(ids, equal_lengths):
    codes, y, s, perm = _ranking_data(len(ids) + equal_lengths, equal_lengths)
    q = _IDS[ids](codes)
    for name, metric in _METRICS.items():
        grouped, shuffled = metric(q, y, s), metric(q[perm], y[perm], s[perm])
        assert shuffled.query_ids.tolist() == grouped.query_ids.tolist(), name
        np.testing.assert_allclose(shuffled.values, grouped.values, rtol=1e-12, atol=1e-12,
                                   err_msg=name)
        assert math.isclose(shuffled.mean, grouped.mean, rel_tol=1e-12), name
    pg, ps = pairwise_errors(q, y, s), pairwise_errors(q[perm], y[perm], s[perm])
    for field in ("query_ids", "discordant", "tied", "comparable"):
        assert getattr(ps, field).tolist() == getattr(pg, field).tolist()


def test_shuffled_ndcg_equals_the_oracle():
    codes, y, s, perm = _ranking_data(11, True)
    q, y, s = codes[perm] * 7, y[perm], s[perm]
    ids, expected = per_query(ndcg_list, q, y, s, k=10, kind="exponential")
    got = ndcg_at_k(q, y, s, k=10, gain="exponential", return_per_query=True)
    assert got.query_ids.tolist() == sorted(ids)
    by_id = dict(zip(ids, expected))
    np.testing.assert_allclose(got.values, [by_id[i] for i in got.query_ids], rtol=1e-12)


def test_lambdarank_gradients_follow_the_input_rows():
    codes, y, _, perm = _ranking_data(3, False)
    # Distinct scores: LambdaRank breaks ties by input row, so only then is the result
    # independent of the row order.
    s = np.random.default_rng(4).permutation(codes.size) / codes.size
    grad, hess = lambdarank_gradients(codes, y, s)
    gs, hs = lambdarank_gradients(codes[perm], y[perm], s[perm])
    np.testing.assert_allclose(gs, grad[perm], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hs, hess[perm], rtol=1e-12, atol=1e-15)


def test_group_by_query_keeps_contiguous_rows_and_their_query_order():
    q = np.array([5, 5, 2, 2, 2, 9])
    y, s = np.arange(6), np.arange(6) * 0.5
    groups, yg, sg = group_by_query(q, y, s)
    assert groups.perm is None and yg is y and sg is s
    assert groups.ids.tolist() == [5, 2, 9] and groups.lengths.tolist() == [2, 3, 1]
    groups, yg, sg = group_by_query(q[::-1], y, s, with_perm=True)
    assert groups.perm is None                               # still contiguous
    groups, yg, sg = group_by_query(np.array([2, 5, 2]), y[:3], s[:3], with_perm=True)
    assert groups.perm.tolist() == [0, 2, 1] and groups.ids.tolist() == [2, 5]
    assert yg.tolist() == [0, 2, 1] and yg.dtype == np.uint8 and sg.tolist() == [0.0, 1.0, 0.5]


def test_query_topk_selects_each_querys_k_best_rows_in_any_order():
    """`query_topk` against a sort of each query's rows: its ``k`` smallest values, their
    gains (ties inside the cut-off as a multiset), the rows tied with the ``k``-th."""
    rng = np.random.default_rng(7)
    codes = np.repeat([0, 2, 3], [9, 6, 12])        # code 1 holds no row
    rng.shuffle(codes)
    neg = -rng.integers(0, 5, codes.size) / 4.0     # heavy ties
    g = rng.integers(0, 4, codes.size).astype(float)
    for k in (1, 3, 6):
        top, gtop, n_eq, g_eq = cg.query_topk(codes + 10, 10, 4, neg, g, k)
        for c in (0, 2, 3):
            rows = np.flatnonzero(codes == c)
            order = rows[np.argsort(neg[rows], kind="stable")]
            assert top[c].tolist() == neg[order[:k]].tolist()
            v = neg[order[k - 1]]
            above = order[neg[order] < v]
            assert sorted(gtop[c][top[c] < v].tolist()) == sorted(g[above].tolist())
            tied = rows[neg[rows] == v]
            assert n_eq[c] == tied.size and g_eq[c] == g[tied].sum()
    with pytest.raises(ValueError, match="at least k = 7"):
        cg.query_topk(codes, 0, 4, neg, g, 7)       # code 2 holds 6 rows
    with pytest.raises(ValueError, match=r"must lie in \[0, 3\)"):
        cg.query_topk(codes, 0, 3, neg, g, 1)
