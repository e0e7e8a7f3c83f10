"""Batch learning-to-rank metrics (streamrank.ranking) against per-query Python oracles,
scikit-learn, an example by hand, and metamorphic properties."""

from __future__ import annotations

import math
import warnings
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ranking_oracle as O
from streamrank.exceptions import UndefinedMetricWarning
from streamrank.ranking import (
    average_precision_score, dcg_score, err_score, lambdarank_gradients, mrr_score,
    ndcg_score, pairwise_errors, precision_at_k, r_precision, recall_at_k,
)


def random_queries(rng, n_queries, max_len, *, levels=3, score_levels=3, ids="int"):
    """Shuffled rows of queries of random lengths, heavy ties in scores and relevance."""
    lens = rng.integers(1, max_len + 1, n_queries)
    q = np.repeat(np.arange(n_queries) * 7 + 3, lens)
    y = rng.integers(0, levels, q.size)
    s = rng.integers(0, score_levels, q.size) / 2.0
    perm = rng.permutation(q.size)
    q, y, s = q[perm], y[perm], s[perm]
    if ids == "str":
        q = np.array([f"q{v}" for v in q])
    return q, y, s


ORACLES = {
    "ndcg": (ndcg_score, lambda k, g: dict(metric=O.ndcg_list, k=k, kind=g)),
    "dcg": (dcg_score, lambda k, g: dict(metric=O.dcg_list, k=k, kind=g)),
    "ap": (average_precision_score, lambda k, g: dict(metric=O.ap_list, k=k)),
    "mrr": (mrr_score, lambda k, g: dict(metric=O.rr_list, k=k)),
    "p": (precision_at_k, lambda k, g: dict(metric=O.precision_list, k=k)),
    "recall": (recall_at_k, lambda k, g: dict(metric=O.recall_list, k=k)),
    "rprec": (r_precision, lambda k, g: dict(metric=O.rprec_list)),
}


def call(name, q, y, s, *, k, gain, ties, empty="skip"):
    func, _ = ORACLES[name]
    kw = dict(ties=ties, return_per_query=True)
    if name != "rprec":
        kw["k"] = k
    if name in ("ndcg", "dcg"):
        kw["gain"] = gain
    if name != "dcg":
        kw["empty"] = empty
    return func(q, y, s, **kw)


def oracle(name, q, y, s, *, k, gain, ties, empty="skip"):
    _, make = ORACLES[name]
    kw = make(k, gain)
    metric = kw.pop("metric")
    return O.per_query(metric, q, y, s, ties=ties, empty="skip" if name == "dcg" else empty, **kw)


