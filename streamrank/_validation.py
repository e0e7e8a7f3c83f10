"""Input validation at the public boundary.

Every message has one format, naming the parameter, the function, what was expected and what
was received::

    The 'y_score' parameter of roc_auc_score must be finite numbers. Got nan at index 3 instead.

Validation reads its inputs only; callers validate a whole batch before changing any state.

The weight domain
-----------------
Every weight is a finite real number ``>= 0``; a weight of 0 means the sample counts for no
pair (scikit-learn's rule for ``sample_weight``). Two further bounds keep what is kept exact
or bounded:

* **Batch functions** (`streamrank.pair_counts`, `streamrank.roc_auc_score`, ...) accept any
  finite weights ``>= 0``. Metrics are computed from weights divided by a power of two (the
  one that brings the largest weight into ``[0.5, 1)``), which is exact: multiplying every
  weight by ``2**k`` gives bit-identical metrics, and by any constant the same metrics to
  rounding. `pair_counts` scales its float counts back and raises if one would overflow or
  underflow float64.
* **Incremental objects** (`PairCounter`, the windows, `EpochTracker`, the River metrics,
  `Monitor`) hold weights in ``{0} U [MIN_WEIGHT, MAX_WEIGHT]`` = ``{0} U [2**-400,
  2**400]``: every product of two weights, and every sum of up to ``2**63`` of them, is then
  a normal float64 (no overflow, no underflow). Integer weights up to ``2**53`` keep the
  counts exact Python ints while the total weight held stays below ``2**62``
  (`INT_TOTAL_MAX`); past that the counts become float sums, as after a fractional weight.

A number that float64 cannot hold exactly (an ``int`` beyond ``2**53`` that is not a
float64 value, such as ``2**53 + 1``) is refused as a weight, label or score of an
incremental object rather than silently rounded.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "INT_TOTAL_MAX",
    "MAX_EXACT_INT",
    "MAX_WEIGHT",
    "MIN_WEIGHT",
    "as_1d_numeric",
    "as_events",
    "as_score_column",
    "check_binary_labels",
    "check_binary_levels",
    "check_consistent_length",
    "check_level",
    "check_option",
    "check_scalar",
    "check_weight",
    "check_weights",
    "describe",
    "param_error",
]

#: Bounds of a nonzero weight held by an incremental object (module docstring).
MIN_WEIGHT = 2.0 ** -400
MAX_WEIGHT = 2.0 ** 400
#: Integer-valued weights up to this keep the counts exact integers.
MAX_EXACT_INT = 2 ** 53
#: The total integer weight an incremental object holds with exact counts.
INT_TOTAL_MAX = 2 ** 62

_DOMAIN = "0 or within [2**-400, 2**400]"


def describe(value) -> str:
    """A short, readable description of a received value for an error message."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def param_error(name: str, func: str, expected: str, got: str, cls=ValueError) -> Exception:
    """The one message format: ``The 'name' parameter of func must be expected. Got got
    instead.`` The exception also carries them as data: ``param`` (``name``), ``func``,
    ``expected`` and ``got``, so a caller that locates the error (the command line: the
    column of the parameter) reads them instead of parsing the message.

    >>> exc = param_error("w", "PairCounter.insert", "a number >= 0", "-1.0")
    >>> exc.param, exc.func, exc.expected
    ('w', 'PairCounter.insert', 'a number >= 0')
    """
    exc = cls(f"The {name!r} parameter of {func} must be {expected}. Got {got} instead.")
    exc.param, exc.func, exc.expected, exc.got = name, func, expected, got
    return exc


def _first_bad(mask: np.ndarray, arr: np.ndarray) -> str:
    idx = int(np.flatnonzero(mask)[0])
    count = int(np.count_nonzero(mask))
    more = f" ({count} such values)" if count > 1 else ""
    return f"{arr[idx]!r} at index {idx}{more}"


