"""Pickles of the compiled trees in their first node layout (``tests/data/tree_nodes_v1/``)
load, hold what they held, and keep working; pickles of this build are bit for bit.

A pickled `BinaryDominanceCounter`, `LevelDominanceCounter` or `PairEngine` carries each
tree twice: its nodes bit for bit, tagged with their layout, and its rows (labels, scores,
copies, weights, copies of weight > 0). A tree whose layout is not the build's is rebuilt
from the rows. ``make_node_fixtures.py`` wrote the fixtures with the code whose nodes held
the compensations and the copies of weight > 0 themselves (2440 bytes each), and stored
the samples behind each in ``samples.json``. Each test loads one with today's code and checks
it against a fresh recount of those samples (the O(n^2) oracle), then makes more changes
and checks again. These files are never rewritten: their point is to be old.
"""

from __future__ import annotations

import json
import pickle
from collections import Counter
from fractions import Fraction

import pytest

from oracle import cross_counts, pair_counts_matrix
from streamrank.engine import PairEngine
from streamrank.structures import BinaryDominanceCounter, LevelDominanceCounter
from streamrank.structures._cbinary import _BTree
from paths import DATA

DATA = DATA / "tree_nodes_v1"
SAMPLES = json.loads((DATA / "samples.json").read_text())
FIXTURES = sorted(k for k in SAMPLES if k.endswith(".pkl"))
CLASSES = {"BinaryDominanceCounter": BinaryDominanceCounter,
           "LevelDominanceCounter": LevelDominanceCounter, "PairEngine": PairEngine}


def _load(name):
    with open(DATA / name, "rb") as f:
        return pickle.load(f)


class _State:
    """Takes the state pickle gives it (an engine's, not built)."""

    def __setstate__(self, state):
        self.state = state


class _Args(pickle.Unpickler):
    """Unpickles a counter as the arguments of its restore function (the trees' raw
    copies among them), and an engine as its state, without building either."""

    def find_class(self, module, name):
        if name == "_restore_counter":
            return lambda *args: args
        if name == "PairEngine":
            return _State
        return super().find_class(module, name)


def _raw_trees(name):
    """The raw trees of the counter in fixture ``name``: ``(layout, nodes, header)``."""
    with open(DATA / name, "rb") as f:
        got = _Args(f).load()
    if isinstance(got, _State):
        got = got.state["_dom"]
    return got[4][0]


def _counter(obj):
    return obj._dom if isinstance(obj, PairEngine) else obj


