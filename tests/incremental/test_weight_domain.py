"""The declared weight domain, exact structural zeros and atomic validation.

Every entry point takes weights that are finite and ``>= 0``; incremental objects hold
nonzero weights in ``[2**-400, 2**400]`` and refuse numbers float64 cannot hold exactly;
batch metrics are invariant under scaling the weights. A rejected input changes nothing,
and a count that is zero by structure is exactly zero whatever came and went.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from sklearn.metrics import roc_auc_score as sk_roc_auc

import streamrank as sr
from oracle import pair_counts_brute
from streamrank import (EpochTracker, PairCounter, SlidingPairCounter, TimeSlidingPairCounter,
                        UndefinedMetricWarning)
from streamrank._validation import INT_TOTAL_MAX, MAX_WEIGHT, MIN_WEIGHT
from streamrank.metrics import (ROCAUC, ConcordanceIndex, GoodmanKruskalGamma, GroupAUC,
                                KendallTau, RollingROCAUC, SomersD)
from streamrank.monitor import Monitor

FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")

# Out of the domain: (value, exception); every one must leave the object untouched.
BAD_WEIGHTS = [(-1.0, ValueError), (-1, ValueError), (math.nan, ValueError),
               (math.inf, ValueError), (2.0 ** 401, ValueError), (10 ** 400, ValueError),
               (2.0 ** -401, ValueError), (2 ** 53 + 1, ValueError), ("1", TypeError),
               (None, TypeError), (True, TypeError)]


def _state(obj):
    counts = obj.counts
    return counts, len(obj), sorted(obj.items()) if hasattr(obj, "items") else list(obj)


def _held(counter):
    rows = [v for _, v in counter.items()]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def _assert_oracle(counts, y, s, w, rel=1e-9):
    """Counts equal the exact (Fraction) oracle within ``rel * W**2`` (``W`` the weight
    held: the documented float bound), and are exactly 0 where the oracle is 0 by
    structure."""
    ref = pair_counts_brute(y, s, w)
    scale = float(ref.W) ** 2
    for f, r in zip(FIELDS, ref.as_tuple()):
        got = getattr(counts, f)
        assert abs(got - float(r)) <= rel * scale + 1e-300, (f, got, float(r), scale)
    if ref.m_y <= 1:
        assert counts.concordant == counts.discordant == counts.tied_score == 0
    if ref.m_s <= 1:
        assert counts.concordant == counts.discordant == 0


# ---------------------------------------------------------------------- the domain
@pytest.mark.parametrize("bad,exc", BAD_WEIGHTS)
def test_counter_refuses_weights_outside_the_domain_and_changes_nothing(bad, exc):
    pc = PairCounter()
    pc.insert("a", 0, 0.2, 0.5)
    pc.insert("b", 1, 0.7, 3)
    before = _state(pc)
    with pytest.raises(exc, match="'w'"):
        pc.insert("c", 1, 0.1, bad)
    if bad is not None:                   # (update(weight=None) keeps the weight)
        with pytest.raises(exc, match="'weight'"):
            pc.update("a", weight=bad)
    assert _state(pc) == before
    pc._check()
    pc.insert("c", 1, 0.1, 2.0)           # a retry with a good weight counts once
    assert pc.counts.tied_label == pytest.approx(6.0)
    pc._check()


@pytest.mark.parametrize("bad,exc", [b for b in BAD_WEIGHTS if b[0] is not None
                                     and not isinstance(b[0], (str, bool))])
def test_counter_batches_refuse_weights_outside_the_domain(bad, exc):
    pc = PairCounter()
    pc.insert_many(["a", "b"], [0, 1], [0.2, 0.7], [0.5, 3])
    before = _state(pc)
    with pytest.raises(exc, match="'w'"):
        pc.insert_many(["c", "d"], [0, 1], [0.1, 0.3], [1.0, bad])
    with pytest.raises(exc, match="'weights'"):
        pc.update_many(["a", "b"], weights=[bad, 1.0])
    assert _state(pc) == before
    pc._check()


@pytest.mark.parametrize("bad,exc", BAD_WEIGHTS)
def test_windows_monitor_and_river_metrics_refuse_bad_weights(bad, exc):
    win = SlidingPairCounter(3)
    twin = TimeSlidingPairCounter(10.0)
    for i, (y, s) in enumerate([(0, 0.1), (1, 0.9)]):
        win.push(y, s, 0.5)
        twin.push(y, s, 0.5, t=float(i))
    mon = Monitor(window=10)
    mon.observe("a", score=0.3, label=1)
    calls = [(win, lambda: win.push(1, 0.5, bad)),
             (twin, lambda: twin.push(1, 0.5, bad, t=5.0))]
    if bad is not None:                   # (a Monitor event without a weight is fine)
        calls.append((mon, lambda: mon.observe("b", score=0.5, label=0, weight=bad)))
    for obj, call in calls:
        before = (obj.counts, len(obj))
        with pytest.raises(exc):
            call()
        assert (obj.counts, len(obj)) == before
        obj._check()
    for metric in (ROCAUC(), RollingROCAUC(window_size=5), KendallTau(), SomersD(),
                   GoodmanKruskalGamma()):
        metric.update(1, 0.8)
        metric.update(0, 0.2)
        before = metric.get()
        with pytest.raises(exc, match="'w'"):
            metric.update(1, 0.5, w=bad)
        assert metric.get() == before   # nothing buffered: later reads cannot fail


@given(k=st.integers(-300, 300), seed=st.integers(0, 2 ** 16))
def test_batch_metrics_are_invariant_under_scaling_weights_by_powers_of_two(k, seed):
    rng = np.random.default_rng(seed)
    n = 40
    y = rng.integers(0, 2, n)
    yo = rng.integers(0, 4, n)
    s = rng.integers(0, 6, n).astype(float)           # heavy ties
    w = rng.uniform(0.01, 100, n)
    g = rng.integers(0, 3, n)
    scale = 2.0 ** k

    def metrics(wt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return (sr.roc_auc_score(y, s, sample_weight=wt),
                    sr.roc_auc_score(y, s, sample_weight=wt, max_fpr=0.5),
                    sr.kendall_tau(yo, s, variant="b", sample_weight=wt),
                    sr.kendall_tau(yo, s, variant="c", sample_weight=wt),
                    sr.somers_d(yo, s, sample_weight=wt),
                    sr.goodman_kruskal_gamma(yo, s, sample_weight=wt),
                    sr.concordance_index(yo + 1, s, rng.integers(0, 2, n) * 0 + 1,
                                         sample_weight=wt),
                    sr.group_auc_score(y, s, g, sample_weight=wt, weighting="pairs"))
    base, scaled = metrics(w), metrics(w * scale)
    assert scaled == base   # bit for bit: a power of two scales every sum exactly
    assert base[0] == pytest.approx(sk_roc_auc(y, s, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("factor", [1e-200, 1e160, 1e-300, 1e300])
def test_batch_metrics_at_extreme_weight_scales_equal_scikit_learn(factor):
    y = np.array([0, 0, 1, 1])
    s = np.array([0.1, 0.4, 0.35, 0.8])
    w = np.array([1.0, 2, 1, 1]) * factor
    assert sr.roc_auc_score(y, s, sample_weight=w) == pytest.approx(
        sk_roc_auc(y, s, sample_weight=np.array([1.0, 2, 1, 1])), abs=1e-12)
    assert sr.roc_auc_score(y, s, sample_weight=w) == pytest.approx(2 / 3, abs=1e-12)


def test_pair_counts_refuses_weights_whose_pair_sums_leave_float64():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    with pytest.raises(ValueError, match="'sample_weight'.*pair_counts.*fit float64"):
        sr.pair_counts(y, s, sample_weight=[1e160] * 4)
    with pytest.raises(ValueError, match="'sample_weight'"):
        sr.pair_counts(y, s, sample_weight=[1e-200] * 4)
    pc = sr.pair_counts(y, s, sample_weight=[2.0 ** 300] * 4)   # within range: exact scale
    assert pc.concordant == 3 * 2.0 ** 600 and pc.weight_sum == 4 * 2.0 ** 300


def test_integers_beyond_float64_are_refused_as_labels_and_scores():
    pc = PairCounter()
    pc.insert("a", 0, 2 ** 53)
    with pytest.raises(ValueError, match="'s'.*float64 holds exactly"):
        pc.insert("b", 1, 2 ** 53 + 1)
    with pytest.raises(ValueError, match="'y'"):
        pc.insert("b", 10 ** 400, 0.5)
    with pytest.raises(ValueError, match="'s'.*float64 holds exactly"):
        pc.insert_many(["b"], [1], np.array([2 ** 53 + 1], dtype=np.int64))
    with pytest.raises(ValueError, match="'y'"):
        pc.insert_many(["b"], [10 ** 400], [0.5])
    with pytest.raises(ValueError, match="'scores'"):
        pc.update_many(["a"], scores=np.array([2 ** 62 + 1], dtype=np.int64))
    assert len(pc) == 1 and pc.get("a") == (0.0, float(2 ** 53), 1)
    pc.insert("b", 1, 2 ** 60)             # a float64 value: taken as it is
    assert pc.counts.concordant == 1
    with pytest.raises(ValueError, match="'s'"):
        SlidingPairCounter(3).push(0, 2 ** 53 + 1)
    with pytest.raises(ValueError, match="'y_pred'"):
        ROCAUC().update(True, 2 ** 53 + 1)


# ---------------------------------------------------------------------- exact integers
def test_integer_weights_up_to_2_53_give_exact_int_counts_past_2_63():
    rng = np.random.default_rng(7)
    n = 30
    y = rng.integers(0, 3, n).tolist()
    s = rng.integers(0, 5, n).tolist()
    w = [int(x) for x in rng.integers(2 ** 40, 2 ** 44, n)]
    one, many = PairCounter(), PairCounter()
    for i in range(n):
        one.insert(i, y[i], s[i], w[i])
    many.insert_many(range(n), y, s, w)
    ref = pair_counts_brute(y, s, w)
    for pc in (one, many):
        assert not pc.counts.weighted
        got = tuple(getattr(pc.counts, f) for f in FIELDS)
        assert all(isinstance(x, int) for x in got)
        assert got == tuple(int(x) for x in ref.as_tuple())
        assert pc.counts.total > 2 ** 63
    many.update_many(range(0, n, 2), scores=[9.0] * len(range(0, n, 2)))
    for i in range(0, n, 2):
        one.update(i, score=9.0)
    assert one.counts == many.counts
    many._check()


def test_integer_weight_total_past_the_bound_turns_to_floats_and_loses_nothing():
    pc = PairCounter()
    pc.insert_many(list("abcd"), [0, 1, 2, 0], [1, 2, 3, 4], [2 ** 53] * 3 + [1])
    assert not pc.counts.weighted
    for i in range(INT_TOTAL_MAX // 2 ** 53 + 1):
        pc.insert(f"x{i}", i % 3, 0.5, 2 ** 53)
    assert pc.counts.weighted and len(pc) == 4 + INT_TOTAL_MAX // 2 ** 53 + 1
    pc._check()
    for i in range(INT_TOTAL_MAX // 2 ** 53 + 1):
        pc.remove(f"x{i}")
    assert len(pc) == 4
    _assert_oracle(pc.counts, *_held(pc))


# ---------------------------------------------------------------------- structural zeros
def test_one_class_left_after_float_weights_is_undefined_not_a_leftover():
    pc = PairCounter()
    pc.insert("a", 0, 0.3, 0.1)
    pc.insert("b", 0, 0.7, 0.3)
    pc.insert("c", 1, 0.5, 0.7)
    pc.insert("d", 0, 0.5, 1 / 3)
    pc.remove("c")
    counts = pc.counts
    assert counts.concordant == counts.discordant == counts.tied_score == 0
    for metric in ("auc", "somers_d", "gamma", "right_wrong_ratio"):
        with pytest.warns(UndefinedMetricWarning):
            assert math.isnan(getattr(counts, metric))


def test_all_tied_scores_give_exact_zero_concordance():
    pc = PairCounter()
    for i, (y, w) in enumerate([(0, 0.1), (1, 0.7), (2, 1 / 3), (1, 0.2)]):
        pc.insert(i, y, 0.5 if i < 2 else 0.9, w)
    pc.update(2, score=0.5)
    pc.update(3, score=0.5)
    assert pc.counts.concordant == pc.counts.discordant == 0
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(pc.counts.gamma)


def test_one_class_window_is_undefined_and_river_reads_zero():
    win = SlidingPairCounter(4)
    roll = RollingROCAUC(window_size=4)
    for y, s, w in [(1, 0.2, 0.1), (0, 0.5, 0.3), (0, 0.7, 0.7), (0, 0.1, 0.2),
                    (0, 0.3, 0.3)]:
        win.push(y, s, w)
        roll.update(bool(y), s, w=w)
    assert win.counts.concordant == win.counts.discordant == win.counts.tied_score == 0
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(win.counts.auc)
    assert roll.get() == 0.0


# ---------------------------------------------------------------------- cancellation
@given(data=st.data())
@settings(max_examples=30)
def test_extreme_weight_inserted_and_removed_leaves_the_counts_of_what_remains(data):
    n = data.draw(st.integers(2, 12))
    y = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    s = data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.3]), min_size=n, max_size=n))
    w = data.draw(st.lists(st.floats(0.5, 2.0), min_size=n, max_size=n))
    big = data.draw(st.sampled_from([1e20, 2.0 ** 200, MAX_WEIGHT]))
    pc = PairCounter()
    mon = Monitor(window=n + 1)
    for i in range(n):
        pc.insert(i, y[i], s[i], w[i])
        mon.observe(i, score=s[i], label=float(y[i] == 1), weight=w[i])
    for rep in range(data.draw(st.integers(1, 3))):
        ey, es = data.draw(st.sampled_from([0, 1, 2])), data.draw(st.sampled_from(s))
        pc.insert("big", ey, es, big)
        pc.counts  # noqa: B018 - a read in between
        pc.remove("big")
        mon.observe("big", score=es, label=0.0, weight=big)
        mon.report()
        mon.observe("big", weight=w[0])             # re-weighted back to an ordinary one
    _assert_oracle(pc.counts, *_held(pc))
    pc._check()
    mon._check()
    # A big event passes through each window.
    win, roll = SlidingPairCounter(n), RollingROCAUC(window_size=n)
    stream = [(y[0] == 1, s[0], big)] + [(y[i % n] == 1, s[i % n], w[i % n])
                                         for i in range(1, n + 1)]
    for yi, si, wi in stream:
        win.push(float(yi), si, wi)
        roll.update(yi, si, w=wi)
        roll.get()
    held = list(win)
    _assert_oracle(win.counts, [e[0] for e in held], [e[1] for e in held],
                   [e[2] for e in held])
    yb = np.array([e[0] for e in held]) == 1
    if yb.any() and not yb.all():
        assert roll.get() == pytest.approx(
            sk_roc_auc(yb, [e[1] for e in held], sample_weight=[e[2] for e in held]),
            abs=1e-9)


class ExtremeWeights(RuleBasedStateMachine):
    """A PairCounter fed weights from both ends of the domain, against the exact oracle."""

    def __init__(self):
        super().__init__()
        self.pc = PairCounter()
        self.model = {}
        self.next = 0

    weights = st.one_of(st.sampled_from([0.0, MIN_WEIGHT, 1.0, 2.0 ** 53, MAX_WEIGHT, 3]),
                        st.builds(lambda m, e: m * 2.0 ** e, st.floats(1.0, 1.99),
                                  st.integers(-400, 399)))

    @rule(y=st.sampled_from([0.0, 1.0, 2.0]), s=st.sampled_from([0.0, 0.5, 1.0]), w=weights)
    def insert(self, y, s, w):
        self.pc.insert(self.next, y, s, w)
        self.model[self.next] = (y, s, w)
        self.next += 1

    @rule(data=st.data())
    def remove(self, data):
        if self.model:
            key = data.draw(st.sampled_from(sorted(self.model)))
            self.pc.remove(key)
            del self.model[key]

    @rule(data=st.data(), w=weights)
    def reweight(self, data, w):
        if self.model:
            key = data.draw(st.sampled_from(sorted(self.model)))
            self.pc.update(key, weight=w)
            y, s, _ = self.model[key]
            self.model[key] = (y, s, w)

    @invariant()
    def matches_oracle(self):
        self.pc._check()
        rows = list(self.model.values())
        counts = self.pc.counts
        if rows:
            _assert_oracle(counts, *zip(*rows))
        counts._check()


TestExtremeWeights = ExtremeWeights.TestCase
TestExtremeWeights.settings = settings(max_examples=40, stateful_step_count=25)


# ---------------------------------------------------------------------- River metrics
@given(ops=st.lists(st.tuples(st.booleans(), st.sampled_from([0.1, 0.5, 0.5, 0.9]),
                              st.sampled_from([0.0, MIN_WEIGHT, 1.0, 1e20, MAX_WEIGHT,
                                               -1.0, math.nan, 10 ** 400]),
                              st.booleans()), max_size=30))
def test_river_get_never_raises_whatever_came(ops):
    """A weight in the domain (0, or within ``[MIN_WEIGHT, MAX_WEIGHT]``) is taken, a
    revert of a held update too; one outside (negative, nan, past ``MAX_WEIGHT``) raises
    a ValueError naming ``w`` and changes nothing; `get` never raises."""
    metrics = [ROCAUC(), RollingROCAUC(window_size=5), GroupAUC(), KendallTau(), SomersD(),
               GoodmanKruskalGamma(), ConcordanceIndex()]
    done = []
    for y, s, w, revert in ops:
        valid = w == w and (w == 0 or MIN_WEIGHT <= w <= MAX_WEIGHT)
        for m in metrics:
            pred = (s, "g") if isinstance(m, GroupAUC) else s
            if revert and done:
                m.revert(*done[-1] if not isinstance(m, GroupAUC) else
                         (done[-1][0], (done[-1][1], "g"), done[-1][2]))
            elif valid:
                m.update(y, pred, w=w)
            else:
                before = m.get()
                with pytest.raises(ValueError, match="'w'"):
                    m.update(y, pred, w=w)
                assert m.get() == before
            value = m.get()
            assert isinstance(value, float) and math.isfinite(value)
        if revert and done:
            done.pop()
        elif not revert and valid:
            done.append((y, s, w))


@pytest.mark.parametrize("metric", [ROCAUC, lambda: RollingROCAUC(window_size=3), GroupAUC])
@pytest.mark.parametrize("bad,exc", [(None, TypeError), (math.nan, ValueError),
                                     ("oops", TypeError), ([1], TypeError)])
def test_river_binary_metrics_validate_y_true(metric, bad, exc):
    m = metric()
    pred = (0.5, "u") if isinstance(m, GroupAUC) else 0.5
    m.update(True, (0.9, "u") if isinstance(m, GroupAUC) else 0.9)
    m.update(False, (0.1, "u") if isinstance(m, GroupAUC) else 0.1)
    before = m.get()
    with pytest.raises(exc, match="'y_true'"):
        m.update(bad, pred)
    assert m.get() == before == 1.0


def test_river_string_classes_need_a_string_y_true():
    m = ROCAUC(pos_val="spam")
    for y, p in [("spam", {"spam": 0.9}), ("ham", {"spam": 0.2}), ("ham", {"spam": 0.95})]:
        m.update(y, p)
    assert m.get() == pytest.approx(0.5)
    with pytest.raises(TypeError, match="'y_true'.*str"):
        m.update(1, {"spam": 0.5})
    m2 = ROCAUC()
    for y in (1, 0, 1.0, 0.0, True, False, np.int64(1), np.bool_(False)):
        m2.update(y, 0.5)             # numbers and bools: 1 == True, as in River
    assert m2.get() == 0.5


# ---------------------------------------------------------------------- atomicity
def _fresh_counter():
    pc = PairCounter(labels="binary")
    pc.insert_many(["a", "b", "c"], [0, 1, 1], [0.2, 0.5, 0.9], [1, 2, 1])
    return pc


@pytest.mark.parametrize("call,exc", [
    (lambda pc: pc.insert("a", 0, 0.1), KeyError),
    (lambda pc: pc.insert("z", 2, 0.1), ValueError),                 # a third label
    (lambda pc: pc.insert("z", 0, math.inf), ValueError),
    (lambda pc: pc.insert("z", "0", 0.1), TypeError),
    (lambda pc: pc.remove("zz"), KeyError),
    (lambda pc: pc.update("zz", score=0.1), KeyError),
    (lambda pc: pc.update("a", score=math.nan), ValueError),
    (lambda pc: pc.update("b", label=2), ValueError),            # a third label
    (lambda pc: pc.insert_many(["x", "y"], [0, 1], [0.1]), ValueError),
    (lambda pc: pc.insert_many(["x", "x"], [0, 1], [0.1, 0.2]), ValueError),
    (lambda pc: pc.insert_many(["x", "a"], [0, 1], [0.1, 0.2]), KeyError),
    (lambda pc: pc.insert_many(["x", "y"], [0, 1], [0.1, math.nan]), ValueError),
    (lambda pc: pc.insert_many(["x", "y"], [0, 2], [0.1, 0.3]), ValueError),
    (lambda pc: pc.remove_many(["a", "zz"]), KeyError),
    (lambda pc: pc.remove_many(["a", "a"]), ValueError),
    (lambda pc: pc.update_many(["a", "zz"], scores=[0.1, 0.2]), KeyError),
    (lambda pc: pc.update_many(["a", "b"], scores=[0.1]), ValueError),
    (lambda pc: pc.update_many(["a", "b"], labels=[0, 2]), ValueError),
    (lambda pc: pc.update_many(["a", "b"], scores=[0.1, math.inf]), ValueError),
])
def test_every_counter_mutation_validates_before_it_changes_anything(call, exc):
    pc = _fresh_counter()
    before = _state(pc)
    with pytest.raises(exc):
        call(pc)
    assert _state(pc) == before
    pc._check()


def test_epoch_tracker_and_monitor_take_the_declared_domain():
    with pytest.raises(ValueError, match="'sample_weight'.*2\\*\\*400"):
        EpochTracker([0, 1], sample_weight=[1.0, 2.0 ** 401])
    tracker = EpochTracker([0, 1, 1], sample_weight=[MIN_WEIGHT, 1.0, 2.0])
    assert tracker.step([0.1, 0.2, 0.3]).auc == 1.0
    mon = Monitor(window=5)
    mon.observe("a", score=0.2, label=0, weight=MAX_WEIGHT)
    mon.observe("b", score=0.6, label=1, weight=MIN_WEIGHT)
    assert mon.report().auc == 1.0
    assert Fraction(mon.counts.concordant) == Fraction(MAX_WEIGHT) * Fraction(MIN_WEIGHT)
