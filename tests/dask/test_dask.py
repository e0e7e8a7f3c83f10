"""streamrank.dask against the numpy core, on a distributed LocalCluster (in-process workers).

Every result must equal the numpy one exactly (Python ints with unit weights; float sums to
1e-9 relative with weights), whatever the partitioning: more ranges than distinct scores,
ranges that hold one repeated score, ties across range boundaries, all label kinds.
"""

import math
import warnings

import numpy as np
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import streamrank as sr  # noqa: E402
from streamrank import dask as sd  # noqa: E402
from streamrank.dask._count import (_combine, _cross_between_ranges, _Ends,  # noqa: E402
                                    _Plan, _XSummary, _ZSummary)
from streamrank.dask._pairs import _assemble_pairs  # noqa: E402
from streamrank.dask._partition import _quantile_bounds  # noqa: E402
from streamrank.dask._rows import _to_rows  # noqa: E402
from streamrank.dask._spec import _Spec  # noqa: E402
from streamrank.exceptions import UndefinedMetricWarning  # noqa: E402

FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both", "n",
          "weight_sum", "n_label_levels", "n_score_levels")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def _labels(kind, n, rng):
    if kind == "binary":
        return rng.integers(0, 2, n)
    if kind == "bool":
        return rng.random(n) < 0.3
    if kind == "ordinal":
        return rng.integers(0, 5, n)
    if kind == "many_levels":  # > MAX_HIST_LEVELS: second shuffle, with heavy label ties
        return rng.integers(0, 150, n)
    return rng.normal(size=n)  # continuous


def _assert_same(got, ref, weighted):
    got._check()
    if not weighted:
        assert got == ref
        assert all(type(getattr(got, f)) is int for f in FIELDS)
    else:
        for f in FIELDS:
            assert getattr(got, f) == pytest.approx(getattr(ref, f), rel=1e-9, abs=1e-9), f


@pytest.mark.parametrize("kind", ["binary", "bool", "ordinal", "many_levels", "continuous"])
@pytest.mark.parametrize("weighted", [False, True])
def test_pair_counts_arrays_heavy_ties(client, kind, weighted):
    rng = np.random.default_rng([7, len(kind), weighted])
    n = 3000
    y = _labels(kind, n, rng)
    s = rng.integers(0, 6, n).astype(float)  # 6 distinct scores, ~500 rows each
    w = rng.integers(0, 4, n).astype(float) if weighted else None  # zeros included
    ref = sr.pair_counts(y, s, sample_weight=w)
    dy, ds = da.from_array(y, chunks=700), da.from_array(s, chunks=700)
    dw = None if w is None else da.from_array(w, chunks=700)
    for nparts in (1, 3, 17):  # 17 ranges > 6 distinct scores
        got = sd.pair_counts(dy, ds, sample_weight=dw, npartitions=nparts)
        _assert_same(got, ref, weighted)


@pytest.mark.parametrize("kind", ["binary", "ordinal", "continuous"])
def test_pair_counts_continuous_scores(client, kind):
    rng = np.random.default_rng(11)
    n = 2500
    y = _labels(kind, n, rng)
    s = np.round(rng.normal(size=n), 2)  # ~500 distinct scores, some ties
    ref = sr.pair_counts(y, s)
    got = sd.pair_counts(da.from_array(y, chunks=400), da.from_array(s, chunks=400),
                         npartitions=9)
    _assert_same(got, ref, False)


def test_one_score_over_many_ranges(client):
    # 90% of the rows share one score: it spreads over most ranges (the key is
    # (score, label, row id)), each of which then holds that one repeated score.
    rng = np.random.default_rng(3)
    n = 2000
    s = np.where(rng.random(n) < 0.9, 0.5, rng.random(n))
    for y in (rng.integers(0, 2, n), rng.integers(0, 4, n), rng.normal(size=n).round(1)):
        ref = sr.pair_counts(y, s)
        got = sd.pair_counts(da.from_array(y, chunks=300), da.from_array(s, chunks=300),
                             npartitions=12)
        _assert_same(got, ref, False)
    # The boundaries really cut through the heavy score.
    rows, _ = _to_rows({"y": y, "s": s, "w": None}, _Spec("t", "pairs", {}, False), 0)
    bounds = _quantile_bounds(rows.xcols + [rows.z, rows.rid.materialize()], np.ones(n), 12)
    assert (bounds[0] == 0.5).sum() >= 8


