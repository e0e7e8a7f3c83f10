"""Batch learning-to-rank metrics (streamrank.ranking) against per-query Python oracles,
scikit-learn, an example by hand, and metamorphic properties; the public names and the
``empty`` convention (a query without relevant documents counts as 0 by default)."""

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
    dcg_at_k, err_score, lambdarank_gradients, map_score, mrr_score, ndcg_at_k,
    pairwise_errors, precision_at_k, r_precision, recall_at_k,
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
    "ndcg": (ndcg_at_k, lambda k, g: dict(metric=O.ndcg_list, k=k, kind=g)),
    "dcg": (dcg_at_k, lambda k, g: dict(metric=O.dcg_list, k=k, kind=g)),
    "ap": (map_score, lambda k, g: dict(metric=O.ap_list, k=k)),
    "mrr": (mrr_score, lambda k, g: dict(metric=O.rr_list, k=k)),
    "p": (precision_at_k, lambda k, g: dict(metric=O.precision_list, k=k)),
    "recall": (recall_at_k, lambda k, g: dict(metric=O.recall_list, k=k)),
    "rprec": (r_precision, lambda k, g: dict(metric=O.rprec_list)),
}


#: Not passed: the function's default.
DEFAULT = object()


def call(name, q, y, s, *, k, gain, ties, empty=DEFAULT):
    func, _ = ORACLES[name]
    kw = dict(ties=ties, return_per_query=True)
    if name != "rprec":
        kw["k"] = k
    if name in ("ndcg", "dcg"):
        kw["gain"] = gain
    if name != "dcg" and empty is not DEFAULT:
        kw["empty"] = empty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)     # (empty="skip")
        return func(q, y, s, **kw)


