"""Damaged copies of a snapshot, for the tests that every damage loads an equal object or
raises `streamrank.SnapshotError` (tests only)."""

from __future__ import annotations


def damaged(data: bytes, how: int, at: int, size: int, byte: int) -> bytes:
    """``data`` with ``how``: 0 ``size`` bytes from ``at`` overwritten with ``byte``;
    1 truncated at ``at``; 2 ``size`` bytes cut out at ``at``; 3 a byte of the zip
    directory at the end set to ``byte`` (``at`` taken modulo the length)."""
    b = bytearray(data)
    at %= len(b)
    if how == 0:            # overwrite bytes
        b[at:at + size] = bytes([byte]) * len(b[at:at + size])
    elif how == 1:          # truncate
        del b[at:]
    elif how == 2:          # cut a piece out
        del b[at:at + size]
    else:                   # damage the zip directory at the end
        i = len(b) - 1 - at % min(len(b), 400)
        b[i] = byte
    return bytes(b)
