"""Versioned numpy snapshots (``np.savez``, no pickled objects) of the keyed structures:
`PairCounter.to_bytes` and `Monitor.to_bytes` share the key rule and the header checks."""

from __future__ import annotations

import io
import numbers

import numpy as np

from ._validation import describe

__all__ = ["dump", "key_array", "load"]


def key_array(keys: list, func: str) -> np.ndarray:
    """``keys`` as one numpy array: they must be all ints or all strings (`TypeError`
    naming ``func`` otherwise; pickle the object for other keys).

    >>> key_array([3, 1], "f").tolist(), key_array(["a", "bc"], "f").tolist()
    ([3, 1], ['a', 'bc'])
    >>> key_array([1, "a"], "f")
    Traceback (most recent call last):
    ...
    TypeError: f needs keys that are all ints or all strings; got keys such as [1, 'a']. Use pickle for other keys.
    """
    arr = np.array(keys)
    # numpy turns [1, "a"] into strings: mixed keys would come back as other keys.
    kind = str if arr.dtype.kind == "U" else numbers.Integral
    if keys and (arr.ndim != 1 or arr.dtype.kind not in "iuU"
                 or not all(isinstance(k, kind) for k in keys)):
        raise TypeError(f"{func} needs keys that are all ints or all strings; got keys such "
                        f"as {describe(keys[:3])}. Use pickle for other keys.")
    return arr


def dump(fmt: str, version: int, **arrays) -> bytes:
    """An ``np.savez`` archive of ``arrays`` with a ``format`` and ``version`` header."""
    buf = io.BytesIO()
    np.savez(buf, format=np.array(fmt), version=np.array(version), **arrays)
    return buf.getvalue()


def load(data: bytes, fmt: str, max_version: int, func: str) -> dict:
    """The arrays of a snapshot written by `dump` with format ``fmt`` (`ValueError` naming
    ``func`` for another format or a version newer than ``max_version``).

    >>> load(dump("demo", 1, x=np.arange(3)), "demo", 1, "f")["x"].tolist()
    [0, 1, 2]
    >>> load(dump("demo", 2), "demo", 1, "f")
    Traceback (most recent call last):
    ...
    ValueError: f: snapshot version 2 is newer than this streamrank (reads up to 1).
    """
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        if "format" not in z or str(z["format"]) != fmt:
            raise ValueError(f"{func}: not a {fmt.rsplit('.', 1)[-1]} snapshot.")
        version = int(z["version"])
        if version > max_version:
            raise ValueError(f"{func}: snapshot version {version} is newer than this "
                             f"streamrank (reads up to {max_version}).")
        return {k: z[k] for k in z.files}