def as_1d_numeric(
    x,
    name: str,
    func: str,
    *,
    allow_empty: bool = False,
    dtype=np.float64,
    as_float: bool = False,
) -> np.ndarray:
    """``x`` as a 1-D array of finite numbers, converted to ``dtype`` when it is not bool/int.

    Booleans and integers keep an integer dtype (exact comparisons, no float rounding of
    large integers); everything else becomes float64. With ``as_float=True`` (incremental
    objects, which hold float64) integers become float64 too, and one that float64 cannot
    hold exactly is refused. Raises `TypeError` for non-numeric input and `ValueError` for
    wrong shape, empty input, NaN or infinity.
    """
    arr = np.asarray(x)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except OverflowError:
            raise param_error(name, func, "numbers within float64's range",
                              f"an integer too large for float64 in {describe(x)}") from None
        except (TypeError, ValueError):
            raise param_error(name, func, "numeric (bool, int or float)",
                              f"values such as {describe(x)}", TypeError) from None
    if arr.ndim != 1:
        raise param_error(name, func, "a 1-D array", f"an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise param_error(name, func, "numeric (bool, int or float)",
                          f"dtype {arr.dtype} (values such as {describe(arr[:3].tolist())})",
                          TypeError)
    if arr.size == 0 and not allow_empty:
        raise param_error(name, func, "a non-empty array", "an empty array")
    if arr.dtype.kind in "biu":
        if as_float and arr.dtype.kind in "iu" and arr.size:
            f = arr.astype(np.float64)
            with np.errstate(invalid="ignore"):   # 2**63 wraps in the cast back: inexact
                inexact = f.astype(arr.dtype) != arr
            if inexact.any():
                raise param_error(name, func, "numbers that float64 holds exactly (integers "
                                  "beyond 2**53 must be float64 values)",
                                  _first_bad(inexact, arr))
            return f
        return arr  # exact already, and always finite
    if as_float and arr.dtype.kind == "f" and not isinstance(x, np.ndarray):
        _check_list_ints(x, arr, name, func)
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise param_error(name, func, "finite numbers", _first_bad(bad, arr))
    return arr


def _check_list_ints(x, arr, name, func) -> None:
    """numpy rounds the ints of a mixed list to float64 silently: find one it changed.
    Only where some value is beyond ``2**53``, which one vectorized test tells."""
    if not (np.abs(arr) >= MAX_EXACT_INT).any():
        return
    for i, v in enumerate(x):
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
                and int(arr[i]) != int(v):
            raise param_error(name, func, "numbers that float64 holds exactly (integers "
                              "beyond 2**53 must be float64 values)", f"{v!r} at index {i}")


def as_score_column(x, name: str, func: str) -> np.ndarray:
    """Scores of binary labels as `as_1d_numeric` does, also from an array of shape
    ``(n, 1)``, as scikit-learn's ``roc_auc_score`` takes them (``column_or_1d``).

    An array of two or more columns, such as the whole ``predict_proba`` of a binary
    classifier, raises `ValueError`: scikit-learn refuses it too with binary labels
    (``y should be a 1d array``); the positive class's column is ``y_score[:, 1]``.
    """
    arr = np.asarray(x)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    elif arr.ndim == 2:
        raise param_error(name, func, "a 1-D array of scores, or of shape (n, 1), with "
                          "binary labels (as scikit-learn; of predict_proba's output pass "
                          "the positive class's column, such as y_score[:, 1])",
                          f"an array of shape {arr.shape}")
    return as_1d_numeric(arr, name, func)


