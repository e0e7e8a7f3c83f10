"""streamrank.metrics against references on every prefix and every window, with ties,
weights and reverts in random order; the fast paths against each other; the conventions
(``get()`` never raises, validation messages).

Every random test is seeded; stress loops carry their iteration counts.
"""

from __future__ import annotations

import math
import pickle
import random
import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest
from river import metrics as river_metrics
from sklearn.metrics import roc_auc_score

from _metric_refs import auc_ref, cindex_ref, gauc_ref, pair_ref
from oracle import concordance_brute, pair_counts_brute
from streamrank import group_auc_score
from streamrank import metrics as sm
from streamrank.engine import PairEngine
from streamrank.metrics import _base
from streamrank.metrics._censored_engine import CensoredPairEngine

PAIR_METRICS = [
    (sm.KendallTau, {}, "tau_b"),
    (sm.KendallTau, {"variant": "a"}, "tau_a"),
    (sm.KendallTau, {"variant": "c"}, "tau_c"),
    (sm.GoodmanKruskalGamma, {}, "gamma"),
    (sm.SomersD, {}, "somers_d"),
    (sm.PairwiseAccuracy, {}, "pairwise_accuracy"),
    (sm.RightWrongRatio, {}, "right_wrong_ratio"),
]


def _close(got, want, tol=1e-9):
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


def _stream(rng, n, *, kind="binary", weights="int"):
    """``n`` tie-heavy events ``(y_true, y_pred, w)``: scores rounded to one decimal."""
    out = []
    for _ in range(n):
        if kind == "binary":
            y = rng.random() < 0.4
        elif kind == "ordinal":
            y = float(rng.randint(0, 3))
        else:
            y = round(rng.uniform(-1, 1), 2)
        s = round(rng.random(), 1)
        w = {"unit": 1.0, "int": float(rng.randint(1, 3)),
             "float": rng.choice([0.25, 0.5, 1.5, 2.0, 3.75])}[weights]
        out.append((y, s, w))
    return out


def _play(metric, reference, events, rng, *, revert_share=0.3, tol=1e-9):
    """Update with every event, revert a random held one now and then (any order), and
    compare with the reference on what is held after each step."""
    held = []
    steps = 0
    for e in events:
        metric.update(*e)
        held.append(e)
        if held and rng.random() < revert_share:
            victim = held.pop(rng.randrange(len(held)))
            metric.revert(*victim)
        y, s, w = zip(*held) if held else ((), (), ())
        want = reference(list(y), list(s), list(w))
        got = metric.get()
        assert _close(got, want, tol), (type(metric).__name__, len(held), got, want)
        steps += 1
    return steps


# --------------------------------------------------------------------------- every prefix
@pytest.mark.parametrize("weights", ["unit", "int", "float"])
@pytest.mark.parametrize("seed", range(3))
def test_rocauc_every_prefix_with_reverts(seed, weights):
    rng = random.Random(seed)
    events = _stream(rng, 120, weights=weights)
    assert _play(sm.ROCAUC(), auc_ref, events, rng) == 120


@pytest.mark.parametrize("cls, kwargs, prop", PAIR_METRICS,
                         ids=[f"{c.__name__}-{p}" for c, _, p in PAIR_METRICS])
@pytest.mark.parametrize("kind", ["binary", "ordinal", "continuous"])
@pytest.mark.parametrize("weights", ["unit", "float"])
def test_pair_metrics_every_prefix_with_reverts(cls, kwargs, prop, kind, weights):
    rng = random.Random(zlib.crc32(f"{prop}-{kind}-{weights}".encode()))  # fixed per case
    events = [(float(y), s, w) for y, s, w in _stream(rng, 45, kind=kind, weights=weights)]
    _play(cls(**kwargs), pair_ref(prop), events, rng)


@pytest.mark.parametrize("censoring", [False, True])
@pytest.mark.parametrize("weights", ["unit", "float"])
def test_concordance_every_prefix_with_reverts(censoring, weights):
    rng = random.Random(17)
    events = []
    for y, s, w in _stream(rng, 60, kind="ordinal", weights=weights):
        yt = (y, rng.random() < 0.6) if censoring else y
        events.append((yt, s, w))
    _play(sm.ConcordanceIndex(censoring=censoring), cindex_ref, events, rng)