def oracle(name, q, y, s, *, k, gain, ties, empty=DEFAULT):
    empty = 0 if empty is DEFAULT else empty            # the functions' default
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
        empty = (DEFAULT, "skip", 1, 0)[trial]
        for k in (None, 1, 3):
            for gain in ("exponential", "linear"):
                if name not in ("ndcg", "dcg") and gain == "linear":
                    continue
                res = call(name, q, y, s, k=k, gain=gain, ties=ties, empty=empty)
                ids, vals = oracle(name, q, y, s, k=k, gain=gain, ties=ties, empty=empty)
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
    y[np.isin(q, np.unique(q)[:4])] = 0             # queries without a relevant document
    res = err_score(q, y, s, k=k, ties=ties, return_per_query=True)
    ids, vals = O.err_per_query(q, y, s, k=k, ties=ties)     # NaN for those
    assert_per_query(res, ids, np.nan_to_num(vals, nan=0.0))  # 0 by default
    res = _quiet(err_score, q, y, s, k=k, ties=ties, max_grade=5, empty="skip",
                 return_per_query=True)
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
def _sk_case(seed, nq, L, *, levels=4, score_levels=4, n_empty=3):
    """Queries as the rows of (nq, L) matrices, heavy ties in scores and relevance, the
    first ``n_empty`` rows without a relevant document."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, levels, (nq, L))
    S = rng.integers(0, score_levels, (nq, L)) / score_levels     # heavy ties
    Y[:n_empty] = 0
    return np.repeat(np.arange(nq), L), Y, S, rng


@pytest.mark.parametrize("k", [None, 1, 4, 10, 12, 50])
def test_ndcg_and_dcg_defaults_equal_sklearn(k):
    """The defaults of both (gain rel, ties averaged, a query without relevant documents
    counted as 0): ``ndcg_at_k(q, y, s, k=k)`` is ``sklearn.metrics.ndcg_score(Y, S,
    k=k)``, in any row order; ``empty="skip"`` is scikit-learn on the other rows."""
    from sklearn.metrics import dcg_score as sk_dcg, ndcg_score as sk_ndcg

    q, Y, S, rng = _sk_case(3, 40, 12)
    y, s = Y.ravel(), S.ravel()
    want = sk_ndcg(Y, S, k=k)
    assert want == sk_ndcg(Y, S, k=k, ignore_ties=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # the default warns about nothing
        assert ndcg_at_k(q, y, s, k=k) == pytest.approx(want, rel=1e-12)
        assert dcg_at_k(q, y, s, k=k) == pytest.approx(sk_dcg(Y, S, k=k), rel=1e-12)
        perm = rng.permutation(q.size)                # row order does not matter
        assert ndcg_at_k(q[perm], y[perm], s[perm], k=k) == pytest.approx(want, rel=1e-12)
        assert dcg_at_k(q[perm], y[perm], s[perm], k=k) == pytest.approx(
            sk_dcg(Y, S, k=k), rel=1e-12)
        r = ndcg_at_k(q[perm], y[perm], s[perm], k=k, return_per_query=True)
    per_row = [sk_ndcg(Y[i:i + 1], S[i:i + 1], k=k) for i in range(len(Y))]
    np.testing.assert_allclose(r.values, per_row, rtol=1e-12, atol=1e-15)
    with pytest.warns(UndefinedMetricWarning, match="3 of 40 queries"):
        skipped = ndcg_at_k(q, y, s, k=k, empty="skip")
    assert skipped == pytest.approx(sk_ndcg(Y[3:], S[3:], k=k), rel=1e-12)
    assert skipped > want


@pytest.mark.parametrize("seed", range(12))
def test_ndcg_random_shapes_equal_sklearn(seed):
    """Random shapes, relevance and score levels, some queries without a relevant document
    (at random rows), cut-offs below, at and above the query length, gains linear."""
    from sklearn.metrics import dcg_score as sk_dcg, ndcg_score as sk_ndcg

    rng = np.random.default_rng(100 + seed)
    nq, L = int(rng.integers(2, 30)), int(rng.integers(2, 15))
    Y = rng.integers(0, int(rng.integers(2, 6)), (nq, L)) * (rng.random((nq, L)) < 0.4)
    Y[rng.random(nq) < 0.3] = 0
    S = rng.integers(0, int(rng.integers(1, 5)), (nq, L)) / 3.0
    q = np.repeat(rng.permutation(nq) * 5 - 7, L)   # ids in any order, negative too
    order = np.argsort(q[::L], kind="stable")        # the rows in the order of the ids
    Yo, So = Y[order], S[order]
    perm = rng.permutation(q.size)
    for k in (None, 1, int(rng.integers(1, L + 1)), L, L + 3):
        got = ndcg_at_k(q[perm], Y.ravel()[perm], S.ravel()[perm], k=k,
                        return_per_query=True)
        assert got.mean == pytest.approx(sk_ndcg(Y, S, k=k), rel=1e-12, abs=1e-15)
        want = [sk_ndcg(Yo[i:i + 1], So[i:i + 1], k=k) for i in range(nq)]
        np.testing.assert_allclose(got.values, want, rtol=1e-12, atol=1e-15)
        assert dcg_at_k(q[perm], Y.ravel()[perm], S.ravel()[perm], k=k) == pytest.approx(
            sk_dcg(Y, S, k=k), rel=1e-12, abs=1e-15)


def test_the_example_of_the_convention():
    """One empty query out of two: 0.5 of the other's NDCG by default, as scikit-learn;
    the old default (``"skip"``) gave the other's alone, now with a warning."""
    from sklearn.metrics import ndcg_score as sk_ndcg

    Y = np.array([[3, 2, 0, 1], [0, 0, 0, 0]])
    S = np.array([[0.1, 0.9, 0.5, 0.5], [0.3, 0.2, 0.2, 0.1]])
    q = np.repeat([1, 2], 4)
    assert ndcg_at_k(q, Y.ravel(), S.ravel()) == pytest.approx(sk_ndcg(Y, S), rel=1e-12)
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 queries"):
        assert ndcg_at_k(q, Y.ravel(), S.ravel(), empty="skip") == pytest.approx(
            2 * sk_ndcg(Y, S), rel=1e-12)