def _label_values(y_true, name: str, func: str) -> np.ndarray:
    """``y_true`` as a 1-D array of class labels: numbers (finite), strings, or Python
    objects. A list mixing strings with other values stays an array of objects (numpy would
    turn ``[1, "a"]`` into the strings ``"1"`` and ``"a"``)."""
    try:
        arr = np.asarray(y_true)
    except ValueError:          # tuples of different lengths
        arr = None
    if isinstance(y_true, (list, tuple)) and (
            arr is None
            or arr.ndim > 1 and all(isinstance(v, tuple) for v in y_true)
            or arr.dtype.kind in "US" and not all(isinstance(v, (str, bytes)) for v in y_true)):
        arr = np.empty(len(y_true), dtype=object)
        arr[:] = list(y_true)   # element by element: tuples stay labels
    if arr.ndim != 1:
        raise param_error(name, func, "a 1-D array", f"an array of shape {arr.shape}")
    if arr.size == 0:
        raise param_error(name, func, "a non-empty array", "an empty array")
    if arr.dtype.kind in "biuf":
        return as_1d_numeric(arr, name, func)
    if arr.dtype.kind in "US":
        return arr
    if arr.dtype.kind in "Mm":
        bad = np.isnat(arr)
    else:
        if arr.dtype != object:
            raise param_error(name, func, "class labels (numbers, strings or hashable "
                              "objects)", f"dtype {arr.dtype}", TypeError)
        bad = np.fromiter((v is None or (isinstance(v, (float, np.floating)) and
                                         not math.isfinite(v)) for v in arr.tolist()),
                          dtype=bool, count=arr.size)
    if bad.any():
        raise param_error(name, func, "class labels, not None, nan, inf or NaT",
                          _first_bad(bad, arr))
    return arr


def _ne(arr: np.ndarray, value) -> np.ndarray:
    """``arr != value`` element by element (by Python equality for objects: numpy would
    broadcast a tuple label against the array)."""
    if arr.dtype == object:
        return np.fromiter((bool(v != value) for v in arr.tolist()), dtype=bool,
                           count=arr.size)
    return arr != value


def check_binary_labels(y_true, pos_label, func: str, name: str = "y_true") -> np.ndarray:
    """Boolean "is positive" of binary class labels of any type, by scikit-learn's rules.

    ``y_true`` holds at most two distinct labels: bools, numbers, strings or other hashable
    objects (compared by equality: ``1``, ``1.0`` and ``True`` are one label). With
    ``pos_label=None`` the positive class is the greater of the two labels, the rule of
    ``sklearn.metrics.roc_auc_score`` (its ``label_binarize`` over ``np.unique``): ``True``,
    ``1`` of {0, 1} or {-1, 1}, ``2`` of {1, 2}, ``"yes"`` of {"no", "yes"}. Labels that do
    not order (``1`` and ``"a"``) need ``pos_label``. A given ``pos_label`` must be one of
    the labels when there are two; with one label only, every sample is positive (its
    label is ``pos_label``, or ``pos_label`` is None) or none is: either way the AUC is
    undefined.

    Raises `ValueError` naming ``name`` for more than two labels, empty or non 1-D input,
    NaN, infinite, None or NaT labels, and naming ``pos_label`` for a ``pos_label`` that is
    not a label or is needed; `TypeError` for an unhashable ``pos_label``.
    Runtime complexity: ``O(n)`` (vectorized, but for arrays of objects).

    >>> check_binary_labels(["no", "yes", "yes"], None, "f").tolist()
    [False, True, True]
    >>> check_binary_labels([1, 2, 1], 1, "f").tolist()
    [True, False, True]
    """
    try:
        hash(pos_label)
    except TypeError:
        raise param_error("pos_label", func, "a class label (hashable) or None",
                          describe(pos_label), TypeError) from None
    y = _label_values(y_true, name, func)
    if y.dtype == bool and pos_label is None:
        return y
    first = y[0]
    other = _ne(y, first)
    rest = y[other]
    second = rest[:1]
    if second.size and _ne(rest, second[0]).any():
        seen = set(y.tolist())
        try:
            seen = sorted(seen)
        except TypeError:
            seen = sorted(seen, key=repr)
        raise param_error(name, func, "binary (two distinct values)",
                          f"more than two distinct values: {describe(seen[:5])}")
    labels = [first] if not second.size else [first, second[0]]
    shown = [v.item() if isinstance(v, np.generic) else v for v in labels]
    for v in labels:
        try:
            hash(v)
        except TypeError:
            raise param_error(name, func, "hashable class labels", describe(v),
                              TypeError) from None
    if pos_label is None:
        if len(labels) == 1:
            return np.ones(y.size, dtype=bool)
        try:
            positive_is_first = bool(first > second[0])
        except TypeError:
            raise param_error("pos_label", func, "given when the labels do not order (the "
                              "positive class is otherwise the greater label, as in "
                              "scikit-learn)", f"None (labels: {describe(shown)})") from None
        return ~other if positive_is_first else other
    if bool(first == pos_label):
        return ~other
    if second.size and bool(second[0] == pos_label):
        return other
    if second.size:
        raise param_error("pos_label", func, "one of the labels in y_true",
                          f"{pos_label!r} (labels: {describe(sorted(shown, key=repr))})")
    return np.zeros(y.size, dtype=bool)