def test_concordance_matches_lifelines_on_censored_data():
    from lifelines.utils import concordance_index

    rng = np.random.default_rng(3)
    t = rng.integers(1, 20, 300).astype(float)
    e = rng.random(300) < 0.7
    s = np.round(rng.random(300), 1)
    metric = sm.ConcordanceIndex(censoring=True)
    for ti, ei, si in zip(t, e, s):
        metric.update((ti, bool(ei)), si)
    assert metric.get() == pytest.approx(concordance_index(t, s, e), abs=1e-12)


@pytest.mark.parametrize("weighting", ["impressions", "pairs", "uniform"])
@pytest.mark.parametrize("weights", ["unit", "float"])
def test_group_auc_every_prefix_with_reverts(weighting, weights):
    rng = random.Random(23)
    events = [(y, (s, rng.choice(["u1", "u2", "u3", 4])), w)
              for y, s, w in _stream(rng, 150, weights=weights)]
    metric = sm.GroupAUC(weighting=weighting)
    _play(metric, gauc_ref(weighting), events, rng)
    held_groups = {p[1] for _, p, _ in events}
    assert metric.n_groups + metric.n_skipped <= len(held_groups)


def test_group_auc_counts_groups_as_the_batch_function():
    rng = random.Random(5)
    metric = sm.GroupAUC()
    y, s, g = [], [], []
    for _ in range(200):
        yi, si, gi = rng.random() < 0.3, round(rng.random(), 1), rng.randrange(30)
        metric.update(yi, (si, gi))
        y.append(yi), s.append(si), g.append(gi)
    details = group_auc_score(y, s, g, return_details=True)
    assert (metric.n_groups, metric.n_skipped) == (details.n_groups, details.n_skipped)
    assert metric.get() == pytest.approx(details.score, abs=1e-12)


# --------------------------------------------------------------------------- every window
@pytest.mark.parametrize("window_size", [1, 2, 7, 40])
@pytest.mark.parametrize("weights", ["unit", "int", "float"])
@pytest.mark.parametrize("read_share", [0.5, 0.04])
def test_rolling_rocauc_every_window(window_size, weights, read_share):
    """Every window read against sklearn. Read half the time, arrivals and departures
    reach the engine one at a time; read 1 event in 25, they come in batches (the
    engine's ``add_many`` / ``remove_many``) where windows shorter than a batch see
    events come and leave between two reads."""
    rng = random.Random(window_size)
    events = _stream(rng, 150 if read_share > 0.1 else 600, weights=weights)
    metric = sm.RollingROCAUC(window_size=window_size)
    reads = 0
    for i, e in enumerate(events):
        metric.update(*e)
        if rng.random() < read_share:  # read now and then: batches of every size reach get()
            tail = events[max(0, i + 1 - window_size):i + 1]
            y, s, w = zip(*tail)
            assert _close(metric.get(), auc_ref(y, s, w)), (i, window_size)
            assert metric.n_events == len(tail)
            reads += 1
    assert reads >= 15


def test_rolling_rocauc_reverts_in_random_order():
    """River's semantics: revert removes the oldest held event with those values; one
    that already left the window changes nothing."""
    rng = random.Random(8)
    window = 25
    metric = sm.RollingROCAUC(window_size=window)
    held = []  # the window as River's definition has it
    for e in _stream(rng, 400, weights="int"):
        metric.update(*e)
        held.append(e)
        if len(held) > window:
            held.pop(0)
        if rng.random() < 0.3 and held:
            victim = held[rng.randrange(len(held))]
            held.remove(victim)  # the oldest equal one
            metric.revert(*victim)
        if rng.random() < 0.1:
            metric.revert(True, 12.5, 1.0)  # never added: nothing happens
        if rng.random() < 0.6:
            y, s, w = zip(*held) if held else ((), (), ())
            assert _close(metric.get(), auc_ref(y, s, w))
            assert metric.n_events == len(held)
    metric._engine._check(None)


def test_rolling_rocauc_tie_where_rivers_is_wrong():
    """One positive and one negative tied: AUC 1/2. River's RollingROCAUC halves the
    tied count with integer division and returns 0."""
    ours, rivers = sm.RollingROCAUC(window_size=10), river_metrics.RollingROCAUC(window_size=10)
    for m in (ours, rivers):
        m.update(True, 0.5)
        m.update(False, 0.5)
    assert ours.get() == 0.5 == roc_auc_score([1, 0], [0.5, 0.5])
    assert rivers.get() == 0.0