def assert_per_query(res, ids, values):
    assert res.query_ids.tolist() == list(ids)
    np.testing.assert_allclose(res.values, values, rtol=1e-12, atol=1e-12)
    expected = [v for v in values if not math.isnan(v)]
    if expected:
        assert res.mean == pytest.approx(sum(expected) / len(expected), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
def test_against_oracle_heavy_ties(name, ties):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{ties}".encode()))  # fixed per case
    for trial in range(4):
        q, y, s = random_queries(rng, 12, 6, levels=3 if trial % 2 else 2, score_levels=2 + trial)
        for k in (None, 1, 3):
            for gain in ("exponential", "linear"):
                if name not in ("ndcg", "dcg") and gain == "linear":
                    continue
                res = call(name, q, y, s, k=k, gain=gain, ties=ties)
                ids, vals = oracle(name, q, y, s, k=k, gain=gain, ties=ties)
                assert_per_query(res, ids, vals)


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_broken_ties_long_queries(ties):
    rng = np.random.default_rng(11)
    q, y, s = random_queries(rng, 25, 40, levels=5, score_levels=6, ids="str")
    for name in sorted(ORACLES):
        for k in (None, 5, 17):
            res = call(name, q, y, s, k=k, gain="exponential", ties=ties)
            ids, vals = oracle(name, q, y, s, k=k, gain="exponential", ties=ties)
            assert_per_query(res, ids, vals)


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
@pytest.mark.parametrize("k", [None, 2, 5])
def test_err_oracle(ties, k):
    rng = np.random.default_rng(5)
    q, y, s = random_queries(rng, 30, 9, levels=4, score_levels=3)
    res = err_score(q, y, s, k=k, ties=ties, return_per_query=True)
    ids, vals = O.err_per_query(q, y, s, k=k, ties=ties)
    assert_per_query(res, ids, vals)
    res = err_score(q, y, s, k=k, ties=ties, max_grade=5, return_per_query=True)
    ids, vals = O.err_per_query(q, y, s, k=k, ties=ties, max_grade=5)
    assert_per_query(res, ids, vals)


def test_err_no_ties_equals_every_tie_rule():
    rng = np.random.default_rng(2)
    q = np.repeat(np.arange(20), 8)
    y = rng.integers(0, 4, q.size)
    s = rng.permutation(q.size).astype(float)
    vals = {t: err_score(q, y, s, ties=t) for t in ("average", "pessimistic", "optimistic")}
    assert vals["average"] == pytest.approx(vals["pessimistic"]) == pytest.approx(vals["optimistic"])


# ---------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("k", [None, 1, 4, 10])
def test_ndcg_matches_sklearn(k):
    from sklearn.metrics import dcg_score as sk_dcg, ndcg_score as sk_ndcg

    rng = np.random.default_rng(3)
    nq, L = 40, 12
    Y = rng.integers(0, 4, (nq, L))
    S = rng.integers(0, 4, (nq, L)).astype(float)   # heavy ties
    Y[0] = 0                                          # sklearn counts IDCG = 0 as 0
    q = np.repeat(np.arange(nq), L)
    # the defaults of both (the gain rel, ties averaged), but for the empty query
    ours = ndcg_score(q, Y.ravel(), S.ravel(), k=k, empty=0)
    assert ours == pytest.approx(sk_ndcg(Y, S, k=k), rel=1e-12)
    assert ours == pytest.approx(sk_ndcg(Y, S, k=k, ignore_ties=False), rel=1e-12)
    ours = dcg_score(q, Y.ravel(), S.ravel(), k=k)
    assert ours == pytest.approx(sk_dcg(Y, S, k=k), rel=1e-12)
    # row order does not matter
    perm = rng.permutation(q.size)
    ours = ndcg_score(q[perm], Y.ravel()[perm], S.ravel()[perm], k=k, empty=0)
    assert ours == pytest.approx(sk_ndcg(Y, S, k=k), rel=1e-12)
    # without the empty query, the default empty="skip" too
    assert ndcg_score(q[L:], Y[1:].ravel(), S[1:].ravel(), k=k) == pytest.approx(
        sk_ndcg(Y[1:], S[1:], k=k), rel=1e-12)


# ---------------------------------------------------------------- by hand
def test_relevant_documents_ranked_last_by_hand():
    """gt = {0, 1, 2}, pred = [9, 8, ..., 0]: relevant at ranks 8, 9, 10 of 10."""
    docs = np.arange(10)
    rel = np.isin(docs, [0, 1, 2]).astype(int)
    score = docs.astype(float)        # doc 9 first
    q = np.zeros(10, dtype=int)
    assert average_precision_score(q, rel, score) == pytest.approx((1 / 8 + 2 / 9 + 3 / 10) / 3)
    assert r_precision(q, rel, score) == 0.0
    assert mrr_score(q, rel, score) == 0.125
    assert mrr_score(q, rel, score, k=10) == 0.125
    assert mrr_score(q, rel, score, k=7) == 0.0
    dcg = 1 / math.log2(9) + 1 / math.log2(10) + 1 / math.log2(11)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_score(q, rel, score) == pytest.approx(dcg / idcg)     # gain rel = 1
    assert ndcg_score(q, rel, score, gain="exponential") == pytest.approx(dcg / idcg)  # 2^1-1
    assert precision_at_k(q, rel, score, k=10) == pytest.approx(0.3)
    assert recall_at_k(q, rel, score, k=8) == pytest.approx(1 / 3)
    pe = pairwise_errors(q, rel, score)
    assert (pe.total_discordant, pe.total_wrong, pe.total_comparable) == (21, 21, 21)


# ---------------------------------------------------------------- empty queries
def test_empty_option_and_warning():
    q = [1, 1, 2, 2]
    y = [0, 0, 1, 0]
    s = [0.3, 0.2, 0.1, 0.9]
    v2 = 1 / math.log2(3)
    assert ndcg_score(q, y, s) == pytest.approx(v2)
    assert ndcg_score(q, y, s, empty=0) == pytest.approx(v2 / 2)
    assert ndcg_score(q, y, s, empty=1) == pytest.approx((1 + v2) / 2)
    r = average_precision_score(q, y, s, return_per_query=True)
    assert math.isnan(r.values[0]) and r.values[1] == 0.5
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(mrr_score([1, 1], [0, 0], [1, 2]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mrr_score([1, 1], [0, 0], [1, 2], empty=0) == 0.0


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("func", [ndcg_score, dcg_score, average_precision_score, mrr_score,
                                  err_score, precision_at_k, recall_at_k])
def test_validation_messages(func):
    name = func.__name__
    with pytest.raises(ValueError, match=rf"The 'y_score' parameter of {name} must be finite"):
        func([1, 1], [1, 0], [0.5, np.nan])
    with pytest.raises(ValueError, match=rf"The 'y_true' parameter of {name} must be graded relevance >= 0"):
        func([1, 1], [1, -1], [0.5, 0.2])
    with pytest.raises(ValueError, match=rf"The 'y_true' parameter of {name} must be finite"):
        func([1, 1], [1, np.nan], [0.5, 0.2])
    with pytest.raises(ValueError, match=rf"parameter of {name} must be the same length"):
        func([1, 1, 1], [1, 0], [0.5, 0.2])
    with pytest.raises(ValueError, match=rf"The 'k' parameter of {name} must be an int >= 1 or None. Got 0 instead."):
        func([1, 1], [1, 0], [0.5, 0.2], k=0)
    with pytest.raises(ValueError, match=rf"The 'k' parameter of {name} must be an int"):
        func([1, 1], [1, 0], [0.5, 0.2], k=2.5)
    with pytest.raises(ValueError, match=rf"The 'ties' parameter of {name} must be one of"):
        func([1, 1], [1, 0], [0.5, 0.2], ties="first")
    if func is not dcg_score:
        with pytest.raises(ValueError, match=rf"The 'empty' parameter of {name} must be 'skip', 0 or 1"):
            func([1, 1], [1, 0], [0.5, 0.2], empty="nan")
    with pytest.raises(ValueError, match=rf"The 'query_ids' parameter of {name} must be finite"):
        func([1.0, np.nan], [1, 0], [0.5, 0.2])


def test_validation_other_options():
    with pytest.raises(ValueError, match="The 'gain' parameter of ndcg_score must be one of"):
        ndcg_score([1], [1], [1.0], gain="log")
    with pytest.raises(ValueError, match="The 'max_grade' parameter of err_score must be a number >= max"):
        err_score([1, 1], [3, 0], [1.0, 2.0], max_grade=2)
    with pytest.raises(ValueError, match="The 'sigma' parameter of lambdarank_gradients must be a finite number > 0"):
        lambdarank_gradients([1], [1], [1.0], sigma=0)
    with pytest.raises(ValueError, match="The 'y_true' parameter of pairwise_errors must be a non-empty"):
        pairwise_errors([], [], [])


# ---------------------------------------------------------------- pairwise errors
@pytest.mark.parametrize("levels", [2, 5, 200])
def test_pairwise_errors_against_pair_loop(levels):
    rng = np.random.default_rng(levels)
    q, y, s = random_queries(rng, 30, 25, levels=levels, score_levels=5)
    if levels == 200:
        y = y + rng.random(y.size)   # continuous relevance: the block path
    pe = pairwise_errors(q, y, s)
    brute = O.pairwise_brute(q, y, s)
    assert pe.query_ids.tolist() == list(brute)
    assert list(zip(pe.discordant.tolist(), pe.tied.tolist(), pe.comparable.tolist())) == list(brute.values())
    assert pe.total_wrong == sum(d + t for d, t, _ in brute.values())
    assert isinstance(pe.total_discordant, int)


def test_pairwise_errors_one_query_equals_pair_counts():
    from streamrank import pair_counts

    rng = np.random.default_rng(9)
    y = rng.integers(0, 4, 500)
    s = rng.integers(0, 30, 500)
    pe = pairwise_errors(np.zeros(500), y, s)
    pc = pair_counts(y, s)
    assert (pe.total_discordant, int(pe.tied[0]), pe.total_comparable) == (
        pc.discordant, pc.tied_score, pc.comparable)


# ---------------------------------------------------------------- lambdarank
@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("sigma", [1.0, 2.5])
def test_lambdarank_against_pair_loop(k, sigma):
    rng = np.random.default_rng(17)
    q, y, s = random_queries(rng, 20, 20, levels=4, score_levels=10)
    s = s + rng.normal(size=s.size)
    m = s[1::5].size
    s[: 5 * m: 5] = s[1::5]                                      # some exact ties
    grad, hess = lambdarank_gradients(q, y, s, sigma=sigma, k=k)
    g_ref, h_ref = O.lambdarank_brute(q, y, s, sigma=sigma, k=k)
    np.testing.assert_allclose(grad, g_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hess, h_ref, rtol=1e-10, atol=1e-12)
    # per query the gradients sum to zero (every pair pushes both ends equally)
    for qq in np.unique(q):
        assert abs(grad[q == qq].sum()) < 1e-10
    assert (hess >= 0).all()


# ---------------------------------------------------------------- properties
METRICS = [ndcg_score, average_precision_score, mrr_score, err_score, precision_at_k,
           recall_at_k, r_precision]


@st.composite
def ranking_data(draw):
    n = draw(st.integers(1, 40))
    q = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    s = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    return np.array(q), np.array(y), np.array(s, dtype=float)


def _quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return f(*a, **kw)


@given(ranking_data(), st.randoms(use_true_random=False))
def test_row_permutation_invariance(data, rnd):
    q, y, s = data
    perm = np.array(rnd.sample(range(q.size), q.size))
    for f in METRICS:
        a = _quiet(f, q, y, s, return_per_query=True)
        b = _quiet(f, q[perm], y[perm], s[perm], return_per_query=True)
        np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)
    pa, pb = pairwise_errors(q, y, s), pairwise_errors(q[perm], y[perm], s[perm])
    assert pa.discordant.tolist() == pb.discordant.tolist() and pa.tied.tolist() == pb.tied.tolist()


@given(ranking_data())
def test_monotone_transform_invariance(data):
    q, y, s = data
    t = np.exp(s) * 3 + 1  # strictly increasing: ties stay ties
    for f in METRICS:
        a = _quiet(f, q, y, s, return_per_query=True)
        b = _quiet(f, q, y, t, return_per_query=True)
        np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)


@given(ranking_data())
def test_tie_average_between_pessimistic_and_optimistic(data):
    q, y, s = data
    for f in (ndcg_score, average_precision_score, mrr_score, precision_at_k):
        lo = _quiet(f, q, y, s, ties="pessimistic", return_per_query=True).values
        mid = _quiet(f, q, y, s, return_per_query=True).values
        hi = _quiet(f, q, y, s, ties="optimistic", return_per_query=True).values
        ok = ~np.isnan(mid)
        assert (lo[ok] <= mid[ok] + 1e-12).all() and (mid[ok] <= hi[ok] + 1e-12).all()


def test_equal_length_fast_path_equals_general_path():
    rng = np.random.default_rng(4)
    nq, L = 50, 16
    q = np.repeat(np.arange(nq), L)
    y = rng.integers(0, 5, q.size)
    s = rng.integers(0, 5, q.size).astype(float)
    # contiguous equal-length rows take the reshape path; a shuffle takes the lexsort path
    perm = rng.permutation(q.size)
    for ties in ("average", "pessimistic", "optimistic"):
        for f in METRICS:
            a = _quiet(f, q, y, s, ties=ties, return_per_query=True)
            b = _quiet(f, q[perm], y[perm], s[perm], ties=ties, return_per_query=True)
            np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("score_levels", [2, 7, 10**6])
def test_dense_topk_path_equals_sorted_path(score_levels):
    rng = np.random.default_rng(score_levels)
    nq, L = 60, 9
    q = np.repeat(np.arange(nq) * 2, L)
    y = rng.integers(0, 4, q.size)
    s = rng.integers(0, score_levels, q.size) / 3.0
    perm = rng.permutation(q.size)
    for f in (ndcg_score, dcg_score):
        for k in range(1, L + 2):
            for gain in ("exponential", "linear"):
                a = _quiet(f, q, y, s, k=k, gain=gain, return_per_query=True)      # top-k
                b = _quiet(f, q[perm], y[perm], s[perm], k=k, gain=gain, return_per_query=True)
                np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [None, 1, 5, 30])
