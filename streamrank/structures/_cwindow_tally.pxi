# The per-label tallies of `RowWindow` (`_cwindow.pyx`; included there): the count and the
# weight sum of the labeled rows of each label, up to `_NT` labels in C arrays (an exact
# int64 sum while every weight is integral, else a double with its Neumaier compensation),
# more labels, or an int sum past int64, in a dict of Python numbers for good. They give
# `RowWindow.classes` (the monitor's class weights, for its tests) and let a `binary`
# window decline a third label in C (`_tally_binary_ok`).


cdef object _tally_dict(RowWindow win):
    """`RowWindow.classes`: with ``tally``, ``{label: [rows, weight sum]}`` of the
    labeled rows (a new dict, the sum an int while every weight is integral), else None.
    O(number of labels)."""
    cdef int j
    if win._nt == -2:
        return None
    if win._nt == -1:
        return win._classes
    return {win._tl[j]: [win._tc[j], win._tf[j] + win._tk[j] if win._tflt[j]
                          else win._ti[j]]
            for j in range(win._nt)}


cdef int _tally_set(RowWindow win, object value) except -1:
    """Set the tallies to ``value`` (``{label: [rows, weight sum]}``: a recount)."""
    if win._nt == -2:
        raise ValueError("a window without tally")
    win._nt = 0
    win._classes = None
    for y, (c, w) in value.items():
        if win._nt == _NT or type(w) is int and not -2**62 < w < 2**62:
            win._classes = {k: [v[0], v[1]] for k, v in value.items()}
            win._nt = -1
            return 0
        win._tl[win._nt] = y
        win._tc[win._nt] = c
        win._tflt[win._nt] = type(w) is not int
        win._ti[win._nt] = w if type(w) is int else 0
        win._tf[win._nt] = w if type(w) is not int else 0.0
        win._tk[win._nt] = 0.0
        win._nt += 1
    return 0


cdef int _tally_to_dict(RowWindow win) except -1:
    """Move the tallies to the dict of Python numbers (for good)."""
    win._classes = _tally_dict(win)
    win._nt = -1
    return 0


cdef int _tally(RowWindow win, double y, double wd, int sign) except -1:
    """Count a labeled row of weight ``wd`` in (``sign`` 1) or out of the tallies.
    O(number of labels), in C while they are in the arrays."""
    cdef int j
    cdef bint integral = wd <= MAX_EXACT and wd == <double>(<int64_t>wd)
    if win._nt >= 0:
        for j in range(win._nt):
            if win._tl[j] == y:
                break
        else:
            j = win._nt
            if sign > 0 and j < _NT:    # a new label
                win._tl[j], win._tc[j] = y, 1
                win._tflt[j] = not integral
                win._ti[j] = <int64_t>wd if integral else 0
                win._tf[j] = 0.0 if integral else wd
                win._tk[j] = 0.0
                win._nt = j + 1
                return 0
            _tally_to_dict(win)
        if win._nt >= 0:
            if sign < 0 and win._tc[j] == 1:   # the label's last row leaves
                win._nt -= 1
                win._tl[j], win._tc[j] = win._tl[win._nt], win._tc[win._nt]
                win._ti[j], win._tf[j] = win._ti[win._nt], win._tf[win._nt]
                win._tk[j] = win._tk[win._nt]
                win._tflt[j] = win._tflt[win._nt]
                return 0
            win._tc[j] += sign
            if win._tflt[j]:
                _tally_add_float(win, j, wd if sign > 0 else -wd)
                return 0
            if not integral:            # int + float: a float from here on
                win._tflt[j] = True
                win._tf[j], win._tk[j] = <double>win._ti[j], 0.0
                _tally_add_float(win, j, wd if sign > 0 else -wd)
                return 0
            if -2**62 < win._ti[j] < 2**62:   # (|wd| <= 2**53: no overflow)
                win._ti[j] += sign * <int64_t>wd
                return 0
            _tally_to_dict(win)
    w = _weight(wd)
    entry = win._classes.get(y)
    if sign > 0:
        if entry is None:
            win._classes[y] = [1, w]
        else:
            entry[0] += 1
            entry[1] += w
    elif entry[0] == 1:
        del win._classes[y]
    else:
        entry[0] -= 1
        entry[1] -= w
    return 0


cdef void _tally_add_float(RowWindow win, int j, double x) noexcept:
    """``_tf[j] += x`` with Neumaier compensation (in ``_tk[j]``)."""
    cdef double a = win._tf[j]
    cdef double t = a + x
    if fabs(a) >= fabs(x):
        win._tk[j] += (a - t) + x
    else:
        win._tk[j] += (x - t) + a
    win._tf[j] = t


cdef bint _tally_binary_ok(RowWindow win, double y):
    """Whether label ``y`` keeps a `binary` window within two labels whatever the
    event evicts: ``y`` is held already, or fewer than two labels are (from the
    tallies; False when they are not in the C arrays)."""
    cdef int j, held = 0
    if win._nt < 0:
        return False
    for j in range(win._nt):
        if win._tc[j] > 0:
            if win._tl[j] == y:
                return True
            held += 1
    return held < 2
