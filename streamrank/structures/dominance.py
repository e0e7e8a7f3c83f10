"""2-D dominance weights: how much held weight lies below, level with or above a point.

For a point ``(y, s)`` (label, score) and the held points ``(y', s', w')`` the counters
report the 3 x 3 grid of weights ``G[r][c]``, rows by label and columns by score::

                  s' < s     s' == s    s' > s
    y' <  y     G[0][0]    G[0][1]    G[0][2]
    y' == y     G[1][0]    G[1][1]    G[1][2]
    y' >  y     G[2][0]    G[2][1]    G[2][2]

which is everything a pair counter needs when the point is inserted or removed: its pairs
with the held points are concordant ``G[0][0] + G[2][2]``, discordant ``G[0][2] +
G[2][0]``, tied in score only ``G[0][1] + G[2][1]``, tied in label ``G[1][*]`` of which
``G[1][1]`` are tied in both (`pairs_with` returns these five sums).

Two counters, by the number of distinct labels:

`LevelDominanceCounter` (binary or ordinal labels) is compiled (``_cbinary.pyx``, its
``_levels.pxi``): B+ trees over the scores, two label levels to a tree; a query walks each
tree once, ``O(L log n)`` for ``L`` levels. This module hands it out under its name here
too (the name pickles of version 0.1 ask for).

`DominanceCounter` (any labels, arriving unannounced), compiled in `_cdominance.pyx`: a
weight-balanced binary tree over the points in (label, score) order whose inner nodes
each keep a B+ tree of the scores in their left subtree (a dynamic range tree), all in C
arrays. A query walks down by label, partitioning at ``s`` the left-subtree scores of
every node whose whole left subtree is labelled below ``y``: O(log^2 n) amortized for
queries and changes; see that module's docstring for the balance (partial rebuilding),
the memory and the exactness.

Both are exact with ``dtype=int`` and keep bounded rounding with ``dtype=float`` (their
modules' docstrings give the bounds). The grid's cells are differences of partial sums;
with floats a cell that is 0 exactly may come out as a rounding residue of either sign.
"""

from __future__ import annotations

import numpy as np

from .._validation import describe, param_error
from .multiset import _check_value, _weights_array

__all__ = ["DominanceCounter", "LevelDominanceCounter"]


def __getattr__(name):
    """``LevelDominanceCounter``: the compiled counter (imported on first use, as the
    compiled module imports this one)."""
    if name == "LevelDominanceCounter":
        from ._cbinary import LevelDominanceCounter
        return LevelDominanceCounter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def _check_dtype(dtype, func):
    if dtype is int or dtype is float:
        return dtype
    raise param_error("dtype", func, "int or float", describe(dtype))


def _points(labels, scores, func):
    """``labels`` and ``scores`` as float64 arrays of one length, free of NaN."""
    arrays = []
    for name, x in (("labels", labels), ("scores", scores)):
        a = np.asarray(x)
        if a.ndim != 1 or (a.size and a.dtype.kind not in "biuf"):
            raise param_error(name, func, "a 1-D array of real numbers", describe(a))
        a = a.astype(np.float64)
        if np.isnan(a).any():
            raise param_error(name, func, "free of NaN", describe(a))
        arrays.append(a)
    if arrays[1].shape != arrays[0].shape:
        raise param_error("scores", func, f"of the length of labels ({arrays[0].shape[0]})",
                          describe(arrays[1]))
    return arrays


def _copies(copies, n, func):
    """``copies`` as an int64 array of ``n`` counts ``>= 1`` (ones for None)."""
    if copies is None:
        return np.ones(n, dtype=np.int64)
    c = np.asarray(copies)
    if c.shape != (n,) or (n and (c.dtype.kind not in "iu" or c.min() < 1)):
        raise param_error("copies", func, f"{n} integers >= 1", describe(c))
    return c.astype(np.int64)


def _load_args(labels, scores, copies, weights, dtype, func):
    """The validated arrays of a ``load``: float64 labels and scores, int64 copies, and
    weights in ``dtype``."""
    y, s = _points(labels, scores, func)
    c = _copies(copies, y.shape[0], func)
    w, _ = _weights_array(weights, y.shape[0], dtype, func)
    return y, s, c, w


def _from_arrays(cls, labels, scores, weights, dtype):
    """``cls.from_arrays``: a counter of ``cls`` holding the points, with ``dtype`` from
    the weights unless given."""
    func = f"{cls.__name__}.from_arrays"
    y, s = _points(labels, scores, func)
    w, dtype = _weights_array(weights, y.shape[0], dtype, func)
    counter = cls(dtype=dtype)
    counter.load(y, s, None, w)
    return counter


def _checked_point(label, score, func):
    if type(label) is not float or label != label:
        label = _check_value(label, func, "label")
    if type(score) is not float or score != score:
        score = _check_value(score, func, "score")
    return label, score


# ====================================================================== any labels
# `DominanceCounter` is compiled (`_cdominance.pyx`). The two classes below are the nodes
# of the Python tree that earlier releases pickled; they are kept only so that those
# pickles load (`DominanceCounter.__setstate__` reads their points).


class _Leaf:
    """A leaf of a pickled Python `DominanceCounter`: sorted keys, copies, weights."""

    __slots__ = ("labels", "scores", "counts", "weights")
    size = 1


class _Inner:
    """An inner node of a pickled Python `DominanceCounter`."""

    __slots__ = ("left", "right", "label", "score", "size", "left_scores")


from ._cdominance import DominanceCounter  # noqa: E402  (it imports the helpers above)