def test_dataframe_metrics(client):
    rng = np.random.default_rng(5)
    n = 4000
    df = pd.DataFrame({"y": rng.integers(0, 2, n), "s": rng.integers(0, 40, n) / 40,
                       "w": rng.random(n), "r": rng.normal(size=n)})
    ddf = dd.from_pandas(df, npartitions=5)
    y, s, w = df["y"].to_numpy(), df["s"].to_numpy(), df["w"].to_numpy()
    assert sd.pair_counts(ddf, label="y", score="s") == sr.pair_counts(y, s)
    assert sd.roc_auc_score(ddf, label="y", score="s") == sr.roc_auc_score(y, s)
    assert sd.roc_auc_score(ddf, label="y", score="s", weight="w") == pytest.approx(
        sr.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    assert sd.roc_auc_score(ddf, label="y", score="s", pos_label=0) == pytest.approx(
        1 - sr.roc_auc_score(y, s), rel=1e-12)
    for variant in "abc":
        assert sd.kendall_tau(ddf, label="r", score="s", variant=variant) == sr.kendall_tau(
            df["r"].to_numpy(), s, variant=variant)


def test_concordance_index(client):
    rng = np.random.default_rng(9)
    n = 3000
    t = rng.integers(0, 50, n).astype(float)
    e = rng.random(n) < 0.6
    w = rng.integers(0, 3, n).astype(float)
    for s in (rng.integers(0, 10, n).astype(float), np.round(rng.normal(size=n), 2)):
        ref = sr.concordance_index(t, s, e)
        args = [da.from_array(x, chunks=600) for x in (t, s, e)]
        assert sd.concordance_index(*args, npartitions=7) == ref
        assert sd.concordance_index(*args, sample_weight=da.from_array(w, chunks=600),
                                    npartitions=4) == pytest.approx(
            sr.concordance_index(t, s, e, sample_weight=w), rel=1e-12)
    ddf = dd.from_pandas(pd.DataFrame({"t": t, "s": s, "e": e.astype(int)}), npartitions=3)
    assert sd.concordance_index(ddf, time="t", score="s", event="e") == ref
    assert sd.concordance_index(ddf, time="t", score="s") == sr.concordance_index(t, s)


def test_group_auc(client):
    rng = np.random.default_rng(4)
    n = 5000
    g = rng.integers(0, 300, n).astype(str)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 5, n) / 5
    w = rng.random(n)
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "s": s, "g": g, "w": w}), npartitions=4)
    for weighting in ("impressions", "pairs", "uniform"):
        ref = sr.group_auc_score(y, s, g, weighting=weighting, return_details=True)
        got = sd.group_auc_score(ddf, label="y", score="s", group="g", weighting=weighting,
                                 return_details=True, npartitions=6)
        assert got.score == ref.score
        assert (got.n_groups, got.n_skipped) == (ref.n_groups, ref.n_skipped)
        np.testing.assert_array_equal(got.groups, ref.groups)
        np.testing.assert_array_equal(got.group_scores, ref.group_scores)
    got = sd.group_auc_score(da.from_array(y, chunks=1000), da.from_array(s, chunks=1000),
                             da.from_array(g, chunks=1000), sample_weight=da.from_array(w, chunks=1000))
    assert got == pytest.approx(sr.group_auc_score(y, s, g, sample_weight=w), rel=1e-12)


def test_ranking_metrics(client):
    ranking = pytest.importorskip("streamrank.ranking")
    rng = np.random.default_rng(8)
    n = 4000
    q = rng.integers(0, 200, n)
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    y[q < 7] = 0                                    # queries without a relevant document
    n_empty = int(np.isin(np.unique(q), q[y > 0], invert=True).sum())
    assert n_empty >= 7
    s = rng.integers(0, 10, n) / 10
    ddf = dd.from_pandas(pd.DataFrame({"q": q, "y": y, "s": s}), npartitions=4)
    assert not hasattr(sd, "ndcg_score") and not hasattr(sd, "average_precision_score")
    for name, kw in (("ndcg_at_k", dict(k=5, gain="linear")),
                     ("ndcg_at_k", dict(gain="exponential")),
                     ("ndcg_at_k", dict(k=3, empty=1)),
                     ("map_score", {}),
                     ("map_score", dict(k=4))):
        ref = getattr(ranking, name)(q, y, s, return_per_query=True, **kw)
        got = getattr(sd, name)(ddf, query="q", label="y", score="s", return_per_query=True,
                                npartitions=5, **kw)
        assert got.mean == pytest.approx(ref.mean, rel=1e-12)
        np.testing.assert_array_equal(got.query_ids, ref.query_ids)
        np.testing.assert_allclose(got.values, ref.values, rtol=1e-12)
        assert not np.isnan(got.values).any()       # empty queries count (0 by default)
        arrays = [da.from_array(x, chunks=1000) for x in (q, y, s)]
        assert getattr(sd, name)(*arrays, **kw) == pytest.approx(ref.mean, rel=1e-12)
        # empty="skip": one warning on the client, with the count over all buckets
        with pytest.warns(UndefinedMetricWarning) as rec:
            skipped = getattr(sd, name)(*arrays, **{**kw, "empty": "skip"})
        assert len(rec) == 1
        assert f"{n_empty} of {ref.values.size} queries" in str(rec[0].message)
        with pytest.warns(UndefinedMetricWarning):
            want = getattr(ranking, name)(q, y, s, **{**kw, "empty": "skip"})
        assert skipped == pytest.approx(want, rel=1e-12)
        assert (skipped > ref.mean) if kw.get("empty", 0) == 0 else (skipped < ref.mean)


