"""Regressions from an adversarial review of the compiled pair-count structures (public
API: `streamrank.engine.PairEngine` and `streamrank.PairCounter`)."""

import numpy as np
import pytest

from streamrank import PairCounter
from streamrank.engine import PairEngine

TINY, HUGE = 2.0 ** -400, 2.0 ** 400


def _lose_tiny_weight(add, remove):
    """At one score, weights 1, 2**400 and 2**-400 come, then 1 and 2**400 leave: the
    compensated weight of that score cannot carry all three, so the copy of 2**-400 that
    is left is held with a weight rounded to 0."""
    add(0, 0.1, 1.0)
    for w in (1.0, HUGE, TINY):
        add(1, 0.4, w)
    for w in (1.0, HUGE):
        remove(1, 0.4, w)


@pytest.mark.parametrize("labels", ["auto", "binary", "ordinal"])
def test_engine_batch_rebuild_after_a_weight_lost_to_rounding(labels):
    """A batch as large as what is held rebuilds the level counter from its own contents;
    a copy of weight > 0 whose weight rounded to 0 must load back, not raise with the
    structure already emptied."""
    e = PairEngine(labels)
    _lose_tiny_weight(e.add, e.remove)
    k = 300
    e.add_many(np.zeros(k), np.linspace(0.0, 1.0, k), np.ones(k))
    assert len(e) == k + 2
    e.remove(1, 0.4, TINY)          # the copy is still held, with its weight
    e.remove(0, 0.1, 1.0)
    assert len(e) == k
    # one label level held: structural zeros, exactly
    assert (e.counts.concordant, e.counts.discordant, e.counts.tied_score) == (0, 0, 0)
    # 2**400 came and went: stale; the owner's recount is exact again
    assert e.stale
    e.rebuild(np.zeros(k), np.linspace(0.0, 1.0, k), np.ones(k))
    assert e.counts.tied_label == k * (k - 1) / 2


def test_engine_move_to_levels_and_on_after_a_weight_lost_to_rounding():
    """The same held state survives the moves: a third level, then past 16 levels."""
    e = PairEngine("auto")
    _lose_tiny_weight(e.add, e.remove)
    for y in range(2, 20):
        e.add(y, 0.3, 1.0)
    assert e.kind == "continuous" and len(e) == 20
    e.remove(1, 0.4, TINY)
    assert len(e) == 19


def test_counter_insert_many_after_a_weight_lost_to_rounding():
    """PairCounter.insert_many of a large batch (no counts read in between) keeps the
    counter and its engine in step."""
    pc = PairCounter()
    keys = iter(range(100))
    _lose_tiny_weight(lambda y, s, w: pc.insert(next(keys), y, s, w),
                      lambda y, s, w: pc.remove(next(k for k, v in pc.items()
                                                     if v == (y, s, w))))
    k = 300
    pc.insert_many(range(1000, 1000 + k), np.zeros(k), np.linspace(0.0, 1.0, k))
    assert len(pc) == k + 2
    for key in list(pc)[:2]:
        pc.remove(key)
    c = pc.counts
    assert (c.concordant, c.discordant, c.tied_score) == (0, 0, 0)
    assert c.tied_label == k * (k - 1) / 2


@pytest.mark.parametrize("labels", ["auto", "ordinal", "continuous"])
def test_float_remove_of_more_weight_than_held_is_refused(labels):
    """With float counts, removing a sample at a held (label, score) with a weight larger
    than all the weight held there is not a held sample: it raises and changes nothing
    (it used to drive the weight held negative)."""
    e = PairEngine(labels)
    e.add(0, 0.0, 1.0)
    e.add(1, 0.1, 0.5)
    if labels == "ordinal":
        e.add(2, 0.3, 1.0)
    before = (e.counts, len(e), e.weight)
    with pytest.raises(ValueError, match="'w' parameter of PairEngine.remove"):
        e.remove(1, 0.1, 2.0)
    assert (e.counts, len(e), e.weight) == before
    e.remove(1, 0.1, 0.5)           # the sample held still leaves
    assert e.weight == before[2] - 0.5


def test_float_remove_after_rounding_at_a_score_still_works():
    """Weights whose float sum rounds (0.1 + 0.2 + 0.7 at one score) all leave again."""
    for labels in ("binary", "ordinal", "continuous"):
        e = PairEngine(labels)
        e.add(0, 0.0, 1.0)
        for w in (0.1, 0.2, 0.7, 1e-9, 3.3):
            e.add(1, 0.5, w)
        for w in (0.7, 3.3, 0.1, 1e-9, 0.2):
            e.remove(1, 0.5, w)
        assert len(e) == 1 and e.counts.concordant == 0
