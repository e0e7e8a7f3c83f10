# The few-level counter of `_cbinary.pyx` (included there): `LevelDominanceCounter`, its
# slots, its Python face and the two-level fast paths. Its walks over several trees and the
# engine's whole changes are in `_levels_core.pxi`; batches, loads, copies and checks in
# `_levels_batch.pxi`; its two-level subclass `BinaryDominanceCounter` in `_cbinary.pyx`.
#
# Layout. Label levels live in *slots*: slot ``q`` is class ``q & 1`` of tree ``q >> 1``
# (`_btree.pxi`: a B+ tree over the scores whose entries carry two classes' copies and
# weights). A new level takes the first free slot (a new tree when none is free), an
# emptied level frees its slot; levels are ordered by their labels at query time, so a
# level between two others moves nothing. With one tree (at most two levels, the binary
# case) every change is the tree's own fused walk; with ``T`` trees a change walks each
# tree once (both its slots' weight below and at the score), ``O(T log n)``.
#
# With several trees, a change walks them all at once, a level of each per round, the
# next nodes prefetched, so that their cache misses overlap. The walks also read the
# copies of weight > 0 at the score, which keeps the count of scores held with weight > 0
# across trees (the engine's score levels; one tree counts them itself).


cdef class LevelDominanceCounter:
    """Dominance weights for points whose labels take few distinct values (compiled).

    The labels held are *levels*, two to a B+ tree over the scores (`_btree.pxi`), each
    entry carrying its two levels' copies and weights. New levels are created on first
    use and dropped when their last point leaves, so the label universe is open; a change
    or a query walks each tree once. Besides the dominance queries it does a whole change
    of `PairEngine` in C (``engine_add`` / ``engine_remove``: validation of plain Python
    numbers, the pair terms, the update, the running counts in `sums`).

    Parameters
    ----------
    dtype : {int, float}, default=int
        Type of the weights; ``int`` gives exact counts (int64 weights, 128-bit sums: the
        weight held must stay below ``2**62``); ``float``: compensated (double-double) sums.

    Notes
    -----
    Runtime complexity, ``L`` levels held on ``ceil(L / 2)`` trees, ``n`` distinct
    scores: `add`, `remove`, `query` and `pairs_with` ``O(L log n)`` (one walk per tree,
    at most 32 entries scanned per node; ``O(log n)`` with at most two levels);
    `pairs_with_many` ``O(k L log n)`` in C; `load` ``O(n log n)``; `items` ``O(n)``.
    With many levels prefer `DominanceCounter`, whose cost does not grow with ``L``.

    Examples
    --------
    >>> dc = LevelDominanceCounter()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     dc.add(y, s)
    >>> dc.query(1, 0.4)            # rows: label < 1, == 1, > 1; columns: score <, ==, >
    ((1, 1, 0), (1, 0, 1), (0, 0, 0))
    >>> dc.pairs_with(1, 0.4)       # concordant, discordant, tied score, tied label, both
    (1, 0, 1, 2, 0)
    >>> dc.add(2, 0.4); dc.add(0.5, 0.9); dc.levels
    (0.0, 0.5, 1.0, 2.0)
    >>> dc.pairs_with(1, 0.4)
    (1, 1, 2, 2, 0)
    """

    def __cinit__(self, *args, **kwargs):
        self._label = NULL
        self._has = NULL
        self._wbase = NULL
        self._wfe = NULL
        self._wpc = NULL
        self._wnode = NULL
        self._ib = self._ie = NULL
        self._fb = self._fe = NULL
        self._ntrees = 0
        self._max_levels = 0
        self.engine_max_levels = 0
        self._moments = False
        self._name = type(self).__name__
        self._dtype = int
        self._floats = False
        self.sums = Sums(False)
        self._reset()

    def __dealloc__(self):
        free(self._label)
        free(self._has)
        free(self._wbase)
        free(self._wfe)
        free(self._wpc)
        free(self._wnode)
        free(self._ib)
        free(self._ie)
        free(self._fb)
        free(self._fe)

    def __init__(self, *, dtype=int):
        self._dtype = check_dtype(dtype, self._name)
        self._floats = self._dtype is float
        self.sums = Sums(self._floats)
        self.clear()

    def clear(self):
        """Remove every point. Runtime complexity: O(1) (per tree held).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.clear(); len(dc)
        0
        """
        self._reset()

    cdef int _reset(self) except -1:
        """One empty tree, no level."""
        self._trees = []
        self._ntrees = 0
        self._nheld = 0
        self._npscores = 0
        _add_tree(self)
        self._t = <_BTree>self._trees[0]
        if self._moments:
            _mo_on(self._t)
        return 0

    @classmethod
    def from_arrays(cls, labels, scores, weights=None, *, dtype=None):
        """A counter holding the points ``(labels[i], scores[i])`` with ``weights[i]``.

        ``dtype`` defaults to ``int`` for unit, boolean or integer weights and ``float``
        otherwise. Runtime complexity: O(n log n).

        >>> LevelDominanceCounter.from_arrays([0, 1, 1], [0.5, 0.2, 0.9]).pairs_with(1, 0.5)
        (0, 0, 1, 2, 0)
        """
        return counter_from_arrays(cls, labels, scores, weights, dtype)

    @property
    def dtype(self):
        """``int`` or ``float``: the type of every weight returned.

        >>> LevelDominanceCounter(dtype=float).dtype
        <class 'float'>
        """
        return self._dtype

    @property
    def levels(self):
        """The distinct labels held, ascending. Runtime complexity: O(L log L).

        >>> dc = LevelDominanceCounter(); dc.add(2, 0.1); dc.add(0, 0.3); dc.levels
        (0.0, 2.0)
        """
        return tuple(sorted(self._label[q] for q in range(2 * self._ntrees)
                            if self._has[q]))

    cdef inline _BTree _tree(self, int q):
        if q < 2:
            return self._t
        return <_BTree>self._trees[q >> 1]

    cdef object _tot(self, int q):
        """The weight of slot ``q``, a Python number."""
        cdef _BTree t = self._tree(q)
        return t.ftot(q & 1) if self._floats else t.itot[q & 1]

    cdef int64_t _itotal(self) noexcept:
        cdef int64_t total = self._t.itot[0] + self._t.itot[1]
        cdef int j
        for j in range(1, self._ntrees):
            total += (<_BTree>self._trees[j]).itot[0] + (<_BTree>self._trees[j]).itot[1]
        return total

    def level_copies(self):
        """``{label: copies}`` of each level held, zero-weight copies included. O(L)."""
        return {self._label[q]: self._tree(q).ncopies[q & 1]
                for q in range(2 * self._ntrees) if self._has[q]}

    cdef void _stats(self, int64_t* levels, int64_t* scores, int64_t* copies) noexcept:
        """Levels, distinct scores and copies held with weight > 0."""
        cdef int q
        cdef int64_t npos
        levels[0] = copies[0] = 0
        for q in range(2 * self._ntrees):
            if self._has[q]:
                npos = (<_BTree>self._trees[q >> 1]).npos[q & 1]
                levels[0] += npos > 0
                copies[0] += npos
        scores[0] = self._t.pos_scores if self._ntrees == 1 else self._npscores

    def stats(self):
        """``(label levels, score levels, copies)`` held with weight > 0. O(L).

        >>> dc = LevelDominanceCounter(); dc.add(0, 0.5); dc.add(1, 0.5, 0); dc.stats()
        (1, 1, 1)
        """
        cdef int64_t levels, scores, copies
        self._stats(&levels, &scores, &copies)
        return levels, scores, copies

    @property
    def total_weight(self):
        """Weight of all points held. Runtime complexity: O(L).

        >>> dc = LevelDominanceCounter(dtype=float)
        >>> dc.add(0, 0.5, 2.5); dc.add(1, 0.5); dc.total_weight
        3.5
        """
        total = self._dtype(0)
        for q in range(2 * self._ntrees):
            total += self._tot(q)
        return total

    def __len__(self):
        """Number of points held (not their weight). O(L).

        >>> dc = LevelDominanceCounter(); dc.add(0, 0.5, 3); len(dc)
        1
        """
        cdef int64_t n = 0
        cdef _BTree t
        for t in self._trees:
            n += t.ncopies[0] + t.ncopies[1]
        return n

    def __repr__(self):
        return (f"{self._name}(dtype={self._dtype.__name__}) holding {len(self)} "
                f"points on {self._nheld} levels")

    # ------------------------------------------------------------------ slots
    cdef inline int _slot_of(self, double label) noexcept:
        """The slot of level ``label``, or -1 if it is not held."""
        cdef int q
        if self._has[0] and self._label[0] == label:
            return 0
        if self._has[1] and self._label[1] == label:
            return 1
        for q in range(2, 2 * self._ntrees):
            if self._has[q] and self._label[q] == label:
                return q
        return -1

    cdef int _new_level(self, double label, str func) except -1:
        """A free slot for the new level ``label`` (a new tree if none is free)."""
        cdef int q
        if self._max_levels and self._nheld >= self._max_levels:
            raise param_error("label", func, f"one of the two labels held {self.levels}",
                              repr(label))
        for q in range(2 * self._ntrees):
            if not self._has[q]:
                break
        else:
            _add_tree(self)
            q = 2 * self._ntrees - 2
        self._has[q] = 1
        self._label[q] = label
        self._nheld += 1
        return q

    cdef inline bint _room(self) noexcept:
        """Whether ``engine_add`` may open a level here."""
        if self._max_levels and self._nheld >= self._max_levels:
            return False
        return not (self.engine_max_levels and self._nheld >= self.engine_max_levels)

    # ------------------------------------------------------------------ terms
    cdef tuple _terms_tuple(self, int q, double label, double s):
        cdef int64_t it[5]
        cdef double ft[5]
        if self._floats:
            _fterms(self, q, label, s, ft)
            return ft[0], ft[1], ft[2], ft[3], ft[4]
        _iterms(self, q, label, s, it)
        return it[0], it[1], it[2], it[3], it[4]

    # ------------------------------------------------------------------ changes
    cdef int _put(self, int q, double s, int64_t iw, double fw) except -1:
        """Add one copy to slot ``q`` at ``s`` (checked by the caller, which just took
        the terms at ``s``: `_pcat` is the copies of weight > 0 there before)."""
        cdef bint positive = (fw > 0) if self._floats else (iw > 0)
        self._tree(q).add_at(s, q & 1, 1, positive, iw, fw)
        if positive and self._ntrees > 1 and self._pcat == 0:
            self._npscores += 1
        return 0

    cpdef tuple add_pairs(self, double label, double score, weight):
        """`pairs_with` ``(label, score)``, then add the point. Arguments are trusted (a
        float label and score, a weight of the counter's type, ``>= 0``); `ValueError` for
        a label past the levels allowed or an int total past ``2**62``, before anything
        changes."""
        return self._add_pairs(label, score, weight, "add_pairs")

    cdef tuple _add_pairs(self, double label, double score, weight, str method):
        """`add_pairs`; errors name ``method``."""
        cdef int q = self._slot_of(label)
        cdef int64_t iw = 0
        cdef double fw = 0.0
        if self._floats:
            fw = weight
        else:
            iw = weight
            if self._itotal() + iw > _INT_TOTAL_MAX:
                raise param_error("weight", f"{self._name}.{method}",
                                  "a weight that keeps the total held below 2**62 (use "
                                  "dtype=float)", repr(weight))
        if q < 0:
            q = self._new_level(label, f"{self._name}.{method}")
        terms = self._terms_tuple(q, label, score)
        self._put(q, score, iw, fw)
        return terms

    cdef int _drop(self, int q, double score, int64_t iw, double fw, bint positive) except -1:
        """Remove one held copy (checked by `_held`) from slot ``q``; the caller takes
        the terms at ``score`` next, then `_dropped`."""
        cdef _BTree t = self._tree(q)
        t.remove_at(score, q & 1, iw, fw, positive)
        if not t.ncopies[q & 1]:
            self._has[q] = 0
            self._nheld -= 1
        return 0

    cpdef tuple remove_pairs(self, double label, double score, weight):
        """Remove one point added as ``(label, score, weight)``, then return `pairs_with`
        of it against what is left. `ValueError`, and nothing changes, if no such point
        is held (with ``dtype=int``, also if ``weight`` does not match)."""
        cdef int q = self._slot_of(label)
        cdef int64_t iw = 0
        cdef double fw = 0.0
        if self._floats:
            fw = weight
        else:
            iw = weight
        cdef bint positive = (fw > 0) if self._floats else (iw > 0)
        if q < 0:
            raise param_error("label", f"{self._name}.remove",
                              "the label of a point held", repr(label))
        _held(self, q, score, iw, fw, positive, False)
        self._drop(q, score, iw, fw, positive)
        terms = self._terms_tuple(q, label, score)
        self._dropped(positive)
        return terms

    cdef inline void _dropped(self, bint positive) noexcept:
        """After `_drop` and the terms at its score: the score levels held."""
        if positive and self._ntrees > 1 and self._pcat == 0:
            self._npscores -= 1

    # ------------------------------------------------------------------ whole changes
    def engine_add(self, y, s, w):
        """Add the sample ``(y, s, w)`` and its pairs to `sums`, all in C, if ``y``, ``s``
        and ``w`` are plain Python numbers valid here and ``y`` is held or may open a
        level; ``False`` (nothing changed) otherwise. O(L log n).

        >>> dc = LevelDominanceCounter(); dc.engine_add(0, 0.2, 1), dc.engine_add(1, 0.5, 1)
        (True, True)
        >>> dc.engine_add(2, 0.1, 1), dc.engine_add(0, 0.1, 0.5)   # a fraction: floats
        (True, False)
        >>> dc.sums.values()       # (0, .2) < (1, .5); (2, .1) against both; weight 3
        [1, 2, 0, 0, 0, 3]
        """
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not _engine_weight(self, w, &iw, &fw):
            return False
        return _eadd(self, yy, ss, iw, fw) == 1

    def engine_remove(self, y, s, w):
        """Remove a held sample ``(y, s, w)`` and its pairs from `sums`, all in C, if the
        arguments are plain numbers and such a copy is held; ``False`` (nothing changed)
        otherwise, for the engine's checked path to raise. O(L log n)."""
        cdef double yy, ss, fw = 0.0
        cdef int64_t iw = 0
        if not _plain(y, &yy) or not _plain(s, &ss) or not _engine_weight(self, w, &iw, &fw):
            return False
        return _eremove(self, yy, ss, iw, fw) == 1

    def engine_change_arrays(self, y, s, w, int sign):
        """`engine_add` (``sign=1``) or `engine_remove` (``sign=-1``) every sample of the
        float64 arrays ``y``, ``s``, ``w`` (``None``: unit weights), in score order so
        that walks share their upper nodes. Returns the positions (into the arrays) not
        done: empty, or those from the first sample that needs the engine's checked path
        on (nothing of them changed). O(k L log n).

        >>> dc = BinaryDominanceCounter()
        >>> dc.engine_change_arrays(np.array([0., 1., 2.]), np.array([.1, .3, .5]), None, 1)
        array([2])
        >>> dc.sums.values()
        [1, 0, 0, 0, 0, 2]
        """
        return _change_arrays(self, y, s, w, sign)

    def engine_apply(self, removes, adds):
        """`engine_remove` each ``(y, s, w)`` of the list ``removes``, then `engine_add`
        ``copies`` of each ``(y, s, w): copies`` of the dict ``adds``, in one C loop.
        Returns ``(removed, added)``: how many items of each were done before one needed
        the engine's checked path (all of them, usually); nothing of that item or the
        ones after it was applied. O(k L log n)."""
        return _engine_apply(self, removes, adds)

    def engine_auc(self):
        """``(C + T / 2) / P`` from `sums`, as `PairCounts.auc` computes it (bit for
        bit), or ``None`` while ``P = 0``. O(L).

        >>> dc = BinaryDominanceCounter()
        >>> for y, s in [(0, 0.1), (1, 0.1), (1, 0.7)]:
        ...     _ = dc.engine_add(y, s, 1)
        >>> dc.engine_auc()
        0.75
        """
        cdef int64_t n_levels, n_scores, n_pos
        self._stats(&n_levels, &n_scores, &n_pos)
        if n_levels < 2:
            return None
        return _auc(self.sums, n_scores > 1, n_scores < n_pos)

    # ------------------------------------------------------------------ checked API
    def add(self, label, score, weight=1):
        """Add the point ``(label, score)`` with ``weight``.

        Raises `ValueError` for a NaN label or score or an invalid weight, before
        changing anything. Runtime complexity: O(L log n).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(1, 0.5); len(dc)
        2
        """
        func = f"{self._name}.add"
        label, score = check_point(label, score, func)
        weight = check_structure_weight(weight, self._dtype, func)
        self._add_pairs(label, score, weight, "add")

    def remove(self, label, score, weight=1):
        """Remove one point ``(label, score)`` added with ``weight``.

        Raises `ValueError`, before changing anything, if no such point is held (with
        ``dtype=int``, also if ``weight`` does not match). Runtime complexity: O(L log n).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.remove(1, 0.5); dc.levels
        ()
        >>> dc.remove(1, 0.5)
        Traceback (most recent call last):
        ...
        ValueError: The 'label' parameter of LevelDominanceCounter.remove must be the label of a point held. Got 1.0 instead.
        """
        func = f"{self._name}.remove"
        label, score = check_point(label, score, func)
        weight = check_structure_weight(weight, self._dtype, func)
        self.remove_pairs(label, score, weight)

    def pairs_with(self, label, score):
        """``(concordant, discordant, tied_score, tied_label, tied_both)``: the weight of
        the held points that would pair with ``(label, score)`` in each way (any label,
        held or not); times the point's weight, the changes of ``C``, ``D``, ``T``,
        ``Ty`` and ``Tyy`` when it is inserted. One walk per tree, O(L log n).

        >>> dc = LevelDominanceCounter()
        >>> for y, s in [(0, 0.2), (0, 0.7), (1, 0.7)]:
        ...     dc.add(y, s)
        >>> dc.pairs_with(1, 0.5)
        (1, 1, 0, 1, 0)
        """
        label, score = check_point(label, score, f"{self._name}.pairs_with")
        return self._terms_tuple(self._slot_of(label), label, score)

    def query(self, label, score):
        """The 3 x 3 grid of held weight around ``(label, score)``: rows by label (``<``,
        ``==``, ``>``), columns by score; ties fall in the middle row or column. One walk
        per tree, O(L log n).

        >>> dc = LevelDominanceCounter.from_arrays([0, 1, 2, 2], [1.0, 1.0, 0.0, 3.0])
        >>> dc.query(1, 1.0)
        ((0, 1, 0), (0, 1, 0), (1, 0, 1))
        """
        label, score = check_point(label, score, f"{self._name}.query")
        return _grid(self, label, score)

    def count(self, label, score):
        """Number of points held at exactly ``(label, score)``. O(L + log n).

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(1, 0.5); dc.count(1, 0.5)
        2
        """
        label, score = check_point(label, score, f"{self._name}.count")
        cdef int q = self._slot_of(label)
        cdef int32_t leaf
        cdef int pos
        cdef _BTree t
        if q < 0:
            return 0
        t = self._tree(q)
        if not t.find(score, &leaf, &pos):
            return 0
        return t.n[leaf].r.c[q & 1][pos]

    def pairs_with_many(self, labels, scores, weights=None):
        """``sum_i weights[i] * pairs_with(labels[i], scores[i])``: the change of the five
        pair counts when a batch joins, leaving out the pairs inside the batch. One walk
        per tree and point in C, ``O(k L log n)``; exact for ``dtype=int`` (128-bit sums).

        >>> dc = LevelDominanceCounter.from_arrays([0, 1], [0.2, 0.7])
        >>> dc.pairs_with_many([1, 0], [0.5, 0.5], [2, 1])
        (3, 0, 0, 3, 0)
        """
        return _pairs_many(self, labels, scores, weights)

    def load(self, labels, scores, copies=None, weights=None, positive=None):
        """Replace the contents by ``copies[i]`` points at ``(labels[i], scores[i])``
        holding ``weights[i]`` between them (unit copies and weights by default),
        ``positive[i]`` of them of weight > 0 (default: all of them where ``weights[i] >
        0``). The rows of `items` load back as they are. Validated whole before anything
        changes; `sums` is left alone. Runtime complexity: O(n log n).

        >>> dc = LevelDominanceCounter(dtype=float)
        >>> dc.load([1, 0, 1], [0.5, 0.5, 0.5], [2, 1, 1], [3.0, 1.0, 1.5])
        >>> list(dc.items())
        [(0.0, 0.5, 1, 1.0), (1.0, 0.5, 3, 4.5)]
        """
        _load(self, labels, scores, copies, weights, positive)

    def items(self):
        """Iterate over ``(label, score, copies, weight)`` for each distinct point, in
        (label, score) order. O(n) for the whole iteration.

        >>> dc = LevelDominanceCounter(); dc.add(1, 0.5); dc.add(0, 0.9, 2)
        >>> list(dc.items())
        [(0.0, 0.9, 1, 2), (1.0, 0.5, 1, 1)]
        """
        y, s, c, w, _ = self.columns()
        for row in zip(y.tolist(), s.tolist(), c.tolist(), w.tolist()):
            yield row

    def columns(self):
        """The distinct points as arrays ``(labels, scores, copies, weights, positive)``
        in (label, score) order; ``positive`` counts the copies of weight > 0. O(n).

        >>> LevelDominanceCounter.from_arrays([1, 0, 1], [0.5, 0.9, 0.5], [1, 2, 0]).columns()[2:]
        (array([1, 2]), array([2, 1]), array([1, 1]))
        """
        return _columns(self)

    def placement_moments(self):
        """``(W1, W0, U, Q1, Q0)`` of the two levels held, the greater label positive
        (`_moments.pxi`): their weights, ``U = sum a P``, ``Q1 = sum a P**2``, ``Q0 = sum
        b N**2`` (``P``: twice the negative weight below a positive plus that tied; ``N``
        the mirror), exact ints; ``None`` in float mode or unless two levels with weight
        are held. The first call turns them on (``O(n)``); then each change keeps them in
        ``O(log n)`` and a read is ``O(1)`` (a recount, ``O(n log n)``, past a weight of
        ``2**40`` or with the levels on two trees, after a third level came).

        >>> dc = BinaryDominanceCounter.from_arrays([0, 1, 0, 1], [0.1, 0.4, 0.4, 0.8])
        >>> dc.placement_moments()      # P = 3, 4;  N = 4, 3
        (2, 2, 7, 25, 25)
        """
        return _counter_moments(self)

    def enable_moments(self):
        """Keep the placement moments from now on (`placement_moments`): ``O(n)`` once."""
        self._moments = True
        _mo_on(self._t)

    def __reduce__(self):
        """Pickle and copy by value: each tree bit for bit, the levels, and `sums`."""
        return _restore_counter, (type(self), self._dtype, self.columns(), self.sums,
                                  _raws(self), self.engine_max_levels)

    def adopt(self, LevelDominanceCounter other):
        """Take every point of ``other`` (a counter of one tree and this dtype, e.g. a
        `BinaryDominanceCounter`), which is left empty; this counter must be empty.
        ``sums`` stay as they are. O(1): the tree moves, nothing is rebuilt.

        >>> b = BinaryDominanceCounter.from_arrays([0, 1], [0.2, 0.7])
        >>> dc = LevelDominanceCounter(); dc.adopt(b); dc.add(2, 0.5); dc.levels, len(b)
        ((0.0, 1.0, 2.0), 0)
        """
        _adopt(self, other)

    def _check(self):
        """Assert every invariant of the trees (`_btree.pxi`), the slots, the levels and
        the score-level counts. O(n)."""
        _check_counter(self)