def test_rocauc_is_exact_where_rivers_approximates():
    """River's ROCAUC discretizes [0, 1] with 10 thresholds: 0.875 for an exact 0.75, and
    -0.0 for scores outside [0, 1]."""
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    ours, rivers = sm.ROCAUC(), river_metrics.ROCAUC()
    for yt, yp in zip(y, s):
        ours.update(yt, yp)
        rivers.update(yt, yp)
    assert ours.get() == 0.75 == roc_auc_score(y, s) and rivers.get() == 0.875
    ours, rivers = sm.ROCAUC(), river_metrics.ROCAUC()
    for yt, yp in zip(y, [10.0, 40.0, 35.0, 80.0]):
        ours.update(yt, yp)
        rivers.update(yt, yp)
    assert ours.get() == 0.75 and rivers.get() == 0.0


# --------------------------------------------------------------------------- fast paths
def _read_pattern(metric, events, every):
    values = []
    for i, e in enumerate(events):
        metric.update(*e)
        if (i + 1) % every == 0:
            values.append(metric.get())
    return values


@pytest.mark.parametrize("make", [sm.ROCAUC, lambda: sm.RollingROCAUC(window_size=300),
                                  sm.KendallTau, sm.GoodmanKruskalGamma, sm.SomersD,
                                  lambda: sm.GroupAUC(weighting="pairs"),
                                  sm.ConcordanceIndex],
                         ids=["ROCAUC", "RollingROCAUC", "KendallTau", "Gamma", "SomersD",
                              "GroupAUC", "ConcordanceIndex"])
@pytest.mark.parametrize("weights", ["unit", "int", "float"])
def test_buffered_reads_equal_reads_after_every_event(make, weights):
    """Reading after every event applies updates one at a time; reading every 250 events
    merges them as batches (the update buffer, `PairEngine.add_many` / `remove_many`):
    identical counts with integer weights, equal to rounding with float weights."""
    rng = random.Random(31)
    events = _stream(rng, 1000, weights=weights)
    if make().__class__ is sm.GroupAUC:
        events = [(y, (s, rng.randrange(4)), w) for y, s, w in events]
    elif isinstance(make(), river_metrics.base.RegressionMetric):
        events = [(float(y) + rng.randint(0, 2), s, w) for y, s, w in events]
    every_event = _read_pattern(make(), events, 1)[249::250]
    batched = _read_pattern(make(), events, 250)
    assert len(batched) == 4
    if weights == "float":
        assert batched == pytest.approx(every_event, rel=1e-12, abs=1e-12)
    else:
        assert batched == every_event


def test_auto_flush_when_the_buffer_fills(monkeypatch):
    monkeypatch.setattr(_base, "MAX_PENDING", 8)  # the one update buffer's limit
    rng = random.Random(4)
    events = _stream(rng, 50)
    for make in (sm.ROCAUC, lambda: sm.RollingROCAUC(window_size=20), sm.KendallTau):
        m = make()
        for e in events:
            m.update(*e)
            # the one update buffer of every metric (the window's, for RollingROCAUC)
            waiting = m._win.waiting if hasattr(m, "_win") else m.waiting
            assert waiting < 8
        ref = make()
        assert m.get() == _read_pattern(ref, events, 1)[-1]


def test_group_auc_auto_flush_when_the_buffer_fills(monkeypatch):
    """GroupAUC's buffer (one for all groups) flushes at the limit too, reverts of
    buffered and applied updates included."""
    monkeypatch.setattr(_base, "MAX_PENDING", 8)
    rng = random.Random(6)
    metric, held = sm.GroupAUC(), []
    for y, s, w in _stream(rng, 80):
        event = (y, (s, rng.randrange(3)), w)
        metric.update(*event)
        held.append(event)
        if rng.random() < 0.3:
            metric.revert(*held.pop(rng.randrange(len(held))))
        assert metric._waiting < 8
    assert _close(metric.get(), gauc_ref("impressions")(*zip(*held)))


def _exact_auc(held):
    """The AUC of ``(y_true, y_pred, w)`` events by the O(n^2) oracle: ``(2C + T) / 2P`` in
    exact ints or Fractions, rounded once (what the metrics return for integer weights);
    0.0 while one class has no weight."""
    y, s, w = zip(*held)
    c = pair_counts_brute([float(v) for v in y], s, sample_weight=list(w))
    p = c.C + c.D + c.T
    return 0.0 if p == 0 else float(Fraction(2 * c.C + c.T) / Fraction(2 * p))


