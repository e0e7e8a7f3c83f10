# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of `PairEngine`: the running counts and the two-level counter.

`Sums` keeps the running counts ``C, D, T, Ty, Tyy`` and the weight held, for every mode of
the engine: exact 128-bit integers while the weights are integers (the engine keeps the
total weight below ``2**62`` and each weight at most ``2**53``, so no count can pass
``2**124``), or float64 sums with Neumaier compensation.

`BinaryDominanceCounter` holds the samples while at most two label levels are held: a B+
tree over the distinct scores (`_btree.pxi`) whose entries carry *both* classes' copies and
weights, so one walk reads the other class's weight below and at a score and one more
changes it. Its ``engine_add`` / ``engine_remove`` do a whole change of `PairEngine` in C
-- validation of plain Python numbers, the terms, the update, the counts -- and leave
anything unusual (other types, a third label, a weight that needs float counts, a sample
that is not held) to the engine's checked path, having changed nothing.

Exactness. ``dtype=int``: int64 weights and sums (the total held stays below ``2**62``).
``dtype=float``: each score's own weight is a compensated (Neumaier) sum of the weights
that came and went there, and inner sums are recomputed from the children on every walk,
so an inner sum never keeps the rounding of a weight that left.
"""

from libc.stdint cimport int64_t, uint64_t, int32_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memmove
from libc.math cimport fabs, isfinite

import math

import numpy as np

from .._validation import describe, param_error
from .dominance import _check_dtype, _checked_point, _load_args, _points
from .multiset import _check_weight, _weights_array

cdef extern from *:
    """
    typedef __int128 sr_int128;
    """
    ctypedef long long sr_int128

cdef int64_t _INT_TOTAL_MAX = (<int64_t>1) << 62
cdef int64_t _EXACT = (<int64_t>1) << 53
cdef double _MIN_W = 2.0 ** -400
cdef double _MAX_W = 2.0 ** 400

include "_btree.pxi"


cdef object _py128(sr_int128 x):
    cdef bint neg = x < 0
    if neg:
        x = -x
    cdef uint64_t lo = <uint64_t>(x & <sr_int128>0xFFFFFFFFFFFFFFFFULL)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    value = (<object>hi << 64) | <object>lo
    return -value if neg else value


cdef sr_int128 _from_py(object x) except? -1:
    """A Python int of magnitude below ``2**126`` as an int128."""
    cdef bint neg = x < 0
    if neg:
        x = -x
    if x >> 126:
        raise OverflowError("a count beyond 2**126")
    cdef uint64_t lo = <uint64_t>(x & 0xFFFFFFFFFFFFFFFF)
    cdef uint64_t hi = <uint64_t>(x >> 64)
    cdef sr_int128 v = ((<sr_int128>hi) << 64) | <sr_int128>lo
    return -v if neg else v


cdef class Sums:
    """The running counts ``C, D, T, Ty, Tyy`` and the weight held ``W``.

    Integer mode: exact 128-bit sums (`values` gives Python ints). Float mode: Neumaier
    sums (`values` gives ``acc + compensation``, counts clipped at 0), and `hist`, the
    weight that passed through since the last `reset`. Every change is ``O(1)``.

    >>> s = Sums(); s.add((3, 1, 0, 2, 0), 2, 2); s.values()
    [6, 2, 0, 4, 0, 2]
    >>> s.to_float(); s.add((0.5, 0.0, 0.0, 0.0, 0.0), 1.0, 1.0); s.values()
    [6.5, 2.0, 0.0, 4.0, 0.0, 3.0]
    """

    cdef sr_int128 i[6]
    cdef double f[6]
    cdef double e[6]
    cdef public double hist
    cdef readonly bint floats

    def __init__(self, bint floats=False):
        self.reset(floats)

    cpdef void reset(self, bint floats):
        """Zero every sum (and `hist`); ``floats`` picks the mode."""
        cdef int j
        self.floats = floats
        for j in range(6):
            self.i[j] = 0
            self.f[j] = 0.0
            self.e[j] = 0.0
        self.hist = 0.0

    def to_float(self):
        """Move to float sums (the integer values, rounded once); `hist` = the weight."""
        cdef int j
        if self.floats:
            return
        values = self.values()
        for j in range(6):
            self.f[j] = float(values[j])
            self.e[j] = float(values[j] - int(self.f[j]))
        self.floats = True
        self.hist = self.f[5] + self.e[5]

    cdef inline void add_i(self, int64_t* terms, int64_t w, int64_t wsum) noexcept:
        cdef int j
        for j in range(5):
            self.i[j] += <sr_int128>w * terms[j]
        self.i[5] += wsum

    cdef inline void add_f(self, double* terms, double w, double wsum) noexcept:
        cdef int j
        for j in range(5):
            _two_sum_add(&self.f[j], &self.e[j], w * terms[j])
        _two_sum_add(&self.f[5], &self.e[5], wsum)
        self.hist += fabs(wsum)

    def add(self, terms, w, wsum):
        """Add ``w * terms[j]`` to each count and ``wsum`` to the weight held (Python
        numbers: ints in integer mode, of any size below ``2**126``)."""
        cdef double ft[5]
        cdef int j
        if self.floats:
            for j in range(5):
                ft[j] = terms[j]
            self.add_f(ft, w, wsum)
            return
        for j in range(5):
            self.i[j] += _from_py(w * terms[j])
        self.i[5] += _from_py(wsum)

    def values(self):
        """``[C, D, T, Ty, Tyy, W]`` as Python numbers. O(1)."""
        cdef int j
        if self.floats:
            return [max(0.0, self.f[j] + self.e[j]) for j in range(6)]
        return [_py128(self.i[j]) for j in range(6)]

    def __reduce__(self):
        return _restore_sums, (self.floats, self.values(), self.hist)

    def weight(self):
        """The weight held, ``W``, as a Python number."""
        return (self.f[5] + self.e[5]) if self.floats else _py128(self.i[5])


cdef inline bint _plain(object x, double* out) noexcept:
    """A finite float, or an int float64 holds exactly (``|x| <= 2**53``), as a double."""
    cdef double v
    if isinstance(x, float):        # numpy's float64 too
        v = <double>x
        if not isfinite(v):
            return False
        out[0] = v
        return True
    cdef int64_t i
    if type(x) is int:
        try:
            i = <int64_t>x
        except OverflowError:
            return False
        if i > _EXACT or i < -_EXACT:
            return False
        out[0] = <double>i
        return True
    return False


cdef class BinaryDominanceCounter:
    """Dominance weights for points on at most two label levels.

    The interface of `LevelDominanceCounter` that `PairEngine` uses, the fused
    `add_pairs` / `remove_pairs`, and the engine's whole-change ``engine_add`` /
    ``engine_remove``. Each label level held takes one of the tree's two classes; a level
    is dropped when its last point leaves, so another label can take its class. A third
    level is refused (`ValueError`).

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (int64 sums: the weight held must
        stay below ``2**62``).

    Notes
    -----
    Runtime complexity: every single change or query is one or two walks of the B+ tree,
    ``O(log n)`` (``n`` distinct scores, at most 32 entries scanned per node);
    `pairs_with_many` ``O(k log n)`` in C; `load` ``O(n log n)``; `items` ``O(n)``. Equal
    scores share one entry, so ties cost nothing extra: a score's weight of each class is
    read at once as the tied weight.

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

    cdef _BTree _t
    cdef object _dtype
    cdef bint _floats
    cdef double _label[2]
    cdef bint _has[2]
    cdef public Sums sums       # the engine's running counts (``engine_add`` updates them)

    def __init__(self, *, dtype=int):
        self._dtype = _check_dtype(dtype, "BinaryDominanceCounter")
        self._floats = self._dtype is float
        self.sums = Sums(self._floats)
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1)."""
        if self._t is None:
            self._t = _BTree()
        self._t.clear()
        self._t.floats = self._floats
        self._has[0] = self._has[1] = False

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
        if self._floats:
            return self._t.ftot(k)
        return self._t.itot[k]

    def level_copies(self):
        """``{label: copies}`` of each level held, zero-weight copies included."""
        return {self._label[k]: self._t.ncopies[k] for k in range(2) if self._has[k]}

    def stats(self):
        """``(label levels, score levels, copies)`` held with weight > 0. O(1).

        >>> dc = BinaryDominanceCounter(); dc.add(0, 0.5); dc.add(1, 0.5, 0); dc.stats()
        (1, 1, 1)
        """
        cdef _BTree t = self._t
        return ((t.npos[0] > 0) + (t.npos[1] > 0), t.pos_scores, t.npos[0] + t.npos[1])

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(1)."""
        return self._tot(0) + self._tot(1)

    def __len__(self):
        """Number of points held (not their weight)."""
        return self._t.ncopies[0] + self._t.ncopies[1]

    def __repr__(self):
        return (f"BinaryDominanceCounter(dtype={self._dtype.__name__}) holding {len(self)} "
                f"points on {sum(self._has[k] for k in range(2))} levels")

    # ------------------------------------------------------------------ single points
    cdef inline int _class_of(self, double label) noexcept:
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

    cdef inline bint _other_above(self, int k, double label) noexcept:
        return self._has[1 - k] and self._label[1 - k] > label

    cdef void _iterms(self, int k, double label, double s, int64_t* out) noexcept:
        """The `pairs_with` terms of ``(label, s)`` of class ``k`` (int mode)."""
        cdef int64_t b[2]
        cdef int64_t e[2]
        cdef int o = 1 - k
        self._t.ibelow(s, b, e)
        cdef int64_t above = self._t.itot[o] - b[o] - e[o]
        if self._other_above(k, label):
            out[0], out[1] = above, b[o]
        else:
            out[0], out[1] = b[o], above
        out[2] = e[o]
        out[3] = self._t.itot[k]
        out[4] = e[k]

    cdef void _fterms(self, int k, double label, double s, double* out) noexcept:
        """The `pairs_with` terms of ``(label, s)`` of class ``k`` (float mode)."""
        cdef double b[2]
        cdef double e[2]
        cdef int o = 1 - k
        self._t.fbelow(s, b, e)
        cdef double above = self._t.ftot(o) - b[o] - e[o]
        if above < 0:
            above = 0.0
        if self._other_above(k, label):
            out[0], out[1] = above, b[o]
        else:
            out[0], out[1] = b[o], above
        out[2] = e[o]
        out[3] = self._t.ftot(k)
        out[4] = e[k]

    cdef tuple _terms_tuple(self, int k, double label, double s):
        cdef int64_t it[5]
        cdef double ft[5]
        if self._floats:
            self._fterms(k, label, s, ft)
            return ft[0], ft[1], ft[2], ft[3], ft[4]
        self._iterms(k, label, s, it)
        return it[0], it[1], it[2], it[3], it[4]

    cpdef tuple add_pairs(self, double label, double score, weight):
        """`pairs_with` ``(label, score)``, then add the point. Arguments are trusted (a
        float label and score, a weight of the counter's type, ``>= 0``); `ValueError` for
        a third label or an int total past ``2**62``, before anything changes."""
        cdef int k = self._class_of(label)
        cdef int64_t iw = 0
        cdef double fw = 0.0
        if self._floats:
            fw = weight
        else:
            iw = weight
            if self._t.itot[0] + self._t.itot[1] + iw > _INT_TOTAL_MAX:
                raise param_error("weight", "BinaryDominanceCounter.add_pairs",
                                  "a weight that keeps the total held below 2**62 (use "
                                  "dtype=float)", repr(weight))
        if k < 0:
            k = self._new_level(label, "BinaryDominanceCounter.add_pairs")
        terms = self._terms_tuple(k, label, score)
        self._t.add_at(score, k, 1, (fw > 0) if self._floats else (iw > 0), iw, fw)
        return terms

    cdef int _held(self, int k, double score, int64_t iw, double fw, bint positive,
                   bint quiet) except -1:
        """1 if a copy ``(class k, score, weight)`` is held; else 0 (``quiet``) or the
        `ValueError` naming what is not held."""
        cdef str func = "BinaryDominanceCounter.remove"
        cdef int32_t leaf
        cdef int pos
        cdef BNode* x
        if k < 0:
            if quiet:
                return 0
            raise param_error("label", func, "the label of a point held", "")
        if not self._t.find(score, &leaf, &pos) or self._t.n[leaf].c[k][pos] == 0:
            if quiet:
                return 0
            raise param_error("score", func, f"the score of a point held with label "
                              f"{self._label[k]!r}", repr(score))
        x = &self._t.n[leaf]
        if positive and x.pc[k][pos] == 0 or not positive and x.c[k][pos] == x.pc[k][pos]:
            if quiet:
                return 0
            raise param_error("weight", func, "the weight of a copy held at "
                              f"{score!r}" + (" (only weight-0 copies are)" if positive
                                              else " (none of weight 0 is)"),
                              repr(fw if self._floats else iw))
        if not self._floats and positive:
            held = x.w[k][pos].i
            if iw > held or (x.pc[k][pos] == 1 and iw != held):
                if quiet:
                    return 0
                expected = (f"{held!r}, the weight of the last copy of {score!r}"
                            if x.pc[k][pos] == 1 else f"at most {held!r}, the weight held "
                            f"at {score!r}")
                raise param_error("weight", func, expected, repr(iw))
        return 1

    cdef void _drop(self, int k, double score, int64_t iw, double fw, bint positive):
        self._t.remove_at(score, k, iw, fw, positive)
        if not self._t.ncopies[k]:
            self._has[k] = False

    cpdef tuple remove_pairs(self, double label, double score, weight):
        """Remove one point added as ``(label, score, weight)``, then return `pairs_with`
        of it against what is left. `ValueError`, and nothing changes, if no such point
        is held (with ``dtype=int``, also if ``weight`` does not match)."""
        cdef int k = self._class_of(label)
        cdef int64_t iw = 0
        cdef double fw = 0.0
        if self._floats:
            fw = weight
        else:
            iw = weight
        cdef bint positive = (fw > 0) if self._floats else (iw > 0)
        if k < 0:
            raise param_error("label", "BinaryDominanceCounter.remove",
                              "the label of a point held", repr(label))
        self._held(k, score, iw, fw, positive, False)
        self._drop(k, score, iw, fw, positive)
        return self._terms_tuple(k, label, score)

    # ------------------------------------------------------------------ whole changes
    cdef bint _engine_weight(self, object w, int64_t* iw, double* fw) noexcept:
        """A plain weight valid for this mode (int mode: an int ``<= 2**53``)."""
        cdef double v
        if not _plain(w, &v) or v < 0:
            return False
        if self._floats:
            if v != 0 and not (_MIN_W <= v <= _MAX_W):
                return False
            fw[0] = v
            return True
        if v > _EXACT or v != <double>(<int64_t>v):   # the engine moves to floats
            return False
        iw[0] = <int64_t>v
        return True

    def engine_add(self, y, s, w):
        """Add the sample ``(y, s, w)`` and its pairs to `sums`, all in C, if ``y``, ``s``
        and ``w`` are plain Python numbers valid here and ``y`` takes a free or held
        class; ``False`` (nothing changed) otherwise. O(log n).

        >>> dc = BinaryDominanceCounter(); dc.engine_add(0, 0.2, 1), dc.engine_add(1, 0.5, 1)
        (True, True)
        >>> dc.sums.values()       # one concordant pair, weight 2
        [1, 0, 0, 0, 0, 2]
        >>> dc.engine_add(2, 0.1, 1), dc.engine_add(0, 0.1, 0.5)   # third label, fraction
        (False, False)
        """
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not self._engine_weight(w, &iw, &fw):
            return False
        return self._eadd(yy, ss, iw, fw) == 1

    cdef int _eadd(self, double yy, double ss, int64_t iw, double fw) except -1:
        """`engine_add` of checked numbers: 1 if done, 0 (nothing changed) if the engine's
        checked path must take it."""
        cdef int64_t it[5]
        cdef double ft[5]
        cdef int k = self._class_of(yy)
        if k < 0:
            if self._has[0] and self._has[1]:
                return 0
            if not self._floats and self._t.itot[0] + self._t.itot[1] + iw > _INT_TOTAL_MAX:
                return 0
            k = self._new_level(yy, "")
        elif not self._floats and self._t.itot[0] + self._t.itot[1] + iw > _INT_TOTAL_MAX:
            return 0
        if self._floats:
            self._fterms(k, yy, ss, ft)
            self._t.add_at(ss, k, 1, fw > 0, 0, fw)
            self.sums.add_f(ft, fw, fw)
        else:
            self._iterms(k, yy, ss, it)
            self._t.add_at(ss, k, 1, iw > 0, iw, 0.0)
            self.sums.add_i(it, iw, iw)
        return 1

    cdef int _eremove(self, double yy, double ss, int64_t iw, double fw) except -1:
        """`engine_remove` of checked numbers: 1 if done, 0 (nothing changed) if no such
        copy is held."""
        cdef int64_t it[5]
        cdef double ft[5]
        cdef int k = self._class_of(yy)
        cdef bint positive = (fw > 0) if self._floats else (iw > 0)
        if not self._held(k, ss, iw, fw, positive, True):
            return 0
        self._drop(k, ss, iw, fw, positive)
        if self._floats:
            self._fterms(k, yy, ss, ft)
            self.sums.add_f(ft, -fw, -fw)
        else:
            self._iterms(k, yy, ss, it)
            self.sums.add_i(it, -iw, -iw)
        if not self._has[0] and not self._has[1]:
            self.sums.reset(self._floats)   # an emptied engine holds exact zeros
        return 1

    def engine_change_arrays(self, y, s, w, int sign):
        """`engine_add` (``sign=1``) or `engine_remove` (``sign=-1``) every sample of the
        float64 arrays ``y``, ``s``, ``w`` (``None``: unit weights), in score order so
        that walks share their upper nodes. Returns the positions (into the arrays) not
        done: empty, or those from the first sample that needs the engine's checked path
        on (nothing of them changed). O(k log n).

        >>> dc = BinaryDominanceCounter()
        >>> dc.engine_change_arrays(np.array([0., 1., 2.]), np.array([.1, .3, .5]), None, 1)
        array([2])
        >>> dc.sums.values()
        [1, 0, 0, 0, 0, 2]
        """
        cdef double[::1] yv = np.ascontiguousarray(y, dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s, dtype=np.float64)
        cdef double[::1] wv
        cdef bint unit = w is None
        if not unit:
            wv = np.ascontiguousarray(w, dtype=np.float64)
        order = np.argsort(np.asarray(sv), kind="stable")
        cdef Py_ssize_t[::1] ov = order
        cdef Py_ssize_t r, i, n = yv.shape[0]
        cdef double wf
        cdef int64_t iw = 1
        cdef double fw = 1.0
        for r in range(n):
            i = ov[r]
            if not unit:
                wf = wv[i]
                if self._floats:
                    if wf < 0 or (wf != 0 and not (_MIN_W <= wf <= _MAX_W)):
                        break
                    fw = wf
                else:
                    if not (0 <= wf <= _EXACT) or wf != <double>(<int64_t>wf):
                        break
                    iw = <int64_t>wf
            if sign > 0:
                if not self._eadd(yv[i], sv[i], iw, fw):
                    break
            elif not self._eremove(yv[i], sv[i], iw, fw):
                break
        else:
            return order[:0]
        return order[r:]

    def engine_auc(self):
        """``(C + T / 2) / P`` from `sums`, as `PairCounts.auc` computes it (bit for
        bit), or ``None`` while ``P = 0``. O(1).

        >>> dc = BinaryDominanceCounter()
        >>> for y, s in [(0, 0.1), (1, 0.1), (1, 0.7)]:
        ...     _ = dc.engine_add(y, s, 1)
        >>> dc.engine_auc()
        0.75
        """
        cdef Sums m = self.sums
        cdef _BTree t = self._t
        cdef bint levels = t.npos[0] > 0 and t.npos[1] > 0
        cdef bint scores = t.pos_scores > 1
        cdef bint tied = t.pos_scores < t.npos[0] + t.npos[1]   # else T = 0 by structure
        cdef sr_int128 ic, it, inum, iden
        cdef double fc, fd, ft, den
        if not levels:
            return None
        if m.floats:
            fc = max(0.0, m.f[0] + m.e[0]) if scores else 0.0
            fd = max(0.0, m.f[1] + m.e[1]) if scores else 0.0
            ft = max(0.0, m.f[2] + m.e[2]) if tied else 0.0
            den = fc + fd + ft
            if den == 0:
                return None
            return min(1.0, max(0.0, (fc + 0.5 * ft) / den))
        ic = m.i[0] if scores else 0
        it = m.i[2] if tied else 0
        inum = 2 * ic + it
        iden = 2 * (ic + (m.i[1] if scores else 0) + it)
        if iden == 0:
            return None
        if iden < (<sr_int128>1) << 53:      # both exact doubles: one correct rounding
            return min(1.0, max(0.0, <double>inum / <double>iden))
        return min(1.0, max(0.0, _py128(inum) / _py128(iden)))

    def engine_apply(self, removes, adds):
        """`engine_remove` each ``(y, s, w)`` of the list ``removes``, then `engine_add`
        ``copies`` of each ``(y, s, w): copies`` of the dict ``adds``, in one C loop.
        Returns ``(removed, added)``: how many items of each were done before one needed
        the engine's checked path (all of them, usually); nothing of that item or the
        ones after it was applied. O(k log n)."""
        cdef Py_ssize_t r = 0, a = 0
        for y, s, w in removes:
            if not self.engine_remove(y, s, w):
                return r, a
            r += 1
        for item, copies in adds.items():
            y, s, w = item
            for _ in range(copies):
                if not self.engine_add(y, s, w):
                    return r, a
                a += 1
        return r, a

    def engine_remove(self, y, s, w):
        """Remove a held sample ``(y, s, w)`` and its pairs from `sums`, all in C, if the
        arguments are plain numbers and such a copy is held; ``False`` (nothing changed)
        otherwise, for the engine's checked path to raise. O(log n)."""
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not self._engine_weight(w, &iw, &fw):
            return False
        return self._eremove(yy, ss, iw, fw) == 1

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
        cdef int k = self._class_of(label)
        cdef int32_t leaf
        cdef int pos
        if k < 0 or not self._t.find(score, &leaf, &pos):
            return 0
        return self._t.n[leaf].c[k][pos]

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
        cdef Py_ssize_t[::1] order = np.argsort(np.asarray(sv), kind="stable")
        cdef Py_ssize_t r
        for r in range(n):      # in score order: walks share their upper nodes
            i = order[r]
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

    def load(self, labels, scores, copies=None, weights=None, positive=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (at most two distinct labels), ``positive[i]``
        of them of weight > 0 (default: all of them where ``weights[i] > 0``). Validated
        whole before anything changes; `sums` is left alone. O(n log n)."""
        func = "BinaryDominanceCounter.load"
        y, s, c, w = _load_args(labels, scores, copies, weights, self._dtype, func)
        levels = np.unique(y)
        if levels.shape[0] > 2:
            raise param_error("labels", func, "at most two distinct labels",
                              f"{levels.shape[0]} labels")
        if not self._floats and w.shape[0] and float(w.sum()) >= _INT_TOTAL_MAX:
            raise param_error("weights", func, "weights whose total stays below 2**62 (use "
                              "dtype=float)", f"a total of {int(w.sum(dtype=object))}")
        if positive is None:
            p = np.where(w > 0, c, 0)
        else:
            p = np.asarray(positive, dtype=np.int64)
            if p.shape != c.shape or (p < 0).any() or (p > c).any() or \
                    ((p == 0) & (w > 0)).any() or ((p > 0) & (w == 0)).any():
                raise param_error("positive", func, "per point, copies of weight > 0 "
                                  "(between 1 and copies where the weight is > 0, else 0)",
                                  describe(positive))
        self.clear()
        cdef Py_ssize_t i, n = y.shape[0]
        cdef int k
        for k, level in enumerate(levels.tolist()):
            self._has[k] = True
            self._label[k] = level
        order = np.argsort(s, kind="stable")     # ascending inserts: cache-friendly walks
        cdef double[::1] yv = np.ascontiguousarray(y[order], dtype=np.float64)
        cdef double[::1] sv = np.ascontiguousarray(s[order], dtype=np.float64)
        cdef int64_t[::1] cv = np.ascontiguousarray(c[order], dtype=np.int64)
        cdef int64_t[::1] pv = np.ascontiguousarray(p[order], dtype=np.int64)
        cdef double[::1] fwv
        cdef int64_t[::1] iwv
        if self._floats:
            fwv = np.ascontiguousarray(w[order], dtype=np.float64)
        else:
            iwv = np.ascontiguousarray(w[order], dtype=np.int64)
        for i in range(n):
            if cv[i] == 0:
                continue
            k = 0 if yv[i] == self._label[0] else 1
            if self._floats:
                self._t.add_at(sv[i], k, cv[i], pv[i], 0, fwv[i])
            else:
                self._t.add_at(sv[i], k, cv[i], pv[i], iwv[i], 0.0)
        for k in range(2):
            if self._has[k] and not self._t.ncopies[k]:
                self._has[k] = False

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. O(n) for the whole iteration.

        >>> dc = BinaryDominanceCounter(); dc.add(1, 0.5); dc.add(0, 0.9, 2)
        >>> list(dc.items())
        [(0.0, 0.9, 1, 2), (1.0, 0.5, 1, 1)]
        """
        y, s, c, w, _ = self.columns()
        for row in zip(y.tolist(), s.tolist(), c.tolist(), w.tolist()):
            yield row

    def columns(self):
        """The distinct points as arrays ``(labels, scores, copies, weights, positive)``
        in (label, score) order; ``positive`` counts the copies of weight > 0. O(n).

        >>> BinaryDominanceCounter.from_arrays([1, 0, 1], [0.5, 0.9, 0.5], [1, 2, 0]).columns()[2:]
        (array([1, 2]), array([2, 1]), array([1, 1]))
        """
        cdef _BTree t = self._t
        cdef list where = []
        t.entries(where)
        cdef Py_ssize_t m = len(where), j, r = 0
        cdef int k, pos
        cdef int32_t node
        order = sorted((self._label[k], k) for k in range(2) if self._has[k])
        n_rows = sum(1 for _, k in order for node, pos in where if t.n[node].c[k][pos])
        ys = np.empty(n_rows)
        ss = np.empty(n_rows)
        cs = np.empty(n_rows, np.int64)
        ps = np.empty(n_rows, np.int64)
        ws = np.empty(n_rows, np.float64 if self._floats else np.int64)
        cdef double[::1] yv = ys, sv = ss
        cdef int64_t[::1] cv = cs, pv = ps
        for label, k in order:
            for j in range(m):
                node, pos = where[j]
                if not t.n[node].c[k][pos]:
                    continue
                yv[r] = label
                sv[r] = t.n[node].key[pos]
                cv[r] = t.n[node].c[k][pos]
                pv[r] = t.n[node].pc[k][pos]
                if self._floats:
                    ws[r] = t.n[node].w[k][pos].f + t.n[node].fe[k][pos]
                else:
                    ws[r] = t.n[node].w[k][pos].i
                r += 1
        return ys, ss, cs, ws, ps

    def __reduce__(self):
        """Pickle and copy by value: the points held (rebuilt by `load`) and `sums`."""
        labels = tuple((self._label[k], self._has[k]) for k in range(2))
        return _restore, (self._dtype, self.columns(), self.sums, self._t.raw() + (labels,))

    def _set_raw(self, raw):
        layout, nodes, header, labels = raw
        if not self._t.set_raw(layout, nodes, header):
            return False
        for k in range(2):
            self._label[k], self._has[k] = labels[k]
        return True

    def _check(self):
        """Assert every invariant of the tree (`_btree.pxi`), the copies and the levels.
        O(n)."""
        count, sums, copies, pos, pscores = self._t._check()
        for k in range(2):
            assert self._has[k] == (copies[k] > 0), (k, self._has[k], copies[k])
            if self._floats:
                got = self._tot(k)
                assert abs(got - sums[k]) <= 1e-9 * max(sums[0] + sums[1], 1e-300), \
                    (k, got, sums[k])
        if self._has[0] and self._has[1]:
            assert self._label[0] != self._label[1]
        assert self.sums.floats == self._floats


def _restore(dtype, columns, sums=None, raw=None):
    """Unpickle a counter: the tree bit for bit where the node layout is this build's
    (else rebuilt from ``columns``, equal to rounding); ``columns`` is a list of ``(label,
    score, copies, weight)`` rows in pickles of version 0.1 (whose engine kept its sums
    itself)."""
    counter = BinaryDominanceCounter(dtype=dtype)
    if raw is not None and counter._set_raw(raw):
        counter.sums = sums
        return counter
    if sums is None:
        columns = [np.array(col) for col in zip(*columns)] if columns else []
        if columns:
            counter.load(*columns)
        return counter
    y, s, c, w, p = columns
    if y.shape[0]:
        counter.load(y, s, c, w, p)
    counter.sums = sums
    return counter


def _restore_sums(floats, values, hist):
    sums = Sums(floats)
    if floats:
        sums.add(values[:5], 1.0, values[5])
    else:
        sums.add(values[:5], 1, values[5])
    sums.hist = hist
    return sums
