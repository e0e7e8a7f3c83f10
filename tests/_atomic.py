"""What the atomicity tests share (tests only): the state of an object, taken whole, and
the check that a refused call leaves it unchanged.

`state` is an object's pickle bytes (`Monitor.to_bytes` for a monitor), read after its
counts (a read fills caches, which is not a change), with its counts and length;
`assert_refused` runs a call that must raise and compares the state before and after,
then runs the object's own ``_check()``. `cases` turns rows ``(id, *args)`` into
``pytest.param``; a row ending in `XFAIL` is a defect, expected to fail until fixed.
"""

from __future__ import annotations

import math
import pickle

import pytest

from streamrank.monitor import Monitor

__all__ = ["INEXACT", "INF", "NAN", "OUT_HI", "OUT_LO", "XFAIL", "P", "assert_refused",
           "cases", "state"]

NAN, INF = math.nan, math.inf
INEXACT = 2**53 + 1            # an int that float64 cannot hold
OUT_HI, OUT_LO = 2.0**401, 2.0**-401


def state(obj):
    """Everything an object holds, as bytes and values (counts are read first: reading
    fills caches, which must not count as a change)."""
    counts = getattr(obj, "counts", None)
    size = len(obj) if hasattr(obj, "__len__") else None
    if isinstance(obj, Monitor):
        return obj.to_bytes(), counts, size
    return pickle.dumps(obj, protocol=4), counts, size


def assert_refused(obj, call, exc, match):
    before = state(obj)
    with pytest.raises(exc, match=match):
        call(obj)
    after = state(obj)
    assert after[1:] == before[1:]
    assert after[0] == before[0], "the state changed before the call raised"
    if hasattr(obj, "_check"):
        obj._check()


def cases(rows):
    """``pytest.param`` of each ``(id, *args)`` row; a row ending in ``XFAIL(reason)`` is a
    defect found here, expected to fail until fixed (strict: a fix turns it into an error
    that asks for the mark to go)."""
    out = []
    for row in rows:
        marks = ()
        if isinstance(row[-1], XFAIL):
            marks = pytest.mark.xfail(strict=True, reason=row[-1].reason)
            row = row[:-1]
        out.append(pytest.param(*row[1:], id=row[0], marks=marks))
    return out


class XFAIL:
    """The last item of a case row: the defect that makes it fail (the reason)."""

    def __init__(self, reason):
        self.reason = reason


def P(name):
    """The message names parameter ``name``."""
    return rf"'{name}' parameter"
