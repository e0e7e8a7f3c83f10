"""`streamrank.monitor.drift`: Hanley-McNeil and DeLong variances, and the one-sided AUC drop test.

Oracles: DeLong's placements and variance from the O(n_pos * n_neg) pair matrix (the
textbook formula, weights included), scikit-learn's AUC, and the empirical variance of
the AUC over many simulated samples. Every random draw is seeded.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from streamrank.intervals import hanley_mcneil_variance, normal_cdf
from streamrank.monitor import drift
from streamrank.monitor.drift import (
    AUCComparison, auc_drop_test, delong_placements, delong_test, delong_variance,
    hanley_mcneil_test,
)


def test_the_formulas_moved_to_intervals_keep_their_old_names():
    assert drift.hanley_mcneil_variance is hanley_mcneil_variance
    assert drift.normal_cdf is normal_cdf


# --------------------------------------------------------------------------- oracles
def delong_direct(y, s, w=None):
    """DeLong's variance from the full pair matrix: psi(x, y) = 1, 1/2, 0 for
    x > y, x == y, x < y. Weights are frequency weights (see the module docstring)."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=float)
    hi = np.unique(y).max()
    pos, neg = y == hi, y != hi
    sp, sn, wp, wn = s[pos], s[neg], w[pos], w[neg]
    psi = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    w1, w0 = wp.sum(), wn.sum()
    v10 = psi @ wn / w0
    v01 = wp @ psi / w1
    auc = wp @ psi @ wn / (w1 * w0)
    s10 = (wp * (v10 - auc) ** 2).sum() / (w1 - 1)
    s01 = (wn * (v01 - auc) ** 2).sum() / (w0 - 1)
    return auc, s10 / w1 + s01 / w0, v10, v01