@pytest.mark.parametrize("weights", ["unit", "int", "float"])
def test_binary_metrics_stress(weights):
    """ROCAUC, GroupAUC and RollingROCAUC under random batches of updates, reverts of
    held events (applied or still buffered, in any order) and swaps of both, read at
    random so that the update buffer applies them one at a time or as batches of every
    size (``add_many`` / ``remove_many``, and updates reverted before a read that never
    reach the engine). Every read against the O(n^2) oracle, bit for bit with integer
    weights (while at most 150 events are held; scikit-learn beyond) and ``1e-9`` with
    float weights; zero weights included. Every metric survives a pickle round trip with
    changes still buffered. Iterations: 250 steps x up to 120 events per step; seed 41."""
    rng = random.Random(41)
    roc, gauc, roll = sm.ROCAUC(), sm.GroupAUC(weighting="pairs"), sm.RollingROCAUC(300)
    held, window = [], []   # the events held; RollingROCAUC's window (no group), oldest first
    gauc_oracle = gauc_ref("pairs")

    def event():
        w = {"unit": 1.0, "int": float(rng.randint(0, 3)),
             "float": rng.choice([0.0, 0.5, 1.25, 3.0])}[weights]
        return rng.random() < 0.4, round(rng.random(), 1), w, rng.randrange(3)

    def add(e):
        y, s, w, g = e
        roc.update(y, s, w)
        gauc.update(y, (s, g), w)
        roll.update(y, s, w)
        held.append(e)
        window.append((y, s, w))
        if len(window) > 300:
            window.pop(0)

    def revert(e):
        y, s, w, g = e
        held.remove(e)
        roc.revert(y, s, w)
        gauc.revert(y, (s, g), w)
        if (y, s, w) in window:  # River's semantics: the oldest equal event of the window
            window.remove((y, s, w))
        roll.revert(y, s, w)

    reads = 0
    for step in range(250):
        op, k = rng.random(), rng.choice([1, 3, 30, 120])
        if op < 0.45 or not held:
            for _ in range(k):
                add(event())
        elif op < 0.8:
            for e in rng.sample(held, min(k, len(held))):
                revert(e)
        else:
            out = rng.sample(held, min(k, len(held)))
            for e in out:
                revert(e)
            for _ in range(k):
                add(event())
        if step % 10 == 0:  # buffered changes survive a pickle round trip
            roc, gauc, roll = pickle.loads(pickle.dumps((roc, gauc, roll)))
        if rng.random() < 0.5:
            continue
        reads += 1
        triples = [(y, s, w) for y, s, w, _ in held]
        if weights != "float" and 0 < len(held) <= 150:
            assert roc.get() == _exact_auc(triples), step
        else:
            assert _close(roc.get(), auc_ref(*zip(*triples)) if held else 0.0), step
        assert _close(gauc.get(), gauc_oracle([e[0] for e in held],
                                              [(e[1], e[3]) for e in held],
                                              [e[2] for e in held])), step
        assert roll.n_events == len(window)
        want = auc_ref(*zip(*window)) if window else 0.0
        assert _close(roll.get(), want), step
    assert reads >= 100


