"""`concordance_variance` and `concordance_ci`: the variance of Harrell's C of any labels.

Oracles: the same U-statistic formula from every row's pairs counted one by one
(`oracle.cross_counts`, exact Fractions), the leave-one-out jackknife by recounting every
deleted sample (`oracle.pair_counts_brute`, integer weights as copies), DeLong's
placements for binary labels (an exact relation, stated in `test_binary_relation_to_delong`),
and a seeded simulation of the interval's coverage of a known concordance.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamrank
from streamrank import Interval, concordance_ci, concordance_variance, pair_counts
from streamrank.batch._clevels import row_scores
from streamrank.exceptions import UndefinedMetricWarning
from streamrank.intervals import logit_interval
from streamrank.monitor.drift import delong_placements, delong_variance

from oracle import cross_counts, pair_counts_brute


# --------------------------------------------------------------------------- oracles
def u_statistic_oracle(y, s, w=None):
    """``(c, Var)`` of the module's formula, every row's pairs counted by the O(n^2) loop:
    ``a_i = 2 C_i + T_i``, ``b_i = C_i + D_i + T_i`` against all other rows, and
    ``Var = W/(W-1) sum w (a - 2 c b)^2 / (sum w b)^2``, exactly (Fractions)."""
    n = len(y)
    w = [1] * n if w is None else [int(v) for v in w]
    keep = [i for i in range(n) if w[i] > 0]
    y, s, w = [y[i] for i in keep], [s[i] for i in keep], [w[i] for i in keep]
    a, b = [], []
    for i in range(len(y)):
        others = [j for j in range(len(y)) if j != i]
        cc = cross_counts((y[i], s[i]), [y[j] for j in others], [s[j] for j in others],
                          [w[j] for j in others])
        a.append(2 * cc.C + cc.T)
        b.append(cc.C + cc.D + cc.T)
    big_w = sum(w)
    big_a = sum(wi * ai for wi, ai in zip(w, a))
    big_b = sum(wi * bi for wi, bi in zip(w, b))
    if big_b == 0:
        return math.nan, math.nan
    c = Fraction(big_a) / (2 * big_b)
    if big_w <= 1:
        return float(c), math.nan
    ss = sum(wi * (ai - 2 * c * bi) ** 2 for wi, ai, bi in zip(w, a, b))
    return float(c), float(Fraction(big_w, big_w - 1) * ss / big_b ** 2)


def jackknife_oracle(y, s, w=None):
    """The leave-one-out jackknife variance: every copy deleted in turn and the
    concordance recounted by the pair loop."""
    w = [1] * len(y) if w is None else [int(v) for v in w]
    rows = [(yi, si) for yi, si, wi in zip(y, s, w) for _ in range(wi)]
    loo = []
    for k in range(len(rows)):
        rest = rows[:k] + rows[k + 1:]
        pc = pair_counts_brute([r[0] for r in rest], [r[1] for r in rest])
        if pc.P == 0:
            return math.nan
        loo.append(Fraction(2 * pc.C + pc.T, 2 * pc.P))
    big_w = len(rows)
    mean = sum(loo) / big_w
    return float(Fraction(big_w - 1, big_w) * sum((v - mean) ** 2 for v in loo))


def _close(a, b, rel=1e-12):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=rel, abs=1e-15)


# --------------------------------------------------------------------------- exactness
@st.composite
def tied_samples(draw, max_n=14):
    """Few label and score values (heavy ties in both), integer weights with zeros."""
    n = draw(st.integers(2, max_n))
    ny = draw(st.integers(2, 5))
    ns = draw(st.integers(1, 5))
    y = draw(st.lists(st.integers(0, ny - 1), min_size=n, max_size=n))
    s = draw(st.lists(st.integers(0, ns - 1).map(lambda v: v / 4), min_size=n, max_size=n))
    w = draw(st.one_of(st.none(), st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    return y, s, w


@settings(derandomize=True, max_examples=250, deadline=None)
@given(tied_samples())
def test_u_statistic_equals_the_pair_oracle(data):
    y, s, w = data
    want = u_statistic_oracle(y, s, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = concordance_variance(y, s, sample_weight=w)
    assert _close(got[0], want[0]) and _close(got[1], want[1]), (got, want)
    if got[0] == got[0]:
        assert got[0] == pytest.approx(pair_counts(y, s, sample_weight=w).c_index)


@settings(derandomize=True, max_examples=120, deadline=None)
@given(tied_samples(max_n=9))
def test_jackknife_equals_brute_force_leave_one_out(data):
    y, s, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        c, var = concordance_variance(y, s, sample_weight=w, method="jackknife")
    if c != c:
        return
    assert _close(var, jackknife_oracle(y, s, w), rel=1e-9)


def test_continuous_labels_and_scores_with_weights():
    rng = np.random.default_rng(3)
    y = rng.normal(size=40)
    s = y + rng.normal(size=40)
    w = rng.integers(1, 4, 40)
    got = concordance_variance(y, s, sample_weight=w)
    want = u_statistic_oracle(y.tolist(), s.tolist(), w.tolist())
    assert _close(got[0], want[0]) and _close(got[1], want[1])
    # a weight k is k copies of the row
    rep = concordance_variance(np.repeat(y, w), np.repeat(s, w))
    assert rep[0] == got[0] and rep[1] == pytest.approx(got[1], rel=1e-12)


def test_row_scores_kernel_against_the_sign_sum():
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        y, s = rng.integers(0, 6, n), rng.integers(0, 4, n)
        w = rng.integers(0, 5, n).astype(float)
        order = np.argsort(s, kind="stable")
        ys, ss, ws = y[order], s[order], w[order]
        starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
        levels, yr = np.unique(ys, return_inverse=True)
        want = (np.sign(ys[:, None] - ys[None, :]) * np.sign(ss[:, None] - ss[None, :])
                * ws[None, :]).sum(axis=1)
        assert np.array_equal(row_scores(yr, levels.size, starts, ws), want)


# --------------------------------------------------------------------------- relations
def test_jackknife_and_u_statistic_agree_to_order_one_over_n():
    """``c_(-i) - c = -(a_i - 2 c b_i) / (B - 2 b_i)``: the jackknife is the U-statistic
    variance times ``1 + O(1/W)``. Seen here: within ``5/W`` at W = 100, 1000, 10000."""
    rng = np.random.default_rng(11)
    for n in (100, 1000, 10000):
        y = rng.integers(0, 5, n)
        s = np.round(y + rng.normal(0, 2, n), 1)
        u = concordance_variance(y, s)[1]
        j = concordance_variance(y, s, method="jackknife")[1]
        assert abs(j / u - 1) < 5 / n, (n, j / u)


def test_binary_relation_to_delong():
    """Two labels (``m`` positives, ``n`` negatives, ``W = m + n``): ``c`` is the AUC and
    ``Var = W/(W-1) [(m-1)/m^2 S10 + (n-1)/n^2 S01]``, where DeLong's variance is
    ``S10/m + S01/n`` (``S10``, ``S01`` the placements' sample variances): exact to
    rounding, and both agree to ``O(1/m + 1/n)``."""
    rng = np.random.default_rng(5)
    for n in (12, 300, 5000):
        y = rng.integers(0, 2, n)
        s = np.round(y + rng.normal(0, 1, n), 1)
        w = rng.integers(1, 4, n)
        c, var = concordance_variance(y, s, sample_weight=w)
        auc, dvar = delong_variance(y, s, sample_weight=w)
        v10, v01 = delong_placements(y, s, sample_weight=w)
        wp, wn = w[y == 1], w[y == 0]
        m, k = wp.sum(), wn.sum()
        s10 = np.dot(wp, (v10 - auc) ** 2) / (m - 1)
        s01 = np.dot(wn, (v01 - auc) ** 2) / (k - 1)
        assert c == pytest.approx(auc, rel=1e-14)
        assert dvar == pytest.approx(s10 / m + s01 / k, rel=1e-10)
        assert var == pytest.approx((m + k) / (m + k - 1)
                                    * ((m - 1) / m ** 2 * s10 + (k - 1) / k ** 2 * s01),
                                    rel=1e-10)
        assert abs(var / dvar - 1) < 2 * (1 / m + 1 / k)


def test_interval_coverage_of_a_known_concordance():
    """500 seeded samples of 150 rows, ordinal labels in 5 levels and noisy scores: the
    95% logit interval covers the population concordance (from 400 000 rows) between
    92% and 98% of the time (3 binomial standard deviations around 95%)."""
    rng = np.random.default_rng(2024)

    def draw(n):
        y = rng.integers(0, 5, n)
        return y, np.round(y + rng.normal(0, 2.5, n), 1)

    truth = concordance_variance(*draw(400_000))[0]
    hits = sum(r.low <= truth <= r.high for r in (concordance_ci(*draw(150))
                                                   for _ in range(500)))
    assert 0.92 <= hits / 500 <= 0.98, hits


# --------------------------------------------------------------------------- API
def test_concordance_ci_is_the_logit_interval_of_the_variance():
    y, s = [1, 2, 2, 3, 3, 1, 4, 4], [0.1, 0.5, 0.3, 0.6, 0.4, 0.2, 0.6, 0.9]
    c, var = concordance_variance(y, s)
    r = concordance_ci(y, s, level=0.9)
    assert type(r) is Interval and r.metric == "c_index"
    assert r.method == "u-statistic" and r.level == 0.9
    assert (r.estimate, r.se) == (c, math.sqrt(var))
    assert (r.low, r.high) == logit_interval(c, r.se, 0.9)
    assert concordance_ci(y, s, method="jackknife").se == pytest.approx(
        math.sqrt(concordance_variance(y, s, method="jackknife")[1]))
    assert streamrank.concordance_ci is streamrank.batch.concordance_ci


def test_perfect_ranking_has_zero_variance_and_a_point_interval():
    r = concordance_ci([1, 2, 3, 4, 5], [0.1, 0.2, 0.3, 0.4, 0.5])
    assert (r.estimate, r.se, r.low, r.high) == (1.0, 0.0, 1.0, 1.0)


def test_undefined_without_two_labels():
    with pytest.warns(UndefinedMetricWarning, match="concordance_variance"):
        c, var = concordance_variance([2, 2, 2], [0.1, 0.2, 0.3])
    assert math.isnan(c) and math.isnan(var)
    with pytest.warns(UndefinedMetricWarning, match="concordance_ci"):
        r = concordance_ci([1, 2], [0.1, 0.2], sample_weight=[0, 3])
    assert math.isnan(r.estimate) and math.isnan(r.low)
    c, var = concordance_variance([1, 2], [0.1, 0.2], sample_weight=[1, 0.0 + 1])
    assert c == 1.0 and var == 0.0


@pytest.mark.parametrize("kwargs, name, text", [
    ({"sample_weight": [1, 0.5, 1]}, "sample_weight", "whole numbers"),
    ({"sample_weight": [1, -1, 1]}, "sample_weight", ""),
    ({"method": "bootstrap"}, "method", "u-statistic"),
    ({"level": 1.0}, "level", ""),
])
def test_bad_input_names_the_parameter(kwargs, name, text):
    func = concordance_ci if "level" in kwargs else concordance_variance
    with pytest.raises(ValueError, match=f"'{name}' parameter of {func.__name__}") as e:
        func([1, 2, 3], [0.3, 0.1, 0.2], **kwargs)
    assert text in str(e.value)
