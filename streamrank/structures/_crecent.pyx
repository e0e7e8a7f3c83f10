# cython: language_level=3, boundscheck=False, wraparound=False
"""`Recent`: the ids marked lately, forgotten in the order they were marked.

A monitor remembers the ids of the predictions its window evicted lately (a label for one
of them is late, not unmatched) and the ids of its last unmatched labels (a prediction for
one of them shows the label was early): `streamrank.monitor._join`. Both are a dict
``key -> mark`` and the ``(mark, key)`` items in the order they were marked, forgotten from
the old end (lazy deletion: an id marked again leaves its old item behind, skipped when
it reaches the front). Compiled because a count window notes one id per new prediction
once it is full: `note_many` takes a block of them in one call.
"""

cdef class Recent:
    """Ids marked lately: ``mark[key]``, and the ``(mark, key)`` items in the order they
    were marked (marks never decrease). `note` forgets the ids whose mark is ``span``
    behind the latest (the ids evicted lately: the mark is the eviction's number in a
    count window, the clock in a ``period`` window, ``span`` the window's size or period);
    `trim` keeps the last ``n`` (the unmatched labels: the mark is the label's event
    number); `take` forgets one id.

    Runtime complexity: `note`, `trim`, `take` ``O(1)`` amortized; `note_many` ``O(1)``
    amortized per id; `prune` ``O(1 + forgotten)``; `rows` ``O(items)``.

    >>> r = Recent(span=2)
    >>> r.note_many(["a", "b", "c"], 1)      # marks 1, 2, 3: "a" is 2 behind, forgotten
    >>> r.rows(), "a" in r.mark
    ([('b', 2), ('c', 3)], False)
    >>> r.note("b", 4); r.rows()             # marked again: its old item is skipped
    [('c', 3), ('b', 4)]
    """

    cdef public dict mark
    cdef list _items          # (mark, key) in the order marked, from _head on
    cdef Py_ssize_t _head
    cdef public object span

    def __init__(self, span=float("inf")):
        self.mark = {}
        self._items = []
        self._head = 0
        self.span = span

    def __len__(self):
        return len(self.mark)

    @property
    def order(self):
        """The ``(mark, key)`` items held, in the order marked (those of ids marked again
        or taken included until they reach the front). O(items)."""
        return self._items[self._head:]

    def note(self, key, mark):
        """``key`` was marked at ``mark``; forget what is ``span`` behind it. (An id
        marked again at its mark keeps its item.)"""
        if self.mark.get(key) != mark:
            self.mark[key] = mark
            self._items.append((mark, key))
        self.prune(mark - self.span)

    def note_many(self, list keys, first):
        """`note` for each of ``keys`` in order, marked ``first``, ``first + 1``, ...
        (the ids a block of events evicted)."""
        cdef Py_ssize_t j, n = len(keys)
        cdef dict mark = self.mark
        cdef list items = self._items
        if not n:
            return
        m = first
        for j in range(n):
            key = keys[j]
            if mark.get(key) != m:
                mark[key] = m
                items.append((m, key))
            m = m + 1
        self.prune(m - 1 - self.span)

    def prune(self, bound):
        """Forget the ids whose mark is at most ``bound``."""
        cdef list items = self._items
        cdef Py_ssize_t h = self._head, n = len(items)
        cdef dict mark = self.mark
        cdef tuple item
        while h < n:
            item = <tuple>items[h]
            if not item[0] <= bound:
                break
            k = item[1]
            if mark.get(k) == item[0]:
                del mark[k]
            h += 1
        self._head = h
        self._compact()

    def trim(self, Py_ssize_t n):
        """Keep the last ``n`` ids marked (and the items within twice the ids kept, those
        of ids taken out by `take` included)."""
        cdef dict mark = self.mark
        cdef list items = self._items
        cdef tuple item
        while len(mark) > n:
            item = <tuple>items[self._head]
            self._head += 1
            if mark.get(item[1]) == item[0]:
                del mark[item[1]]
        if len(items) - self._head > 2 * len(mark) + 16:
            self._items = [it for it in items[self._head:] if mark.get(it[1]) == it[0]]
            self._head = 0
        self._compact()

    cdef int _compact(self) except -1:
        """Free the forgotten front once it is half the list (O(1) amortized)."""
        if self._head > 64 and 2 * self._head > len(self._items):
            del self._items[:self._head]
            self._head = 0
        return 0

    def take(self, key):
        """Forget ``key``: its mark (None if it has none)."""
        return self.mark.pop(key, None)

    def rows(self):
        """``(key, mark)`` of each remembered id, oldest first (the snapshot)."""
        cdef dict mark = self.mark
        return [(it[1], it[0]) for it in self._items[self._head:]
                if mark.get(it[1]) == it[0]]

    def __reduce__(self):
        return _restored, (self.span, self.rows())

    def _check(self):
        """The invariants: every id held has one item, marks never decrease."""
        items = self.order
        rows = self.rows()
        assert len(rows) == len(self.mark) and dict(rows) == self.mark
        assert all(a[0] <= b[0] for a, b in zip(items, items[1:]))
        assert 0 <= self._head <= len(self._items)


def _restored(span, rows):
    """A `Recent` of ``span`` holding ``rows`` (`Recent.rows`): for pickle and copy."""
    cdef Recent r = Recent(span)
    for key, m in rows:
        r.mark[key] = m
        r._items.append((m, key))
    return r