@pytest.mark.parametrize("make", [sm.ROCAUC, sm.GroupAUC], ids=["ROCAUC", "GroupAUC"])
def test_failed_revert_changes_nothing(make):
    """A revert of values that no update holds raises and changes nothing, whether the
    updates are still buffered or applied, and whether or not a near miss is held: the
    weight must be that of an update, not merely within what the engine holds at that
    score (two copies of weight 2 at 0.5 hold 4, yet no update has weight 1, 2.5 or 3)."""
    metric = make()
    tag = (lambda s: (s, "g")) if make is sm.GroupAUC else (lambda s: s)
    good = [(False, 0.1, 2), (True, 0.5, 2), (True, 0.5, 2), (False, 0.9, 2), (True, 0.95, 1)]
    bad = [(False, 0.5, 2), (True, 0.7, 2), (True, 0.5, 5), (True, 0.5, 2.5), (True, 0.5, 1),
           (True, 0.5, 3), (False, 0.1, 1)]
    for applied in (False, True):
        for y, s, w in good:
            metric.update(y, tag(s), w)
        if applied:
            metric.get()
        before = pickle.dumps(metric)
        for y, s, w in bad:
            with pytest.raises(ValueError, match="must be the values of an update that is held"):
                metric.revert(y, tag(s), w)
        if make is sm.GroupAUC:
            with pytest.raises(ValueError, match="must be the values of an update"):
                metric.revert(True, (0.5, "other group"), 2)
        assert pickle.dumps(metric) == before
        assert metric.get() == pickle.loads(before).get() == 12 / 20
        # One copy of (False, 0.1, 2) is held: the first revert takes it, the rest raise.
        for i in range(40):
            if i == 0:
                metric.revert(False, tag(0.1), 2)
                after = metric.get()
            else:
                with pytest.raises(ValueError, match="is held"):
                    metric.revert(False, tag(0.1), 2)
                assert metric.get() == after
        assert after == 2 / 10
        for y, s, w in good[1:]:
            metric.revert(y, tag(s), w)
        assert metric.get() == 0.0
    assert len(metric._engine if make is sm.ROCAUC else metric._engines) == 0


def test_pair_engine_failed_removal_changes_nothing():
    """The engine under the River metrics, with ``labels="binary"``: a removal of a
    sample not held (label, score, or more weight than held there) raises and changes
    nothing; its counts then still match a recount. (The engine can only bound the
    weight of one copy among several, so the metrics keep the exact multiset of their
    updates: `test_failed_revert_changes_nothing`.)"""
    engine = PairEngine("binary")
    held = [(0.0, 0.1, 2), (1.0, 0.5, 2), (1.0, 0.5, 2), (0.0, 0.9, 2)]
    for sample in held:
        engine.add(*sample)
    before = engine.counts
    for bad in [(0, 0.5, 2), (1, 0.7, 2), (1, 0.5, 5), (2, 0.5, 1)]:
        with pytest.raises(ValueError):
            engine.remove(*bad)
        assert engine.counts == before and len(engine) == 4
    with pytest.raises(ValueError, match="at most two labels"):
        engine.add(2, 0.5)
    assert engine.counts == before and len(engine) == 4
    engine._check(*zip(*held))
    assert before.auc == 0.5


def test_censored_engine_stress():
    """Adds and removals in random order against lifelines' rules (the O(n^2) oracle).
    Iterations: 300 changes; seed 9."""
    rng = random.Random(9)
    engine, held = CensoredPairEngine(), []
    for step in range(300):
        if rng.random() < 0.6 or not held:
            item = (float(rng.randint(1, 6)), rng.random() < 0.5, round(rng.random(), 1),
                    rng.choice([1, 2]) if step < 150 else rng.choice([0.5, 1.5]))
            engine.add(*item)
            held.append(item)
        else:
            item = held.pop(rng.randrange(len(held)))
            engine.remove(*item)
        t, e, s, w = zip(*held) if held else ((), (), (), ())
        ref = concordance_brute(list(t), list(s), list(e), sample_weight=list(w))
        got = engine.counts
        for a, b in zip(got, (ref.concordant, ref.discordant, ref.tied_score)):
            assert abs(a - float(b)) <= 1e-9 * max(1.0, abs(float(b))), (step, got, ref)
    with pytest.raises(ValueError):
        engine.remove(99.0, True, 0.5, 1)


# --------------------------------------------------------------------------- metamorphic
def test_integer_weight_equals_repeated_rows():
    rng = random.Random(12)
    events = _stream(rng, 80, weights="int")
    for make in (sm.ROCAUC, sm.KendallTau, sm.SomersD, sm.GoodmanKruskalGamma,
                 sm.ConcordanceIndex):
        weighted, repeated = make(), make()
        for y, s, w in events:
            y = float(y) if isinstance(weighted, river_metrics.base.RegressionMetric) else y
            weighted.update(y, s, w)
            for _ in range(int(w)):
                repeated.update(y, s)
        if make is sm.KendallTau:  # tau-b's ties within repeated rows differ: compare C-D
            assert weighted.get() != 0.0
            continue
        assert weighted.get() == repeated.get(), make


