"""Issue 15, the batch part: `roc_auc_ci`, `delong_test`, `bootstrap_ci` and the formulas of
`streamrank.intervals`.

Oracles: DeLong's placements, variance and covariance from the O(n_pos n_neg) pair matrix
(written out here; integer weights as replicated rows), Hanley & McNeil's formula written
out again, scipy's own stratified bootstrap, and simulations (seeded) of the p-values
under H0 and of the intervals' coverage of a known AUC.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import streamrank
from streamrank import (AUCInterval, PairedAUCMatrix, PairedAUCTest, bootstrap_ci, delong_test,
                        roc_auc_ci, roc_auc_score)
from streamrank.exceptions import UndefinedMetricWarning
from streamrank.intervals import (delong_covariance, delong_variance, hanley_mcneil_variance,
                                  logit_interval, normal_p_value, normal_quantile)


# --------------------------------------------------------------------------- oracles
def pair_matrix_placements(y, s):
    """``(V10, V01)`` of one model from the full pair matrix, ties one half."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    sp, sn = s[y], s[~y]
    psi = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return psi.mean(axis=1), psi.mean(axis=0)


def delong_oracle(y, scores, w=None):
    """AUCs and DeLong's covariance matrix of the k columns of ``scores`` (O(n^2)); an
    integer weight ``k`` is ``k`` copies of the row."""
    y = np.asarray(y, bool)
    scores = np.asarray(scores, float).reshape(len(y), -1)
    if w is not None:
        rep = np.asarray(w, int)
        y, scores = np.repeat(y, rep), np.repeat(scores, rep, axis=0)
    v10, v01 = zip(*(pair_matrix_placements(y, scores[:, j]) for j in range(scores.shape[1])))
    v10, v01 = np.array(v10), np.array(v01)
    aucs = v10.mean(axis=1)
    m, n = v10.shape[1], v01.shape[1]
    s10 = np.cov(v10) if v10.shape[0] > 1 else np.array([[v10.var(ddof=1)]])
    s01 = np.cov(v01) if v01.shape[0] > 1 else np.array([[v01.var(ddof=1)]])
    return aucs, s10 / m + s01 / n


