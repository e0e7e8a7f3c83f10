"""Adversarial regressions from a review of the weight-domain contract (public API only)."""

import pickle
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest

import streamrank as sr
from streamrank import PairCounter, SlidingPairCounter
from streamrank.structures import BinaryDominanceCounter

from oracle import pair_counts_brute


def _exact(counter_counts, items):
    ref = pair_counts_brute([v[0] for v in items], [v[1] for v in items],
                            [v[2] for v in items])
    c = counter_counts
    return (c.concordant, c.discordant, c.tied_score, c.tied_label, c.tied_both), ref


def test_binary_counts_a_zero_weight_label_as_held():
    """labels="binary": a label held with weight 0 still takes one of the two levels, so
    a third label is refused at once, and later changes of the zero-weight item work."""
    pc = PairCounter(labels="binary")
    pc.insert("a", 0, 0.1, 0)
    pc.insert("b", 1, 0.2)
    with pytest.raises(ValueError, match="at most two labels"):
        pc.insert("c", 2, 0.3)
    assert len(pc) == pc.counts.n == 2 and "c" not in pc
    pc.update("a", score=0.5)
    pc.update("a", weight=1)
    assert len(pc) == pc.counts.n == 2 and pc.counts.discordant == 1
    pc._check()


def test_binary_window_refuses_a_third_label_next_to_a_zero_weight_one():
    w = SlidingPairCounter(4, labels="binary")
    for e in [(1, .4, 1e6), (0, .1, 0), (1, .2, 0.5)]:
        w.push(*e)
    with pytest.raises(ValueError, match="at most two labels"):
        w.push(2, .3, 0.5)
    w.push(1, .6, 0.5)
    w.push(0, .7, 0.5)                 # the 1e6 event leaves: a recount of what is held
    c = w.counts
    assert c.n == len(w) == 4
    w._check()


def test_binary_counter_recount_after_a_huge_weight_keeps_zero_weight_items():
    pc = PairCounter(labels="binary")
    pc.insert("a", 0, 0.1, 0)
    pc.insert("b", 1, 0.2, 0.5)
    pc.insert("big", 1, 0.4, 1e6)
    pc.remove("big")
    assert pc.counts.n == 2 and pc.counts.weight_sum == 0.5
    pc._check()


def test_compiled_counter_refused_add_changes_nothing():
    dc = BinaryDominanceCounter()
    dc.add(0, 0.1, 2 ** 62)
    with pytest.raises(ValueError):
        dc.add(1, 0.2, 1)
    assert dc.levels == (0.0,)
    dc._check()


def test_group_auc_any_scale():
    y, s, g = [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.1], [0, 0, 1, 1]
    w = np.array([1.7e308, 1.7e308, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert sr.group_auc_score(y, s, g, sample_weight=w) == \
            sr.group_auc_score(y, s, g, sample_weight=np.ldexp(w, -60))


def test_compiled_counter_against_brute_force():
    def brute(pts, y, s):
        c = d = t = ty = tyy = 0
        for yy, ss, ww in pts:
            if yy == y:
                ty += ww
                tyy += ww if ss == s else 0
            elif ss == s:
                t += ww
            elif (yy < y) == (ss < s):
                c += ww
            else:
                d += ww
        return (c, d, t, ty, tyy)

    for seed in range(60):
        r = random.Random(seed)
        fl = seed % 2 == 1
        dc = BinaryDominanceCounter(dtype=float if fl else int)
        pts = []
        labs = r.sample([0.0, 1.0, 5.0, -3.0], 2)
        for _ in range(60):
            if r.random() < 0.55 or not pts:
                y, s = r.choice(labs), r.choice([0.0, -0.0, 1.0, 2.0, 0.5])
                w = r.choice([0, 1, 2, 3, 2 ** 20])
                w = float(w) if fl else w
                assert dc.add_pairs(y, s, w) == brute(pts, y, s)
                pts.append((y, s, w))
            elif r.random() < 0.8:
                y, s, w = pts.pop(r.randrange(len(pts)))
                assert dc.remove_pairs(y, s, w) == brute(pts, y, s)
            else:
                dc = pickle.loads(pickle.dumps(dc))
            dc._check()
            assert len(dc) == len(pts)


@pytest.mark.parametrize("labels", ["auto", "ordinal", "continuous"])
def test_counter_random_ops_integer_weights_exact(labels):
    r = random.Random(7)
    pc, model = PairCounter(labels=labels), {}
    for op in range(80):
        x = r.random()
        if x < 0.4 or not model:
            keys = [f"{op}-{i}" for i in range(r.randint(1, 4))]
            ys = [r.randrange(20) if op > 40 else r.randrange(3) for _ in keys]
            ss = [r.choice([0.0, -0.0, 1.0, 0.5]) for _ in keys]
            ws = [r.choice([0, 1, 3, 2 ** 50]) for _ in keys]
            pc.insert_many(keys, ys, ss, ws)
            model.update({k: (a, b, c) for k, a, b, c in zip(keys, ys, ss, ws)})
        elif x < 0.6:
            k = r.choice(list(model))
            pc.remove(k)
            del model[k]
        else:
            k = r.choice(list(model))
            w = r.choice([0, 2, 2 ** 49])
            pc.update(k, score=-0.0, weight=w)
            model[k] = (model[k][0], -0.0, w)
        got, ref = _exact(pc.counts, list(model.values()))
        assert all(type(v) is int for v in got) and got == ref.as_tuple()
    pc._check()


def test_counter_float_weights_within_bound_after_extremes():
    items = {}
    pc = PairCounter()
    for i, (y, s, w) in enumerate([(0, .1, 1), (1, .2, 2.0 ** -400), (1, .3, 0.5),
                                   (0, .3, 3)]):
        pc.insert(i, y, s, w)
        items[i] = (y, s, w)
    pc.insert("big", 1, 0.0, 2.0 ** 400)
    pc.remove("big")
    got, ref = _exact(pc.counts, list(items.values()))
    W = sum(Fraction(v[2]) for v in items.values())
    assert all(abs(Fraction(a) - b) <= W * W / 10 ** 9 for a, b in zip(got, ref.as_tuple()))
    restored = PairCounter.from_bytes(pc.to_bytes())
    assert restored.counts == pc.counts
