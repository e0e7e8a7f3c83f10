# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled two-level dominance counter behind `PairEngine` (see `binary.py`).

A treap over the distinct scores held, in one C array of nodes: each node carries its
score, the copies and the weight of *both* classes at that score, and both classes' sums
over its left subtree and its whole subtree, so that a query reads one node per level.
Priorities are a hash of the score's bits, so the tree's shape is a function of the set
of scores held (not of the order of the changes): the same contents give bit-identical
sums whatever came and went.

Exactness. ``dtype=int``: int64 weights and sums; the total held must stay below ``2**62``
(`PairEngine` moves to floats before that). ``dtype=float``: each node's own weight is a
compensated (Neumaier) sum of the weights added and removed there, and subtree sums are
recomputed from the children on every walk instead of updated in place, so an inner sum
never keeps the rounding of a weight that left; only the own weight of a score still
shared with such a weight keeps it, to ``O(eps)`` of that weight after compensation.
"""

from libc.stdint cimport int64_t, uint64_t, int32_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy
from libc.math cimport fabs

import math

import numpy as np

from .._validation import describe, param_error
from .dominance import _check_dtype, _checked_point, _exact_dot, _load_args, _points
from .multiset import _check_weight, _weights_array

cdef extern from *:
    """
    typedef __int128 sr_int128;
    """
    ctypedef long long sr_int128

cdef enum:
    NIL = -1

cdef int64_t _INT_TOTAL_MAX = (<int64_t>1) << 62


cdef inline uint64_t _prio(double key):
    """A hash of the score's bits (splitmix64): the treap's shape depends only on the
    set of scores held. -0.0 and 0.0 are one score."""
    cdef double k = key + 0.0
    cdef uint64_t z
    memcpy(&z, &k, 8)
    z += 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef struct Node:
    # line 1: what an int-mode walk reads
    double key
    int32_t left, right
    int64_t ilsum[2]      # int mode: the left subtree's sum, per class
    int64_t iw[2]         # int mode: own weight at this score, per class
    int64_t c[2]          # copies per class
    # line 2: float mode
    double flsum[2]       # the left subtree's sum
    double fw[2]          # own weight (Neumaier sum) ...
    double fe[2]          # ... and its compensation
    double ftsum[2]       # the subtree's sum
    # line 3
    int64_t itsum[2]      # int mode: the subtree's sum
    uint64_t prio


cdef class _Treap:
    """Nodes in one C array of `Node` (free ones chained through ``left``). A node keeps its
    left subtree's sum, so a walk reads only the nodes on its path."""
    cdef int32_t cap, size, root, free_head, distinct
    cdef bint floats
    cdef Node* n

    def __cinit__(self):
        self.cap = 0
        self.n = NULL
        self._grow(16)
        self.clear()

    def __dealloc__(self):
        free(self.n)

    cdef void clear(self):
        self.root = NIL
        self.size = 0
        self.free_head = NIL
        self.distinct = 0

    cdef void _grow(self, int32_t cap) except *:
        cdef Node* p = <Node*>realloc(self.n, cap * sizeof(Node))
        if p == NULL:
            raise MemoryError()
        self.n = p
        self.cap = cap

    cdef int32_t _new(self, double s) except -2:
        cdef int32_t i
        cdef int k
        if self.free_head != NIL:
            i = self.free_head
            self.free_head = self.n[i].left
        else:
            if self.size == self.cap:
                if self.cap >= 1 << 30:
                    raise MemoryError("BinaryDominanceCounter holds at most 2**30 scores")
                self._grow(2 * self.cap)
            i = self.size
            self.size += 1
        cdef Node* x = &self.n[i]
        x.key = s + 0.0
        x.prio = _prio(s)
        x.left = NIL
        x.right = NIL
        for k in range(2):
            x.c[k] = 0
            x.iw[k] = 0
            x.ilsum[k] = 0
            x.itsum[k] = 0
            x.fw[k] = 0.0
            x.fe[k] = 0.0
            x.flsum[k] = 0.0
            x.ftsum[k] = 0.0
        self.distinct += 1
        return i

    cdef void _release(self, int32_t i):
        self.n[i].left = self.free_head
        self.free_head = i
        self.distinct -= 1

    cdef inline void _pull(self, int32_t i):
        """Recompute node ``i``'s sums from its children's and its own weights."""
        cdef Node* x = &self.n[i]
        cdef int32_t l = x.left, r = x.right
        cdef int k
        if self.floats:
            for k in range(2):
                x.flsum[k] = self.n[l].ftsum[k] if l != NIL else 0.0
                x.ftsum[k] = (x.flsum[k] + (x.fw[k] + x.fe[k])
                              + (self.n[r].ftsum[k] if r != NIL else 0.0))
        else:
            for k in range(2):
                x.ilsum[k] = self.n[l].itsum[k] if l != NIL else 0
                x.itsum[k] = x.ilsum[k] + x.iw[k] + (self.n[r].itsum[k] if r != NIL else 0)

    cdef int32_t _rotate_right(self, int32_t i):
        cdef int32_t l = self.n[i].left
        self.n[i].left = self.n[l].right
        self.n[l].right = i
        self._pull(i)
        self._pull(l)
        return l

    cdef int32_t _rotate_left(self, int32_t i):
        cdef int32_t r = self.n[i].right
        self.n[i].right = self.n[r].left
        self.n[r].left = i
        self._pull(i)
        self._pull(r)
        return r

    cdef int32_t _insert(self, int32_t i, double s, int32_t* found) except -2:
        """Insert score ``s`` under ``i`` if absent; ``found[0]`` = its node. The caller
        then changes that node's weights and calls `_repath`."""
        cdef int32_t j
        if i == NIL:
            j = self._new(s)
            found[0] = j
            return j
        if s < self.n[i].key:
            j = self._insert(self.n[i].left, s, found)
            self.n[i].left = j
            if self.n[j].prio > self.n[i].prio:
                return self._rotate_right(i)
        elif s > self.n[i].key:
            j = self._insert(self.n[i].right, s, found)
            self.n[i].right = j
            if self.n[j].prio > self.n[i].prio:
                return self._rotate_left(i)
        else:
            found[0] = i
        self._pull(i)
        return i

    cdef void _repath(self, double s):
        """Recompute the sums on the path to ``s`` (after a change of its own weight)."""
        self._repath_from(self.root, s)

    cdef void _repath_from(self, int32_t i, double s):
        if i == NIL:
            return
        if s < self.n[i].key:
            self._repath_from(self.n[i].left, s)
        elif s > self.n[i].key:
            self._repath_from(self.n[i].right, s)
        self._pull(i)

    cdef int32_t _delete(self, int32_t i, double s):
        """Remove the node of ``s`` (held) from the subtree ``i``."""
        cdef int32_t j, l, r
        if s < self.n[i].key:
            self.n[i].left = self._delete(self.n[i].left, s)
        elif s > self.n[i].key:
            self.n[i].right = self._delete(self.n[i].right, s)
        else:
            l, r = self.n[i].left, self.n[i].right
            if l == NIL or r == NIL:
                j = l if l != NIL else r
                self._release(i)
                return j
            if self.n[l].prio > self.n[r].prio:
                j = self._rotate_right(i)
                self.n[j].right = self._delete(self.n[j].right, s)
            else:
                j = self._rotate_left(i)
                self.n[j].left = self._delete(self.n[j].left, s)
            self._pull(j)
            return j
        self._pull(i)
        return i

    cdef int32_t find(self, double s):
        cdef int32_t i = self.root
        while i != NIL:
            if s < self.n[i].key:
                i = self.n[i].left
            elif s > self.n[i].key:
                i = self.n[i].right
            else:
                return i
        return NIL

    cdef void ibelow(self, double s, int64_t* below, int64_t* equal):
        """Each class's int weight below ``s`` and at ``s``: one node per level."""
        cdef int32_t i = self.root
        cdef Node* x
        below[0] = below[1] = equal[0] = equal[1] = 0
        while i != NIL:
            x = &self.n[i]
            if s < x.key:
                i = x.left
            elif s > x.key:
                below[0] += x.ilsum[0] + x.iw[0]
                below[1] += x.ilsum[1] + x.iw[1]
                i = x.right
            else:
                below[0] += x.ilsum[0]
                below[1] += x.ilsum[1]
                equal[0] = x.iw[0]
                equal[1] = x.iw[1]
                return

    cdef void fbelow(self, double s, double* below, double* equal):
        """Each class's float weight below ``s`` and at ``s``: one node per level."""
        cdef int32_t i = self.root
        cdef Node* x
        below[0] = below[1] = equal[0] = equal[1] = 0.0
        while i != NIL:
            x = &self.n[i]
            if s < x.key:
                i = x.left
            elif s > x.key:
                below[0] += x.flsum[0] + (x.fw[0] + x.fe[0])
                below[1] += x.flsum[1] + (x.fw[1] + x.fe[1])
                i = x.right
            else:
                below[0] += x.flsum[0]
                below[1] += x.flsum[1]
                equal[0] = x.fw[0] + x.fe[0]
                equal[1] = x.fw[1] + x.fe[1]
                return

    cdef void inorder(self, int32_t* out):
        """Node indices in score order (``distinct`` of them)."""
        cdef int m = 0
        self._inorder(self.root, out, &m)

    cdef void _inorder(self, int32_t i, int32_t* out, int* m):
        if i == NIL:
            return
        self._inorder(self.n[i].left, out, m)
        out[m[0]] = i
        m[0] += 1
        self._inorder(self.n[i].right, out, m)


