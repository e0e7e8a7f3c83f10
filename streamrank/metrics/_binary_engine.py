"""Reading the `BinaryPairEngine` of pickles written by streamrank 0.1.0. Nothing else.

In 0.1.0, `ROCAUC`, `RollingROCAUC` and `GroupAUC` kept their counts in a
``BinaryPairEngine`` of this module (B+ tree nodes of ``streamrank.structures.binary``
inside it). Those classes are gone; pickle still looks their names up when it loads an
old metric, so this module defines stand-ins under the old names that only take the
pickled state, and `samples` reads that state back as the samples it holds, for
`streamrank.metrics._legacy` to rebuild the metric in today's layout. There is no counting
here, and the stand-ins never end up in a loaded metric.

``streamrank.structures.binary`` hands pickle the two names of 0.1.0 it asks that module
for (``BinaryTree``, ``_Node``: stand-ins of `streamrank.structures._pickled`).

What 0.1.0 kept, by mode (``_mode``):

* ``"list"``: the sorted scores of each class, every weight the int 1: exact samples.
* ``"tree"`` / ``"flat"``: per score and class, the copies and their total weight.
  Several copies at one ``(label, score)`` are not told apart (a ``"flat"`` engine
  without weight arrays held unit weights only: exact again).
"""

from __future__ import annotations

import math

import numpy as np

from ..structures._pickled import BinaryTree, _Node, _Pickled

__all__ = ["BinaryPairEngine", "samples"]

_SHIFT = 32                 # flat mode packed both classes' copies: c0 | c1 << 32
_LOW = (1 << _SHIFT) - 1


class BinaryPairEngine(_Pickled):
    """The 0.1.0 engine of the binary AUC metrics, as pickled (read by `samples`)."""


class _Flat(_Pickled):
    """Its flat-mode arrays, as pickled."""


def samples(engine) -> tuple[dict, dict]:
    """``(exact, cells)``: what a pickled 0.1.0 ``BinaryPairEngine`` holds.

    ``exact`` is the multiset ``{(label, score, weight): copies}`` of the samples known
    one by one; ``cells`` is ``{(label, score): (copies, weight)}`` where only the copies
    and their total weight are known (an int weight, or a float for an engine with float
    weights). Labels are 0 and 1. Raises `ValueError` (naming what) for a state that is
    not one of 0.1.0. Runtime complexity: ``O(n)``.
    """
    if not isinstance(engine, BinaryPairEngine):
        raise ValueError(f"an engine that is not a BinaryPairEngine ({type(engine).__name__})")
    dtype, mode = _attr(engine, "_dtype"), _attr(engine, "_mode")
    if dtype is not int and dtype is not float:
        raise ValueError(f"a BinaryPairEngine of dtype {dtype!r}")
    if mode == "list":
        exact: dict = {}
        lists = _attr(engine, "_lists")
        if not (isinstance(lists, tuple) and len(lists) == 2):
            raise ValueError("list mode without its two lists of scores")
        for label, scores in enumerate(lists):
            for s in _list(scores, "list-mode scores"):
                key = (label, _score(s), 1)
                exact[key] = exact.get(key, 0) + 1
        return exact, {}
    if mode == "tree":
        rows = _tree_rows(_attr(engine, "_tree"))
    elif mode == "flat":
        rows = _flat_rows(_attr(engine, "_flat"))
    else:
        raise ValueError(f"a BinaryPairEngine in mode {mode!r}")
    exact, cells, seen = {}, {}, set()
    for label, s, copies, weight in rows:
        if not copies:
            if weight not in (None, 0):
                raise ValueError(f"weight {weight!r} without a copy at score {s!r}")
            continue
        weight = _weight(weight, dtype)
        if weight is None and dtype is not int:
            raise ValueError("a float engine's flat arrays without weights")
        if (label, s) in seen:
            raise ValueError(f"score {s!r} twice")
        seen.add((label, s))
        if weight is None:                       # flat mode, unit weights: exact
            exact[(label, s, 1)] = copies
        elif copies == 1 and dtype is int:       # one copy: its weight is the cell's
            exact[(label, s, weight)] = 1
        else:
            cells[(label, s)] = (copies, weight)
    return exact, cells


