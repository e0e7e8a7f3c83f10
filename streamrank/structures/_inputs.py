"""The arguments of the compiled structures (`streamrank.structures._cbinary`,
`streamrank.structures._cdominance`): points, copies and weights, in each structure's
weight type (``dtype``: ``int`` exact, ``float``), for ``add`` / ``load`` /
``from_arrays``. Messages follow `streamrank._validation`'s format."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from .._validation import describe, param_error

__all__ = ["check_dtype", "check_load_args", "check_point", "check_points",
           "check_structure_weight", "counter_from_arrays", "structure_weights"]

_INT64_MAX = 2**63 - 1


def check_dtype(dtype, func):
    """``dtype`` if it is ``int`` or ``float``; `ValueError` naming ``func`` otherwise."""
    if dtype is int or dtype is float:
        return dtype
    raise param_error("dtype", func, "int or float", describe(dtype))


def _real(value, func, name):
    if isinstance(value, Real) and value == value:
        return float(value)
    raise param_error(name, func, "a real number, not NaN", describe(value))


def check_point(label, score, func):
    """``(label, score)`` as floats that are not NaN (infinities are orderable values)."""
    if type(label) is not float or label != label:
        label = _real(label, func, "label")
    if type(score) is not float or score != score:
        score = _real(score, func, "score")
    return label, score


def check_points(labels, scores, func):
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


def check_structure_weight(weight, dtype, func):
    """``weight`` as a non-negative int below 2**63 (``dtype=int``) or a finite
    non-negative float; `ValueError` otherwise."""
    if dtype is int:
        if type(weight) is int and 0 <= weight <= _INT64_MAX:
            return weight
        if isinstance(weight, Integral) and 0 <= weight <= _INT64_MAX:
            return int(weight)
        raise param_error("weight", func, "a non-negative integer below 2**63 (the dtype "
                          "is int)", describe(weight))
    if type(weight) is float and 0.0 <= weight < math.inf:
        return weight
    if isinstance(weight, Real) and 0 <= weight < math.inf:
        return float(weight)
    raise param_error("weight", func, "a finite non-negative number", describe(weight))


def structure_weights(weights, n, dtype, func):
    """``(w, dtype)``: ``n`` validated weights as int64 or float64 (unit weights for
    ``None``), and the dtype they imply when ``dtype`` is None. Int weights must total
    below 2**63, so that no partial sum of them overflows int64."""
    if weights is None:
        w = np.ones(n, dtype=np.int64)
    else:
        w = np.asarray(weights)
        if w.shape != (n,) or (w.size and w.dtype.kind not in "biuf"):
            raise param_error("weights", func, f"{n} real numbers", describe(w))
    if dtype is None:
        dtype = float if w.dtype.kind == "f" else int
    elif dtype is not int and dtype is not float:
        raise param_error("dtype", func, "int or float", describe(dtype))
    if dtype is int:
        if w.size and w.dtype.kind == "f":
            raise param_error("weights", func, "integers (dtype is int)", describe(w))
        if w.size and (w.min() < 0 or int(w.max()) > _INT64_MAX):
            raise param_error("weights", func, "non-negative and below 2**63", describe(w))
        if w.size and int(w.max()) * n > _INT64_MAX and int(w.astype(object).sum()) > _INT64_MAX:
            raise param_error("weights", func, "of total below 2**63", describe(w))
        return w.astype(np.int64), dtype
    w = w.astype(np.float64)
    if w.size and (not np.isfinite(w).all() or w.min() < 0):
        raise param_error("weights", func, "finite and non-negative", describe(w))
    return w, dtype


def check_load_args(labels, scores, copies, weights, dtype, func):
    """The validated arrays of a structure's ``load``: float64 labels and scores, int64
    copies (each ``>= 1``; ones for None), and weights in ``dtype``."""
    y, s = check_points(labels, scores, func)
    n = y.shape[0]
    if copies is None:
        c = np.ones(n, dtype=np.int64)
    else:
        c = np.asarray(copies)
        if c.shape != (n,) or (n and (c.dtype.kind not in "iu" or c.min() < 1)):
            raise param_error("copies", func, f"{n} integers >= 1", describe(c))
        c = c.astype(np.int64)
    w, _ = structure_weights(weights, n, dtype, func)
    return y, s, c, w


def counter_from_arrays(cls, labels, scores, weights, dtype):
    """``cls.from_arrays``: a counter of ``cls`` holding the points, with ``dtype`` from
    the weights unless given."""
    func = f"{cls.__name__}.from_arrays"
    y, s = check_points(labels, scores, func)
    w, dtype = structure_weights(weights, y.shape[0], dtype, func)
    counter = cls(dtype=dtype)
    counter.load(y, s, None, w)
    return counter
