"""DeLong's and Hanley & McNeil's intervals at every weight the batch functions accept.

`roc_auc_ci` and `delong_test` take whole-number (frequency) weights of any size, up to
float64's largest: one row of ``1e300``, rows of ``1e154`` whose class weights multiply
past float64, ``2**30 .. 2**50`` whose placement moments leave int64. The oracle is
DeLong's variance written out in exact rationals over the O(n_pos n_neg) placements
(`fractions.Fraction`; an integer weight is that many copies of the row), and Hanley &
McNeil's formula in rationals: the AUC is `roc_auc_score`'s, the standard error within
rounding of the exact one, and exactly 0 where the exact variance is 0.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from streamrank import PairCounter, delong_test, roc_auc_ci, roc_auc_score
from streamrank.intervals import delong_variance

SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]

# Whole-number weights from 1 to 2**1000, the cases of the issue among them.
WEIGHTS = st.one_of(
    st.integers(1, 5).map(float),
    st.sampled_from([1e150, 1e154, 1e300, 2.0 ** 30, 2.0 ** 50, 2.0 ** 62, 2.0 ** 1000]),
    st.builds(lambda m, e: float(m) * 2.0 ** e, st.integers(1, 2 ** 20), st.integers(0, 980)))


def _placements(y, s, w):
    """Exact DeLong placement values ``(V10, w_pos, V01, w_neg)`` of one model."""
    pos = [(si, Fraction(wi)) for yi, si, wi in zip(y, s, w) if yi == 1 and wi > 0]
    neg = [(si, Fraction(wi)) for yi, si, wi in zip(y, s, w) if yi == 0 and wi > 0]
    w1, w0 = sum(v for _, v in pos), sum(v for _, v in neg)

    def psi(a, b):
        return Fraction(1) if a > b else Fraction(1, 2) if a == b else Fraction(0)

    v10 = [sum(wj * psi(si, sj) for sj, wj in neg) / w0 for si, _ in pos]
    v01 = [sum(wi * psi(si, sj) for si, wi in pos) / w1 for sj, _ in neg]
    return v10, [v for _, v in pos], v01, [v for _, v in neg]


def _variance(v10, wp, v01, wn):
    """``(AUC, DeLong's variance)`` from placement values, in rationals: ``S10 / W1 + S01 /
    W0`` with ``S10 = sum w (V10 - A)**2 / (W1 - 1)`` (frequency weights)."""
    w1, w0 = sum(wp), sum(wn)
    a = sum(w * v for w, v in zip(wp, v10)) / w1
    b = sum(w * v for w, v in zip(wn, v01)) / w0      # the same AUC, from the negatives
    s10 = sum(w * (v - a) ** 2 for w, v in zip(wp, v10)) / (w1 - 1)
    s01 = sum(w * (v - b) ** 2 for w, v in zip(wn, v01)) / (w0 - 1)
    return a, s10 / w1 + s01 / w0


def _assert_se(se: float, var: Fraction):
    """``se`` is the square root of the exact ``var`` to rounding (relative ``1e-12``, or
    the smallest float where the root is below float64's normal range): exactly 0 when
    ``var`` is 0."""
    if var == 0:
        assert se == 0.0
        return
    assert math.isfinite(se) and se >= 0
    tiny = Fraction(2) ** -1074
    low, high = max(Fraction(0), Fraction(se) * (1 - Fraction(1, 10 ** 12)) - tiny), \
        Fraction(se) * (1 + Fraction(1, 10 ** 12)) + tiny
    assert low ** 2 <= var <= high ** 2, (se, var)


def _rows(draw, n_min=4, n_max=12):
    n = draw(st.integers(n_min, n_max))
    y = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n))
    w = draw(st.lists(WEIGHTS, min_size=n, max_size=n))
    pos_w = sum(Fraction(wi) for yi, wi in zip(y, w) if yi == 1)
    neg_w = sum(Fraction(wi) for yi, wi in zip(y, w) if yi == 0)
    assume(pos_w > 1 and neg_w > 1)
    return np.array(y), np.array(s), np.array(w)


@given(data=st.data())
@settings(max_examples=150)
def test_roc_auc_ci_equals_the_exact_delong_variance_at_any_weight(data):
    y, s, w = _rows(data.draw)
    r = roc_auc_ci(y, s, sample_weight=w)
    auc, var = _variance(*_placements(y.tolist(), s.tolist(), w.tolist()))
    assert r.auc == pytest.approx(float(auc), rel=1e-14, abs=1e-300)
    # (roc_auc_score's pair products of weights 2**1074 apart underflow: an absolute bound)
    assert r.auc == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12, abs=1e-15)
    _assert_se(r.se, var)
    assert r.low <= r.auc <= r.high


@given(data=st.data())
@settings(max_examples=100)
def test_delong_test_equals_the_exact_variance_of_the_difference(data):
    y, s, w = _rows(data.draw)
    b = np.array(data.draw(st.lists(st.sampled_from(SCORES), min_size=y.size,
                                    max_size=y.size)))
    r = delong_test(y, s, b, sample_weight=w)
    pa, wp, qa, wn = _placements(y.tolist(), s.tolist(), w.tolist())
    pb, _, qb, _ = _placements(y.tolist(), b.tolist(), w.tolist())
    diff, var = _variance([u - v for u, v in zip(pa, pb)], wp,
                          [u - v for u, v in zip(qa, qb)], wn)
    assert r.difference == pytest.approx(float(diff), rel=1e-12, abs=1e-15)
    _assert_se(r.se, var)
    if var > 0 and diff != 0:     # z from the exact difference and variance
        z2 = diff ** 2 / var
        if z2 < 1e300:
            assert r.z == pytest.approx(math.copysign(math.sqrt(float(z2)), float(diff)),
                                        rel=1e-9)
        else:
            assert abs(r.z) > 1e149 and math.copysign(1, r.z) == math.copysign(1, diff)
        assert 0.0 <= r.p_value <= 1.0
    m = delong_test(y, np.column_stack([s, b]), sample_weight=w)
    _assert_se(float(m.se[0]), _variance(pa, wp, qa, wn)[1])
    assert float(m.se_difference[0, 1]) == pytest.approx(r.se, rel=1e-15, abs=0)


def _hanley_mcneil(a: Fraction, n1, n0) -> Fraction:
    """Hanley & McNeil's (1982) variance, in rationals."""
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    return (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)


@given(data=st.data())
@settings(max_examples=100)
def test_hanley_mcneil_at_any_weight_equals_its_formula_in_rationals(data):
    y, s, w = _rows(data.draw)
    r = roc_auc_ci(y, s, sample_weight=w, method="hanley-mcneil")
    assert r.auc == roc_auc_score(y, s, sample_weight=w)
    n1 = sum(int(v) for v, yi in zip(w.tolist(), y) if yi == 1)
    n0 = sum(int(v) for v, yi in zip(w.tolist(), y) if yi == 0)
    _assert_se(r.se, max(Fraction(0), _hanley_mcneil(Fraction(r.auc), n1, n0)))


# ---------------------------------------------------------------------- the cases
Y8 = np.array([0, 0, 1, 1, 0, 1, 0, 1])
A8 = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.5, 0.5])
B8 = np.array([0.3, 0.2, 0.3, 0.6, 0.5, 0.4, 0.6, 0.5])