def _attr(obj, name):
    try:
        return getattr(obj, name)
    except AttributeError:
        raise ValueError(f"a {type(obj).__name__} without {name!r}") from None


def _list(x, what) -> list:
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if not isinstance(x, list):
        raise ValueError(f"{what} that are not a list ({type(x).__name__})")
    return x


def _score(s) -> float:
    if not isinstance(s, (int, float, np.integer, np.floating)) or not math.isfinite(s):
        raise ValueError(f"a score {s!r}")
    return float(s)


def _copies(c) -> int:
    if not isinstance(c, (int, np.integer)) or isinstance(c, bool) or c < 0:
        raise ValueError(f"a count of copies {c!r}")
    return int(c)


def _weight(w, dtype):
    """A cell's weight as the engine's number (None for the unit-weight flat arrays)."""
    if w is None:
        return None
    if dtype is int:
        if not isinstance(w, (int, np.integer)) or isinstance(w, bool) or w < 0:
            raise ValueError(f"an int engine's weight {w!r}")
        return int(w)
    if not isinstance(w, (int, float, np.integer, np.floating)) or not (
            math.isfinite(w) and w >= 0):
        raise ValueError(f"a float engine's weight {w!r}")
    return float(w)


def _tree_rows(tree) -> list:
    """``(label, score, copies, weight)`` of the leaves of a 0.1.0 ``BinaryTree``."""
    if not isinstance(tree, BinaryTree):
        raise ValueError(f"a tree that is not a BinaryTree ({type(tree).__name__})")
    height = _attr(tree, "height")
    if not isinstance(height, int) or not 0 <= height <= 64:
        raise ValueError(f"a tree of height {height!r}")
    rows = []
    level = [_attr(tree, "root")]
    for _ in range(height):
        level = [kid for node in level for kid in _list(_node(node, "kids"), "tree children")]
    for leaf in level:
        keys = _list(_node(leaf, "keys"), "leaf keys")
        c, w = _node(leaf, "c"), _node(leaf, "w")
        if not (len(c) == len(w) == 2 and all(len(_list(x, "leaf columns")) == len(keys)
                                              for x in (*c, *w))):
            raise ValueError("a leaf whose columns do not match its keys")
        for j, key in enumerate(keys):
            s = _score(key)
            for label in (0, 1):
                rows.append((label, s, _copies(c[label][j]), w[label][j]))
    return rows


def _node(node, name):
    if not isinstance(node, _Node):
        raise ValueError(f"a tree node that is not a _Node ({type(node).__name__})")
    return _attr(node, name)


def _flat_rows(flat) -> list:
    """``(label, score, copies, weight or None)`` of 0.1.0's flat arrays."""
    if not isinstance(flat, _Flat):
        raise ValueError(f"flat mode without its arrays ({type(flat).__name__})")
    s, c, w = (_attr(flat, x) for x in ("s", "c", "w"))
    if not (isinstance(s, np.ndarray) and isinstance(c, np.ndarray) and s.ndim == 1
            and c.shape == s.shape and c.dtype == np.int64):
        raise ValueError("flat arrays of the wrong kind or shape")
    c = c.tolist()
    copies = [[x & _LOW for x in c], [x >> _SHIFT for x in c]]
    if w is None:
        weights = [[None] * len(c)] * 2
    else:
        if not (len(w) == 2 and all(isinstance(x, np.ndarray) and x.shape == s.shape
                                    for x in w)):
            raise ValueError("flat weights of the wrong kind or shape")
        weights = [x.tolist() for x in w]
    rows = []
    for j, score in enumerate(s.tolist()):
        score = _score(score)
        for label in (0, 1):
            rows.append((label, score, _copies(copies[label][j]), weights[label][j]))
    return rows
