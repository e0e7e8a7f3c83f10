"""Input validation at the public boundary.

Every message has one format, naming the parameter, the function, what was expected and what
was received::

    The 'y_score' parameter of roc_auc_score must be finite numbers. Got nan at index 3 instead.

Validation reads its inputs only; callers validate a whole batch before changing any state.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "as_1d_numeric",
    "check_consistent_length",
    "check_weights",
    "describe",
    "param_error",
]


def describe(value) -> str:
    """A short, readable description of a received value for an error message."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def param_error(name: str, func: str, expected: str, got: str, cls=ValueError) -> Exception:
    """The one message format: ``The 'name' parameter of func must be expected. Got got instead.``"""
    return cls(f"The {name!r} parameter of {func} must be {expected}. Got {got} instead.")


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
) -> np.ndarray:
    """``x`` as a 1-D array of finite numbers, converted to ``dtype`` when it is not bool/int.

    Booleans and integers keep an integer dtype (exact comparisons, no float rounding of
    large integers); everything else becomes float64. Raises `TypeError` for non-numeric
    input and `ValueError` for wrong shape, empty input, NaN or infinity.
    """
    arr = np.asarray(x)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
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
        return arr  # exact already, and always finite
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise param_error(name, func, "finite numbers", _first_bad(bad, arr))
    return arr


def check_consistent_length(func: str, **arrays) -> int:
    """The common length of the named arrays; `ValueError` naming every length otherwise."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    first, n = next(iter(lengths.items()))
    for name, length in lengths.items():
        if length != n:
            got = ", ".join(f"len({k})={v}" for k, v in lengths.items())
            raise param_error(name, func, f"the same length as {first!r}", got)
    return n


def check_weights(sample_weight, n: int, func: str, name: str = "sample_weight"):
    """``None`` (unit weights) or a float64 array of ``n`` finite weights ``>= 0``.

    ``None`` stays ``None`` so that the kernels take their exact integer paths.
    """
    if sample_weight is None:
        return None
    w = as_1d_numeric(sample_weight, name, func, allow_empty=True)
    if w.shape[0] != n:
        raise param_error(name, func, f"of length {n} (one weight per sample)",
                          f"length {w.shape[0]}")
    w = w.astype(np.float64, copy=False)
    neg = w < 0
    if neg.any():
        raise param_error(name, func, "non-negative", _first_bad(neg, w))
    return w