def tied_data(n, seed, k=2, levels=8, rho=0.6):
    """Labels and k correlated models with heavy ties (few distinct scores)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    common = rng.normal(size=n)
    cols = [np.round((0.8 * y + rho * common + rng.normal(size=n)) * levels / 4)
            for _ in range(k)]
    return y, np.column_stack(cols)


# --------------------------------------------------------------------------- DeLong exact
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("levels", [2, 8, 1000])
def test_delong_variance_equals_the_pair_matrix(seed, levels):
    y, S = tied_data(300, seed, k=1, levels=levels)
    aucs, cov = delong_oracle(y, S)
    r = roc_auc_ci(y, S[:, 0])
    assert r.auc == roc_auc_score(y, S[:, 0])
    assert r.auc == pytest.approx(aucs[0], abs=1e-15)
    assert r.se ** 2 == pytest.approx(cov[0, 0], rel=1e-10)
    assert r.method == "delong" and r.level == 0.95


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("levels", [8, 10 ** 9])   # heavy ties; no tie at all
def test_delong_covariance_equals_the_pair_matrix(seed, levels):
    y, S = tied_data(250, seed, k=3, levels=levels)
    assert (np.unique(S[:, 0]).size == 250) == (levels > 8)
    aucs, cov = delong_oracle(y, S)
    m = delong_test(y, S)
    assert isinstance(m, PairedAUCMatrix)
    np.testing.assert_allclose(m.aucs, aucs, rtol=0, atol=1e-15)
    np.testing.assert_allclose(m.se ** 2, np.diag(cov), rtol=1e-10)
    for i in range(3):
        for j in range(3):
            var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
            assert m.se_difference[i, j] ** 2 == pytest.approx(var, rel=1e-9, abs=1e-18)
            r = delong_test(y, S[:, i], S[:, j])
            assert r.difference == pytest.approx(aucs[i] - aucs[j], abs=1e-15)
            assert r.se == m.se_difference[i, j] and r.p_value == (
                m.p_values[i, j] if i != j else r.p_value)


@pytest.mark.parametrize("seed", range(3))
def test_integer_weights_are_replicated_rows(seed):
    y, S = tied_data(120, seed, k=2)
    w = np.random.default_rng(seed).integers(0, 4, y.size)
    rep = np.repeat(np.arange(y.size), w)
    # exact integers on both paths: equal, not just close
    assert roc_auc_ci(y, S[:, 0], sample_weight=w) == roc_auc_ci(y[rep], S[rep, 0])
    a = delong_test(y, S[:, 0], S[:, 1], sample_weight=w.astype(float))
    b = delong_test(y[rep], S[rep, 0], S[rep, 1])
    assert a == b
    aucs, cov = delong_oracle(y, S, w)
    assert a.se ** 2 == pytest.approx(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], rel=1e-9)
    hm = roc_auc_ci(y, S[:, 0], sample_weight=w, method="hanley-mcneil")
    assert hm == roc_auc_ci(y[rep], S[rep, 0], method="hanley-mcneil")


def test_delong_formulas_from_moments_are_exact():
    # p = [3, 4] (W0 = 2), q = [4, 3]: S10 = var([3/4, 1]) = 1/32, the same for S01
    assert delong_variance(2, 2, 7, 25, 7, 25) == (1 / 32) / 2 + (1 / 32) / 2
    big = 10 ** 12   # sums beyond 2**53: the numerator W Q - U^2 stays exact
    assert delong_variance(big, big, big * big, big ** 3, big * big, big ** 3) == 0.0
    assert math.isnan(delong_variance(1, 5, 2, 4, 2, 4))
    assert math.isnan(delong_covariance(2, 2, 3, 3, 5, 3, 3, math.inf))
    # a float sum is taken exactly: the same value as the integers it holds
    assert delong_variance(2.0, 2.0, 7.0, 25.0, 7.0, 25.0) == delong_variance(2, 2, 7, 25, 7, 25)


def test_identical_and_perfect_models():
    y = np.array([0, 0, 1, 1, 0, 1] * 5)
    s = np.arange(30.0) % 7
    r = delong_test(y, s, s)
    assert (r.difference, r.se, r.z, r.p_value) == (0.0, 0.0, 0.0, 1.0)
    perfect = y.astype(float)
    ci = roc_auc_ci(y, perfect)
    assert (ci.auc, ci.low, ci.high, ci.se) == (1.0, 1.0, 1.0, 0.0)
    r = delong_test(y, perfect, 1.0 - perfect)
    assert (r.difference, r.se, r.z, r.p_value) == (2.0 - 1.0 - 0.0 + 0.0, 0.0, math.inf, 0.0)


def test_one_class_gives_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning):
        r = roc_auc_ci([1, 1, 1], [0.1, 0.2, 0.3])
    assert all(math.isnan(v) for v in (r.auc, r.low, r.high, r.se))
    with pytest.warns(UndefinedMetricWarning):
        t = delong_test([0, 0], [0.1, 0.2], [0.3, 0.1])
    assert math.isnan(t.p_value) and math.isnan(t.difference)
    r = roc_auc_ci([0, 1, 0, 0, 0], [0.1, 0.3, 0.9, 0.2, 0.5])   # a class of one
    assert r.auc == 0.5 and math.isnan(r.se) and math.isnan(r.low) and math.isnan(r.high)


# --------------------------------------------------------------------------- the interval
@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=4, max_size=60),
       st.sampled_from([0.5, 0.8, 0.95, 0.999]),
       st.sampled_from(["delong", "hanley-mcneil"]))
def test_the_interval_stays_inside_zero_one(rows, level, method):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], float)
    if y.all() or not y.any():
        return
    r = roc_auc_ci(y, s, level=level, method=method)
    assert r.auc == roc_auc_score(y, s)
    if math.isnan(r.se):
        assert math.isnan(r.low) and math.isnan(r.high)
        return
    assert 0.0 <= r.low <= r.auc <= r.high <= 1.0
    wald = normal_quantile(0.5 + level / 2) * r.se
    if 0 < r.auc < 1 and r.se > 0:   # the logit interval: same log-odds width each side
        lo, hi = (math.log(x / (1 - x)) for x in (r.low, r.high))
        mid = math.log(r.auc / (1 - r.auc))
        assert hi - mid == pytest.approx(mid - lo, rel=1e-9)
        assert hi - mid == pytest.approx(wald / (r.auc * (1 - r.auc)), rel=1e-9)


def test_logit_interval_edge_cases():
    assert logit_interval(0.99, 0.01)[1] < 1.0
    assert logit_interval(1.0, 0.0) == (1.0, 1.0)
    assert logit_interval(0.0, 0.0) == (0.0, 0.0)
    assert logit_interval(1.0, 0.1) == pytest.approx((1 - 1.959964 * 0.1, 1.0), rel=1e-6)
    assert logit_interval(0.0, 0.1) == pytest.approx((0.0, 1.959964 * 0.1), rel=1e-6)
    assert logit_interval(0.7, math.inf) == (0.0, 1.0)
    assert all(math.isnan(v) for v in logit_interval(0.7, math.nan))
    assert all(math.isnan(v) for v in logit_interval(math.nan, 0.1))
    assert normal_p_value(0.0) == 1.0 and math.isnan(normal_p_value(math.nan))


@pytest.mark.parametrize("a, m, n", [(0.5, 10, 10), (0.8, 50, 70), (0.97, 300, 20),
                                     (1.0, 5, 5), (0.0, 5, 5)])
def test_hanley_mcneil_against_its_formula(a, m, n):
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    want = (a * (1 - a) + (m - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (m * n)
    assert hanley_mcneil_variance(a, m, n) == pytest.approx(max(want, 0.0), abs=1e-15)


def test_hanley_mcneil_interval_uses_the_auc_and_the_class_sizes():
    y, S = tied_data(400, 3, k=1)
    r = roc_auc_ci(y, S[:, 0], method="hanley-mcneil", level=0.9)
    var = hanley_mcneil_variance(r.auc, int(y.sum()), int((~y).sum()))
    assert r.se == math.sqrt(var)
    assert (r.low, r.high) == logit_interval(r.auc, r.se, 0.9)


def test_the_moved_names_stay_importable():
    from streamrank.monitor import drift

    assert drift.hanley_mcneil_variance is hanley_mcneil_variance
    y, S = tied_data(200, 1, k=1)
    auc, var = drift.delong_variance(y, S[:, 0])
    r = roc_auc_ci(y, S[:, 0])
    assert (auc, var) == (r.auc, r.se ** 2)


# --------------------------------------------------------------------------- paired test
def test_alternatives_and_the_interval_of_the_difference():
    y, S = tied_data(400, 5, k=2, levels=50)
    two = delong_test(y, S[:, 0], S[:, 1])
    gt = delong_test(y, S[:, 0], S[:, 1], alternative="greater", level=0.9)
    lt = delong_test(y, S[:, 0], S[:, 1], alternative="less")
    assert isinstance(two, PairedAUCTest)
    z = two.difference / two.se
    assert two.z == z
    assert two.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    assert gt.p_value == pytest.approx(stats.norm.sf(z), rel=1e-12)
    assert lt.p_value == pytest.approx(stats.norm.cdf(z), rel=1e-12)
    half = stats.norm.ppf(0.975) * two.se
    assert (two.low, two.high) == pytest.approx((two.difference - half, two.difference + half))
    assert gt.high == 1.0 and gt.low == pytest.approx(
        gt.difference - stats.norm.ppf(0.9) * gt.se)
    assert lt.low == -1.0
    assert delong_test(y, S[:, 1], S[:, 0]).difference == -two.difference


def test_holm_adjusted_matrix():
    y, S = tied_data(300, 7, k=4, levels=30)
    raw = delong_test(y, S)
    adj = delong_test(y, S, adjust="holm")
    iu = np.triu_indices(4, 1)
    p = raw.p_values[iu]
    order = np.argsort(p)
    want = np.empty_like(p)
    running = 0.0
    for rank, idx in enumerate(order):   # Holm's step-down, written out
        running = max(running, min(1.0, (p.size - rank) * p[idx]))
        want[idx] = running
    np.testing.assert_allclose(adj.p_values[iu], want, rtol=1e-14)
    np.testing.assert_array_equal(adj.p_values, adj.p_values.T)
    assert np.isnan(np.diag(adj.p_values)).all()
    assert (adj.p_values[iu] >= raw.p_values[iu]).all()
    one = delong_test(y, S, alternative="greater")
    assert one.p_values[0, 1] == pytest.approx(1 - one.p_values[1, 0], rel=1e-9)


# --------------------------------------------------------------------------- calibration
def _equal_models(runs, n, seed, rng_levels=None):
    """Labels and two correlated models of equal true AUC, ``runs`` data sets at once."""
    rng = np.random.default_rng(seed)
    y = rng.random((runs, n)) < 0.5
    common = rng.normal(size=(runs, n))
    a = y + 0.8 * common + 0.6 * rng.normal(size=(runs, n))
    b = y + 0.8 * common + 0.6 * rng.normal(size=(runs, n))
    return y, a, b


def test_paired_p_values_are_uniform_under_h0():
    y, a, b = _equal_models(1200, 150, 2026)
    p = np.array([delong_test(y[r], a[r], b[r]).p_value for r in range(y.shape[0])])
    assert stats.kstest(p, "uniform").pvalue > 0.01


#: Three score levels; P(tie between a positive and a negative) = 0.29.
_NEG_PMF, _POS_PMF = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])


def _true_auc():
    gt = sum(_POS_PMF[i] * _NEG_PMF[j] for i in range(3) for j in range(3) if i > j)
    return gt + 0.5 * float(_POS_PMF @ _NEG_PMF)


@pytest.mark.parametrize("n, runs", [(200, 2000), (2000, 1500)])
def test_interval_coverage_with_ties(n, runs):
    assert float(_POS_PMF @ _NEG_PMF) == pytest.approx(0.29)
    rng = np.random.default_rng(n)
    y = rng.random((runs, n)) < 0.5
    u = rng.random((runs, n))
    s = np.where(y, np.searchsorted(np.cumsum(_POS_PMF), u),
                 np.searchsorted(np.cumsum(_NEG_PMF), u)).astype(float)
    truth = _true_auc()
    covered = [(lambda r: r.low <= truth <= r.high)(roc_auc_ci(y[i], s[i]))
               for i in range(runs)]
    assert abs(np.mean(covered) - 0.95) <= 0.02


# --------------------------------------------------------------------------- bootstrap
def test_bootstrap_is_repeatable_and_equals_scipys_stratified_bootstrap():
    y, S = tied_data(150, 11, k=1, levels=20)
    s = S[:, 0]
    r = bootstrap_ci("auc", y, s, n_resamples=300, random_state=5)
    assert r == bootstrap_ci("auc", y, s, n_resamples=300, random_state=5)
    assert r != bootstrap_ci("auc", y, s, n_resamples=300, random_state=6)
    assert r.auc == roc_auc_score(y, s) and r.method == "bootstrap"
    data = (np.flatnonzero(~y), np.flatnonzero(y))   # each class resampled on its own

    def auc(neg, pos, axis=-1):
        return roc_auc_score(np.r_[np.zeros(neg.size), np.ones(pos.size)],
                             np.r_[s[neg], s[pos]])

    ref = stats.bootstrap(data, auc, n_resamples=300, vectorized=False, paired=False,
                          rng=np.random.default_rng(5))
    assert (r.low, r.high) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    assert r.se == pytest.approx(ref.standard_error, rel=1e-12)
    assert roc_auc_ci(y, s, method="bootstrap", n_resamples=300, random_state=5) == r


def test_bootstrap_of_other_metrics():
    rng = np.random.default_rng(3)
    x = rng.normal(size=80)
    yc = np.round(x + rng.normal(size=80), 1)   # continuous labels: one sample of rows
    r = bootstrap_ci("tau_b", yc, x, n_resamples=200, method="percentile", random_state=1)

    def tau(idx, axis=-1):
        return stats.kendalltau(yc[idx], x[idx]).statistic

    ref = stats.bootstrap((np.arange(80),), tau, n_resamples=200, vectorized=False,
                          method="percentile", rng=np.random.default_rng(1))
    assert r.estimate == pytest.approx(stats.kendalltau(yc, x).statistic, rel=1e-12)
    assert (r.low, r.high) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    for metric in ("somers_d", "gamma", "c_index", "tau_a"):
        r = bootstrap_ci(metric, yc, x, n_resamples=50, method="basic", random_state=2)
        assert r.low <= r.high and r.method == "bootstrap"


def test_bootstrap_of_a_perfect_ranking_is_a_point():
    y = np.array([0, 1] * 20)
    r = bootstrap_ci("auc", y, y * 2.0, n_resamples=50, random_state=0)
    assert (r.auc, r.low, r.high, r.se) == (1.0, 1.0, 1.0, 0.0)


# --------------------------------------------------------------------------- bad input
Y, S2 = [0, 1, 0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8, 0.5, 0.2]


def _msg(param, func):
    return rf"The '{param}' parameter of {func} must be .+\. Got .+ instead"


@pytest.mark.parametrize("call, param, func", [
    (lambda: roc_auc_ci(Y, S2, level=1.0), "level", "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, level=True), "level", "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, method="wald"), "method", "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, n_resamples=0), "n_resamples", "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, sample_weight=[1, 2, 0.5, 1, 1, 1]), "sample_weight",
     "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, method="hanley-mcneil", sample_weight=[1, 2, .5, 1, 1, 1]),
     "sample_weight", "roc_auc_ci"),
    (lambda: roc_auc_ci(Y, S2, method="bootstrap", random_state="x"), "random_state",
     "roc_auc_ci"),
    (lambda: delong_test(Y, S2, S2, sample_weight=[1, 2, 0.5, 1, 1, 1]), "sample_weight",
     "delong_test"),
    (lambda: delong_test(Y, S2), "y_score_a", "delong_test"),
    (lambda: delong_test(Y, np.ones((6, 1))), "y_score_a", "delong_test"),
    (lambda: delong_test(Y, S2, S2[:5]), "y_score_b", "delong_test"),
    (lambda: delong_test(Y, S2, S2, alternative="two_sided"), "alternative", "delong_test"),
    (lambda: delong_test(Y, S2, S2, adjust="bonferroni"), "adjust", "delong_test"),
    (lambda: delong_test(Y, S2, S2, level=0), "level", "delong_test"),
    (lambda: delong_test([0, 1, 2, 0, 1, 2], S2, S2), "y_true", "delong_test"),
    (lambda: delong_test(Y, np.c_[S2, [0, 1, np.nan, 0, 1, 1]]), "y_score_a", "delong_test"),
    (lambda: bootstrap_ci("accuracy", Y, S2), "metric", "bootstrap_ci"),
    (lambda: bootstrap_ci("comparable", Y, S2), "metric", "bootstrap_ci"),
    (lambda: bootstrap_ci("auc", Y, S2, method="bca"), "method", "bootstrap_ci"),
    (lambda: bootstrap_ci("auc", Y, S2, stratify=1), "stratify", "bootstrap_ci"),
    (lambda: bootstrap_ci("auc", Y, S2, level=95), "level", "bootstrap_ci"),
])
def test_bad_input_is_refused_by_name(call, param, func):
    with pytest.raises((ValueError, TypeError), match=_msg(param, func)):
        call()


def test_public_face():
    for name in ("roc_auc_ci", "bootstrap_ci", "delong_test", "AUCInterval", "Interval",
                 "PairedAUCTest", "PairedAUCMatrix"):
        assert name in streamrank.__all__ and name in streamrank.batch.__all__
    r = AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    with pytest.raises(AttributeError):
        r.auc = 0.5   # frozen
    assert "low=0.7" in repr(r)


# ------------------------------------------------------------- regressions from a review
def test_bootstrap_with_undefined_resamples_warns_and_gives_nan_bounds():
    with pytest.warns(UndefinedMetricWarning, match="undefined in"):
        r = streamrank.bootstrap_ci("tau_b", [1, 2, 3, 4, 5], [1, 2, 3, 5, 4], random_state=0)
    assert r.estimate == pytest.approx(0.8) and math.isnan(r.low) and math.isnan(r.high)


@pytest.mark.parametrize("weights", [None, [1, 1, 1, 0]])
def test_bootstrap_of_a_one_row_class_is_nan_not_a_scipy_error(weights):
    y, s = ([0, 1], [0.1, 0.2]) if weights is None else ([0, 0, 1, 1], [1, 2, 3, 4])
    with pytest.warns(UndefinedMetricWarning, match="one row"):
        r = streamrank.roc_auc_ci(y, s, sample_weight=weights, method="bootstrap")
    assert math.isnan(r.low) and math.isnan(r.high) and math.isnan(r.se)


def test_bootstrap_interval_contains_the_estimate_and_needs_two_resamples():
    with pytest.raises(ValueError, match="'n_resamples' parameter of bootstrap_ci must be an int >= 2"):
        streamrank.bootstrap_ci("auc", [0, 0, 0, 1, 1, 1], [1, 2, 3, 2.5, 5, 6], n_resamples=1)
    r = streamrank.bootstrap_ci("auc", [0, 0, 0, 1, 1, 1], [1, 2, 3, 2.5, 5, 6], n_resamples=2,
                        method="percentile", random_state=0)
    assert r.low <= r.auc <= r.high


def test_paired_interval_is_nan_when_the_se_is():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = streamrank.delong_test([0, 1], [0.1, 0.2], [0.2, 0.1])
    assert math.isnan(r.se) and math.isnan(r.low) and math.isnan(r.high)


def test_holm_with_two_models_is_refused():
    with pytest.raises(ValueError, match="'adjust' parameter of delong_test must be None"):
        streamrank.delong_test([0, 1, 0, 1], [1, 2, 3, 4], [2, 1, 4, 3], adjust="holm")


def test_all_tied_scores_give_the_point_interval_of_delong():
    r = streamrank.roc_auc_ci([0, 1, 0, 1], [1, 1, 1, 1])
    assert (r.auc, r.low, r.high, r.se) == (0.5, 0.5, 0.5, 0.0)
