"""The one window mechanism (`RowWindow`) and its row store (`SlotStore`), against a plain
list model, and through its four owners: the paths that only some owners take (keyed rows
and in-place changes, reverts from the middle, per-label tallies past the C arrays, pickles
with changes still waiting, the pickles of earlier development versions, `Monitor`'s
per-event path for new predictions).
"""

from __future__ import annotations

import math
import pickle
import random
from collections import deque

import numpy as np
import pytest

from streamrank import SlidingPairCounter, TimeSlidingPairCounter, pair_counts
from streamrank.engine import PairEngine
from streamrank.exceptions import SnapshotError
from streamrank.metrics import RollingROCAUC
from streamrank.monitor import Monitor
from streamrank.structures._cslots import SlotStore
from streamrank.structures._cwindow import RowWindow
from streamrank.windows import sync

NAN = math.nan


def _same(a, b):
    return a == b or (a != a and b != b)


class _Model:
    """The window as a list of ``[key, t, y, s, w]`` rows, oldest first (y NaN: pending)."""

    def __init__(self):
        self.rows = []

    def labeled(self):
        return [r for r in self.rows if r[2] == r[2]]

    def classes(self):
        out = {}
        for r in self.labeled():
            c = out.setdefault(r[2], [0, 0])
            c[0] += 1
            c[1] += r[4]
        return out


def _check(win, engine, model):
    assert len(win) == len(model.rows) and win.n_labeled == len(model.labeled())
    got = win.items()
    assert len(got) == len(model.rows)
    for g, r in zip(got, model.rows):
        assert g[0] == r[0] and all(_same(a, b) for a, b in zip(g[1:], r[1:])), (g, r)
    classes = win.classes
    want = model.classes()
    assert {y: c[0] for y, c in classes.items()} == {y: c[0] for y, c in want.items()}
    for y, c in want.items():
        assert classes[y][1] == pytest.approx(c[1], rel=1e-12, abs=1e-12)
    win._check()
    sync(win, engine, "test")
    assert win.waiting == 0
    lab = model.labeled()
    engine._check(*win.columns())
    if lab:
        ref = pair_counts([r[2] for r in lab], [r[3] for r in lab],
                          sample_weight=[r[4] for r in lab])
        c = engine.counts
        for f in ("concordant", "discordant", "tied_score", "tied_label", "tied_both"):
            assert getattr(c, f) == pytest.approx(getattr(ref, f), rel=1e-9, abs=1e-9)
    else:
        assert len(engine) == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("labels", [(0.0, 1.0), tuple(float(v) for v in range(12))])
def test_row_window_equals_a_list_model(seed, labels):
    """Random pushes (keyed and not, pending or labeled), evictions, in-place changes,
    reverts and reads, with pickles in between (changes still waiting): the rows, the
    tallies (past the 8 labels of the C arrays with 12 labels) and the engine follow."""
    rng = random.Random(seed)
    win, engine, model = RowWindow(limit=7, tally=True), PairEngine("auto"), _Model()
    key = 0
    for step in range(400):
        op = rng.random()
        y = rng.choice(labels) if rng.random() < 0.8 else NAN
        s = rng.choice([0.1, 0.2, 0.3, 0.5, rng.random()])
        w = rng.choice([1, 1, 2, 0.5, 0])
        if op < 0.35:
            key += 1
            win.push(float(step), y, s, w, key)
            model.rows.append([key, float(step), y, s, w])
        elif op < 0.5:
            size = rng.randrange(1, 12)
            win.push_keep(y, s, w, size, float(step))
            model.rows.append([None, float(step), y, s, w])
            del model.rows[:max(0, len(model.rows) - size)]
        elif op < 0.6:
            key += 1
            size = rng.randrange(1, 12)
            if len(model.rows) > size:          # push_new evicts one row at most
                continue
            y1 = 1.0 if rng.random() < 0.5 else 0.0
            got = win.push_new(key, y1, s, size)
            want = 0
            if len(model.rows) >= size:
                want = 1 if model.rows[0][2] == model.rows[0][2] else 2
                del model.rows[0]
            assert got == want
            model.rows.append([key, NAN, y1, s, 1])
            assert win.push_new(key, y1, s, size) == -1     # held: nothing changes
        elif op < 0.7 and model.rows:
            k = rng.randrange(0, 3)
            out = win.evict(k, True)
            gone, model.rows = model.rows[:k], model.rows[k:]
            assert [o[0] for o in out] == [g[0] for g in gone]
            assert all(_same(g[2], o[1]) and g[3:] == list(o[2:]) for g, o in zip(gone, out))
        elif op < 0.82 and model.rows:
            i = rng.randrange(len(model.rows))
            row = model.rows[i]
            if row[0] is None:
                continue
            r = win.store.row_of(row[0])
            win.change(r, y, s, w)
            row[2:] = [y, s, w]
        elif op < 0.9 and model.labeled():
            target = rng.choice(model.labeled())
            assert win.revert(target[2], target[3], target[4])
            first = next(r for r in model.rows if r[2] == target[2] and r[3] == target[3]
                         and r[4] == target[4])
            model.rows.remove(first)
        elif op < 0.95:
            win = pickle.loads(pickle.dumps(win))
            engine = pickle.loads(pickle.dumps(engine))
        else:
            _check(win, engine, model)
    assert not win.revert(7.5, 0.123, 1)        # nothing held with these values
    _check(win, engine, model)