# ---------------------------------------------------------------- by hand
def test_relevant_documents_ranked_last_by_hand():
    """gt = {0, 1, 2}, pred = [9, 8, ..., 0]: relevant at ranks 8, 9, 10 of 10."""
    docs = np.arange(10)
    rel = np.isin(docs, [0, 1, 2]).astype(int)
    score = docs.astype(float)        # doc 9 first
    q = np.zeros(10, dtype=int)
    assert map_score(q, rel, score) == pytest.approx((1 / 8 + 2 / 9 + 3 / 10) / 3)
    assert r_precision(q, rel, score) == 0.0
    assert mrr_score(q, rel, score) == 0.125
    assert mrr_score(q, rel, score, k=10) == 0.125
    assert mrr_score(q, rel, score, k=7) == 0.0
    dcg = 1 / math.log2(9) + 1 / math.log2(10) + 1 / math.log2(11)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(q, rel, score) == pytest.approx(dcg / idcg)     # gain rel = 1
    assert ndcg_at_k(q, rel, score, gain="exponential") == pytest.approx(dcg / idcg)  # 2^1-1
    assert precision_at_k(q, rel, score, k=10) == pytest.approx(0.3)
    assert recall_at_k(q, rel, score, k=8) == pytest.approx(1 / 3)
    pe = pairwise_errors(q, rel, score)
    assert (pe.total_discordant, pe.total_wrong, pe.total_comparable) == (21, 21, 21)


# ---------------------------------------------------------------- empty queries
#: Every per-query metric with ``empty`` (DCG has none: an empty query's DCG is 0).
EMPTY_METRICS = [ndcg_at_k, map_score, mrr_score, err_score, precision_at_k, recall_at_k,
                 r_precision]


