"""`pair_counts` against the O(n^2) oracle, its identities and its metamorphic relations.

Every count of `PairCounts` is checked on small tie-heavy Hypothesis inputs of every
label kind (bool, binary, ordinal, many levels, continuous, negative values), with unit, integer and
float weights; exact Python ints are checked on large inputs whose counts have a closed
form; the float error of weighted counts is bounded against an exact oracle.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from oracle import Counts, cross_counts, pair_counts_brute, pair_counts_matrix
from strategies import LABEL_KINDS, samples
from streamrank import PairCounts, UndefinedMetricWarning, pair_counts

COUNT_FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")
# Weighted counts: float sums of positive pair weights, compared with the exact sum.
# Bound: |error| <= REL_TOL * N0 (the total pair weight) for every count.
REL_TOL = 1e-12


# --------------------------------------------------------------------------- helpers
def counts_of(pc: PairCounts) -> tuple:
    return tuple(getattr(pc, f) for f in COUNT_FIELDS)


def assert_exact_counts(pc: PairCounts, ref: Counts, n: int) -> None:
    """Unit weights: every count is an exact Python int equal to the oracle's."""
    assert counts_of(pc) == ref.as_tuple()
    for name, value in zip(COUNT_FIELDS, counts_of(pc)):
        assert type(value) is int, f"{name} is {type(value).__name__}, not a Python int"
    assert pc.n == n
    assert not pc.weighted
    pc._check()


def assert_close_counts(pc: PairCounts, ref: Counts, rel_tol: float = REL_TOL) -> None:
    """Weights: float counts within ``rel_tol * N0`` of the exact Fraction counts."""
    scale = abs(ref.N0)
    for name, got, exact in zip(COUNT_FIELDS, counts_of(pc), ref.as_tuple()):
        assert isinstance(got, float), f"{name} is {type(got).__name__}, not a float"
        assert abs(Fraction(got) - exact) <= rel_tol * scale, (name, got, float(exact))
    assert pc.weighted
    pc._check()


def assert_same_weighted_counts(a: PairCounts, b: PairCounts) -> None:
    """Two weighted results that must agree up to float summation order: every count
    within ``REL_TOL * N0``, the scale of the documented error of weighted sums."""
    scale = max(abs(a.total), abs(b.total))
    for name, x, y in zip(COUNT_FIELDS, counts_of(a), counts_of(b)):
        assert abs(x - y) <= REL_TOL * scale, (name, x, y)


