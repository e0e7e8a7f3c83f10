"""GSD comparison: reproduction of the authors' PMLB results (the PMLB experiment of [J24],
see docs/compare.md), the public API and its validation.

Data in tests/data/gsd/, from the authors' published PMLB experiment: pmlb_gsd_input.csv
(63 data sets x 6 classifiers, raw accuracies and the authors' quartile bins),
test_results_observed.csv and empirical_gsd_relation_eps0.csv (the authors' statistics,
half scale), pmlb_permutation_statistics_eps0.csv (the authors' B = 200 re-split
statistics).
"""

import csv
import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from streamrank.compare import (
    GSDFront,
    GSDStatistic,
    GSDTestResult,
    PerformanceTable,
    cardinal,
    gsd_front,
    gsd_statistic,
    gsd_test,
    ordinal,
    pareto_front,
    performance_table,
    quantile_bins,
)
from paths import DATA

DATA = DATA / "gsd"
MODELS = ("cre", "svmRadial", "J48", "ranger", "knn", "glmnet")


def _rows(name):
    with open(DATA / name, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def pmlb_rows():
    return _rows("pmlb_gsd_input.csv")


@pytest.fixture(scope="module")
def pmlb(pmlb_rows):
    return performance_table(
        pmlb_rows, model="classifier", dataset="dataset_index",
        metrics=[cardinal("results_clean_stacked"),
                 ordinal("results_noisy_x_stacked", bins=4),
                 ordinal("results_noisy_y_stacked", bins=4)])


@pytest.fixture(scope="module")
def pmlb_front(pmlb):
    return gsd_front(pmlb)


@pytest.fixture(scope="module")
def stored_tests():
    return {(r["comparison"], r["eps"]): r for r in _rows("test_results_observed.csv")}


# ------------------------------------------------------------------------------------------
# PMLB reproduction


def test_pmlb_quantile_bins_match_authors(pmlb, pmlb_rows):
    assert pmlb.models == MODELS
    assert len(pmlb.datasets) == 63
    # ordinal columns come first, in declaration order
    assert np.array_equal(pmlb.values[:, 0], [int(r["noisy_x_ord"]) for r in pmlb_rows])
    assert np.array_equal(pmlb.values[:, 1], [int(r["noisy_y_ord"]) for r in pmlb_rows])
    assert np.array_equal(pmlb.values[:, 2], [float(r["results_clean_stacked"]) for r in pmlb_rows])


def test_pmlb_every_pairwise_statistic(pmlb_front):
    """All 30 ordered pairs at epsilon = 0, to 1e-6 (the stored values are half scale)."""
    idx = {m: i for i, m in enumerate(pmlb_front.models)}
    rows = _rows("empirical_gsd_relation_eps0.csv")
    assert len(rows) == 30
    for r in rows:
        got = pmlb_front.d[idx[r["C"]], idx[r["C_prime"]]]
        assert got == pytest.approx(2 * float(r["stored"]), abs=1e-6), (r["C"], r["C_prime"])
        assert pmlb_front.dominates(r["C"], r["C_prime"]) == (r["C_dominates_Cprime"] == "True")


def test_pmlb_relation_and_fronts(pmlb_front):
    assert pmlb_front.edges == [("ranger", "cre")]  # the only dominance, as in [J24]
    assert pmlb_front.front == ("svmRadial", "J48", "ranger", "knn", "glmnet")
    assert pmlb_front.pareto_front == MODELS  # no classifier is Pareto-dominated
    assert np.isnan(np.diag(pmlb_front.d)).all()
    assert not pmlb_front.relation.flags.writeable


@pytest.mark.parametrize("competitor,paper_d", [("svmRadial", -0.159), ("J48", -0.206),
                                                 ("ranger", 0.048), ("knn", -0.175),
                                                 ("glmnet", -0.111)])
def test_pmlb_statistic_eps0(pmlb, stored_tests, competitor, paper_d):
    s = gsd_statistic(pmlb, "cre", competitor)
    stored = float(stored_tests[(competitor, "result_eps_0")]["d_observed"])
    assert s.statistic == pytest.approx(2 * stored, abs=1e-6)
    assert round(s.statistic, 3) == paper_d
    assert s.competitor_dominates == (competitor == "ranger")
    assert math.isnan(s.xi) and s.delta == 0.0


@pytest.mark.parametrize("competitor", ["J48", "ranger"])
def test_pmlb_statistic_eps_half(pmlb, stored_tests, competitor):
    """epsilon = 0.5: delta = xi / 2 ~ 5e-6 is near the solver tolerances; the stored values
    agree to 4e-6 on the half scale, 2e-5 is a margin over that."""
    s = gsd_statistic(pmlb, "cre", competitor, epsilon=0.5)
    stored = float(stored_tests[(competitor, "result_eps_1")]["d_observed"])
    assert s.statistic == pytest.approx(2 * stored, abs=2e-5)
    assert 3e-6 < s.xi < 2e-5  # xi is between 3.6e-6 and 1.2e-5 on the PMLB pairs
    assert s.delta == pytest.approx(0.5 * s.xi)


@pytest.fixture(scope="module")
def pmlb_test(pmlb):
    return gsd_test(pmlb, "cre", competitors=["J48", "svmRadial"], permutations=200, seed=0,
                    contamination=[0, 1, 3, 63])


def test_pmlb_permutation_pvalues(pmlb_test, stored_tests):
    """Our p-values against the stored ones, within Monte Carlo error of both runs
    (B = 200 each: sd of the difference <= sqrt(2 p (1 - p) / 200))."""
    for t in pmlb_test.tests:
        stored = stored_tests[(t.competitor, "result_eps_0")]
        p_stored = int(stored["n_perm_le"]) / 200
        sd = math.sqrt(2 * max(p_stored * (1 - p_stored), 0.02) / 200)
        assert abs(t.n_le / 200 - p_stored) < 4 * sd, (t.competitor, t.n_le, p_stored)
        assert t.p_value == (1 + t.n_le) / 201
        assert t.n_below <= t.n_le
        assert not t.rejected  # nothing rejected at 0.05 in the paper either
    assert not pmlb_test.in_front


def test_pmlb_permutation_distribution(pmlb_test):
    """Same null distribution as the authors' stored re-split statistics (two-sample KS
    test; a paired per-data-set swap, the other scheme one might implement, is rejected
    here with p = 0.036 / 0.002)."""
    stored = {}
    for r in _rows("pmlb_permutation_statistics_eps0.csv"):
        stored.setdefault(r["comparison"], []).append(2 * float(r["d_perm"]))
    for t in pmlb_test.tests:
        assert len(t.null_distribution) == 200
        assert ks_2samp(t.null_distribution, stored[t.competitor]).pvalue > 0.01


def test_pmlb_robust_pvalues(pmlb_test):
    for t in pmlb_test.tests:
        r = t.robust_p_values
        assert r[0] == t.p_value
        assert r[0] <= r[1] <= r[3] <= r[63] == 1.0
        g = 3 / 63
        expected = (1 + np.count_nonzero(t.null_distribution <= t.statistic + 2 * g / (1 - g)
                                         + 1e-9)) / 201
        assert r[3] == expected
    assert not pmlb_test.robust_in_front(1)


def test_pmlb_bonferroni_and_repr(pmlb_test):
    assert pmlb_test.level == 0.05 and pmlb_test.permutations == 200 and pmlb_test.seed == 0
    text = repr(pmlb_test)
    assert "in_front=False" in text and "J48" in text and "svmRadial" in text
    assert "p_value=" in repr(pmlb_test["J48"])
    with pytest.raises(KeyError):
        pmlb_test["nope"]


# ------------------------------------------------------------------------------------------
# Small tables: determinism, parallel workers, hand-checkable cases


def _toy(seed=3, n=10, models=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    k = len(models)
    return performance_table(
        {"model": np.repeat(models, n), "dataset": np.tile(np.arange(n), k),
         "acc": np.round(rng.uniform(0.5, 1.0, n * k), 2),
         "speed": rng.integers(1, 4, n * k)},
        metrics=[cardinal("acc"), ordinal("speed")])


def test_seed_reproducible_and_competitor_independent():
    t = _toy()
    r1 = gsd_test(t, "a", permutations=30, seed=5)
    r2 = gsd_test(t, "a", permutations=30, seed=5)
    r3 = gsd_test(t, "a", competitors=["c"], permutations=30, seed=5)
    for x, y in zip(r1.tests, r2.tests):
        assert np.array_equal(x.null_distribution, y.null_distribution)
    np.testing.assert_allclose(r3["c"].null_distribution, r1["c"].null_distribution, atol=1e-12)
    r4 = gsd_test(t, "a", permutations=5, seed=None)
    r5 = gsd_test(t, "a", permutations=5, seed=r4.seed)
    np.testing.assert_allclose(r4["b"].null_distribution, r5["b"].null_distribution, atol=1e-12)


def test_n_jobs_gives_the_same_result():
    t = _toy()
    r1 = gsd_test(t, "b", permutations=16, seed=2)
    r2 = gsd_test(t, "b", permutations=16, seed=2, n_jobs=2, progress=True)
    for x, y in zip(r1.tests, r2.tests):
        np.testing.assert_allclose(x.null_distribution, y.null_distribution, atol=1e-9)
        assert x.p_value == y.p_value


def test_bonferroni_level():
    r = gsd_test(_toy(), "a", permutations=10, seed=0, bonferroni=True, alpha=0.1)
    assert r.level == pytest.approx(0.05) and r.bonferroni


def test_single_cardinal_metric_is_a_comparison_of_means():
    """On equally spaced values every gap between neighbours has the same key, so the
    equality rows force u to be affine and d = (mean_b - mean_a) / range. (On unequal
    spacing u is only constrained to grow faster on larger gaps.)"""
    rng = np.random.default_rng(0)
    grid = np.arange(9) / 8.0  # exact binary fractions: equal gaps are equal in floats
    for _ in range(5):
        xa = np.concatenate([grid[::2], rng.choice(grid, 7)])
        xb = np.concatenate([grid[1::2], rng.choice(grid, 5)])
        n_a, n_b = len(xa), len(xb)
        t = performance_table({"model": ["a"] * n_a + ["b"] * n_b,
                               "dataset": list(range(n_a)) + list(range(n_b)),
                               "auc": np.concatenate([xa, xb])}, metrics=[cardinal("auc")])
        expected = xb.mean() - xa.mean()  # range is 1
        assert gsd_statistic(t, "a", "b").statistic == pytest.approx(expected, abs=1e-9)
        assert gsd_statistic(t, "b", "a").statistic == pytest.approx(-expected, abs=1e-9)
        # smaller-is-better on the negated column is the same comparison
        t2 = performance_table({"model": ["a"] * n_a + ["b"] * n_b,
                                "dataset": list(range(n_a)) + list(range(n_b)),
                                "loss": -np.concatenate([xa, xb])},
                               metrics=[cardinal("loss", direction="smaller")])
        assert gsd_statistic(t2, "a", "b").statistic == pytest.approx(expected, abs=1e-9)


def test_single_cardinal_metric_unequal_gaps():
    """Points 0, 1, 3: u(0) = 0, u(3) = 1 and u(1) - u(0) <= u(3) - u(1), so u(1) in [0, 1/2]."""
    t = performance_table({"model": ["a", "b", "b"], "dataset": [1, 1, 2], "x": [1.0, 0.0, 3.0]},
                          metrics=[cardinal("x")])
    # min_u (u(0) + u(3)) / 2 - u(1) = 1/2 - 1/2 = 0 ; max would be 1/2
    assert gsd_statistic(t, "a", "b").statistic == pytest.approx(0.0, abs=1e-12)
    assert gsd_statistic(t, "b", "a").statistic == pytest.approx(-0.5, abs=1e-12)


def test_single_ordinal_metric_is_first_order_stochastic_dominance():
    rng = np.random.default_rng(1)
    for _ in range(10):
        xa, xb = rng.integers(0, 5, 8), rng.integers(0, 5, 8)
        t = performance_table({"model": ["a"] * 8 + ["b"] * 8, "dataset": list(range(8)) * 2,
                               "grade": np.concatenate([xa, xb])}, metrics=[ordinal("grade")])
        levels = np.unique(np.concatenate([xa, xb]))
        # min over thresholds of the difference of survival functions (u = 1{x >= t})
        diffs = [(xb >= s).mean() - (xa >= s).mean() for s in levels[1:]]
        expected = min(diffs) if diffs else 0.0
        got = gsd_statistic(t, "a", "b").statistic
        assert got == pytest.approx(expected, abs=1e-9)
        fsd = bool(np.all([(xb >= s).mean() >= (xa >= s).mean() for s in levels]))
        assert (got >= -1e-9) == fsd


def test_invariance_under_monotone_transforms():
    t = _toy(seed=8)
    base = gsd_front(t).d
    raw = {"model": np.repeat(("a", "b", "c"), 10), "dataset": np.tile(np.arange(10), 3)}
    rng = np.random.default_rng(8)
    acc = np.round(rng.uniform(0.5, 1.0, 30), 2)
    speed = rng.integers(1, 4, 30)
    # positive affine map of the cardinal metric, strictly increasing map of the ordinal one
    t2 = performance_table({**raw, "acc": 3 * acc + 1, "speed": speed.astype(float) ** 3},
                           metrics=[cardinal("acc"), ordinal("speed")])
    np.testing.assert_allclose(gsd_front(t2).d, base, atol=1e-9)


def test_identical_models_and_degenerate_support():
    t = performance_table({"model": list("aabb"), "dataset": [1, 2, 1, 2], "acc": [0.5] * 4},
                          metrics=[cardinal("acc")])
    assert gsd_statistic(t, "a", "b").statistic == 0.0
    f = gsd_front(t)
    assert f.front == ("a", "b") and f.edges == []
    r = gsd_test(t, "a", permutations=5, seed=0)
    assert r["b"].p_value == 1.0


def test_front_and_pareto_on_a_hand_example():
    t = performance_table({"model": list("aabbcc"), "dataset": [1, 2] * 3,
                           "acc": [.8, .9, .7, .8, .9, .6]}, metrics=[cardinal("acc")])
    f = gsd_front(t)
    assert isinstance(f, GSDFront)
    assert f.pareto_front == ("a", "c") and f.pareto[0, 1] and not f.pareto[0, 2]
    # one cardinal metric: means 0.85, 0.75, 0.75 -> a dominates b and c strictly
    assert f.front == ("a",)
    assert set(f.edges) == {("a", "b"), ("a", "c")}
    assert f.dominates("b", "c") and f.dominates("c", "b")
    assert "front=['a']" in repr(f)
    assert pareto_front(t)[0] == ("a", "c")


def test_unpaired_models_allowed_and_pareto_needs_shared_datasets():
    t = performance_table({"model": list("aabb"), "dataset": [1, 2, 3, 4],
                           "acc": [.6, .7, .8, .9]}, metrics=[cardinal("acc")])
    f = gsd_front(t)
    assert f.front == ("b",) and f.pareto_front == ("a", "b")


def test_results_are_immutable():
    t = _toy()
    s = gsd_statistic(t, "a", "b")
    assert isinstance(s, GSDStatistic) and float(s) == s.statistic
    assert "GSDStatistic(model='a', competitor='b'" in repr(s)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.statistic = 1.0
    r = gsd_test(t, "a", permutations=5, seed=0)
    assert isinstance(r, GSDTestResult)
    with pytest.raises(ValueError):
        r.tests[0].null_distribution[0] = 1.0
    with pytest.raises(TypeError):
        r.tests[0].robust_p_values[5] = 0.1
    assert not t.values.flags.writeable


# ------------------------------------------------------------------------------------------
# Input forms and validation


def test_input_forms_agree():
    cols = {"model": ["a", "a", "b", "b"], "dataset": [1, 2, 1, 2], "acc": [.5, .6, .7, .8],
            "grade": ["lo", "hi", "mid", "hi"]}
    metrics = [cardinal("acc"), ordinal("grade", categories=["lo", "mid", "hi"])]
    t1 = performance_table(cols, metrics=metrics)
    rows = [dict(zip(cols, v)) for v in zip(*cols.values())]
    t2 = performance_table(rows, metrics=metrics)
    arr = np.array(list(zip(*cols.values())),
                   dtype=[("model", "U1"), ("dataset", int), ("acc", float), ("grade", "U3")])
    t3 = performance_table(arr, metrics=metrics)
    pd = pytest.importorskip("pandas")
    t4 = performance_table(pd.DataFrame(cols), metrics=metrics)
    for t in (t2, t3, t4):
        assert isinstance(t, PerformanceTable)
        assert np.array_equal(t.values, t1.values) and t.models == t1.models
    assert t1.rows("a")[:, 0].tolist() == [1.0, 3.0]


def test_ordinal_direction_and_bins():
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert quantile_bins(x, 4).tolist() == [1, 1, 2, 2, 3, 3, 4, 5]
    t = performance_table({"model": ["a"] * 8, "dataset": range(8), "t": x},
                          metrics=[ordinal("t", direction="smaller", bins=4)])
    assert t.values[:, 0].tolist() == [5, 5, 4, 4, 3, 3, 2, 1]  # reversed: (bins + 2) - bin
    t = performance_table({"model": ["a"] * 8, "dataset": range(8), "t": x},
                          metrics=[ordinal("t", bins=4, rightmost_closed=True)])
    assert t.values[:, 0].max() == 4


BAD_TABLE = {"model": ["a", "a", "b", "b"], "dataset": [1, 2, 1, 2], "acc": [.5, .6, .7, .8]}


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(metrics=[cardinal("nope")]), ValueError,
     r"The 'metrics' parameter of performance_table must be a column of data .* Got 'nope'"),
    (dict(metrics=[cardinal("acc")], model="who"), ValueError,
     r"The 'model' parameter of performance_table must be a column"),
    (dict(metrics=[]), TypeError, r"The 'metrics' parameter of performance_table must be a non-empty"),
    (dict(metrics=["acc"]), TypeError, r"must be a list of metrics .* Got an item 'acc'"),
    (dict(metrics=[cardinal("acc"), ordinal("acc")]), ValueError, r"distinct names"),
])
def test_table_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        performance_table(BAD_TABLE, **kwargs)