def hanley_mcneil_direct(a, m, n):
    """The 1982 paper's formula, written out again independently."""
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    return (a * (1 - a) + (m - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (m * n)


def tied_data(n, seed, decimals=1, p=0.4):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < p).astype(int)
    s = np.round(rng.normal(0.8 * y, 1.0) / 3, decimals)  # ~10-15 distinct scores
    return y, s


# --------------------------------------------------------------------------- DeLong
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("decimals", [0, 1, 3])
def test_delong_equals_pair_matrix_with_heavy_ties(seed, decimals):
    y, s = tied_data(300, seed, decimals)
    assert len(np.unique(s)) < 300  # ties in score, between and within classes
    auc, var = delong_variance(y, s)
    auc_d, var_d, v10_d, v01_d = delong_direct(y, s)
    v10, v01 = delong_placements(y, s)
    np.testing.assert_allclose(v10, v10_d, rtol=0, atol=1e-12)
    np.testing.assert_allclose(v01, v01_d, rtol=0, atol=1e-12)
    assert auc == pytest.approx(auc_d, abs=1e-12)
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert var == pytest.approx(var_d, rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_delong_weighted_equals_pair_matrix_and_repeated_rows(seed):
    y, s = tied_data(200, seed)
    rng = np.random.default_rng(100 + seed)
    w = rng.integers(0, 4, y.size).astype(float)
    auc, var = delong_variance(y, s, sample_weight=w)
    keep = w > 0
    auc_d, var_d, _, _ = delong_direct(y[keep], s[keep], w[keep])
    assert auc == pytest.approx(auc_d, abs=1e-12)
    assert var == pytest.approx(var_d, rel=1e-10)
    assert auc == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    # frequency weights: an integer weight k is k copies of the row (0: absent)
    rep = np.repeat(np.arange(y.size), w.astype(int))
    auc_r, var_r = delong_variance(y[rep], s[rep])
    assert auc == pytest.approx(auc_r, abs=1e-12)
    assert var == pytest.approx(var_r, rel=1e-10)
    # fractional weights against the matrix too
    wf = rng.uniform(0.2, 3.0, y.size)
    assert delong_variance(y, s, sample_weight=wf)[1] == pytest.approx(
        delong_direct(y, s, wf)[1], rel=1e-10)


def test_delong_invariances():
    y, s = tied_data(150, 7)
    auc, var = delong_variance(y, s)
    # a monotone transform of the scores changes nothing
    a2, v2 = delong_variance(y, np.exp(3 * s) + 5)
    assert (a2, v2) == pytest.approx((auc, var), rel=1e-12)
    # other label values (the higher one is positive); bools
    a3, v3 = delong_variance(np.where(y == 1, 7, -2), s)
    assert (a3, v3) == pytest.approx((auc, var), rel=1e-12)
    assert delong_variance(y.astype(bool), s) == pytest.approx((auc, var), rel=1e-12)
    # flipping the classes mirrors the AUC and keeps the variance
    a4, v4 = delong_variance(1 - y, s)
    assert a4 == pytest.approx(1 - auc, abs=1e-12) and v4 == pytest.approx(var, rel=1e-10)


def test_delong_small_hand_example():
    # positives 0.4, 0.8, 0.2 against negatives 0.1, 0.4, 0.3
    v10, v01 = delong_placements([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.4, 0.8, 0.3, 0.2])
    assert v10.tolist() == pytest.approx([2.5 / 3, 1.0, 1 / 3])
    assert v01.tolist() == pytest.approx([1.0, 0.5 / 3 + 1 / 3, 2 / 3])


# --------------------------------------------------------------------------- Hanley-McNeil
@pytest.mark.parametrize("a,m,n", [(0.5, 10, 10), (0.8, 50, 200), (0.95, 7, 3),
                                   (0.62, 1000, 1), (0.3, 40, 40)])
def test_hanley_mcneil_formula(a, m, n):
    assert hanley_mcneil_variance(a, m, n) == pytest.approx(hanley_mcneil_direct(a, m, n),
                                                            rel=1e-12)


def test_hanley_mcneil_edges():
    assert hanley_mcneil_variance(1.0, 10, 10) == 0.0
    assert hanley_mcneil_variance(0.0, 10, 10) == 0.0
    for args in [(math.nan, 5, 5), (0.7, 0, 5), (0.7, 5, 0), (1.5, 5, 5), (math.inf, 5, 5)]:
        assert math.isnan(hanley_mcneil_variance(*args))


# --------------------------------------------------------------------------- both vs truth
def test_variances_match_the_empirical_variance_of_the_auc():
    """Binormal scores (AUC about 0.76), 60 positives and 90 negatives, ties from rounding:
    the mean of each variance estimate over 1500 samples is within 15% of the empirical
    variance of the AUC (Hanley-McNeil's is a model-based approximation; DeLong's is
    nearly unbiased)."""
    rng = np.random.default_rng(20240501)
    reps, m, n = 1500, 60, 90
    y = np.r_[np.ones(m, int), np.zeros(n, int)]
    aucs, hm, dl = [], [], []
    for _ in range(reps):
        s = np.round(np.r_[rng.normal(1.0, 1.0, m), rng.normal(0.0, 1.0, n)], 1)
        a, v = delong_variance(y, s)
        aucs.append(a)
        dl.append(v)
        hm.append(hanley_mcneil_variance(a, m, n))
    emp = np.var(aucs, ddof=1)
    assert np.mean(dl) == pytest.approx(emp, rel=0.15)
    assert np.mean(hm) == pytest.approx(emp, rel=0.15)


def test_the_test_holds_its_level_and_has_power():
    """Under H0 (same distribution in both windows) the one-sided test rejects at about
    alpha; under a real drop it rejects nearly always."""
    rng = np.random.default_rng(5)
    m, n = 80, 120
    y = np.r_[np.ones(m, int), np.zeros(n, int)]

    def window(shift):
        return np.r_[rng.normal(shift, 1.0, m), rng.normal(0.0, 1.0, n)]

    p_null_dl, p_null_hm, p_alt = [], [], []
    for _ in range(400):
        ref, cur = window(1.0), window(1.0)
        p_null_dl.append(delong_test(y, cur, y, ref).p_value)
        a, r = roc_auc_score(y, cur), roc_auc_score(y, ref)
        p_null_hm.append(hanley_mcneil_test(a, m, n, reference_auc=r, reference_n_pos=m,
                                            reference_n_neg=n).p_value)
        p_alt.append(delong_test(y, window(0.2), y, ref).p_value)
    for p in (p_null_dl, p_null_hm):
        rate = np.mean(np.array(p) < 0.05)
        assert 0.02 <= rate <= 0.09, rate
    assert np.mean(np.array(p_alt) < 0.05) > 0.95


# --------------------------------------------------------------------------- the test
@given(st.floats(0, 1), st.floats(0, 0.05), st.floats(0, 1), st.floats(0, 0.05))
def test_p_values_in_unit_interval(a, va, r, vr):
    res = auc_drop_test(a, va, r, vr)
    assert isinstance(res, AUCComparison)
    assert 0.0 <= res.p_value <= 1.0
    assert res.difference == pytest.approx(a - r)
    if res.se > 0:
        assert res.z == pytest.approx((a - r) / res.se)
        if abs(res.z) > 1e-9:
            assert (res.p_value < 0.5) == (res.z < 0)


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4)), min_size=0, max_size=30),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4)), min_size=0, max_size=30))
def test_delong_test_never_raises_and_p_in_unit_interval(cur, ref):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = delong_test([c[0] for c in cur], [c[1] for c in cur],
                          [c[0] for c in ref], [c[1] for c in ref])
    assert math.isnan(res.p_value) or 0.0 <= res.p_value <= 1.0
    one_class = len({c[0] for c in cur}) < 2 or len({c[0] for c in ref}) < 2
    if one_class:
        assert math.isnan(res.p_value) and math.isnan(res.z) and math.isnan(res.se)


