"""Group ids (users, queries, sessions): the one rule by which `streamrank.group_auc_score`
and `streamrank.metrics.GroupAUC` tell groups apart.

**The rule**: group ids compare as ``dict`` keys do, by Python equality and hash. ``1``,
``1.0``, ``np.int64(1)`` and ``True`` are one group (``1 == 1.0 == True``); ``1`` and
``"1"`` are two; ``"a"`` and ``"a\\x00"`` are two. Any hashable value is an id (ints,
strings, tuples, ...) except ``None``, ``nan``, an infinite float and ``NaT``, which are
refused with a `ValueError` naming the parameter (they are missing values, not ids: ``nan
!= nan``, so a dict would make each ``nan`` its own group). Unhashable ids (lists, dicts)
raise `TypeError`.

The batch function reads a numpy array (or a pandas Series) of one bool, int, float,
string or datetime dtype with numpy (its values compare in numpy as they do in Python), and
anything else -- a list, a tuple, an object array -- element by element as Python objects,
so that numpy never turns ``[1, "1"]`` into two equal strings, or ``"a\\x00"`` into ``"a"``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import describe, param_error

__all__ = ["EXPECTED", "check_group_id", "factorize_groups"]

#: What a group id must be, for error messages.
EXPECTED = "hashable group ids other than None, nan, inf and NaT"


def _missing(group) -> bool:
    """``group`` is None, a nan or infinite float, or NaT."""
    if group is None:
        return True
    if isinstance(group, (float, np.floating)):
        return not math.isfinite(group)
    if isinstance(group, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(group))
    return False


def check_group_id(group, name: str, func: str):
    """``group`` if it is a valid group id; `ValueError` for None / nan / inf / NaT and
    `TypeError` for an unhashable value, naming the parameter ``name`` of ``func``.

    Runtime complexity: O(1) (plus hashing ``group``).

    >>> check_group_id(("u1", 3), "groups", "f")
    ('u1', 3)
    >>> check_group_id(float("nan"), "groups", "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'groups' parameter of f must be hashable group ids other than None, nan, inf and NaT. Got group nan instead.
    """
    if _missing(group):
        raise param_error(name, func, EXPECTED, f"group {describe(group)}")
    try:
        hash(group)
    except TypeError:
        raise param_error(name, func, EXPECTED, f"group {describe(group)}",
                          TypeError) from None
    return group


def factorize_groups(groups, func: str, name: str = "groups"):
    """``(ids, codes)``: the distinct group ids of the 1-D ``groups`` under the rule above
    (sorted when they are mutually comparable, else in order of first appearance; each the
    first of its equal ids) and, for each sample, the index of its group in ``ids``.

    Runtime complexity: ``O(n log n)`` with numpy for a typed array; ``O(n)`` dict
    lookups plus ``O(G log G)`` to sort ``G`` groups otherwise.

    >>> ids, codes = factorize_groups([1, "1", 1.0, True, "a"], "f")
    >>> ids.tolist(), codes.tolist()
    ([1, '1', 'a'], [0, 1, 0, 0, 2])
    >>> ids, codes = factorize_groups(np.array([3, 1, 3]), "f")
    >>> ids.tolist(), codes.tolist()
    ([1, 3], [1, 0, 1])
    """
    if isinstance(groups, (list, tuple)):
        g = np.fromiter(groups, dtype=object, count=len(groups))
    else:
        g = np.asarray(groups)
    if g.ndim != 1:
        raise param_error(name, func, "a 1-D array", f"an array of shape {g.shape}")
    if g.dtype.kind in "biufUSmM":
        if g.dtype.kind == "f" and not np.isfinite(g).all() or \
                g.dtype.kind in "mM" and np.isnat(g).any():
            bad = g[~np.isfinite(g)] if g.dtype.kind == "f" else g[np.isnat(g)]
            raise param_error(name, func, EXPECTED, f"group {describe(bad[0].item())}")
        ids, codes = np.unique(g, return_inverse=True)
        return ids, codes.reshape(-1)
    index: dict = {}
    setdefault = index.setdefault
    try:
        codes = np.fromiter((setdefault(x, len(index)) if not _missing(x) else
                             _refuse(x, name, func) for x in g), dtype=np.intp, count=g.size)
    except TypeError:
        bad = next((x for x in g if not _hashable(x)), None)
        if bad is None:
            raise
        raise param_error(name, func, EXPECTED, f"group {describe(bad)}", TypeError) from None
    firsts = list(index)
    try:
        order = sorted(range(len(firsts)), key=firsts.__getitem__)
    except TypeError:           # ids that do not compare (1 and "a"): first appearance
        order = list(range(len(firsts)))
    rank = np.empty(len(firsts), dtype=np.intp)
    rank[order] = np.arange(len(firsts))
    ids = np.fromiter((firsts[i] for i in order), dtype=object, count=len(firsts))
    return ids, rank[codes]


def _refuse(x, name, func):
    raise param_error(name, func, EXPECTED, f"group {describe(x)}")


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True
