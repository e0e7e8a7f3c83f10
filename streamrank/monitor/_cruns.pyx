# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled runs of `observe_many` (`streamrank.monitor._runs`): the events of a block
that steady windows take on their per-event path (`RowWindow._take`), in one C call.

`window_run` feeds one window (a `Monitor`'s; a `PairedMonitor` runs it on both of its
windows in turn); `route_run` routes each event to the window(s) of its segment, as
`SegmentedMonitor.observe` would: a new prediction of a segment with a steady unit (its
score, and the challenger's with paired units), or a label for an id whose segment the id
map (``where``) knows. A run stops before any other event, which ``observe`` takes alone.
"""

from libc.stdint cimport int64_t

from ..structures._cwindow cimport (RowWindow, TAKE_EVICT_PENDING, TAKE_LATE,
                                    TAKE_NONE)

cdef double NAN = float("nan")


def window_run(RowWindow win, list keys, const double[::1] score,
               const double[::1] label, Py_ssize_t start, Py_ssize_t size, bint evict,
               list evicted, dict avoid, Py_ssize_t end=-1, bint stop_at_limit=True):
    """Take events ``start``, ``start + 1``, ... into ``win`` while each is a new
    prediction (a finite score, a key not held, a finite label or NaN: pending; after
    evicting the oldest row if ``size`` are held, or declined if not ``evict``: the
    owner freezes its reference at its first eviction) or a late label (a NaN score, a
    finite label for a held, pending key). Stops before the first other event (a key
    that is None, NaN or unhashable, a re-score, a non-finite value, a label for a key
    not held or labeled, a new prediction of a key in ``avoid``: the owner's checked
    path takes it), at ``end`` (-1: the last event), or after an event that leaves the window's
    ``limit`` changes waiting (unless not ``stop_at_limit``). Appends the key of each
    evicted row to ``evicted``. Returns ``(stop, predictions, labels, late,
    evicted_pending)``: the index of the first event not taken, and what the events
    taken were. ``O(1)`` amortized per event."""
    cdef Py_ssize_t i = start, n = len(keys) if end < 0 else min(end, len(keys))
    cdef Py_ssize_t preds = 0, labels = 0, late = 0, pending = 0
    cdef int took
    if score.shape[0] < n or label.shape[0] < n:         # (n: at most len(keys))
        raise ValueError("window_run: a column shorter than the keys")
    while i < n:
        key = keys[i]
        if key is None or type(key) is float and key != key:    # missing
            break
        try:
            took = win._take(key, score[i], label[i], size, evict, evicted, avoid)
        except TypeError:               # unhashable
            break
        if took == TAKE_NONE:
            break
        if took == TAKE_LATE:
            late += 1
            labels += 1
        else:
            preds += 1
            labels += label[i] == label[i]
            pending += took == TAKE_EVICT_PENDING
        i += 1
        if stop_at_limit and win._waiting() >= win.limit:
            break
    return i, preds, labels, late, pending


def route_run(list keys, list segments, const double[::1] score,
              const double[::1] challenger, const double[::1] label, Py_ssize_t start,
              dict where, dict unit_of, list wins, list sizes, list evict, list evicted,
              list avoid, dict orphans, Py_ssize_t sweep_at, int64_t[:, ::1] counts,
              list touched):
    """Take events ``start``, ``start + 1``, ... of a block while each goes to a steady
    unit's window(s) on the per-event path; returns the index of the first event not
    taken. A unit ``u`` (``unit_of``: segment -> ``u``, the units that may run) has its
    windows in ``wins[u]`` (a tuple: the champion's, and the challenger's with paired
    units, which then need a ``challenger`` column: every event with both scores or
    neither), their sizes ``sizes[u]``, whether they may evict ``evict[u]``
    (`window_run`), the lists its evicted keys are appended to ``evicted[u]`` (a tuple,
    one per window), the ids whose new prediction it declines
    ``avoid[u]`` (its remembered unmatched labels; ``orphans``: the wrapper's). A new
    prediction enters ``where`` as ``(segment, None)``; the run stops after the event
    that makes ``where`` hold more than ``sweep_at`` ids, or leaves a window with
    ``limit`` changes waiting. ``counts[u]`` gets each unit's predictions, labels, late
    labels and pending rows evicted, and ``touched`` the units whose counts were zero.
    ``O(1)`` amortized per event."""
    cdef Py_ssize_t i = start, n = len(keys), u
    cdef bint paired = challenger is not None, may_evict
    cdef double s, c, y
    cdef int took, took_b
    cdef tuple ws, ev
    cdef RowWindow win
    if score.shape[0] < n or label.shape[0] < n or len(segments) < n \
            or paired and challenger.shape[0] < n:
        raise ValueError("route_run: a column shorter than the keys")
    while i < n:
        key = keys[i]
        if key is None or type(key) is float and key != key:        # missing
            break
        s = score[i]
        y = label[i]
        c = NAN
        if paired:
            c = challenger[i]
            if (s == s) != (c == c) or c - c != 0.0 and c == c:
                break
        seg = segments[i]
        try:
            at = where.get(key)
        except TypeError:                   # unhashable
            break
        if s == s:                          # a new prediction of ``seg``
            if seg is None or at is not None and (<tuple>at)[0] != seg \
                    or (orphans and key in orphans):
                break
        else:                               # a label for the id's segment
            if at is None:
                break
            if seg is not None and seg != (<tuple>at)[0]:
                break
            seg = (<tuple>at)[0]
        got = unit_of.get(seg)
        if got is None:
            break
        u = got
        ws = <tuple>wins[u]
        ev = <tuple>evicted[u]
        win = <RowWindow>ws[0]
        may_evict = evict[u]
        took = win._take(key, s, y, sizes[u], may_evict, <list>ev[0], <dict>avoid[u])
        if took == TAKE_NONE:
            break
        if paired:
            took_b = (<RowWindow>ws[1])._take(key, c, y, sizes[u], may_evict,
                                             <list>ev[1], <dict>avoid[u])
            if (took_b == TAKE_LATE) != (took == TAKE_LATE):
                raise AssertionError("route_run: a pair's aligned windows disagree")
        if counts[u, 0] == 0 and counts[u, 1] == 0:
            touched.append(u)
        if took == TAKE_LATE:
            counts[u, 1] += 1
            counts[u, 2] += 1
        else:
            counts[u, 0] += 1
            counts[u, 1] += y == y
            counts[u, 3] += took == TAKE_EVICT_PENDING
            where[key] = (seg, None)
        i += 1
        if len(where) > sweep_at or win._waiting() >= win.limit or paired and (
                <RowWindow>ws[1])._waiting() >= (<RowWindow>ws[1]).limit:
            break
    return i