def test_zero_variance_cases():
    # both windows perfect: no evidence of a drop
    r = auc_drop_test(1.0, 0.0, 1.0, 0.0)
    assert (r.z, r.p_value) == (0.0, 0.5)
    # a perfect reference and a perfectly wrong window
    r = auc_drop_test(0.0, 0.0, 1.0, 0.0)
    assert r.z == -math.inf and r.p_value == 0.0
    r = auc_drop_test(1.0, 0.0, 0.0, 0.0)
    assert r.z == math.inf and r.p_value == 1.0


@pytest.mark.parametrize("y,s", [
    ([1, 1, 1], [0.1, 0.2, 0.3]),     # one class
    ([0, 0], [0.5, 0.5]),
    ([], []),                          # empty
])
def test_degenerate_windows_give_nan_and_never_raise(y, s):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auc, var = delong_variance(y, s)
        assert math.isnan(auc) and math.isnan(var)
        v10, v01 = delong_placements(y, s)
        assert v10.size == v01.size == 0
        r = delong_test(y, s, [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.3])
        assert math.isnan(r.p_value) and math.isnan(r.auc)
        r = hanley_mcneil_test(math.nan, 3, 0, reference_auc=0.8, reference_n_pos=10,
                               reference_n_neg=10)
        assert math.isnan(r.p_value)


def test_single_member_class_gives_auc_but_nan_variance():
    auc, var = delong_variance([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.25])
    assert auc == pytest.approx(2 / 3) and math.isnan(var)
    # zero weight drops a row: one class left
    assert all(math.isnan(v) for v in delong_variance([0, 1, 1], [0.1, 0.2, 0.3],
                                                      sample_weight=[0, 1, 1]))


def test_invalid_input_raises():
    with pytest.raises(ValueError, match="at most two distinct labels"):
        delong_variance([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="finite"):
        delong_variance([0, 1], [0.1, math.nan])
    with pytest.raises(ValueError, match="same length"):
        delong_variance([0, 1, 1], [0.1, 0.2])


def test_normal_cdf_tails():
    assert normal_cdf(0.0) == 0.5
    assert normal_cdf(-30.0) > 0.0  # erfc keeps the far tail (1 - erf would give 0)
    assert normal_cdf(-math.inf) == 0.0 and normal_cdf(math.inf) == 1.0
    assert math.isnan(normal_cdf(math.nan))