@pytest.mark.parametrize("default", ["exponential", "linear"])
def test_ndcg_default_gain_follows_ranking(monkeypatch, default):
    """With default arguments the dask NDCG is the ranking NDCG, whatever gain the ranking
    function defaults to: the dask function does not hold a default of its own."""
    import inspect

    from streamrank import ranking

    assert inspect.signature(sd.ndcg_at_k).parameters["gain"].default is None
    assert inspect.signature(sd.evaluate_file).parameters["gain"].default is None
    for name in ("ndcg_at_k", "map_score"):         # the same default empty: 0
        assert inspect.signature(getattr(sd, name)).parameters["empty"].default == \
            inspect.signature(getattr(ranking, name)).parameters["empty"].default == 0
    monkeypatch.setitem(ranking.ndcg_at_k.__kwdefaults__, "gain", default)
    rng = np.random.default_rng(12)
    n = 600
    q, y, s = rng.integers(0, 30, n), rng.integers(0, 4, n), rng.integers(0, 8, n) / 8
    ref = ranking.ndcg_at_k(q, y, s, return_per_query=True)
    assert ref.mean == ranking.ndcg_at_k(q, y, s, gain=default)
    assert ref.mean != pytest.approx(ranking.ndcg_at_k(
        q, y, s, gain={"exponential": "linear", "linear": "exponential"}[default]))
    got = sd.ndcg_at_k(*[da.from_array(x, chunks=200) for x in (q, y, s)],
                       return_per_query=True, npartitions=3, scheduler="sync")
    assert got.mean == pytest.approx(ref.mean, rel=1e-12)
    np.testing.assert_allclose(got.values, ref.values, rtol=1e-12)


def test_shared_checks(client):
    """Weights, events and the binary labels go through `streamrank._validation`: the
    messages of the numpy functions, naming the input partition."""
    y = da.from_array(np.array([0, 1, 0, 1]), chunks=2)
    s = da.from_array(np.array([0.1, 0.2, 0.3, 0.4]), chunks=2)
    w = np.array([1.0, 1.0, -2.0, 1.0])
    with pytest.raises(ValueError) as ref:  # the numpy message on the second partition
        sr.pair_counts([0, 1], [0.3, 0.4], sample_weight=w[2:])
    assert "The 'sample_weight' parameter of pair_counts must be non-negative" in str(ref.value)
    with pytest.raises(ValueError) as got:
        sd.pair_counts(y, s, sample_weight=da.from_array(w, chunks=2))
    assert str(got.value) == f"{ref.value} (input partition 1)"
    e = da.from_array(np.array([1, 0, 2, 1]), chunks=2)
    with pytest.raises(ValueError, match=r"The 'event_observed' parameter of "
                                         r"concordance_index must be 0/1 or booleans"):
        sd.concordance_index(s, s, e)
    three = da.from_array(np.array([0, 1, 2, 1]), chunks=2)
    g = da.from_array(np.array([1, 1, 2, 2]), chunks=2)
    for fn, args in ((sd.roc_auc_score, (three, s)), (sd.group_auc_score, (three, s, g))):
        with pytest.raises(ValueError, match=r"The 'y_true' parameter of \w+ must be binary "
                                             r"\(two distinct values\). Got more than two "
                                             r"distinct values: \[0, 1, 2\] instead."):
            fn(*args)
    with pytest.raises(ValueError, match="The 'npartitions' parameter of group_auc_score"):
        sd.group_auc_score(y, s, g, npartitions=0)