def _assert_holds(obj, rows):
    """``obj`` holds exactly ``rows`` and its running counts are their oracle's."""
    dc = _counter(obj)
    dc._check()
    float_mode = dc.dtype is float
    agg = Counter()
    copies = Counter()
    for y, s, w in rows:
        agg[(float(y), float(s))] += Fraction(w)
        copies[(float(y), float(s))] += 1
    assert [(y, s, c, Fraction(w)) for y, s, c, w in dc.items()] == \
        [(y, s, copies[(y, s)], agg[(y, s)]) for y, s in sorted(agg)]
    ref = pair_counts_matrix([r[0] for r in rows], [r[1] for r in rows],
                             [Fraction(r[2]) for r in rows])
    want = list(ref.as_tuple()) + [ref.W]
    got = dc.sums.values()
    if float_mode:
        scale = max(float(ref.W), dc.sums.hist) ** 2
        assert all(abs(a - float(b)) <= 1e-9 * scale for a, b in zip(got, want)), (got, want)
    else:
        assert got == want and all(type(a) is int for a in got)
    assert dc.stats()[1:] == (ref.m_s, sum(1 for r in rows if r[2] > 0))
    if isinstance(obj, PairEngine):
        obj._check([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def test_the_folder_holds_the_fixtures_and_nothing_else():
    names = {p.name for p in DATA.iterdir() if p.name != "__pycache__"}
    assert names == set(FIXTURES) | {"samples.json", "make_node_fixtures.py"}
    assert len(FIXTURES) == 5
    for name in names:
        assert (DATA / name).stat().st_size < 32 * 1024, name


@pytest.mark.parametrize("name", FIXTURES)
def test_the_fixtures_trees_are_in_another_layout(name):
    """Each fixture's trees carry the first layout (several nodes each), which this build
    refuses bit for bit (so loading goes through the rows)."""
    trees = _raw_trees(name)
    assert trees and all(tuple(layout) == tuple(SAMPLES["node_layout"]) == (32, 2440)
                         for layout, _, _ in trees)
    assert max(header[0] for _, _, header in trees) >= 3     # a root over leaves
    here = _BTree().raw()[0]
    assert tuple(here) != (32, 2440)
    for layout, nodes, header in trees:
        t = _BTree()
        assert t.set_raw(layout, nodes, header) is False
        assert t.raw() == _BTree().raw()                       # nothing changed


@pytest.mark.parametrize("name", FIXTURES)
def test_a_fixture_loads_and_holds_its_samples(name):
    obj = _load(name)
    entry = SAMPLES[name]
    assert type(obj) is CLASSES[entry["class"]]
    _assert_holds(obj, [tuple(r) for r in entry["rows"]])


@pytest.mark.parametrize("name", FIXTURES)
def test_a_fixture_goes_on_after_loading(name):
    """More changes after the load (a weight-0 copy, a new score, a removal of each
    kind), each checked; then a pickle of this build, bit for bit."""
    obj = _load(name)
    rows = [tuple(r) for r in SAMPLES[name]["rows"]]
    dc = _counter(obj)
    one = 1.0 if dc.dtype is float else 1
    zero = 0.0 if dc.dtype is float else 0
    y0, s0, _ = rows[0]
    changes = [(+1, (y0, s0, zero)), (+1, (y0, 123.0, one)), (+1, (rows[1][0], -5.0, zero)),
               (-1, rows[2]), (-1, (y0, s0, zero))]
    for sign, row in changes:
        if isinstance(obj, PairEngine):
            (obj.add if sign > 0 else obj.remove)(*row)
        else:
            assert (dc.engine_add if sign > 0 else dc.engine_remove)(*row)
        if sign > 0:
            rows.append(row)
        else:
            rows.remove(row)
        _assert_holds(obj, rows)
    for label in sorted({r[0] for r in rows}) + [0.75]:
        want = cross_counts((label, 2.0, 1), *zip(*rows)).as_tuple()
        got = dc.pairs_with(label, 2.0)
        assert all(abs(a - float(b)) <= 1e-9 * len(rows) ** 2 for a, b in zip(got, want))
    data = pickle.dumps(obj, protocol=4)
    copy = pickle.loads(data)
    assert pickle.dumps(copy, protocol=4) == data
    _assert_holds(copy, rows)


def test_a_raw_tree_that_does_not_fit_its_header_is_refused():
    """`_BTree.set_raw` refuses (False, nothing changed) a copy of this layout whose
    arrays do not fit its header; a counter pickle with such a tree loads from its rows."""
    dc = BinaryDominanceCounter()
    for i in range(100):
        assert dc.engine_add(float(i % 2), i / 7.0, i % 3)
    layout, nodes, header = dc.__reduce__()[1][4][0][0]
    assert header[13] is not None            # weight-0 copies: the array is there
    bad = [header[:13] + (None,),            # weight-0 copies without it
           header[:11] + (True, b"\0" * 10, header[13]),      # floats, wrong length
           header[:12] + (b"\0" * 8,),
           header + (None,)]
    for h in bad:
        t = _BTree()
        assert t.set_raw(layout, nodes, h) is False
        assert t.raw() == _BTree().raw()
    t = _BTree()
    assert t.set_raw(layout, nodes[:-8], header) is False
    assert t.set_raw(layout, nodes, header) is True
    func, args = dc.__reduce__()
    trees, slots = args[4]
    tampered = func(*args[:4], (((layout, nodes, bad[0]),), slots), *args[5:])
    tampered._check()
    assert list(tampered.items()) == list(dc.items())
    assert tampered.sums.values() == dc.sums.values()