def metric_recording(fn):
    """``(value, number of UndefinedMetricWarning)`` of calling ``fn()``."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        value = fn()
    return value, sum(issubclass(r.category, UndefinedMetricWarning) for r in rec)


def preserves_order(a: np.ndarray, b: np.ndarray) -> bool:
    """True when ``b`` orders (and ties) every pair exactly as ``a`` does."""
    sa = (a[:, None] > a[None, :]).astype(int) - (a[:, None] < a[None, :])
    sb = (b[:, None] > b[None, :]).astype(int) - (b[:, None] < b[None, :])
    return bool(np.array_equal(sa, sb))


def negated(x: np.ndarray) -> np.ndarray:
    return -(x.astype(np.int64) if x.dtype == bool else x)


# --------------------------------------------------------------------------- the oracle
@given(data=samples(min_size=0, max_size=12, weight_kind="float"))
def test_oracles_agree_with_each_other(data):
    """The pure pair loop, the mask oracle and the per-item cross counts agree exactly."""
    y, s, w = data
    for weights in (None, w):
        brute = pair_counts_brute(y, s, weights)
        assert pair_counts_matrix(y, s, weights, block=5) == brute
        total = Counts(*(Fraction(0) if weights is not None else 0 for _ in range(5)))
        for i in range(len(y)):
            item = (y[i], s[i]) if weights is None else (y[i], s[i], weights[i])
            total = total + cross_counts(item, y[:i], s[:i], None if weights is None else weights[:i])
        assert total.as_tuple() == brute.as_tuple()


# --------------------------------------------------------------------------- vs oracle
@pytest.mark.parametrize("label_kind", LABEL_KINDS)
@given(data=st.data())
def test_unit_weight_counts_equal_oracle(label_kind, data):
    y, s, _ = data.draw(samples(label_kind, min_size=1))
    assert_exact_counts(pair_counts(y, s), pair_counts_brute(y, s), len(y))


@pytest.mark.parametrize("weight_kind", ["int", "float"])
@pytest.mark.parametrize("label_kind", LABEL_KINDS)
@given(data=st.data())
def test_weighted_counts_equal_oracle(label_kind, weight_kind, data):
    y, s, w = data.draw(samples(label_kind, weight_kind=weight_kind, min_size=1))
    assert_close_counts(pair_counts(y, s, sample_weight=w), pair_counts_brute(y, s, w))


@given(data=samples(min_size=1, weight_kind="float"))
def test_identities_hold(data):
    """P = C + D + T, N0 = P + Ty, Tyy <= Ty, every count >= 0, N0 from n or the weights."""
    y, s, w = data
    for weights in (None, w):
        pc = pair_counts(y, s, sample_weight=weights)
        pc._check()
        C, D, T, Ty, Tyy = counts_of(pc)
        assert min(C, D, T, Ty, Tyy) >= 0
        assert pc.comparable == C + D + T
        assert pc.total == pc.comparable + Ty
        assert Tyy <= Ty * (1 + 1e-12)
        assert pc.tied_score_all == T + Tyy
        assert pc.right == C + T and pc.wrong == D + T
        if weights is None:
            assert pc.total == len(y) * (len(y) - 1) // 2
            assert pc.weight_sum == len(y) and type(pc.weight_sum) is int
            assert pc.n_label_levels == len(np.unique(y))
            assert pc.n_score_levels == len(np.unique(s))
        else:
            W, W2 = math.fsum(weights), math.fsum(weights.astype(float) ** 2)
            assert pc.weight_sum == pytest.approx(W, rel=1e-12)
            assert pc.total == pytest.approx((W * W - W2) / 2, rel=1e-12, abs=1e-12 * W * W)


@given(data=samples(min_size=1, weight_kind="float"))
def test_metric_properties_equal_oracle(data):
    """Every metric property equals the oracle's exact value, or is nan with a warning.

    Tolerance 1e-12, scaled for weighted counts by ``N0 / denominator`` (see
    `oracle.Counts.error_scale`)."""
    y, s, w = data
    for weights in (None, w):
        pc, ref = pair_counts(y, s, sample_weight=weights), pair_counts_brute(y, s, weights)
        for name in ("auc", "c_index", "gamma", "somers_d", "tau_a", "tau_b", "tau_c",
                     "pairwise_accuracy", "pairwise_error"):
            if name == "tau_c" and weights is not None and (weights == 0).any():
                continue  # levels of zero-weight rows: see test_zero_weight_row_equals_dropped_row
            value, n_warn = metric_recording(lambda: getattr(pc, name))
            expected = getattr(ref, name)
            if expected is None:
                assert math.isnan(value) and n_warn == 1, (name, value)
            else:
                tol = 1e-12 * (1.0 if weights is None else ref.error_scale(name))
                assert value == pytest.approx(float(expected), rel=0, abs=tol), name
                assert n_warn == 0, name


@given(data=samples(min_size=1))
def test_right_wrong_ratio_is_seed_000_headline(data):
    """``(C + T) / (D + T)``; inf when only Wrong is 0; nan with a warning when both are."""
    y, s, _ = data
    ref = pair_counts_brute(y, s)
    value, n_warn = metric_recording(lambda: pair_counts(y, s).right_wrong_ratio)
    right, wrong = ref.C + ref.T, ref.D + ref.T
    if wrong == 0 and right == 0:
        assert math.isnan(value) and n_warn == 1
    elif wrong == 0:
        assert value == math.inf
    else:
        assert value == pytest.approx(right / wrong, rel=1e-15)


# --------------------------------------------------------------------------- metamorphic
@given(data=samples(min_size=1, max_size=12, weight_kind="int"))
def test_integer_weight_equals_repeated_row(data):
    """Weight k == the row repeated k times, for every pair between different rows.

    The k copies of one row also form k(k-1)/2 pairs among themselves (tied in label and
    score) that a weighted pair {i, j}, i != j, never includes: Ty and Tyy differ by
    exactly sum_i w_i (w_i - 1) / 2, and so every metric whose denominator excludes
    label ties (AUC, gamma, Somers' D, tau-b, tau-c) is unchanged.
    """
    y, s, w = data
    w = np.maximum(w, 1)  # zero weights: see test_zero_weight_row_equals_dropped_row
    weighted = pair_counts(y, s, sample_weight=w)
    repeated = pair_counts(np.repeat(y, w), np.repeat(s, w))
    self_pairs = int(np.sum(w * (w - 1) // 2))
    # Integer-valued float sums are exact, whatever the summation order.
    assert weighted.concordant == repeated.concordant
    assert weighted.discordant == repeated.discordant
    assert weighted.tied_score == repeated.tied_score
    assert weighted.tied_label + self_pairs == repeated.tied_label
    assert weighted.tied_both + self_pairs == repeated.tied_both
    assert weighted.weight_sum == repeated.n
    for name in ("auc", "gamma", "somers_d", "tau_b", "tau_c"):
        a, _ = metric_recording(lambda: getattr(weighted, name))
        b, _ = metric_recording(lambda: getattr(repeated, name))
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15, nan_ok=True), name


@given(data=samples(min_size=1, max_size=12, weight_kind="float"), n_zero=st.integers(1, 3),
       seed=st.integers(0, 2**32 - 1))
def test_zero_weight_row_equals_dropped_row(data, n_zero, seed):
    """Rows of weight 0 change no count and no metric (levels for tau-c included)."""
    y, s, w = data
    w = np.where(w == 0, 1.0, w)
    rng = np.random.default_rng(seed)
    # Extra rows of weight 0, with existing or new labels and scores (new levels must not
    # count for tau-c either).
    pool_y = y if y.dtype == bool else np.append(y, y.max() + 1).astype(y.dtype)
    pool_s = s if s.dtype == bool else np.append(s, s.max() + 1).astype(s.dtype)
    yy = np.concatenate([y, rng.choice(pool_y, n_zero)])
    ss = np.concatenate([s, rng.choice(pool_s, n_zero)])
    ww = np.concatenate([w, np.zeros(n_zero)])
    order = rng.permutation(len(yy))
    with_zero = pair_counts(yy[order], ss[order], sample_weight=ww[order])
    without = pair_counts(y, s, sample_weight=w)
    exact = pair_counts_brute(y, s, w)
    assert_same_weighted_counts(with_zero, without)
    assert with_zero.weight_sum == pytest.approx(without.weight_sum, rel=1e-12)
    for name in ("auc", "gamma", "somers_d", "tau_a", "tau_b", "tau_c"):
        a, _ = metric_recording(lambda: getattr(with_zero, name))
        b, _ = metric_recording(lambda: getattr(without, name))
        tol = 1e-12 * exact.error_scale(name)
        assert a == pytest.approx(b, rel=0, abs=tol, nan_ok=True), name


@given(data=samples(min_size=1, weight_kind="float"),
       scale=st.sampled_from([1e-3, 0.5, 1.0, 3.0, 1e3]),
       shift=st.sampled_from([-7.0, -0.25, 0.0, 1.0, 1e3]))
def test_positive_affine_map_of_scores_changes_nothing(data, scale, shift):
    y, s, w = data
    t = scale * s.astype(np.float64) + shift
    assume(preserves_order(s, t))  # float rounding may merge two close scores
    assert counts_of(pair_counts(y, t)) == counts_of(pair_counts(y, s))
    assert_same_weighted_counts(pair_counts(y, t, sample_weight=w), pair_counts(y, s, sample_weight=w))


@given(data=samples(min_size=1, weight_kind="float"),
       scale=st.sampled_from([0.5, 2.0, 10.0]), shift=st.sampled_from([-3.0, 0.0, 4.0]))
def test_increasing_map_of_labels_changes_nothing(data, scale, shift):
    y, s, w = data
    z = scale * y.astype(np.float64) + shift
    assume(preserves_order(y, z))
    assert counts_of(pair_counts(z, s)) == counts_of(pair_counts(y, s))
    assert_same_weighted_counts(pair_counts(z, s, sample_weight=w), pair_counts(y, s, sample_weight=w))


@given(data=samples(min_size=1))
def test_negating_scores_or_labels_swaps_concordant_and_discordant(data):
    y, s, _ = data
    C, D, T, Ty, Tyy = counts_of(pair_counts(y, s))
    assert counts_of(pair_counts(y, negated(s))) == (D, C, T, Ty, Tyy)
    assert counts_of(pair_counts(negated(y), s)) == (D, C, T, Ty, Tyy)
    assert counts_of(pair_counts(negated(y), negated(s))) == (C, D, T, Ty, Tyy)


@given(data=samples(min_size=1))
def test_swapping_labels_and_scores(data):
    """pair_counts(s, y): C and D stay; tied-in-score-only and tied-in-label-only swap."""
    y, s, _ = data
    C, D, T, Ty, Tyy = counts_of(pair_counts(y, s))
    assert counts_of(pair_counts(s, y)) == (C, D, Ty - Tyy, T + Tyy, Tyy)


@given(data=samples(min_size=1, weight_kind="float"), perm_seed=st.integers(0, 2**32 - 1))
def test_permuting_rows_changes_nothing(data, perm_seed):
    y, s, w = data
    p = np.random.default_rng(perm_seed).permutation(len(y))
    assert counts_of(pair_counts(y[p], s[p])) == counts_of(pair_counts(y, s))
    assert_same_weighted_counts(pair_counts(y[p], s[p], sample_weight=w[p]),
                                pair_counts(y, s, sample_weight=w))


@given(data=samples(min_size=1))
def test_input_container_and_dtype_do_not_matter(data):
    """Lists, tuples and arrays; bool labels as 0/1 ints; int scores as floats."""
    y, s, _ = data
    expected = counts_of(pair_counts(y, s))
    assert counts_of(pair_counts(y.tolist(), s.tolist())) == expected
    assert counts_of(pair_counts(tuple(y.tolist()), tuple(s.tolist()))) == expected
    if y.dtype == bool:
        assert counts_of(pair_counts(y.astype(np.int64), s)) == expected
    if s.dtype.kind in "bi":
        assert counts_of(pair_counts(y, s.astype(np.float64))) == expected


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.float32, np.float16])
def test_small_dtypes_count_like_int64(dtype):
    """Narrow input dtypes must not overflow or lose ties inside the kernel."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 5, 3000)
    s = rng.integers(0, 100, 3000)
    expected = counts_of(pair_counts(y.astype(np.int64), s.astype(np.int64)))
    assert counts_of(pair_counts(y.astype(dtype), s.astype(dtype))) == expected


@pytest.mark.parametrize("dtype, values", [
    (np.int8, [-100, 100, 0, 50, -128, 127]),
    (np.int16, [-32768, 32767, 0, -5]),
    (np.uint8, [0, 255, 7, 128]),
], ids=["int8-wide", "int16-extremes", "uint8-wide"])
@pytest.mark.parametrize("role", ["labels", "scores"])
def test_extreme_values_of_narrow_int_dtypes(dtype, values, role):
    """Label encoding (e.g. ``y - y.min()``) must not wrap around in the input's dtype."""
    a = np.array(values, dtype=dtype)
    b = np.arange(len(values), dtype=np.float64)[::-1].copy()
    y, s = (a, b) if role == "labels" else (b, a)
    expected = counts_of(pair_counts(y.astype(np.int64) if role == "labels" else y,
                                     s.astype(np.int64) if role == "scores" else s))
    assert counts_of(pair_counts(y, s)) == expected


# --------------------------------------------------------------------------- small n
def test_single_sample_has_no_pairs():
    pc = pair_counts([1], [0.5])
    assert counts_of(pc) == (0, 0, 0, 0, 0) and pc.n == 1
    pc._check()
    for name in ("auc", "gamma", "somers_d", "tau_a", "tau_b", "tau_c"):
        value, n_warn = metric_recording(lambda: getattr(pc, name))
        assert math.isnan(value) and n_warn == 1, name


def test_all_zero_weights_give_zero_counts_and_undefined_metrics():
    pc = pair_counts([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[0.0, 0.0, 0.0])
    assert counts_of(pc) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert pc.weight_sum == 0
    value, n_warn = metric_recording(lambda: pc.auc)
    assert math.isnan(value) and n_warn == 1


@pytest.mark.parametrize(
    "y, s, expected",
    [
        # Distinct only as exact integers: float64 would merge 2**53 and 2**53 + 1.
        ([2**53, 2**53 + 1, 2**53 + 2], [0.0, 1.0, 2.0], (3, 0, 0, 0, 0)),
        ([0, 1], [2**62, 2**62 + 1], (1, 0, 0, 0, 0)),
        ([0, 1, 2], [-(2**62), 2**62, -(2**62) - 1], (1, 2, 0, 0, 0)),
        # -0.0 == 0.0: a tie in score, and in label.
        ([0.0, -0.0, 1.0], [-0.0, 0.0, 0.0], (0, 0, 2, 1, 1)),
    ],
    ids=["labels-past-2**53", "scores-past-2**53", "negative-big-scores", "signed-zeros"],
)
def test_exact_comparisons_of_extreme_values(y, s, expected):
    assert counts_of(pair_counts(y, s)) == expected


@pytest.mark.parametrize("label_kind", ["binary", "ordinal", "continuous"])
@pytest.mark.parametrize("n", [3, 5, 10, 100, 1000])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_weighted_all_tied_scores_leave_gamma_tau_b_tau_c_undefined(label_kind, n, seed):
    """All scores tied, float weights: C = D = 0 and N0 - Ts = 0, whatever the rounding of
    the weight sums, so gamma, tau-b and tau-c are nan with a warning (never a number and
    never an exception), and AUC / Somers' D keep their exact values 1/2 and 0."""
    rng = np.random.default_rng(seed)
    y = {"binary": np.arange(n) % 2, "ordinal": np.arange(n) % 5,
         "continuous": rng.permutation(n) / 7.0}[label_kind]
    w = rng.lognormal(0.0, 1.0, n)
    pc = pair_counts(y, np.full(n, 0.25), sample_weight=w)
    for name in ("gamma", "tau_b", "tau_c"):
        value, n_warn = metric_recording(lambda: getattr(pc, name))
        assert math.isnan(value) and n_warn == 1, (name, value, pc)
    assert pc.c_index == 0.5 and pc.somers_d == 0.0
    assert (pc.concordant, pc.discordant) == (0.0, 0.0)


@pytest.mark.parametrize("n", [3, 10, 100, 1000])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_weighted_single_label_leaves_auc_somers_tau_b_undefined(n, seed):
    """All labels tied, float weights: P = 0 exactly, so AUC, Somers' D and tau-b are nan."""
    rng = np.random.default_rng(seed)
    pc = pair_counts(np.full(n, 2.5), rng.normal(size=n), sample_weight=rng.lognormal(0, 1, n))
    assert pc.comparable == 0.0
    for name in ("auc", "somers_d", "tau_b", "gamma"):
        value, n_warn = metric_recording(lambda: getattr(pc, name))
        assert math.isnan(value) and n_warn == 1, (name, value)


# --------------------------------------------------------------------------- big counts
def comb2(k: int) -> int:
    return k * (k - 1) // 2


def _all_tied_binary():
    n_pos, n_neg = 200_000, 100_001
    y = np.r_[np.ones(n_pos, np.int64), np.zeros(n_neg, np.int64)]
    s = np.full(n_pos + n_neg, 0.5)
    ties = comb2(n_pos) + comb2(n_neg)
    return y, s, (0, 0, n_pos * n_neg, ties, ties)


def _sawtooth_ordinal():
    # Label = block (5 blocks of m); score = position inside the block. Each pair of
    # blocks holds m(m-1)/2 concordant, as many discordant, and m tied-score pairs.
    k, m = 5, 60_000
    y = np.repeat(np.arange(k), m)
    s = np.tile(np.arange(m, dtype=np.float64), k)
    return y, s, (comb2(k) * comb2(m), comb2(k) * comb2(m), comb2(k) * m, k * comb2(m), 0)


def _block_reversed_continuous():
    # Labels 0..n-1 (all distinct), scores equal to the labels except reversed inside
    # blocks of b: every pair inside a block is discordant, every other one concordant.
    n, b = 200_000, 1_000
    y = np.arange(n, dtype=np.float64) * 0.5
    s = np.arange(n).reshape(-1, b)[:, ::-1].ravel().astype(np.float64)
    d = (n // b) * comb2(b)
    return y, s, (comb2(n) - d, d, 0, 0, 0)


@pytest.mark.parametrize("make", [_all_tied_binary, _sawtooth_ordinal, _block_reversed_continuous],
                         ids=["all-tied-binary", "sawtooth-ordinal", "block-reversed-continuous"])
def test_big_counts_are_exact_python_ints(make):
    """Closed-form counts past 2**32 (int32 overflow) on shuffled input."""
    y, s, expected = make()
    p = np.random.default_rng(11).permutation(len(y))
    pc = pair_counts(y[p], s[p])
    assert counts_of(pc) == expected
    assert all(type(v) is int for v in counts_of(pc))
    assert max(expected) > 2**32 or pc.total > 2**32
    pc._check()


# --------------------------------------------------------------------------- kernel paths
def _labels_for_path(name, rng, n):
    """Labels that steer the kernels to each of their paths (binary, few levels, many
    levels; small integer range, wide range, floats, a new level after a long prefix)."""
    if name == "bool":
        return rng.random(n) < 0.3
    if name == "2-ints":
        return rng.choice([-7, 40], n)
    if name == "8-int-levels":
        return rng.integers(0, 8, n)
    if name == "9-int-levels":
        return rng.integers(0, 9, n)
    if name == "8-levels-wide-range":
        return rng.choice([-(2**40), -3, 0, 5, 1000, 2**20, 2**41, 2**62], n)
    if name == "int64-extremes":
        return rng.choice(np.array([-(2**63), -1, 0, 2**63 - 1], dtype=np.int64), n)
    if name == "uint64-past-2**63":
        return rng.choice(np.array([3, 2**63 + 1, 2**63 + 5, 2**64 - 1], dtype=np.uint64), n)
    if name == "float-levels-new-after-prefix":
        # 3 levels in the first 4100 samples, new ones afterwards.
        return np.r_[rng.choice([0.5, 1.5, 2.5], 4100), rng.choice([0.5, 3.5, -9.0], n - 4100)]
    if name == "continuous":
        return rng.normal(size=n)
    raise ValueError(name)


PATHS = ["bool", "2-ints", "8-int-levels", "9-int-levels", "8-levels-wide-range",
         "int64-extremes", "uint64-past-2**63", "float-levels-new-after-prefix", "continuous"]


@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
@pytest.mark.parametrize("path", PATHS)
def test_every_label_path_equals_the_exact_oracle(path, weighted):
    """Tied scores, against the exact O(n^2) mask oracle; n = 4300 when a new label
    level appears only after the first 4096 samples (a prefix the kernels inspect)."""
    rng = np.random.default_rng(PATHS.index(path))
    n = 4300 if path == "float-levels-new-after-prefix" else 1500
    y = _labels_for_path(path, rng, n)
    s = np.round(rng.normal(size=n) + (np.argsort(np.argsort(y)) / n), 1)
    w = rng.lognormal(0.0, 1.0, n) if weighted else None
    pc, exact = pair_counts(y, s, sample_weight=w), pair_counts_matrix(y, s, w)
    if weighted:
        assert_close_counts(pc, exact)
    else:
        assert_exact_counts(pc, exact, n)
    assert (pc.n_label_levels, pc.n_score_levels) == (exact.m_y, exact.m_s)


# --------------------------------------------------------------------------- float error
@pytest.mark.parametrize(
    "label_kind, score_kind",
    [("binary", "grid"), ("ordinal", "grid"), ("continuous", "continuous"),
     ("ordinal", "continuous"), ("continuous", "reversed")],
)
def test_weighted_float_error_is_bounded(label_kind, score_kind):
    """n = 2000 log-normal weights against the exact sums of `pair_counts_matrix`.

    Bound: every count within 1e-12 * N0 (the total pair weight) of the exact value, and
    every count of at least 1% of N0 within 1e-12 relative. A count computed as a
    difference of sums (e.g. C = N0 - Ty - D - T) has only the absolute accuracy: with
    scores in reverse label order its exact value 0 comes out as a few 1e-15 * N0.
    """
    rng = np.random.default_rng(2024)
    n = 2000
    y = {"binary": rng.integers(0, 2, n), "ordinal": rng.integers(0, 5, n),
         "continuous": rng.normal(size=n)}[label_kind]
    s = rng.normal(size=n) + 0.5 * y
    if score_kind == "grid":
        s = np.round(s * 4) / 4
    elif score_kind == "reversed":
        s = -y
    w = rng.lognormal(0.0, 1.0, n)
    pc = pair_counts(y, s, sample_weight=w)
    exact = pair_counts_matrix(y, s, w)
    assert_close_counts(pc, exact)
    for name, got, ref in zip(COUNT_FIELDS, counts_of(pc), exact.as_tuple()):
        if ref >= exact.N0 / 100:
            assert abs(Fraction(got) - ref) <= REL_TOL * ref, name
    for name in ("c_index", "gamma", "somers_d", "tau_a", "tau_b"):
        assert getattr(pc, name) == pytest.approx(float(getattr(exact, name)), rel=0, abs=1e-12)


@pytest.mark.parametrize("w", [[1e-3, 16.0], [0.5, 1e3, 1e-3], [1e-9, 1e9]])
def test_tied_pairs_of_skewed_weights_keep_their_precision(w):
    """Two or three samples, one label, one score: Ty = Tyy = N0 = sum_{i<j} w_i w_j,
    within a few n eps of the exact sum (found by the "explore" Hypothesis profile)."""
    n = len(w)
    pc = pair_counts(np.zeros(n), np.zeros(n), sample_weight=w)
    exact = pair_counts_brute(np.zeros(n), np.zeros(n), w)
    for name, got, ref in zip(COUNT_FIELDS, counts_of(pc), exact.as_tuple()):
        assert abs(Fraction(got) - ref) <= 4 * n * 2.0**-53 * exact.N0, (name, got, float(ref))


_UNDEFINED = PairCounts(0, 0, 0, 0, 0, 1, 1, 1, 1)      # one sample: every ratio undefined


@pytest.mark.parametrize("name", ["auc", "tau_b", "gamma", "somers_d", "c_index",
                                  "pairwise_accuracy", "right_wrong_ratio"])
def test_quiet_metric_reads_nan_silently_and_the_property_still_warns(name):
    from streamrank.counts import quiet_metric

    value, warned = metric_recording(lambda: quiet_metric(_UNDEFINED, name))
    assert math.isnan(value) and warned == 0
    value, warned = metric_recording(lambda: getattr(_UNDEFINED, name))   # the flag is reset
    assert math.isnan(value) and warned == 1


def test_quiet_metric_silences_its_own_thread_only():
    """The flag is per thread: a read inside `quiet_metric` in one thread does not hide
    another thread's warning, and an error inside it leaves the flag as it was."""
    import threading

    from streamrank import counts

    seen = []

    class Probe:
        @property
        def auc(self):                      # runs inside quiet_metric, flag on
            t = threading.Thread(target=lambda: seen.append(
                metric_recording(lambda: _UNDEFINED.auc)[1]))
            t.start()
            t.join()
            return _UNDEFINED.auc

        @property
        def broken(self):
            raise RuntimeError("boom")

    assert math.isnan(counts.quiet_metric(Probe(), "auc")) and seen == [1]
    with pytest.raises(RuntimeError):
        counts.quiet_metric(Probe(), "broken")
    assert metric_recording(lambda: _UNDEFINED.auc)[1] == 1