def test_evaluate_file_parquet_and_csv(client, tmp_path):
    rng = np.random.default_rng(2)
    n = 3000
    df = pd.DataFrame({"label": rng.integers(0, 2, n), "score": rng.integers(0, 30, n) / 30,
                       "user": rng.integers(0, 50, n)})
    df.to_parquet(tmp_path / "d.parquet", row_group_size=700)
    df.to_csv(tmp_path / "d.csv", index=False)
    ref = sr.pair_counts(df["label"].to_numpy(), df["score"].to_numpy()).as_dict()
    gref = sr.group_auc_score(df["label"], df["score"], df["user"])
    for name in ("d.parquet", "d.csv"):
        out = sd.evaluate_file(str(tmp_path / name), label="label", score="score",
                               group="user", scheduler=client, blocksize=20_000)
        for k, v in ref.items():
            assert out[k] == v or (math.isnan(v) and math.isnan(out[k])), k
        assert out["group_auc"] == gref


def test_evaluate_file_query_time_pos_label_and_text_formats(client, tmp_path):
    """The evaluations `streamrank eval --dask` routes here: ranking metrics per query, the
    censored C-index with its counts, one label against the rest; TSV and JSON lines."""
    from streamrank import ranking as rk
    from streamrank.batch.survival import censored_counts

    rng = np.random.default_rng(5)
    n = 2000
    df = pd.DataFrame({"q": rng.integers(0, 40, n), "rel": rng.integers(0, 4, n),
                       "s": rng.integers(0, 25, n) / 25, "t": rng.integers(1, 50, n),
                       "e": rng.integers(0, 2, n)})
    df.loc[df["q"] < 4, "rel"] = 0                   # queries without a relevant document
    n_empty = int(df.loc[df["q"] < 4, "q"].nunique())
    df.to_csv(tmp_path / "d.tsv", index=False, sep="\t")
    (tmp_path / "d.jsonl").write_text(df.to_json(orient="records", lines=True))
    df.to_parquet(tmp_path / "d.parquet", row_group_size=300)
    q, y, s = df["q"].to_numpy(), df["rel"].to_numpy(), df["s"].to_numpy()
    t, e = df["t"].to_numpy(), df["e"].to_numpy().astype(bool)
    P, D, T = censored_counts(t.astype(float), s, e, None)
    for name in ("d.tsv", "d.jsonl", "d.parquet"):
        path = str(tmp_path / name)
        out = sd.evaluate_file(path, query="q", label="rel", score="s", k=5,
                               gain=rk.DEFAULT_GAIN, scheduler=client)
        nd = rk.ndcg_at_k(q, y, s, k=5, return_per_query=True)      # the default gain
        assert out["n"] == n and out["queries"] == nd.values.size
        assert out["queries_without_relevant"] == n_empty > 0
        assert out["ndcg"] == pytest.approx(nd.mean, rel=1e-12)     # empty ones as 0
        assert out["map"] == pytest.approx(rk.map_score(q, y, s, k=5), rel=1e-12)
        out = sd.evaluate_file(path, time="t", event="e", score="s", scheduler=client)
        assert (out["comparable"], out["discordant"], out["tied_score"]) == (P, D, T)
        assert out["c_index"] == sr.concordance_index(t, s, e)
        out = sd.evaluate_file(path, label="rel", score="s", pos_label=3, scheduler=client)
        ref = sr.pair_counts(y == 3, s)
        assert out["concordant"] == ref.concordant and out["auc"] == ref.auc
        assert out["label_levels"] == 2
    with pytest.raises(ValueError, match="'time' parameter of evaluate_file"):
        sd.evaluate_file(path, time="t", label="rel", score="s")
    with pytest.raises(TypeError, match="'label' parameter of evaluate_file"):
        sd.evaluate_file(path, score="s")