def test_table_validation_values():
    with pytest.raises(ValueError, match=r"The 'data' parameter of performance_table must be "
                       r"finite numbers in the cardinal metric column 'acc'. Got nan at row 1"):
        performance_table({**BAD_TABLE, "acc": [.5, float("nan"), .7, .8]},
                          metrics=[cardinal("acc")])
    with pytest.raises(TypeError, match=r"numbers in the cardinal metric column 'acc'"):
        performance_table({**BAD_TABLE, "acc": ["x", "y", "z", "w"]}, metrics=[cardinal("acc")])
    with pytest.raises(ValueError, match=r"one row per \(model, data set\). Got 2 rows for "
                       r"model 'a' and data set 1"):
        performance_table({**BAD_TABLE, "dataset": [1, 1, 1, 2]}, metrics=[cardinal("acc")])
    with pytest.raises(ValueError, match=r"one of the categories \['lo', 'hi'\] .* Got 'mid'"):
        performance_table({**BAD_TABLE, "g": ["lo", "mid", "hi", "lo"]},
                          metrics=[ordinal("g", categories=["lo", "hi"])])
    with pytest.raises(TypeError, match=r"The 'data' parameter of performance_table must be a dict"):
        performance_table(42, metrics=[cardinal("acc")])
    with pytest.raises(ValueError, match=r"The 'direction' parameter of cardinal must be"):
        cardinal("acc", direction="up")
    with pytest.raises(ValueError, match=r"The 'bins' parameter of ordinal must be a positive int"):
        ordinal("t", bins=0)