def test_empty_option_and_warning():
    q = [1, 1, 2, 2]
    y = [0, 0, 1, 0]
    s = [0.3, 0.2, 0.1, 0.9]
    v2 = 1 / math.log2(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ndcg_at_k(q, y, s) == pytest.approx(v2 / 2)          # the default: 0
        assert ndcg_at_k(q, y, s, empty=0) == pytest.approx(v2 / 2)
        assert ndcg_at_k(q, y, s, empty=1) == pytest.approx((1 + v2) / 2)
        assert ndcg_at_k(q, y, s, empty=1.0) == pytest.approx((1 + v2) / 2)
        r = map_score(q, y, s, return_per_query=True)
        assert r.values.tolist() == [0.0, 0.5] and r.mean == 0.25
        assert mrr_score([1, 1], [0, 0], [1, 2]) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 queries"):
        assert ndcg_at_k(q, y, s, empty="skip") == pytest.approx(v2)
    with pytest.warns(UndefinedMetricWarning):
        r = map_score(q, y, s, empty="skip", return_per_query=True)
    assert math.isnan(r.values[0]) and r.values[1] == 0.5 and r.mean == 0.5
    with pytest.warns(UndefinedMetricWarning, match="1 of 1 queries .* the mean is undefined"):
        assert math.isnan(mrr_score([1, 1], [0, 0], [1, 2], empty="skip"))


@pytest.mark.parametrize("func", EMPTY_METRICS)
def test_every_metric_counts_empty_queries_as_0_by_default(func):
    import inspect

    assert inspect.signature(func).parameters["empty"].default == 0
    rng = np.random.default_rng(31)
    q, y, s = random_queries(rng, 30, 8, levels=3, score_levels=4)
    ids = np.unique(q)
    empty_ids = ids[[0, 4, 5, 17, 29]]
    y[np.isin(q, empty_ids)] = 0
    n_empty = int(np.isin(ids, q[y > 0], invert=True).sum())
    assert n_empty >= 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r0 = func(q, y, s, return_per_query=True)
        r1 = func(q, y, s, empty=1, return_per_query=True)
    empty = ~np.isin(r0.query_ids, q[y > 0])
    assert empty.sum() == n_empty
    assert (r0.values[empty] == 0).all() and (r1.values[empty] == 1).all()
    np.testing.assert_array_equal(r0.values[~empty], r1.values[~empty])
    assert r0.mean == pytest.approx(r0.values.mean(), rel=1e-12)
    with pytest.warns(UndefinedMetricWarning) as rec:
        rs = func(q, y, s, empty="skip", return_per_query=True)
    assert len(rec) == 1                                  # one warning, not one per query
    msg = str(rec[0].message)
    assert msg.startswith(f"{func.__name__}: {n_empty} of {ids.size} queries have no "
                          "relevant document and were skipped (empty='skip')"), msg
    assert rec[0].filename == __file__                     # points at the caller
    assert np.isnan(rs.values[empty]).all()
    np.testing.assert_array_equal(rs.values[~empty], r0.values[~empty])
    assert rs.mean == pytest.approx(r0.values[~empty].mean(), rel=1e-12)
    # the default == the mean over every query with the empty ones at 0
    assert r0.mean == pytest.approx(rs.mean * (ids.size - n_empty) / ids.size, rel=1e-12)
    # no empty query, no warning with "skip" either
    keep = ~np.isin(q, r0.query_ids[empty])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert func(q[keep], y[keep], s[keep], empty="skip") == pytest.approx(rs.mean)


def test_old_names_are_gone():
    """No function of `streamrank.ranking` reuses a scikit-learn name with another
    signature (and the old names have no alias)."""
    import sklearn.metrics

    import streamrank
    from streamrank import ranking

    for old in ("ndcg_score", "dcg_score", "average_precision_score"):
        assert not hasattr(ranking, old), old
        assert old not in ranking.__all__
    for new in ("ndcg_at_k", "dcg_at_k", "map_score"):
        assert new in ranking.__all__ and callable(getattr(ranking, new))
    for name in ranking.__all__:
        assert not (hasattr(sklearn.metrics, name) and callable(getattr(ranking, name))
                    and name.islower()), name
    # scikit-learn's binary AP at the top level is another function, untouched
    assert streamrank.average_precision_score([0, 1, 1], [0.1, 0.9, 0.4]) == 1.0


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("func", [ndcg_at_k, dcg_at_k, map_score, mrr_score,
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
    if func is not dcg_at_k:
        with pytest.raises(ValueError, match=rf"The 'empty' parameter of {name} must be 'skip', 0 or 1"):
            func([1, 1], [1, 0], [0.5, 0.2], empty="nan")
    with pytest.raises(ValueError, match=rf"The 'query_ids' parameter of {name} must be finite"):
        func([1.0, np.nan], [1, 0], [0.5, 0.2])


def test_validation_other_options():
    with pytest.raises(ValueError, match="The 'gain' parameter of ndcg_at_k must be one of"):
        ndcg_at_k([1], [1], [1.0], gain="log")
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
METRICS = [ndcg_at_k, map_score, mrr_score, err_score, precision_at_k,
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
    for f in (ndcg_at_k, map_score, mrr_score, precision_at_k):
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
    for f in (ndcg_at_k, dcg_at_k):
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
    a = _quiet(map_score, q, y, s, k=k, return_per_query=True)
    b = _quiet(map_score, q[perm], y[perm], s[perm], k=k, return_per_query=True)
    c = _quiet(map_score, q, y, s, k=k, ties="pessimistic", return_per_query=True)
    ids, vals = O.per_query(O.ap_list, q, y, s, ties="pessimistic", k=k, empty=0)
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
            for f, ref in ((ndcg_at_k, O.ndcg_list), (dcg_at_k, O.dcg_list)):
                a = _quiet(f, q, y, s, k=k, gain=gain, return_per_query=True)
                b = _quiet(f, q[perm], y[perm], s[perm], k=k, gain=gain,
                           return_per_query=True)
                assert a.mean == b.mean and np.array_equal(a.values, b.values)
                assert np.array_equal(a.query_ids, b.query_ids)
                _, want = O.per_query(ref, q[perm], y[perm], s[perm], k=k, kind=gain,
                                      empty=0)
                np.testing.assert_allclose(b.values, np.array(want, dtype=float),
                                           rtol=1e-12, atol=1e-12)
