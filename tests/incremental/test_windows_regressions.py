"""Adversarial regressions from a review of the compiled window (`RowWindow`), its keyed
store and their owners (`Monitor`, the sliding counters, `RollingROCAUC`): public API."""

import math
import pickle

import pytest

from streamrank.monitor.drift import hanley_mcneil_variance
from streamrank.monitor import Monitor


def _steady_monitor():
    """A count window of 4 whose reference is frozen (the per-event paths are on)."""
    m = Monitor(window=4, min_window=2)
    for k, (s, y) in enumerate([(0.9, 1), (0.1, 0), (0.8, 1), (0.2, 0)]):
        m.observe(k, score=s, label=y)
    m.observe(4, score=0.3, label=0, weight=1e20)   # evicts 0: the reference freezes
    m.observe(5, score=0.25, label=1)               # evicts 1
    assert m.reference_frozen
    return m


def test_class_weights_survive_a_huge_weight_that_came_and_went():
    """A weight of 1e18 given to a positive and taken back, next to a negative of weight
    1e20 (so the engine is not stale): the positives' weight sum stays 2, and the test's
    standard error is that of the same window restored from a checkpoint."""
    m = _steady_monitor()
    m.observe(2, weight=1e18)
    m.observe(2, weight=1)
    r = m.report()
    copy = Monitor.from_bytes(m.to_bytes())
    r2 = copy.report()
    assert (r.n, r.auc) == (r2.n, r2.auc) == (4, 0.5)
    pos = sum(w for _, y, _, w, _ in m.items() if y == 1)
    neg = sum(w for _, y, _, w, _ in m.items() if y == 0)
    assert pos == 2
    var = hanley_mcneil_variance(0.5, pos, neg) + copy._ref.hm_var
    assert math.isclose(r.se, math.sqrt(var), rel_tol=1e-12)
    assert math.isclose(r.se, r2.se, rel_tol=1e-12) and math.isclose(r.z, r2.z, rel_tol=1e-12)


@pytest.mark.parametrize("key", [("user", 1), 1.5, (None, "x")])
def test_monitor_pickles_with_keys_that_to_bytes_refuses(key):
    """to_bytes needs int or str keys and tells to pickle the monitor for others: pickling
    works, mid-stream, with a pending prediction and changes the engine has not seen."""
    m = Monitor(window=3, min_window=2)
    m.observe(key, score=0.5)
    m.observe(("other", 2), score=0.7, label=1)
    m.observe(("third", 3), score=0.2, label=0)
    with pytest.raises(TypeError, match="Use pickle"):
        m.to_bytes()
    m2 = pickle.loads(pickle.dumps(m))
    assert list(m2.items()) == list(m.items()) and m2.stats == m.stats
    m.observe(key, label=1)
    m2.observe(key, label=1)
    r, r2 = m.report(), m2.report()
    assert (r.counts, r.n, r.pending) == (r2.counts, r2.n, r2.pending)
    m2._check()


@pytest.mark.parametrize("steady", [False, True])
def test_monitor_refuses_a_none_key_changing_nothing(steady):
    """None is not an id: a prediction under it could never get its label (the store
    holds it as a row without a key). Refused before anything changes, on both paths."""
    m = _steady_monitor() if steady else Monitor(window=4, min_window=2)
    before = (list(m.items()), dict(m.stats), len(m))
    for event in ({"score": 0.5}, {"score": 0.5, "label": 1.0}, {"label": True}):
        with pytest.raises(TypeError, match="'key' parameter of Monitor.observe"):
            m.observe(None, **event)
        assert (list(m.items()), dict(m.stats), len(m)) == before
    m._check()


def test_rolling_auc_update_names_a_bad_weight_on_its_per_event_path():
    """A weight that is an array: the per-event path of `RollingROCAUC.update` (an int
    label, a float score) raises the same clear error as `ROCAUC.update`, changing
    nothing."""
    import numpy as np

    from streamrank.metrics import RollingROCAUC

    m = RollingROCAUC(window_size=3)
    m.update(0, 0.2)
    for w in (np.array([1.0, 1.0]), np.array([]), "1"):
        with pytest.raises(TypeError, match="'w' parameter of RollingROCAUC.update"):
            m.update(1, 0.5, w)
        assert m.n_events == 1
    m.update(1, 0.5)
    assert m.get() == 1.0


def test_monitor_copy_with_tuple_keys_is_independent():
    """`copy.copy` of a monitor goes through its pickling: with keys that `to_bytes`
    refuses too, the copy does not share the window with the original."""
    import copy

    m = Monitor(window=3, min_window=2)
    m.observe(("a", 1), score=0.5)
    c = copy.copy(m)
    c.observe(("a", 1), label=1)
    c.observe(("b", 2), score=0.2, label=0)
    assert (len(m), m.n, m.pending) == (1, 0, 1)
    assert (len(c), c.n, c.pending) == (2, 2, 0)
    m._check()
    c._check()