def test_function_validation():
    t = performance_table(BAD_TABLE, metrics=[cardinal("acc")])
    with pytest.raises(ValueError, match=r"The 'model' parameter of gsd_statistic must be one of "
                       r"the table's models \['a', 'b'\]. Got 'z' instead."):
        gsd_statistic(t, "z", "a")
    with pytest.raises(ValueError, match=r"The 'competitor' parameter of gsd_statistic must be a "
                       r"model other than 'model'"):
        gsd_statistic(t, "a", "a")
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of gsd_statistic must be a "
                       r"number in \[0, 1\]. Got 2"):
        gsd_statistic(t, "a", "b", epsilon=2)
    with pytest.raises(TypeError, match=r"The 'table' parameter of gsd_front must be a "
                       r"PerformanceTable"):
        gsd_front(BAD_TABLE)
    with pytest.raises(ValueError, match=r"The 'permutations' parameter of gsd_test must be an "
                       r"int >= 1. Got 0"):
        gsd_test(t, "a", permutations=0)
    with pytest.raises(ValueError, match=r"The 'alpha' parameter of gsd_test"):
        gsd_test(t, "a", alpha=1.5)
    with pytest.raises(ValueError, match=r"The 'competitors' parameter of gsd_test must be one of"):
        gsd_test(t, "a", competitors=["q"])
    with pytest.raises(ValueError, match=r"The 'competitors' parameter of gsd_test must be "
                       r"distinct models other than 'model'"):
        gsd_test(t, "a", competitors=["a"])
    with pytest.raises(ValueError, match=r"The 'contamination' parameter of gsd_test"):
        gsd_test(t, "a", contamination=-1)
    with pytest.raises(ValueError, match=r"The 'n_jobs' parameter of gsd_test"):
        gsd_test(t, "a", n_jobs=0)
    one = performance_table({"model": ["a"], "dataset": [1], "acc": [.5]},
                            metrics=[cardinal("acc")])
    with pytest.raises(ValueError, match=r"at least two models"):
        gsd_front(one)


def test_epsilon_in_test_and_front_matches_statistic():
    t = _toy(seed=4)
    r = gsd_test(t, "a", competitors=["b"], permutations=5, seed=0, epsilon=0.5)
    s = gsd_statistic(t, "a", "b", epsilon=0.5)
    assert r["b"].statistic == pytest.approx(s.statistic, abs=1e-9)
    assert r.epsilon == 0.5 and s.delta == pytest.approx(0.5 * s.xi) and s.xi > 0
    f = gsd_front(t, epsilon=0.5)
    assert f.d[1, 0] == pytest.approx(s.statistic, abs=1e-9)  # d[b, a] = min E_b - E_a
    # a larger margin restricts the utilities: the minimum can only go up
    assert s.statistic >= gsd_statistic(t, "a", "b").statistic - 1e-9