def test_row_window_hands_only_what_stayed_to_the_engine():
    """Rows that came and left between two reads never reach the engine; removals cancel
    a queued addition of equal values; large batches come as sorted arrays. After each
    sync the engine equals a recount of the window (`PairEngine._check`)."""
    win, engine = RowWindow(), PairEngine()
    for y, s in [(1, 0.9), (0, 0.1), (1, 0.2)]:
        win.push_keep(y, s, 1.0, 2)
    assert win.waiting == 2                 # (1, 0.9): neither added nor removed
    sync(win, engine, "f")
    assert win.waiting == 0 and len(engine) == 2
    engine._check(*win.columns())
    row = win.rows()[0]
    win.change(row, 1.0, 0.7, 2.5)          # a synced row: its old values leave
    win.change(row, 1.0, 0.8, 2.5)          # ... its queued addition is cancelled
    assert win.waiting == 2                 # remove (0, 0.1), add (1, 0.8, 2.5)
    sync(win, engine, "f")
    engine._check(*win.columns())
    for i in range(40):
        win.push_keep(float(i % 2), i / 40, 1.0, 30)
    assert win.waiting == 2 + 30            # past SCALAR_FLUSH: two sorted batches
    sync(win, engine, "f")
    assert win.waiting == 0 and len(engine) == 30
    engine._check(*win.columns())


def test_tallies_keep_python_arithmetic_and_move_to_a_dict():
    """Integral weights sum exactly as ints, a fractional one turns the sum to a float as
    Python's ``int + float``; a 9th label moves the tallies to a dict, values unchanged."""
    win = RowWindow(tally=True)
    win.push(NAN, 1.0, 0.5, 2**53, "a")
    win.push(NAN, 1.0, 0.6, 2**53, "b")
    assert win.classes == {1.0: [2, 2**54]} and type(win.classes[1.0][1]) is int
    win.push(NAN, 1.0, 0.7, 0.25, "c")
    assert win.classes == {1.0: [3, 2**54 + 0.25]}
    for i in range(10):
        win.push(NAN, float(i + 2), 0.1 * i, 1, i)
    assert len(win.classes) == 11 and win.classes[5.0] == [1, 1]
    win.evict(3)
    assert 1.0 not in win.classes
    win._check()
    win.classes = {2.0: [1, 1]}             # the setter: a recount
    assert win.classes == {2.0: [1, 1]}
    assert RowWindow().classes is None


def test_slot_store_time_column_and_rows_without_keys():
    st = SlotStore()
    st.put("a", 1, 0.5, 2, 7.0)
    assert st.value(st.row_of("a")) == (7.0, 1.0, 0.5, 2) and st.row_of("b") == -1
    assert st.key_of(st.row_of("a")) == "a"
    assert st.times([st.row_of("a")]).tolist() == [7.0]
    assert st.pop("a") == (1.0, 0.5, 2.0) and len(st) == 0
    st._check()


# --------------------------------------------------------------------------- owners
def test_monitor_per_event_path_equals_the_checked_path():
    """`Monitor`'s one-call paths for new predictions and late labels (a frozen
    reference, float or bool labels) hold, count and tally what the checked path (int
    labels) does."""
    rng = random.Random(3)
    fast, slow = Monitor(window=50, min_window=5), Monitor(window=50, min_window=5)
    pending = []
    for i in range(400):
        s = rng.random()
        y = rng.random() < 0.3
        if rng.random() < 0.3:
            fast.observe(i, score=s)
            slow.observe(i, score=s)
            pending.append((i, y))
        else:
            fast.observe(i, score=s, label=y if i % 2 else float(y))
            slow.observe(i, score=s, label=int(y))
        if pending and rng.random() < 0.3:      # a late label (dropped once evicted)
            k, yk = pending.pop(rng.randrange(len(pending)))
            fast.observe(k, label=yk if k % 3 else float(yk))
            slow.observe(k, label=int(yk))
        if i % 37 == 0:
            assert fast.report().counts == slow.report().counts
    assert fast._fast and list(fast.items()) == list(slow.items())
    fast.observe(399, label=True)               # labeled already: the checked path
    slow.observe(399, label=1)
    unmatched = fast.stats["unmatched"]
    fast.observe(-1, label=0.0)                 # never predicted: unmatched
    slow.observe(-1, label=0)
    assert fast.stats == slow.stats and fast.stats["unmatched"] == unmatched + 1
    assert fast._win.classes == slow._win.classes
    fast._check()
    again = Monitor.from_bytes(fast.to_bytes())
    assert list(again.items()) == list(fast.items()) and again.counts == fast.counts
    again._check()


