"""Arrow columns as numpy, without pandas: validity masks, float64 and int64 views, the
vectorized number parse (the rules of `streamrank.io._numbers`), text checks and id arrays.

Every conversion of a Python or numpy value to Arrow (``pa.scalar``, ``pa.array``,
``fill_null(x)``, even ``to_numpy()`` of integers) makes pyarrow import pandas: 0.3 s and
50 MB for a command that never needs it. These helpers go through the buffers instead
(and the string comparisons are regex options, not scalars).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._numbers import BOOL_WORDS as _BOOL_WORDS
from ._numbers import NUMBER as _NUMBER
from ._numbers import parse_time

# Bad-value codes, in the order a row reports them (the first bad column wins).
_OK, _MISSING, _NOT_NUMBER, _NOT_FINITE, _INVALID, _NOT_TEXT, _INEXACT = range(7)


def _valid(arr: pa.Array) -> np.ndarray | None:
    """The validity bitmap of an array as numpy bools (None: no nulls)."""
    if not arr.null_count:
        return None
    bits = np.frombuffer(arr.buffers()[0], dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little")[arr.offset:arr.offset + len(arr)].astype(bool)


def _one_chunk(arr) -> pa.Array:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _bools(arr) -> np.ndarray:
    """A pyarrow boolean array (nulls as False) as a writable numpy bool array."""
    arr = _one_chunk(arr)
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
    out = np.unpackbits(bits, bitorder="little")[arr.offset:arr.offset + len(arr)].astype(bool)
    valid = _valid(arr)
    if valid is not None:
        out &= valid
    return out


def _floats(arr) -> np.ndarray:
    """A pyarrow float64 array (nulls as NaN) as a numpy array (read-only when a view)."""
    arr = _one_chunk(arr)
    if len(arr) == 0:
        return np.zeros(0)
    valid = _valid(arr)
    data = np.frombuffer(arr.buffers()[1], dtype=np.float64)[arr.offset:arr.offset + len(arr)]
    if valid is None:
        return data
    data = data.copy()
    data[~valid] = np.nan
    return data


def _int64s(arr) -> np.ndarray:
    """An integer pyarrow array without nulls as numpy int64."""
    arr = _one_chunk(pc.cast(arr, pa.int64()))
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + len(arr)]


def _arrow_mask(mask: np.ndarray) -> pa.Array:
    """A numpy bool array as an Arrow boolean array (for ``filter``), through a buffer."""
    return pa.Array.from_buffers(pa.bool_(), mask.size,
                                 [None, pa.py_buffer(np.packbits(mask, bitorder="little"))])


def _parse_numbers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Text -> ``(float64 values, bad codes)``; nulls are ``_MISSING``, non-numbers
    ``_NOT_NUMBER`` (their value is NaN). Vectorized: one cast in the common case; a regex
    mask, then bisection on whatever the cast still rejects, when some value is bad."""
    missing = _bools(arr.is_null())
    try:
        values = pc.cast(arr, pa.float64())
        bad = missing.astype(np.uint8)  # _MISSING == 1
        return _floats(values), bad
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    text = pc.utf8_trim_whitespace(arr)
    is_true, is_false = (_bools(pc.match_substring_regex(text, f"^{w}$", ignore_case=True))
                         for w in _BOOL_WORDS)
    looks_arrow = pc.match_substring_regex(text, _NUMBER, ignore_case=True)
    looks = _bools(looks_arrow)
    values = np.full(len(arr), np.nan)
    got, rejected = _cast_bisect(text.filter(looks_arrow))
    where = np.flatnonzero(looks)
    values[where] = got
    looks[where[rejected]] = False
    values[is_true] = 1.0
    values[is_false] = 0.0
    bad = np.zeros(len(arr), dtype=np.uint8)
    bad[~looks & ~is_true & ~is_false] = _NOT_NUMBER
    bad[missing] = _MISSING
    values[bad != _OK] = np.nan
    return values, bad