def check_consistent_length(func: str, **arrays) -> int:
    """The common length of the named arrays; `ValueError` naming every length otherwise."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    first, n = next(iter(lengths.items()))
    for name, length in lengths.items():
        if length != n:
            got = ", ".join(f"len({k})={v}" for k, v in lengths.items())
            raise param_error(name, func, f"the same length as {first!r}", got)
    return n


def check_weights(sample_weight, n: int, func: str, name: str = "sample_weight", *,
                  bounded: bool = False):
    """``None`` (unit weights) or a float64 array of ``n`` finite weights ``>= 0``.

    ``None`` stays ``None`` so that the kernels take their exact integer paths. With
    ``bounded=True`` (incremental objects) every nonzero weight must also lie in
    ``[MIN_WEIGHT, MAX_WEIGHT]``, and integer weights must be float64 values.
    """
    if sample_weight is None:
        return None
    w = as_1d_numeric(sample_weight, name, func, allow_empty=True, as_float=bounded)
    if w.shape[0] != n:
        raise param_error(name, func, f"of length {n} (one weight per sample)",
                          f"length {w.shape[0]}")
    w = w.astype(np.float64, copy=False)
    neg = w < 0
    if neg.any():
        raise param_error(name, func, "non-negative", _first_bad(neg, w))
    if bounded:
        out = (w > MAX_WEIGHT) | ((w < MIN_WEIGHT) & (w != 0))
        if out.any():
            raise param_error(name, func, _DOMAIN, _first_bad(out, w))
    return w


def as_events(x, name: str, func: str, *, allow_empty: bool = False) -> np.ndarray:
    """``x`` as a boolean array of event indicators: booleans, or numbers 0 (censored) and
    1 (observed). `ValueError` naming ``name`` for any other value. Runtime: ``O(n)``.

    >>> as_events([1, 0, 1], "event_observed", "f").tolist()
    [True, False, True]
    """
    e = as_1d_numeric(x, name, func, allow_empty=allow_empty)
    if e.dtype == bool:
        return e
    if not ((e == 0) | (e == 1)).all():
        raise param_error(name, func, "0/1 or booleans",
                          f"values such as {describe(np.unique(e)[:5].tolist())}")
    return e == 1


def check_binary_levels(values, name: str, func: str, *, more: bool = False) -> None:
    """`ValueError` unless the distinct label values ``values`` are at most two. ``more``
    says that the labels hold further values beyond ``values`` (which then list some of
    them, for the message). Runtime: ``O(L log L)`` for ``L`` values.

    >>> check_binary_levels([0, 1], "y_true", "f")
    >>> check_binary_levels([0, 1, 2], "y_true", "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'y_true' parameter of f must be binary (two distinct values). Got more than two distinct values: [0, 1, 2] instead.
    """
    vals = np.unique(np.asarray(values))
    if more or vals.size > 2:
        raise param_error(name, func, "binary (two distinct values)",
                          f"more than two distinct values: {describe(vals[:5].tolist())}")


def check_option(value, name: str, func: str, choices: tuple):
    """``value`` if it is one of ``choices``; `ValueError` naming ``name`` otherwise.

    >>> check_option("b", "variant", "f", ("a", "b"))
    'b'
    >>> check_option("d", "variant", "f", ("a", "b"))
    Traceback (most recent call last):
    ...
    ValueError: The 'variant' parameter of f must be one of ('a', 'b'). Got 'd' instead.
    """
    if value not in choices:
        raise param_error(name, func, f"one of {choices}", describe(value))
    return value


def check_int(value, name: str, func: str, *, minimum: int = 1, allow_none: bool = False,
              expected: str | None = None):
    """An integer parameter (``int`` or numpy integer, not bool) ``>= minimum``, as a Python
    ``int`` (or None when ``allow_none``); errors name ``name``, what was expected (the
    words ``expected``, if given) and what was received.

    >>> check_int(np.int64(3), "window", "f")
    3
    >>> check_int(0, "window", "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'window' parameter of f must be a positive int. Got 0 instead.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise param_error(name, func, expected or what + (" or None" if allow_none else ""),
                          describe(value))
    return int(value)


def check_period(value, name: str, func: str) -> float:
    """A positive finite duration in seconds (int or float, not bool) as a Python float.

    >>> check_period(3600, "period", "f")
    3600.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
            or not (math.isfinite(value) and value > 0):
        raise param_error(name, func, "a positive finite number", describe(value))
    return float(value)


def check_scalar(value, name, func, *, kind="finite number") -> float:
    """A finite real (bool, int or float) as a Python float; errors name ``name``.

    An ``int`` that float64 cannot hold exactly (beyond ``2**53``) is refused, not rounded:
    incremental objects hold labels and scores as float64, and two such ints that round to
    one float would tie where `streamrank.pair_counts` orders them.
    """
    if isinstance(value, float) and value - value == 0.0:  # the hot path: finite floats
        return float(value)                                 # (numpy's float64 too)
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, np.integer)):
        return _exact_float(value, name, func, kind)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isfinite(value):
            return value
        raise param_error(name, func, f"a {kind}", repr(value))
    raise param_error(name, func, f"a {kind} (bool, int or float)", describe(value), TypeError)


def _exact_float(value, name, func, kind) -> float:
    """An integer as the float64 that equals it; `ValueError` if there is none."""
    value = int(value)
    try:
        f = float(value)
    except OverflowError:
        f = math.inf
    if abs(value) <= MAX_EXACT_INT or (math.isfinite(f) and int(f) == value):
        return f
    raise param_error(name, func, f"a {kind} that float64 holds exactly (integers beyond "
                      "2**53 must be float64 values)", describe(value))


def check_weight(w, func, name="w"):
    """A weight of an incremental object: ``0`` or within ``[MIN_WEIGHT, MAX_WEIGHT]``,
    as a Python ``int`` when integer-valued up to ``2**53`` (exact counts), else a float.
    """
    if (type(w) is float or type(w) is int) and w == 1:  # the hot path: unit weights
        return 1
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, float, np.integer, np.floating)):
        raise param_error(name, func, "a non-negative finite number", describe(w), TypeError)
    if isinstance(w, (int, np.integer)):
        if w < 0:
            raise param_error(name, func, "non-negative", describe(w))
        w = _exact_float(w, name, func, "weight")
    w = float(w)
    if not (w >= 0 and math.isfinite(w)):
        raise param_error(name, func, "a non-negative finite number", repr(w))
    if w != 0 and not MIN_WEIGHT <= w <= MAX_WEIGHT:
        raise param_error(name, func, _DOMAIN, repr(w))
    return int(w) if w <= MAX_EXACT_INT and w.is_integer() else w


def check_level(level, func: str) -> float:
    """A confidence level strictly between 0 and 1 (a real, not bool), as a float."""
    value = check_scalar(level, "level", func, kind="number strictly between 0 and 1")
    if isinstance(level, (bool, np.bool_)) or not 0.0 < value < 1.0:
        raise param_error("level", func, "a number strictly between 0 and 1", describe(level))
    return value