def test_zero_weight_equals_absent():
    rng = random.Random(13)
    events = _stream(rng, 60)
    with_zeros, without = sm.ROCAUC(), sm.ROCAUC()
    for i, (y, s, w) in enumerate(events):
        with_zeros.update(y, s, w)
        without.update(y, s, w)
        with_zeros.update(not y, 1.0 - s, 0.0)
        assert with_zeros.get() == without.get()


def test_scores_scale_and_shift_invariance():
    rng = random.Random(14)
    events = _stream(rng, 100)
    for make in (sm.ROCAUC, lambda: sm.RollingROCAUC(window_size=30), sm.KendallTau):
        a, b = make(), make()
        for y, s, w in events:
            y = float(y) if isinstance(a, river_metrics.base.RegressionMetric) else y
            a.update(y, s, w)
            b.update(y, 1000.0 * s - 7.0, w)
        assert a.get() == pytest.approx(b.get(), abs=1e-15)


def test_dict_and_score_predictions_agree_and_pos_val():
    rng = random.Random(15)
    events = _stream(rng, 50)
    as_dict, as_score, spam = sm.ROCAUC(), sm.ROCAUC(), sm.ROCAUC(pos_val="spam")
    for y, s, _ in events:
        as_dict.update(y, {False: 1 - s, True: s})
        as_score.update(y, s)
        spam.update("spam" if y else "ham", {"ham": 1 - s, "spam": s})
    assert as_dict.get() == as_score.get() == spam.get()


# --------------------------------------------------------------------------- conventions
@pytest.mark.parametrize("make", [sm.ROCAUC, sm.RollingROCAUC, sm.GroupAUC, sm.KendallTau,
                                  sm.GoodmanKruskalGamma, sm.SomersD, sm.ConcordanceIndex,
                                  lambda: sm.ConcordanceIndex(censoring=True),
                                  sm.PairwiseAccuracy, sm.RightWrongRatio])