cdef inline double _two_sum_add(double* acc, double* comp, double x):
    """``acc += x`` with the rounding kept in ``comp`` (Neumaier)."""
    cdef double a = acc[0], t = a + x
    if fabs(a) >= fabs(x):
        comp[0] += (a - t) + x
    else:
        comp[0] += (x - t) + a
    acc[0] = t
    return t


cdef object _py128(sr_int128 x):
    cdef bint neg = x < 0
    if neg:
        x = -x
    cdef uint64_t lo = <uint64_t>(x & <sr_int128>0xFFFFFFFFFFFFFFFFULL)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    value = (<object>hi << 64) | <object>lo
    return -value if neg else value


cdef class BinaryDominanceCounter:
    """Dominance weights for points on at most two label levels (`binary.py`).

    The interface of `LevelDominanceCounter` that `PairEngine` uses, plus the fused
    `add_pairs` / `remove_pairs`. Each label level held takes one of the tree's two
    classes; a level is dropped when its last point leaves, so another label can take its
    class. A third level is refused (`ValueError`).

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (int64 sums: the weight held must
        stay below ``2**62``).

    Notes
    -----
    Runtime complexity: `add_pairs`, `remove_pairs`, `add`, `remove`, `pairs_with` one
    walk of the treap, ``O(log n)`` expected (``n`` distinct scores); `pairs_with_many`
    ``O(k log n)`` in C; `load` ``O(n log n)``; `items` ``O(n)``.

    Examples
    --------
    >>> dc = BinaryDominanceCounter()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.pairs_with(1, 0.4)       # concordant, discordant, tied score, tied label, both
    (1, 0, 1, 2, 0)
    >>> dc.add_pairs(1.0, 0.4, 1)   # the same terms, and the point is added
    (1, 0, 1, 2, 0)
    >>> dc.remove_pairs(1.0, 0.4, 1), len(dc)
    ((1, 0, 1, 2, 0), 4)
    """

    cdef _Treap _t
    cdef object _dtype
    cdef bint _floats
    cdef double _label[2]
    cdef bint _has[2]
    cdef int64_t _n[2]

    def __init__(self, *, dtype=int):
        self._dtype = _check_dtype(dtype, "BinaryDominanceCounter")
        self._floats = self._dtype is float
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1)."""
        self._t = _Treap()
        self._t.floats = self._floats
        self._has[0] = self._has[1] = False
        self._n[0] = self._n[1] = 0

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``
        (at most two distinct labels). Runtime complexity: O(n log n).

        >>> BinaryDominanceCounter.from_arrays([0, 1, 1], [0.5, 0.2, 0.9]).pairs_with(1, 0.5)
        (0, 0, 1, 2, 0)
        """
        from .dominance import _from_arrays
        return _from_arrays(cls, labels, scores, weights, dtype)

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned."""
        return self._dtype

    @property
    def levels(self):
        """The distinct labels held, ascending (at most two).

        >>> dc = BinaryDominanceCounter(); dc.add(2, 0.1); dc.add(0, 0.3); dc.levels
        (0.0, 2.0)
        """
        return tuple(sorted(self._label[k] for k in range(2) if self._has[k]))

    cdef object _tot(self, int k):
        cdef int32_t r = self._t.root
        if r == NIL:
            return 0.0 if self._floats else 0
        if self._floats:
            return self._t.n[r].ftsum[k]
        return self._t.n[r].itsum[k]

    def level_copies(self):
        """``{label: copies}`` of each level held, zero-weight copies included."""
        return {self._label[k]: self._n[k] for k in range(2) if self._has[k]}

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(1)."""
        return self._tot(0) + self._tot(1)

    def __len__(self):
        """Number of points held (not their weight)."""
        return self._n[0] + self._n[1]

    def __repr__(self):
        return (f"BinaryDominanceCounter(dtype={self._dtype.__name__}) holding {len(self)} "
                f"points on {sum(self._has[k] for k in range(2))} levels")

    # ------------------------------------------------------------------ single points
    cdef int _class_of(self, double label):
        if self._has[0] and self._label[0] == label:
            return 0
        if self._has[1] and self._label[1] == label:
            return 1
        return -1

    cdef int _new_level(self, double label, str func) except -1:
        cdef int k
        if not self._has[0]:
            k = 0
        elif not self._has[1]:
            k = 1
        else:
            raise param_error("label", func, f"one of the two labels held {self.levels}",
                              repr(label))
        self._has[k] = True
        self._label[k] = label
        return k

    cdef tuple _terms(self, int k, double label, below, equal, other_tot, ty, own):
        """The `pairs_with` tuple from the other class's weight below / at the score."""
        cdef int o = 1 - k
        above = other_tot - below - equal
        if self._floats and above < 0:
            above = 0.0
        if self._has[o] and self._label[o] > label:
            return above, below, equal, ty, own
        return below, above, equal, ty, own

    cpdef tuple add_pairs(self, double label, double score, weight):
        """`pairs_with` ``(label, score)``, then add the point: one walk. Arguments are
        trusted (a float label and score, a weight of the counter's type, ``>= 0``);
        `ValueError` for a third label, before anything changes."""
        cdef int k = self._class_of(label)
        cdef int o
        cdef int64_t ib[2]
        cdef int64_t ie[2]
        cdef double fb[2]
        cdef double fe_[2]
        cdef int64_t iw
        cdef double fw
        cdef int32_t node = NIL
        cdef _Treap t = self._t
        if not self._floats:
            iw = weight
            if self._tot(0) + self._tot(1) + iw > _INT_TOTAL_MAX:   # before any change
                raise param_error("weight", "BinaryDominanceCounter.add_pairs",
                                  "a weight that keeps the total held below 2**62 (use "
                                  "dtype=float)", repr(weight))
        if k < 0:
            k = self._new_level(label, "BinaryDominanceCounter.add_pairs")
        o = 1 - k
        if self._floats:
            fw = weight
            t.fbelow(score, fb, fe_)
            other_tot, ty = self._tot(o), self._tot(k)
            t.root = t._insert(t.root, score, &node)
            _two_sum_add(&t.n[node].fw[k], &t.n[node].fe[k], fw)
            t.n[node].c[k] += 1
            t._repath(score)
            self._n[k] += 1
            return self._terms(k, label, fb[o], fe_[o], other_tot, ty, fe_[k])
        t.ibelow(score, ib, ie)
        other_tot, ty = t.n[t.root].itsum[o] if t.root != NIL else 0, self._tot(k)
        t.root = t._insert(t.root, score, &node)
        t.n[node].iw[k] += iw
        t.n[node].c[k] += 1
        t._repath(score)
        self._n[k] += 1
        return self._terms(k, label, ib[o], ie[o], other_tot, ty, ie[k])

    cpdef tuple remove_pairs(self, double label, double score, weight):
        """Remove one point added as ``(label, score, weight)``, then return `pairs_with`
        of it against what is left: one walk. `ValueError`, and nothing changes, if no
        such point is held (with ``dtype=int``, also if ``weight`` does not match)."""
        cdef str func = "BinaryDominanceCounter.remove"
        cdef int k = self._class_of(label)
        cdef int o
        cdef int32_t node
        cdef _Treap t = self._t
        cdef int64_t ib[2]
        cdef int64_t ie[2]
        cdef double fb[2]
        cdef double fe_[2]
        cdef int64_t held, iw
        cdef double fheld
        if k < 0:
            raise param_error("label", func, "the label of a point held", repr(label))
        o = 1 - k
        node = t.find(score)
        if node == NIL or t.n[node].c[k] == 0:
            raise param_error("score", func, f"the score of a point held with label "
                              f"{label!r}", repr(score))
        copies = t.n[node].c[k]
        if not self._floats:
            iw = weight
            held = t.n[node].iw[k]
            if iw > held or (copies == 1 and iw != held):
                expected = (f"{held!r}, the weight of the last copy of {score!r}"
                            if copies == 1 else f"at most {held!r}, the weight held at "
                            f"{score!r}")
                raise param_error("weight", func, expected, describe(weight))
            t.n[node].iw[k] = held - iw
        elif copies == 1:   # the last copy takes the weight left (rounding included)
            t.n[node].fw[k] = 0.0
            t.n[node].fe[k] = 0.0
        else:
            _two_sum_add(&t.n[node].fw[k], &t.n[node].fe[k], -<double>weight)
            if t.n[node].fw[k] + t.n[node].fe[k] < 0:
                t.n[node].fw[k] = 0.0
                t.n[node].fe[k] = 0.0
        t.n[node].c[k] = copies - 1
        if copies == 1 and t.n[node].c[o] == 0:
            t.root = t._delete(t.root, score)
        else:
            t._repath(score)
        self._n[k] -= 1
        if not self._n[k]:
            self._has[k] = False
            if not self._n[o]:
                self.clear()
        if self._floats:
            t.fbelow(score, fb, fe_)
            return self._terms(k, label, fb[o], fe_[o], self._tot(o), self._tot(k), fe_[k])
        t.ibelow(score, ib, ie)
        return self._terms(k, label, ib[o], ie[o], self._tot(o), self._tot(k), ie[k])

    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``; `ValueError` (nothing
        changes) for a NaN, an invalid weight or a third label. O(log n)."""
        func = "BinaryDominanceCounter.add"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.add_pairs(label, score, weight)

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``; `ValueError`, and
        nothing changes, if none is held. O(log n).

        >>> dc = BinaryDominanceCounter(); dc.add(1, 0.5); dc.remove(1, 0.5); dc.levels
        ()
        >>> dc.remove(1, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'label' parameter of BinaryDominanceCounter.remove must be the label of a point held. Got 1.0 instead.
        """
        func = "BinaryDominanceCounter.remove"
        label, score = _checked_point(label, score, func)
        weight = _check_weight(weight, self._dtype, func)
        self.remove_pairs(label, score, weight)

    cdef tuple _query(self, double score):
        cdef int64_t ib[2]
        cdef int64_t ie[2]
        cdef double fb[2]
        cdef double fe_[2]
        if self._floats:
            self._t.fbelow(score, fb, fe_)
            return fb[0], fe_[0], fb[1], fe_[1]
        self._t.ibelow(score, ib, ie)
        return ib[0], ie[0], ib[1], ie[1]

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)``: the weight of
        the held points that would pair with ``(label, score)`` in each way (any label,
        held or not). One walk, O(log n)."""
        label, score = _checked_point(label, score, "BinaryDominanceCounter.pairs_with")
        b0, e0, b1, e1 = self._query(score)
        zero = self._dtype(0)
        conc = disc = tied = tied_label = tied_both = zero
        for k, below, equal in ((0, b0, e0), (1, b1, e1)):
            if not self._has[k]:
                continue
            lab, total = self._label[k], self._tot(k)
            if lab == label:
                tied_label, tied_both = total, equal
                continue
            above = total - below - equal
            if self._floats and above < 0:
                above = 0.0
            tied += equal
            if lab < label:
                conc += below
                disc += above
            else:
                conc += above
                disc += below
        return conc, disc, tied, tied_label, tied_both

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)``, as
        `LevelDominanceCounter.query`. One walk, O(log n).

        >>> dc = BinaryDominanceCounter.from_arrays([0, 2, 2], [1.0, 0.0, 3.0])
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 0, 0), (1, 0, 1))
        """
        label, score = _checked_point(label, score, "BinaryDominanceCounter.query")
        b0, e0, b1, e1 = self._query(score)
        zero = self._dtype(0)
        rows = [[zero, zero, zero], [zero, zero, zero], [zero, zero, zero]]
        for k, below, equal in ((0, b0, e0), (1, b1, e1)):
            if self._has[k]:
                lab, total = self._label[k], self._tot(k)
                row = rows[0 if lab < label else (1 if lab == label else 2)]
                row[0] += below
                row[1] += equal
                row[2] += total - below - equal
        return tuple(map(tuple, rows))

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``."""
        label, score = _checked_point(label, score, "BinaryDominanceCounter.count")
        k = self._class_of(label)
        if k < 0:
            return 0
        node = self._t.find(score)
        return 0 if node == NIL else self._t.n[node].c[k]

    # ------------------------------------------------------------------ batches
    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``: one walk per point in
        C, ``O(k log n)``. Exact for ``dtype=int`` (128-bit sums).

        >>> dc = BinaryDominanceCounter.from_arrays([0, 1], [0.2, 0.7])
        >>> dc.pairs_with_many([1, 0], [0.5, 0.5], [2, 1])
        (3, 0, 0, 3, 0)
        """
        func = "BinaryDominanceCounter.pairs_with_many"
        y, s = _points(labels, scores, func)
        cdef Py_ssize_t n = y.shape[0], i
        w = None if weights is None else _weights_array(weights, n, self._dtype, func)[0]
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef bint unit = w is None
        cdef double[::1] fwv
        cdef int64_t[::1] iwv
        if not unit:
            if self._floats:
                fwv = np.ascontiguousarray(w, dtype=np.float64)
            else:
                iwv = np.ascontiguousarray(w, dtype=np.int64)
        cdef int64_t ib[2]
        cdef int64_t ie[2]
        cdef double fb[2]
        cdef double fe_[2]
        cdef sr_int128 it[5]
        cdef double ft[5]
        cdef double fc[5]
        cdef int64_t itot[2]
        cdef double ftot[2]
        cdef int k, j
        cdef double lab, yi, below_f, equal_f, above_f, wf
        cdef int64_t below_i, equal_i, above_i, wi
        for j in range(5):
            it[j] = 0
            ft[j] = 0.0
            fc[j] = 0.0
        for k in range(2):
            if self._floats:
                ftot[k] = self._tot(k)
            else:
                itot[k] = self._tot(k)
        for i in range(n):
            yi = yv[i]
            if self._floats:
                self._t.fbelow(sv[i], fb, fe_)
                wf = 1.0 if unit else fwv[i]
                for k in range(2):
                    if not self._has[k]:
                        continue
                    lab = self._label[k]
                    below_f, equal_f = fb[k], fe_[k]
                    if lab == yi:
                        _two_sum_add(&ft[3], &fc[3], wf * ftot[k])
                        _two_sum_add(&ft[4], &fc[4], wf * equal_f)
                        continue
                    above_f = ftot[k] - below_f - equal_f
                    if above_f < 0:
                        above_f = 0.0
                    _two_sum_add(&ft[2], &fc[2], wf * equal_f)
                    if lab < yi:
                        _two_sum_add(&ft[0], &fc[0], wf * below_f)
                        _two_sum_add(&ft[1], &fc[1], wf * above_f)
                    else:
                        _two_sum_add(&ft[0], &fc[0], wf * above_f)
                        _two_sum_add(&ft[1], &fc[1], wf * below_f)
            else:
                self._t.ibelow(sv[i], ib, ie)
                wi = 1 if unit else iwv[i]
                for k in range(2):
                    if not self._has[k]:
                        continue
                    lab = self._label[k]
                    below_i, equal_i = ib[k], ie[k]
                    if lab == yi:
                        it[3] += <sr_int128>wi * itot[k]
                        it[4] += <sr_int128>wi * equal_i
                        continue
                    above_i = itot[k] - below_i - equal_i
                    it[2] += <sr_int128>wi * equal_i
                    if lab < yi:
                        it[0] += <sr_int128>wi * below_i
                        it[1] += <sr_int128>wi * above_i
                    else:
                        it[0] += <sr_int128>wi * above_i
                        it[1] += <sr_int128>wi * below_i
        if self._floats:
            return tuple(max(0.0, ft[j] + fc[j]) for j in range(5))
        return tuple(_py128(it[j]) for j in range(5))

    def load(self, labels, scores, copies=None, weights=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (at most two distinct labels). Validated
        whole before anything changes. O(n log n)."""
        func = "BinaryDominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        levels = np.unique(y)
        if levels.shape[0] > 2:
            raise param_error("labels", func, "at most two distinct labels",
                              f"{levels.shape[0]} labels")
        if not self._floats and w.shape[0] and float(w.sum()) >= _INT_TOTAL_MAX:
            raise param_error("weights", func, "weights whose total stays below 2**62 (use "
                              "dtype=float)", f"a total of {int(w.sum(dtype=object))}")
        self.clear()
        cdef Py_ssize_t i, n = y.shape[0]
        cdef int k
        cdef int32_t node
        cdef _Treap t = self._t
        for k, level in enumerate(levels.tolist()):
            self._has[k] = True
            self._label[k] = level
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef int64_t[::1] cv = np.ascontiguousarray(c, dtype=np.int64)
        cdef double[::1] fwv
        cdef int64_t[::1] iwv
        if self._floats:
            fwv = np.ascontiguousarray(w, dtype=np.float64)
        else:
            iwv = np.ascontiguousarray(w, dtype=np.int64)
        for i in range(n):
            k = 0 if yv[i] == self._label[0] else 1
            node = NIL
            t.root = t._insert(t.root, sv[i], &node)
            if self._floats:
                _two_sum_add(&t.n[node].fw[k], &t.n[node].fe[k], fwv[i])
            else:
                t.n[node].iw[k] += iwv[i]
            t.n[node].c[k] += cv[i]
            t._repath(sv[i])
            self._n[k] += cv[i]
        for k in range(2):
            if self._has[k] and not self._n[k]:
                self._has[k] = False

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. O(n) for the whole iteration.

        >>> dc = BinaryDominanceCounter(); dc.add(1, 0.5); dc.add(0, 0.9, 2)
        >>> list(dc.items())
        [(0.0, 0.9, 1, 2), (1.0, 0.5, 1, 1)]
        """
        s, c, w = self._columns()
        order = sorted((self._label[k], k) for k in range(2) if self._has[k])
        for label, k in order:
            for score, copies, weight in zip(s, c[k], w[k]):
                if copies:
                    yield label, score, copies, weight

    def __reduce__(self):
        """Pickle and copy by value: the points held, rebuilt by `load`."""
        rows = list(self.items())
        return _restore, (self._dtype, rows)

    def _columns(self):
        """Scores in order, and per class the copies and weights at each: lists."""
        cdef _Treap t = self._t
        cdef int32_t m = t.distinct, j, node
        cdef int32_t* order = <int32_t*>malloc((m + 1) * sizeof(int32_t))
        if order == NULL:
            raise MemoryError()
        try:
            t.inorder(order)
            s = [t.n[order[j]].key for j in range(m)]
            c = [[t.n[order[j]].c[k] for j in range(m)] for k in range(2)]
            if self._floats:
                w = [[t.n[order[j]].fw[k] + t.n[order[j]].fe[k] for j in range(m)]
                     for k in range(2)]
            else:
                w = [[t.n[order[j]].iw[k] for j in range(m)] for k in range(2)]
        finally:
            free(order)
        return s, c, w

    def _check(self):
        """Assert every invariant: the BST order, the heap order of the priorities,
        every subtree sum (exact for ints, to rounding of the weight held for floats),
        the copies and the levels. O(n)."""
        cdef _Treap t = self._t
        seen = self._check_node(t.root, None, None)
        count, sums, copies = seen
        assert count == t.distinct, (count, t.distinct)
        for k in range(2):
            assert copies[k] == self._n[k], (copies, self._n[k])
            assert self._has[k] == (self._n[k] > 0), (k, self._has[k], self._n[k])
        if self._has[0] and self._has[1]:
            assert self._label[0] != self._label[1]
        if t.root != NIL:
            for k in range(2):
                got = self._tot(k)
                if self._floats:
                    assert abs(got - sums[k]) <= 1e-9 * max(sums[0] + sums[1], 1e-300), \
                        (k, got, sums[k])
                else:
                    assert got == sums[k], (k, got, sums[k])

    cdef tuple _check_node(self, int32_t i, lo, hi):
        cdef _Treap t = self._t
        cdef int k
        cdef object own     # a Python int or float: exact sums for the check
        if i == NIL:
            return 0, [0, 0], [0, 0]
        key = t.n[i].key
        assert (lo is None or lo < key) and (hi is None or key < hi), "BST order"
        for child in (t.n[i].left, t.n[i].right):
            if child != NIL:
                assert t.n[child].prio <= t.n[i].prio, "heap order"
        assert t.n[i].c[0] + t.n[i].c[1] >= 1, "a score with no copy"
        nl, sl, cl = self._check_node(t.n[i].left, lo, key)
        nr, sr, cr = self._check_node(t.n[i].right, key, hi)
        sums, copies = [0, 0], [0, 0]
        for k in range(2):
            assert t.n[i].c[k] >= 0
            if self._floats:
                own = t.n[i].fw[k] + t.n[i].fe[k]
                assert own >= 0 and (t.n[i].c[k] > 0 or own == 0), "orphan weight"
                sums[k] = math.fsum((sl[k], own, sr[k]))
                assert abs(t.n[i].ftsum[k] - sums[k]) <= 1e-12 * max(sums[k], 1e-300)
                assert t.n[i].flsum[k] == (t.n[t.n[i].left].ftsum[k] if t.n[i].left != NIL
                                           else 0.0), "left sum"
            else:
                own = t.n[i].iw[k]
                assert own >= 0 and (t.n[i].c[k] > 0 or own == 0), "orphan weight"
                sums[k] = sl[k] + own + sr[k]
                assert t.n[i].itsum[k] == sums[k], "subtree sum"
                assert t.n[i].ilsum[k] == sl[k], "left sum"
            copies[k] = cl[k] + t.n[i].c[k] + cr[k]
        return nl + nr + 1, sums, copies


def _restore(dtype, rows):
    counter = BinaryDominanceCounter(dtype=dtype)
    if rows:
        y, s, c, w = zip(*rows)
        counter.load(list(y), list(s), list(c), np.array(w, dtype=np.int64 if dtype is int
                                                         else np.float64))
    return counter