def test_monitor_many_label_levels_and_float_weights():
    """Ordinal labels past the tallies' C arrays, with float weights: exact to rounding,
    through a stale recount of a huge weight that came and went."""
    rng = random.Random(5)
    m = Monitor(window=40, min_window=5, labels="ordinal")
    for i in range(300):
        m.observe(i, score=rng.random(), label=float(rng.randrange(12)),
                  weight=1e12 if i == 100 else rng.choice([1, 0.5, 3]))
        if i % 25 == 0:
            m.report()
            m._check()
    held = [(y, s, w) for _, y, s, w, _ in m.items()]
    ref = pair_counts([h[0] for h in held], [h[1] for h in held],
                      sample_weight=[h[2] for h in held])
    assert m.counts.concordant == pytest.approx(ref.concordant, rel=1e-9)
    assert len(m._win.classes) == len({h[0] for h in held})


class _OldPickle:
    """Pickles as an earlier development version of ``cls`` did: ``cls.__new__`` then
    ``__setstate__(state)`` with a state dict (no format version)."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (_new, (self.cls,), self.state)


def _new(cls):
    return cls.__new__(cls)


@pytest.mark.parametrize(("cls", "state"), [
    (RollingROCAUC, {"window_size": 3, "pos_val": True, "_engine": PairEngine("binary"),
                     "_window": deque([(1, 0.9, 1)]), "_pending": {}}),
    (SlidingPairCounter, {"window_size": 3, "_engine": PairEngine(),
                          "_events": deque([(1.0, 0.9, 1)])}),
    (TimeSlidingPairCounter, {"period": 3.0, "_engine": PairEngine(),
                              "_events": deque([(0.0, 1.0, 0.9, 1)])}),
    (SlidingPairCounter, [1, 2]),
], ids=["RollingROCAUC deque", "SlidingPairCounter 0.1", "TimeSlidingPairCounter 0.1",
        "a list"])
def test_an_earlier_window_pickle_is_refused_with_the_version_error(cls, state):
    """Unreleased development formats are not converted: one `SnapshotError` naming the
    class and the version (none), as `streamrank._snapshot` words a snapshot's."""
    data = pickle.dumps(_OldPickle(cls, state))
    with pytest.raises(SnapshotError) as excinfo:
        pickle.loads(data)
    assert str(excinfo.value) == (f"{cls.__name__}: pickle version none not supported "
                                  "(this streamrank reads version 1).")


def _filled(cls):
    """A small window of ``cls`` with five events pushed (one has left), and its AUC."""
    events = [(1, 0.9), (0, 0.2), (1, 0.4), (0, 0.7), (1, 0.1)]
    if cls is RollingROCAUC:
        win = RollingROCAUC(4)
        for y, s in events:
            win.update(y, s)
        return win, win.get()
    win = SlidingPairCounter(4) if cls is SlidingPairCounter else TimeSlidingPairCounter(4.0)
    for t, (y, s) in enumerate(events):
        win.push(y, s) if cls is SlidingPairCounter else win.push(y, s, t=float(t))
    return win, win.counts.auc


@pytest.mark.parametrize("cls", [RollingROCAUC, SlidingPairCounter, TimeSlidingPairCounter])
def test_a_window_pickle_of_another_version_is_refused(cls):
    """This version's pickle round-trips; the same with its version changed is refused."""
    win, auc = _filled(cls)
    again = pickle.loads(pickle.dumps(win))
    again_auc = again.get() if cls is RollingROCAUC else again._check() or again.counts.auc
    held = [(1, 0.4), (0, 0.2), (0, 0.7), (1, 0.1)]          # the first event has left
    assert again_auc == auc == pair_counts(*zip(*held)).auc
    assert [e[2:] for e in again._win.items()] == [e[2:] for e in win._win.items()]
    func, (klass, (version, state)) = win.__reduce__()
    assert version == 1 and klass is cls
    with pytest.raises(SnapshotError, match=f"{cls.__name__}: pickle version 2 not "
                       r"supported \(this streamrank reads version 1\)"):
        func(cls, (2, state))


@pytest.mark.parametrize("make", [lambda: SlidingPairCounter(5),
                                  lambda: TimeSlidingPairCounter(3.0)])
def test_windows_pickle_with_changes_waiting(make):
    win = make()
    for i in range(12):
        if isinstance(win, TimeSlidingPairCounter):
            win.push(i % 2, i / 12, 1 + i % 3, t=i / 2)
        else:
            win.push(i % 2, i / 12, 1 + i % 3)
    assert win._win.waiting                   # nothing read yet
    again = pickle.loads(pickle.dumps(win))
    assert list(again) == list(win) and again.counts == win.counts
    again._check()


def test_compiled_docstring_examples_run():
    """The examples of the compiled row store, window, window owners and River metric
    owner (pytest's doctest collection does not import extension modules)."""
    import doctest

    from streamrank.structures import _cmetric, _cpairwindow, _cslots, _cwindow
    for module in (_cslots, _cwindow, _cpairwindow, _cmetric):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