def test_dense_ap_path_equals_sorted_path(k):
    rng = np.random.default_rng(21)
    nq, L = 50, 12
    q = np.repeat(np.arange(nq), L)
    y = rng.integers(0, 3, q.size)
    s = rng.permutation(q.size).astype(float)       # no ties: the dense row-wise path
    perm = rng.permutation(q.size)
    a = _quiet(average_precision_score, q, y, s, k=k, return_per_query=True)
    b = _quiet(average_precision_score, q[perm], y[perm], s[perm], k=k, return_per_query=True)
    c = _quiet(average_precision_score, q, y, s, k=k, ties="pessimistic", return_per_query=True)
    ids, vals = O.per_query(O.ap_list, q, y, s, ties="pessimistic", k=k)
    for r in (a, b, c):
        np.testing.assert_allclose(r.values, vals, rtol=1e-12, atol=1e-12)


def test_every_public_ranking_function_carries_its_docstring_and_example():
    """`help()` shows every function's text and the suite runs its example (docstrings
    built as expressions used to leave ``__doc__`` None)."""
    import inspect

    import streamrank.ranking as ranking
    for name in ranking.__all__:
        obj = getattr(ranking, name)
        if inspect.isfunction(obj):
            assert obj.__doc__ and ">>>" in obj.__doc__, name
            assert "{parameters}" not in obj.__doc__, name