def _cast_bisect(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Cast text to float64; the values the cast rejects come back NaN and flagged (see
    `_rejected`)."""
    pieces, rejected = _rejected(arr, pa.float64())
    values = np.full(len(arr), np.nan)
    for start, piece in pieces:
        values[start:start + len(piece)] = _floats(piece)
    return values, rejected


def _rejected(arr: pa.Array, to_type, start=0) -> tuple[list, np.ndarray]:
    """Cast ``arr`` to ``to_type`` where it can be: ``([(start, cast piece), ...],
    rejected mask)``. The values the cast rejects are found by halving the array
    (``O(b log n)`` casts for ``b`` rejected values)."""
    n = len(arr)
    try:
        return [(start, pc.cast(arr, to_type))], np.zeros(n, dtype=bool)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        if n == 1:
            return [], np.ones(1, dtype=bool)
    h = n // 2
    p1, r1 = _rejected(arr.slice(0, h), to_type, start)
    p2, r2 = _rejected(arr.slice(h), to_type, start + h)
    return p1 + p2, np.concatenate([r1, r2])


def _as_text(arr) -> tuple[pa.Array, np.ndarray | None]:
    """A binary column (CSV cells, Parquet bytes) as text: ``(string array, mask of the
    values that are not UTF-8 or None)``; those values become nulls. Other columns pass
    unchanged. One UTF-8 check; the bad values are found by `_rejected`."""
    arr = _one_chunk(arr)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if not (pa.types.is_binary(t) or pa.types.is_large_binary(t)):
        return arr, None
    to_type = pa.string() if pa.types.is_binary(t) else pa.large_string()
    try:
        return pc.cast(arr, to_type), None
    except pa.ArrowInvalid:
        pass
    _, bad = _rejected(arr, to_type)
    keep = ~bad
    valid = _valid(arr)
    if valid is not None:
        keep &= valid
    # The same offsets and data, the bad values masked as nulls (through the buffers: a
    # null's bytes are never read as text).
    bits = np.zeros(arr.offset + len(arr), dtype=bool)
    bits[arr.offset:] = keep
    validity = pa.py_buffer(np.packbits(bits, bitorder="little"))
    buffers = arr.buffers()
    text = pa.Array.from_buffers(to_type, len(arr), [validity, buffers[1], buffers[2]],
                                 offset=arr.offset)
    return text, bad


def _to_numeric(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Any pyarrow column -> ``(float64 values, bad codes)`` (before the finite check)."""
    t = arr.type
    if pa.types.is_dictionary(t):
        return _to_numeric(arr.dictionary_decode())
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _parse_numbers(arr)
    if pa.types.is_null(t):
        return np.full(len(arr), np.nan), np.full(len(arr), _MISSING, dtype=np.uint8)
    if pa.types.is_temporal(t):
        # Times (a survival time column as timestamps or durations): only their order
        # matters to a rank metric, so their integer ticks serve.
        arr = pc.cast(arr, pa.int64()) if not pa.types.is_date32(t) else pc.cast(
            pc.cast(arr, pa.int32()), pa.int64())
    elif pa.types.is_boolean(t):
        arr = pc.cast(arr, pa.int8())
    elif not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)):
        # Lists, structs, binary: not a number; the cast error is what we report.
        text = pc.cast(arr, pa.string()) if pa.types.is_binary(t) else None
        if text is not None:
            return _parse_numbers(text)
        missing = _bools(arr.is_null())
        bad = np.where(missing, _MISSING, _NOT_NUMBER).astype(np.uint8)
        return np.full(len(arr), np.nan), bad
    values = _floats(pc.cast(arr, pa.float64()))
    bad = _bools(arr.is_null()).astype(np.uint8)
    return values, bad



def _keys_array(chunks: list, key_codes: bool):
    """Key chunks -> one numpy array: int64 for integers (whole-number floats and text
    that is canonical integers included), float64 for other floats, else ``str`` (or
    int64 codes into sorted levels)."""
    if not chunks:
        return np.zeros(0, dtype=np.int64), None
    types = {ch.type for ch in chunks}
    if len(types) > 1:
        chunks = [ch if pa.types.is_string(ch.type) else pc.cast(ch, pa.string())
                  for ch in chunks]
    arr = pa.chunked_array(chunks).combine_chunks()
    t = arr.type
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return _int64s(arr), None
    if pa.types.is_floating(t) or pa.types.is_decimal(t):
        values = _floats(pc.cast(arr, pa.float64()))
        # Whole numbers (JSON writes 17.0, pandas an int column with gaps) are the same
        # ids as the integers of a CSV file.
        if np.all(np.abs(values) < 2.0**63) and np.array_equal(values, np.round(values)):
            return values.astype(np.int64), None
        return values, None
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        arr = pc.cast(arr, pa.string())
    if len(arr):
        try:
            ints = pc.cast(arr, pa.int64())
            # "007" or "+7" would collide with "7": only text that reads back unchanged.
            if pc.all(pc.equal(pc.cast(ints, pa.string()), arr)).as_py():
                return _int64s(ints), None
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    enc = pc.dictionary_encode(arr)
    uniq = np.array(enc.dictionary.to_pylist(), dtype=str)   # one per distinct id
    idx = _int64s(enc.indices)
    if not key_codes:
        return uniq[idx], None
    order = np.argsort(uniq, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[idx], uniq[order]


def _to_times(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A time column -> ``(float64 values, bad codes)``: numbers as `_to_numeric` reads
    them, and text that is not a number but an ISO 8601 timestamp as POSIX seconds
    (`streamrank.io._numbers.parse_time`, the rule of ``streamrank monitor``). ``O(n)``
    plus one Python parse per distinct timestamp text."""
    return _times(arr)[:2]


def _times(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, bool]:
    """`_to_times`, and whether a value was an ISO 8601 timestamp."""
    values, bad = _to_numeric(arr)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return values, bad, False
    where = np.flatnonzero(bad == _NOT_NUMBER)
    if where.size == 0:
        return values, bad, False
    enc = pc.dictionary_encode(arr.filter(_arrow_mask(bad == _NOT_NUMBER)))
    parsed = []
    for text in enc.dictionary.to_pylist():
        try:
            parsed.append(parse_time(text)[0])
        except ValueError:
            parsed.append(None)
    got = np.array([np.nan if p is None else p for p in parsed])
    ok = np.array([p is not None for p in parsed], dtype=bool)
    idx = _int64s(enc.indices)
    values = np.array(values)
    values[where] = got[idx]
    bad[where[ok[idx]]] = _OK
    return values, bad, bool(ok.any())
