# cython: language_level=3
"""How the compiled owners read an event in C: plain numbers, the unit weight and the
common event of a binary River metric, each as the package's validators would read it
(`streamrank._validation`), so that an owner falls back to them for anything else.
Shared by `streamrank.structures._cpairwindow` (the windows) and
`streamrank.structures._cmetric` (the River metrics)."""

from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject_RichCompareBool, Py_EQ

cdef enum:
    # Fewer waiting changes than this reach an engine one by one (``engine_add`` /
    # ``engine_remove``), more as one sorted batch (building the arrays costs more than a
    # few calls).
    SCALAR_FLUSH = 16


cdef inline bint _num(object x, double* out):
    """True with ``x``'s value if it is a finite float, a bool or an int that float64
    holds exactly (`check_scalar`'s hot cases); False for anything else."""
    cdef double v
    cdef long long i
    cdef int overflow = 0
    if type(x) is float:
        v = PyFloat_AS_DOUBLE(x)
        out[0] = v
        return v - v == 0.0
    if type(x) is bool:
        out[0] = 1.0 if x is True else 0.0
        return True
    if type(x) is int:
        i = PyLong_AsLongLongAndOverflow(x, &overflow)
        if overflow or not -9007199254740992 <= i <= 9007199254740992:   # 2**53
            return False
        out[0] = <double>i
        return True
    return False


cdef inline bint _unit(object w):
    """True if ``w`` is the unit weight as `check_weight` reads it fast (a float or an int
    equal to 1; a bool is not a weight)."""
    if type(w) is float:
        return PyFloat_AS_DOUBLE(w) == 1.0
    return type(w) is int and PyObject_RichCompareBool(w, 1, Py_EQ)


cdef inline int _river_binary(object y_true, object y_pred, object w, object pos,
                              double* out) except -1:
    """1 with ``(label, score, 1)`` in ``out`` for the common event of a binary River
    metric: a bool or int ``y_true`` and ``pos_val``, a finite float score (or a dict
    holding one for ``pos_val``) and the unit weight; 0 for anything else (the
    metric's checked reader then decides, with its errors)."""
    s = (<dict>y_pred).get(pos, 0.0) if type(y_pred) is dict else y_pred
    if not (type(s) is float and (type(y_true) is bool or type(y_true) is int)
            and (type(pos) is bool or type(pos) is int) and _unit(w)):
        return 0
    out[1] = PyFloat_AS_DOUBLE(s)
    if out[1] - out[1] != 0.0:
        return 0
    out[0] = 1.0 if PyObject_RichCompareBool(y_true, pos, Py_EQ) else 0.0
    out[2] = 1.0
    return 1
