"""Pickles of the compiled trees: a tree is copied bit for bit where its node layout is
this build's; a copy whose arrays do not fit its header is refused, and the counter
loads from its rows instead."""

from __future__ import annotations

from streamrank.structures import BinaryDominanceCounter
from streamrank.structures._cbtree import _BTree


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
