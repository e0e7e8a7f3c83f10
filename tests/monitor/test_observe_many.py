"""`observe_many`: a block of events as columns equals `observe` event by event, for every
shape of monitor; a refused event stops the block at its index, the events before it
applied and nothing of it."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor

SHAPES = [(False, 1), (False, 2), (True, 1), (True, 2)]


def _make(segmented, models, **kw):
    kw = dict(window=12, min_window=3, **kw)
    if segmented:
        if models == 2:
            return SegmentedMonitor(max_segments=2, factory=lambda: PairedMonitor(**kw))
        return SegmentedMonitor(max_segments=2, **kw)
    return PairedMonitor(**kw) if models == 2 else Monitor(**kw)


def _event(draw_ids, segmented, models):
    """One event: a new prediction, a re-score, a late (or early) label, a weight."""
    key = st.sampled_from(draw_ids)
    grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    maybe = st.one_of(st.none(), grid)
    fields = {"score": maybe, "label": st.one_of(st.none(), st.sampled_from([0.0, 1.0])),
              "weight": st.one_of(st.none(), st.sampled_from([1, 2, 0.5]))}
    if models == 2:
        fields["challenger"] = maybe
    if segmented:
        fields["segment"] = st.one_of(st.none(), st.sampled_from("abc"))
    return st.tuples(key, st.fixed_dictionaries(fields))


def _columns(events, names):
    """The events as columns: floats as numpy arrays (NaN: missing), the rest lists."""
    keys = [k for k, _ in events]
    cols = {}
    for name in names:
        values = [e[name] for _, e in events]
        if name == "segment":
            cols[name] = values
        else:
            cols[name] = np.array([math.nan if v is None else v for v in values], float)
    return keys, cols


def _one_by_one(mon, events):
    """`observe` per event, skipping the refused ones; the refused indexes."""
    refused = []
    for i, (key, e) in enumerate(events):
        try:
            mon.observe(key, **{k: v for k, v in e.items() if v is not None})
        except (ValueError, TypeError):
            refused.append(i)
    return refused


def _in_blocks(mon, events, names, size):
    """`observe_many` over blocks of ``size``, going on after a refused event."""
    refused, start = [], 0
    while start < len(events):
        block = events[start:start + size]
        keys, cols = _columns(block, names)
        try:
            mon.observe_many(keys, **cols)
            start += len(block)
        except (ValueError, TypeError) as exc:
            refused.append(start + exc.index)
            start += exc.index + 1
    return refused


@pytest.mark.parametrize("segmented,models", SHAPES)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), size=st.integers(1, 9))
def test_observe_many_equals_observe_event_by_event(segmented, models, data, size):
    ids = list(range(8))
    events = data.draw(st.lists(_event(ids, segmented, models), max_size=60))
    names = ["score", "label", "weight"] + (["challenger"] if models == 2 else []) \
        + (["segment"] if segmented else [])
    a, b = _make(segmented, models), _make(segmented, models)
    refused_a = _one_by_one(a, events)
    refused_b = _in_blocks(b, events, names, size)
    assert refused_a == refused_b
    b._check()
    assert a.to_bytes() == b.to_bytes()
    a.report(), b.report()
    assert a.to_bytes() == b.to_bytes()     # (the history holds the report)


def test_a_refused_event_stops_the_block_at_its_index():
    m = Monitor(window=10, period=None, labels="binary")
    with pytest.raises(ValueError, match="at most two labels") as info:
        m.observe_many(["a", "b", "c", "d"], score=[0.1, 0.2, 0.3, 0.4],
                       label=[0, 1, 2, 1])
    assert info.value.index == 2
    assert len(m) == 2 and "c" not in m and "d" not in m
    m._check()


def test_time_columns_and_a_period_window():
    a, b = Monitor(period=5.0), Monitor(period=5.0)
    times = [0.0, 1.0, 2.0, 6.5, 7.0, 12.0]
    for i, t in enumerate(times):
        a.observe(i, score=i / 6, label=i % 2, time=t)
    b.observe_many(np.arange(6), score=np.arange(6) / 6, label=np.arange(6) % 2,
                   time=np.array(times))
    assert a.to_bytes() == b.to_bytes()
    with pytest.raises(ValueError) as info:     # a new prediction older than the clock
        b.observe_many([7, 8], score=[0.5, 0.5], time=[13.0, 1.0])
    assert info.value.index == 1 and 7 in b and 8 not in b


def test_columns_are_checked_before_any_event():
    m = Monitor(window=5)
    before = m.to_bytes()
    with pytest.raises(ValueError, match="'label' parameter of Monitor.observe_many.*3 "
                                         "values"):
        m.observe_many(["a", "b", "c"], score=[0.1, 0.2, 0.3], label=[1, 0])
    with pytest.raises(TypeError, match="'challenger' parameter of Monitor.observe_many"):
        m.observe_many(["a"], score=[0.1], challenger=[0.2])
    with pytest.raises(TypeError, match="'segment' parameter of PairedMonitor"):
        PairedMonitor(window=5).observe_many(["a"], score=[0.1], segment=["x"])
    assert m.to_bytes() == before
    m.observe_many([])                      # an empty block: nothing happens
    assert m.to_bytes() == before


def test_nan_is_missing_and_infinity_is_refused():
    m = Monitor(window=5)
    m.observe_many(["a", "b"], score=[0.3, 0.6], label=[float("nan"), None])
    assert m.pending == 2
    with pytest.raises(ValueError, match="score") as info:
        m.observe_many(["c", "d"], score=[0.5, float("inf")])
    assert info.value.index == 1 and "c" in m


def _each_and_blocks(a, b, events, size, kw, columns):
    """``a`` fed ``observe(e[0], **kw(e))`` event by event (a NaN id: None, as a block
    reads it) and ``b`` the same events in `observe_many` blocks of ``size``
    (``columns(block)``), both going on after a refused event (``b._check()`` after each
    block); then both hold the same state."""
    refused_a = []
    for i, e in enumerate(events):
        try:
            a.observe(None if e[0] != e[0] else e[0], **kw(e))
        except (ValueError, TypeError):
            refused_a.append(i)
    refused_b, start = [], 0
    while start < len(events):
        block = events[start:start + size]
        try:
            b.observe_many([e[0] for e in block], **columns(block))
            start += len(block)
        except (ValueError, TypeError) as exc:
            refused_b.append(start + exc.index)
            start += exc.index + 1
        b._check()
    assert refused_a == refused_b
    assert a.stats == b.stats
    assert a.to_bytes() == b.to_bytes()


def _floats(block, j):
    return np.array([math.nan if e[j] is None else e[j] for e in block])


def _plain_event(ids):
    """An event of a score and label block: a prediction (label or none), a late label,
    a re-score, a relabel, an id never predicted, a missing (NaN) id; now and then a
    third label (refused with ``labels="binary"`` while two are held)."""
    grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    return st.tuples(st.one_of(st.sampled_from(ids), st.just(math.nan)),
                     st.one_of(st.none(), grid),
                     st.one_of(st.none(), st.sampled_from([0.0, 1.0, 0.0, 1.0, 2.0])))


@pytest.mark.parametrize("kw", [{}, {"reference": 4}, {"label_wait": 3},
                                {"labels": "binary"}])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), size=st.integers(1, 12), limit=st.integers(1, 6),
       as_bool=st.booleans())
def test_compiled_runs_equal_observe_event_by_event(kw, data, size, limit, as_bool):
    """A block of float (or bool) ``score`` and ``label`` columns goes through
    `Monitor.observe_run` while the window is steady: the same state as `observe` event by
    event, whatever ends a run (an event of the checked path, a refused one, a label that
    could be a third with ``labels="binary"``, the engine's sync after ``limit``
    changes)."""
    ids = list(range(12))
    events = data.draw(st.lists(_plain_event(ids), max_size=120))
    a, b = Monitor(window=5, min_window=2, **kw), Monitor(window=5, min_window=2, **kw)
    a._win.limit = b._win.limit = limit

    def columns(block):
        label = _floats(block, 2)
        if as_bool and np.isin(label, (0.0, 1.0)).all():
            label = label.astype(bool)
        return {"score": _floats(block, 1), "label": label}
    _each_and_blocks(a, b, events, size, lambda e: {"score": e[1], "label": e[2]},
                     columns)
    assert a.report().auc == b.report().auc or math.isnan(a.history[-1].auc)


def test_a_steady_window_takes_whole_blocks_in_compiled_runs():
    """New predictions and late labels of float arrays never reach ``observe`` (one
    compiled call per run), but the eviction that freezes the reference and a re-score,
    alone."""
    m = Monitor(window=100)
    calls = []
    checked = m.observe
    m.observe = lambda *a, **k: (calls.append(a[0]), checked(*a, **k))[1]
    rng = np.random.default_rng(1)
    keys = list(range(1000))
    score, label = rng.random(1000), (rng.random(1000) < 0.3).astype(float)
    label[::3] = np.nan                                 # pending ...
    m.observe_many(keys, score=score, label=label)
    assert calls == [100]           # the event that froze the reference (an eviction)
    calls.clear()
    late = [k for k in keys[-90:] if np.isnan(label[k])]
    m.observe_many(late, label=np.ones(len(late)))     # ... labeled late
    m.observe_many([999, 1000], score=np.array([0.5, 0.25]))   # a re-score, a new one
    assert calls == [999] and m.stats["late"] == len(late)
    m._check()


@pytest.mark.parametrize("kw", [{}, {"label_wait": 3}])
@settings(max_examples=60, deadline=None)
@given(data=st.data(), size=st.integers(1, 12), limit=st.integers(1, 6))
def test_paired_compiled_runs_equal_observe_event_by_event(kw, data, size, limit):
    """A `PairedMonitor`'s blocks of float ``score``, ``challenger`` and ``label`` columns
    run both windows in C while they are aligned and steady: the same state as `observe`
    event by event, whatever ends a run (a prediction with one score, which unaligns the
    windows, an infinite challenger score, a relabel, an unmatched label, a sync)."""
    ids = list(range(12))
    grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    event = st.tuples(st.sampled_from(ids), st.one_of(st.none(), grid),
                      st.one_of(st.none(), grid, st.just(math.inf)),
                      st.one_of(st.none(), st.sampled_from([0.0, 1.0])))
    events = data.draw(st.lists(event, max_size=120))
    a, b = (PairedMonitor(window=5, min_window=2, **kw) for _ in range(2))
    for m in (a, b):
        m.champion._win.limit = m.challenger._win.limit = limit
    names = ("score", "challenger", "label")
    _each_and_blocks(a, b, events, size, lambda e: dict(zip(names, e[1:])),
                     lambda block: {n: _floats(block, j) for j, n in enumerate(names, 1)})


def test_an_aligned_pair_takes_whole_blocks_in_compiled_runs():
    m = PairedMonitor(window=100)
    calls = []
    checked = m.observe
    m.observe = lambda *a, **k: (calls.append(a[0]), checked(*a, **k))[1]
    rng = np.random.default_rng(2)
    score, label = rng.random(1000), (rng.random(1000) < 0.3).astype(float)
    label[::3] = np.nan
    m.observe_many(list(range(1000)), score=score, challenger=score / 2, label=label)
    assert calls == [100]           # the event that froze the reference (an eviction)
    assert m.champion.stats["predictions"] == m.challenger.stats["predictions"] == 1000
    assert m.stats["events"] == 1000 and len(m.champion) == len(m.challenger) == 100
    m._check()


def _limited(make, limit):
    """A unit factory whose windows ask for a sync after ``limit`` changes."""
    def factory():
        unit = make()
        for m in (unit.champion, unit.challenger) if hasattr(unit, "champion") else (unit,):
            m._win.limit = limit
        return unit
    return factory


@pytest.mark.parametrize("paired", [False, True])
@settings(max_examples=80, deadline=None)
@given(data=st.data(), size=st.integers(1, 12), limit=st.integers(1, 6),
       wait=st.sampled_from([None, 2]))
def test_segmented_compiled_runs_equal_observe_event_by_event(paired, data, size, limit,
                                                               wait):
    """A `SegmentedMonitor`'s blocks (segment, score, label, challenger with paired units)
    are routed to its steady units in C: the same state as `observe` event by event,
    whatever ends a run (a new segment, the pooled segment, a segment that contradicts
    the id's, a label without a segment for an id in no window, a relabel, a sweep of the
    id map, a sync)."""
    ids = list(range(14))
    grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    segment = st.one_of(st.none(), st.sampled_from("abc"))
    event = st.tuples(st.sampled_from(ids), segment, st.one_of(st.none(), grid),
                      st.one_of(st.none(), grid, st.just(math.inf)),
                      st.one_of(st.none(), st.sampled_from([0.0, 1.0])))
    events = data.draw(st.lists(event, max_size=150))
    unit = (lambda: PairedMonitor(window=3, min_window=2, label_wait=wait)) if paired \
        else (lambda: Monitor(window=3, min_window=2, label_wait=wait))
    a, b = (SegmentedMonitor(max_segments=2, factory=_limited(unit, limit))
            for _ in range(2))
    a._sweep_at = b._sweep_at = 6                  # (sweeps of the id map in the runs)
    fields = ("segment", "score", "challenger", "label") if paired else (
        "segment", "score", "label")

    def kw(e):
        d = dict(zip(("segment", "score", "challenger", "label"), e[1:]))
        return {k: d[k] for k in fields if d[k] is not None}

    def columns(block):
        cols = {"segment": [e[1] for e in block]}
        for j, name in ((2, "score"), (3, "challenger"), (4, "label")):
            if name in fields:
                cols[name] = _floats(block, j)
        return cols
    _each_and_blocks(a, b, events, size, kw, columns)


def test_a_segmented_block_of_steady_units_never_reaches_observe():
    m = SegmentedMonitor(max_segments=4, factory=lambda: PairedMonitor(window=20))
    calls = []
    checked = m.observe
    m.observe = lambda *a, **k: (calls.append(a[0]), checked(*a, **k))[1]
    rng = np.random.default_rng(4)
    n = 2000
    score, label = rng.random(n), (rng.random(n) < 0.3).astype(float)
    segs = ["abcd"[i % 4] for i in range(n)]
    m.observe_many(list(range(n)), segment=segs, score=score, challenger=score / 2,
                   label=label)
    # each segment's first prediction (it makes the unit), the one that froze its reference
    assert calls == [0, 1, 2, 3, 80, 81, 82, 83]
    assert m.stats["events"] == n and m.unit("a").champion.stats["predictions"] == n // 4
    m._check()


def test_observe_run_refuses_what_it_cannot_read_before_anything_changes():
    m = Monitor(window=4, min_window=2)
    before = m.to_bytes()
    good = np.array([0.5, 0.25])
    strided = np.array([0.5, 0.1, 0.25, 0.2])[::2]        # (not contiguous)
    bad = [("keys", ("a", "b"), good, good), ("score", ["a", "b"], [0.5, 0.25], good),
           ("score", ["a", "b"], good.astype(np.float32), good),
           ("label", ["a", "b"], good, good[:1]), ("score", ["a", "b"], strided, good)]
    for name, keys, score, label in bad:
        with pytest.raises(TypeError, match=f"'{name}' parameter of Monitor.observe_run"):
            m.observe_run(keys, score, label)
    with pytest.raises(TypeError, match="'start' parameter"):
        m.observe_run(["a", "b"], good, good, start=3)
    assert m.to_bytes() == before
    assert m.observe_run(["a", "b"], good, np.array([1.0, np.nan])) == 2 and len(m) == 2