def test_degenerate_inputs(client):
    one = da.from_array(np.zeros(10, dtype=int), chunks=3)
    s = da.from_array(np.arange(10.0), chunks=3)
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(sd.roc_auc_score(one, s))
    zero_w = da.from_array(np.zeros(10), chunks=3)
    got = sd.pair_counts(da.from_array(np.arange(10) % 2, chunks=3), s, sample_weight=zero_w)
    assert got == sr.pair_counts(np.arange(10) % 2, np.arange(10.0), sample_weight=np.zeros(10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert math.isnan(sd.concordance_index(s, s, da.zeros(10, chunks=3)))


def test_errors(client):
    y = da.from_array(np.array([0, 1, 2, 1]), chunks=2)
    s = da.from_array(np.array([0.1, 0.2, np.nan, 0.4]), chunks=2)
    with pytest.raises(ValueError, match="The 'y_score' parameter of pair_counts must be "
                                         "finite numbers. Got .*nan.* at index 0 .*"
                                         r"\(input partition 1\)"):
        sd.pair_counts(y, s)
    with pytest.raises(ValueError, match="The 'y_true' parameter of roc_auc_score must be "
                                         "binary"):
        sd.roc_auc_score(y, da.from_array(np.arange(4.0), chunks=2))
    ddf = dd.from_pandas(pd.DataFrame({"y": [0, 1], "s": [0.1, 0.2]}), npartitions=1)
    with pytest.raises(KeyError, match="no column 'score'"):
        sd.pair_counts(ddf, label="y", score="score")
    with pytest.raises(TypeError, match="The 'score' parameter of pair_counts"):
        sd.pair_counts(ddf, label="y")
    with pytest.raises(ValueError, match="The 'variant' parameter of kendall_tau"):
        sd.kendall_tau(ddf, label="y", score="s", variant="d")


# ------------------------------------------------------------------ beyond 2**63 pairs
def _bucket(counts, n_x, hist, x_ends, xz_ends):
    total = sum(hist)
    return _XSummary(counts, n_x, total, total, x_ends, xz_ends, hist, hist)


def _ends(first, first_w, last, last_w):
    return _Ends(first, first_w, first_w, last, last_w, last_w)


def test_combiner_exact_past_int64():
    """Synthetic range summaries of 2**40 rows each: totals near 2**83 stay exact."""
    N = 2**40
    pairs = N * (N - 1) // 2
    spec = _Spec("pair_counts", "pairs", {"y": "y", "s": "s", "w": None}, False)

    # Range 0: N negatives at score 1; range 1: N positives at score 1, then N negatives and
    # N positives at score 2 (range 2: all at score 2, positives). The score-1 run crosses
    # the first boundary, the score-2 run (and the (2, positive) run) the second.
    b0 = _bucket((0, 0, 0, pairs, pairs), 1, [N, 0], _ends((1.0,), N, (1.0,), N),
                 _ends((1.0, 0), N, (1.0, 0), N))
    # inside range 1: pos@1 vs neg@2 discordant N^2, pos@1 vs pos@2 Ty N^2,
    # neg@2 vs pos@2 tied N^2.
    b1 = _bucket((0, N * N, N * N, 3 * pairs + N * N, 3 * pairs), 2, [N, 2 * N],
                 _ends((1.0,), N, (2.0,), 2 * N), _ends((1.0, 1), N, (2.0, 1), N))
    b2 = _bucket((0, 0, 0, pairs, pairs), 1, [0, N], _ends((2.0,), N, (2.0,), N),
                 _ends((2.0, 1), N, (2.0, 1), N))
    plan = _Plan(spec, [], 3, levels=np.array([0, 1]), exact=True)
    tot = _combine([b0, b1, None, b2], None, plan)  # an empty range in between
    assert tot["total_x"] > 2**63
    pc = _assemble_pairs(tot, 5 * N, exact=True)
    pc._check()  # N0 == n (n - 1) / 2 with n = 5 N, exactly
    # Brute force by blocks: neg@1 (N), pos@1 (N), neg@2 (N), pos@2 (2N).
    blocks = [(1, 0, N), (1, 1, N), (2, 0, N), (2, 1, 2 * N)]
    C = D = T = Ty = Tyy = 0
    for i, (si, yi, ni) in enumerate(blocks):
        inside = ni * (ni - 1) // 2
        Ty += inside
        Tyy += inside
        for sj, yj, nj in blocks[i + 1:]:
            m = ni * nj
            if yi == yj:
                Ty += m
                Tyy += m if si == sj else 0
            elif si == sj:
                T += m
            elif (si < sj) == (yi < yj):
                C += m
            else:
                D += m
    assert (pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both) == \
        (C, D, T, Ty, Tyy)
    assert pc.total == 5 * N * (5 * N - 1) // 2 > 2**80
    assert pc.n_score_levels == 2 and pc.n_label_levels == 2


def test_cross_terms_exact_past_int64():
    """The continuous-label combiner with 2**40-sized histograms: Python ints throughout."""
    N = 2**40
    z0 = _ZSummary(0, 0, 1, [N, N, 0], [N, N, 0], _ends((0.0,), 2 * N, (0.0,), 2 * N),
                      _ends((0.0, 0), N, (0.0, 1), N))
    z1 = _ZSummary(0, 0, 1, [N, 0, N], [N, 0, N], _ends((1.0,), 2 * N, (1.0,), 2 * N),
                      _ends((1.0, 0), N, (1.0, 2), N))
    # Pairs b_i < b_j with z_i > z_j across the ranges: (z=1, b=0) x (z=0, b=1) = N^2.
    assert _cross_between_ranges([z0, None, z1], 3, True) == N * N
    assert isinstance(_cross_between_ranges([z0, z1], 3, True), int)