@pytest.mark.parametrize("ids", ["int", "str"])
def test_shuffled_rows_take_the_top_k_heaps_and_equal_the_grouped_rows_bit_for_bit(ids):
    """Rows of equal-length queries in any order are not grouped for NDCG@k / DCG@k: the
    compiled per-query heaps (`query_topk`) select each query's ``k`` best. With distinct
    scores that gives the grouped rows' numbers bit for bit; each equals the oracle's."""
    rng = np.random.default_rng(24)
    nq, L = 40, 12
    q = np.repeat(np.arange(nq) * 3 + 1, L)         # ids missing inside their span
    if ids == "str":
        q = np.array([f"q{v:03d}" for v in q])
    y = rng.integers(0, 4, q.size)
    s = rng.permutation(q.size) / 7.0
    perm = rng.permutation(q.size)
    for k in (1, 5, L - 1):
        for gain in ("linear", "exponential"):
            for f, ref in ((ndcg_score, O.ndcg_list), (dcg_score, O.dcg_list)):
                a = _quiet(f, q, y, s, k=k, gain=gain, return_per_query=True)
                b = _quiet(f, q[perm], y[perm], s[perm], k=k, gain=gain,
                           return_per_query=True)
                assert a.mean == b.mean and np.array_equal(a.values, b.values)
                assert np.array_equal(a.query_ids, b.query_ids)
                _, want = O.per_query(ref, q[perm], y[perm], s[perm], k=k, kind=gain)
                np.testing.assert_allclose(b.values, np.array(want, dtype=float),
                                           rtol=1e-12, atol=1e-12)