@pytest.mark.parametrize("w", [[1e300] + [1] * 7, [1e154] * 4 + [1] * 4, [1e150] * 4 + [3] * 4,
                               [1e300] * 8, [2.0 ** 1023] * 8],
                         ids=["one-1e300", "four-1e154", "four-1e150", "all-1e300", "2^1023"])
def test_huge_weights_give_the_auc_and_a_finite_exact_se(w):
    w = np.array(w, dtype=float)
    exact_auc, var = _variance(*_placements(Y8.tolist(), A8.tolist(), w.tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no overflow anywhere
        r = roc_auc_ci(Y8, A8, sample_weight=w)
        t = delong_test(Y8, A8, B8, sample_weight=w)
        hm = roc_auc_ci(Y8, A8, sample_weight=w, method="hanley-mcneil")
    assert r.auc == pytest.approx(roc_auc_score(Y8, A8, sample_weight=w), rel=1e-15)
    assert r.auc == pytest.approx(float(exact_auc), rel=1e-15)
    _assert_se(r.se, var)
    assert t.auc_a == pytest.approx(r.auc, rel=1e-15) and math.isfinite(t.se) and t.se > 0
    assert 0.0 <= t.p_value <= 1.0 and math.isfinite(t.z)
    assert hm.auc == pytest.approx(r.auc, rel=1e-15)
    n1, n0 = (sum(int(v) for v, yi in zip(w.tolist(), Y8) if yi == c) for c in (1, 0))
    _assert_se(hm.se, _hanley_mcneil(Fraction(hm.auc), n1, n0))


def test_an_auc_of_one_with_weights_past_2_53_has_a_standard_error_of_exactly_0():
    # 400 rows of 2**30 .. 2**50: the class weights pass 2**53, the AUC is exactly 1.
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(200), np.ones(200)]
    s = np.r_[rng.random(200), 1 + rng.random(200)]
    w = 2.0 ** rng.integers(30, 51, 400)
    assert w.sum() > 2 ** 53
    r = roc_auc_ci(y, s, sample_weight=w)
    assert (r.auc, r.se, r.low, r.high) == (1.0, 0.0, 1.0, 1.0)
    t = delong_test(y, s, 1 - s, sample_weight=w)
    assert (t.auc_a, t.auc_b, t.difference, t.se, t.z, t.p_value) == \
        (1.0, 0.0, 1.0, 0.0, math.inf, 0.0)
    pc = PairCounter()
    pc.insert_many(range(400), y, s, w)
    assert pc.auc_ci() == r


@given(data=st.data())
@settings(max_examples=60)
def test_counter_auc_ci_agrees_with_roc_auc_ci_at_weights_of_2_30_to_2_50(data):
    n = data.draw(st.integers(4, 40))
    y = np.array(data.draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n)))
    assume(0 < y.sum() < n)
    s = np.array(data.draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n)))
    w = 2.0 ** np.array(data.draw(st.lists(st.integers(30, 50), min_size=n, max_size=n)))
    pc = PairCounter()
    pc.insert_many(range(n), y, s, w)
    assert not pc.counts.weighted            # exact int counts and moments in the engine
    for method in ("delong", "hanley-mcneil"):
        got, ref = pc.auc_ci(method=method), roc_auc_ci(y, s, sample_weight=w, method=method)
        assert got.auc == pytest.approx(ref.auc, rel=1e-15, abs=0)
        assert (got.se == 0) == (ref.se == 0)
        assert got.se == pytest.approx(ref.se, rel=1e-12, abs=0)
    moments = pc.placement_moments()
    _assert_se(pc.auc_ci().se, _variance(*_placements(y.tolist(), s.tolist(), w.tolist()))[1])
    assert pc.auc_ci().se ** 2 == pytest.approx(delong_variance(*moments[:2], moments.u,
                                                                moments.q1, moments.u,
                                                                moments.q0), rel=1e-15)