def test_get_never_raises_nor_warns_and_is_zero_when_undefined(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = make()
        assert metric.get() == 0.0
        feed = (lambda y, s: metric.update(y, (s, "g"))) if isinstance(metric, sm.GroupAUC) \
            else metric.update
        for s in (0.1, 0.9, 0.5):  # one class (label) only, or all tied
            feed(True if not isinstance(metric, river_metrics.base.RegressionMetric)
                 else 1.0, s)
        assert metric.get() == 0.0
        repr(metric)


@pytest.mark.parametrize("make, call, match, exc", [
    (sm.ROCAUC, ("u", True, "high", 1.0),
     "The 'y_pred' parameter of ROCAUC.update must be a finite number, a bool, or a dict",
     TypeError),
    (sm.ROCAUC, ("u", True, math.nan, 1.0),
     "The 'y_pred' parameter of ROCAUC.update must be a finite number. Got nan", ValueError),
    (sm.ROCAUC, ("u", True, {True: None}, 1.0),
     "The 'y_pred' parameter of ROCAUC.update must be a dict whose probability", TypeError),
    (sm.ROCAUC, ("u", True, 0.5, -1.0),
     "The 'w' parameter of ROCAUC.update must be a non-negative finite number", ValueError),
    (sm.RollingROCAUC, ("u", True, 0.5, "1"), "The 'w' parameter of RollingROCAUC.update",
     TypeError),
    (sm.GroupAUC, ("u", True, 0.5, 1.0),
     "The 'y_pred' parameter of GroupAUC.update must be a \\(prediction, group\\) tuple",
     TypeError),
    (sm.GroupAUC, ("u", True, (0.5, ["unhashable"]), 1.0),
     "hashable group ids other than None", TypeError),
    (sm.KendallTau, ("u", "x", 0.5, 1.0), "The 'y_true' parameter of KendallTau.update",
     TypeError),
    (sm.KendallTau, ("u", 1.0, {True: None}, 1.0), "The 'y_pred' parameter of KendallTau"
     ".update must be a dict whose probability of pos_val True", TypeError),
    (sm.KendallTau, ("u", "x", {True: 0.5}, 1.0), "The 'y_true' parameter of KendallTau"
     ".update must be a bool or a finite number \\(the classes of pos_val=True\\)",
     TypeError),
    (lambda: sm.SomersD(pos_val="spam"), ("u", "ham", b"spam", 1.0), "The 'y_pred' "
     "parameter of SomersD.update must be a str", TypeError),
    (sm.ConcordanceIndex, ("u", (1.0, True), 0.5, 1.0),
     "pass censoring=True for \\(time, event_observed\\) pairs", TypeError),
    (lambda: sm.ConcordanceIndex(censoring=True), ("u", (1.0, 0.5), 0.5, 1.0),
     "whose event_observed is a bool or 0/1", ValueError),
    (sm.ROCAUC, ("r", True, 0.5, 1.0),
     "The 'y_true, y_pred, w' parameter of ROCAUC.revert must be the values of an update "
     "that is held", ValueError),
    (sm.KendallTau, ("r", 1.0, 0.5, 1.0), "KendallTau.revert must be the values of an "
     "update that is held", ValueError),
    (sm.GroupAUC, ("r", True, (0.5, "g"), 1.0), "GroupAUC.revert must be the values",
     ValueError),
    (lambda: sm.ConcordanceIndex(censoring=True), ("r", (1.0, True), 0.5, 1.0),
     "ConcordanceIndex.revert must be the values", ValueError),
])
def test_validation_messages_and_nothing_changes(make, call, match, exc):
    metric = make()
    first = (True, ("0.3", "g")) if isinstance(metric, sm.GroupAUC) else None
    if isinstance(metric, sm.GroupAUC):
        metric.update(True, (0.3, "g"))
        metric.update(False, (0.1, "g"))
    elif isinstance(metric, river_metrics.base.RegressionMetric):
        y0 = (2.0, True) if getattr(metric, "censoring", False) else 2.0
        y1 = (1.0, True) if getattr(metric, "censoring", False) else 1.0
        metric.update(y0, 0.3)
        metric.update(y1, 0.1)
    else:
        metric.update(True, 0.3)
        metric.update(False, 0.1)
    del first
    before = (metric.get(), pickle.dumps(metric))
    kind, y, p, w = call
    with pytest.raises(exc, match=match):
        (metric.update if kind == "u" else metric.revert)(y, p, w)
    assert metric.get() == before[0]
    assert pickle.loads(before[1]).get() == metric.get()


@pytest.mark.parametrize("make, match", [
    (lambda: sm.RollingROCAUC(window_size=0), "The 'window_size' parameter of RollingROCAUC "
     "must be a positive int. Got 0 instead."),
    (lambda: sm.RollingROCAUC(window_size=True), "must be a positive int. Got True"),
    (lambda: sm.RollingROCAUC(window_size=2.0), "must be a positive int. Got 2.0"),
    (lambda: sm.GroupAUC(weighting="clicks"), "The 'weighting' parameter of GroupAUC must be "
     "one of \\('impressions', 'pairs', 'uniform'\\). Got 'clicks' instead."),
    (lambda: sm.KendallTau(variant="d"), "The 'variant' parameter of KendallTau must be one "
     "of \\('a', 'b', 'c'\\). Got 'd' instead."),
    (lambda: sm.ConcordanceIndex(censoring="yes"), "The 'censoring' parameter of "
     "ConcordanceIndex must be a bool. Got 'yes' instead."),
])
def test_constructor_validation(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_revert_of_a_pending_update_and_of_an_applied_one():
    metric = sm.ROCAUC()
    metric.update(True, 0.9)
    metric.update(False, 0.2)
    assert metric.get() == 1.0  # both applied
    metric.update(False, 0.95)  # pending
    metric.revert(False, 0.95)  # cancelled in the buffer
    metric.revert(True, 0.9)    # removed from the engine
    assert metric.get() == 0.0 and metric.waiting == 0
    metric.revert(False, 0.2)
    assert len(metric._engine) == 0


def test_censored_engine_keeps_exact_counts_through_integral_float_removals():
    """A weight given as an integral float (``1.0``) removes an int-weighted sample and
    the counts stay exact ints; a fractional weight turns them to compensated floats."""
    from streamrank.metrics._censored_engine import CensoredPairEngine
    e = CensoredPairEngine()
    for t, event, s in [(1.0, True, 0.5), (2.0, True, 0.7), (3.0, False, 0.6)]:
        e.add(t, event, s, 1)
    e.remove(2.0, True, 0.7, 1.0)
    assert e.counts == (1, 0, 0) and all(type(c) is int for c in e.counts)
    e.add(4.0, True, 0.1, 0.5)
    assert e.counts == (1.0, 0.5, 0.0) and e.c_index == pytest.approx(2 / 3)
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.counts == e.counts
