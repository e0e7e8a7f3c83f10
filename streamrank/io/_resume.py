"""Resuming an `EventSource` where a checkpoint left it: the `Position`, the fingerprint
of the input's first bytes (`HEAD_BYTES`), and the checks that the input is the one a
position belongs to (`InputMismatch`).

`ResumeMode` is a base class of `EventSource` working on its state: the stream, the bytes
read (``_offset``, ``_end``), ``_head`` (a stream's first bytes, as read) and the start
position.

>>> import hashlib, io
>>> from streamrank.io.events import EventSource
>>> data = b"id,score\\na,0.5\\nb,0.25\\n"
>>> src = EventSource(io.BytesIO(data))
>>> rows = list(src)
>>> src.position, src.head() == (len(data), hashlib.sha256(data).hexdigest())
(Position(rows=2, offset=None), True)
"""

from __future__ import annotations

import os
from typing import NamedTuple

from ._records import EventError

__all__ = ["HEAD_BYTES", "InputMismatch", "Position", "ResumeMode"]


class Position(NamedTuple):
    """Where a reader is: ``rows`` consumed (header excluded), and the byte ``offset``
    just past the last of them (None when not seekable: a pipe, standard input, a
    compressed file, Parquet)."""

    rows: int
    offset: int | None


#: Bytes at the start of an input that a checkpoint fingerprints (`EventSource.head`).
HEAD_BYTES = 1 << 16


class InputMismatch(EventError):
    """The input is not the one a resumed position belongs to (another file, one
    truncated or rewritten, a stream shorter than the position): nothing was read."""


class ResumeMode:
    """Positions and fingerprints of `streamrank.io.events.EventSource`."""

    def head(self, n: int | None = None) -> tuple[int, str]:
        """``(n, sha256 hex)`` of the input's first ``n`` bytes (default: the bytes up to
        `position`, at most `HEAD_BYTES`; a Parquet file: its first `HEAD_BYTES`).

        A checkpoint stores it; `expect_head` checks a resumed input against it.
        """
        import hashlib

        if n is None:
            n = min(HEAD_BYTES, os.path.getsize(self.path) if self.format == "parquet"
                    else self.consumed)
        data = self._head_bytes(n)
        return n, hashlib.sha256(data[:n]).hexdigest()

    def _head_bytes(self, n) -> bytes:
        if self.seekable and not self.stream.closed:
            return os.pread(self.stream.fileno(), n, 0)
        if self.seekable or self.format == "parquet":
            with open(self.path, "rb") as f:
                return f.read(n)
        return bytes(self._head[:n])

    def expect_head(self, n: int, digest: str, on_mismatch=None) -> None:
        """Check that the input starts with the ``n`` bytes whose SHA-256 is ``digest``.

        A file is checked now; a stream (standard input, a compressed file) as its first
        ``n`` bytes are read, before any row past them. A mismatch calls
        ``on_mismatch(message)`` (default: raise `InputMismatch`).
        """
        self._expect = (int(n), digest, on_mismatch)
        if self.seekable or self.format == "parquet" or len(self._head) >= n:
            self._check_head()

    def _check_head(self, ended=False) -> None:
        n, digest, on_mismatch = self._expect
        if not (ended or self.seekable or self.format == "parquet") and len(self._head) < n:
            return  # a stream: not read that far yet
        data = self._head_bytes(n)
        self._expect = None
        if len(data) < n:
            message = (f"it has {len(data)} bytes, fewer than the {n} the checkpoint "
                       "fingerprinted: it was truncated or replaced")
        elif self.head(n)[1] != digest:
            message = (f"its first {n} bytes differ from those of the input the "
                       "checkpoint was taken on (another file, or one rewritten)")
        else:
            return
        if on_mismatch is None:
            raise InputMismatch(message)
        on_mismatch(message)

    def _seek_or_skip(self) -> int:
        """Move to the start position: seek (returns 0 rows left to skip) or not."""
        start = self._start
        if start.rows == 0:
            return 0
        if self.seekable and start.offset is not None:
            size = os.fstat(self.stream.fileno()).st_size
            if size < start.offset:
                raise InputMismatch(f"the file has {size} bytes, fewer than the "
                                    f"checkpoint's position {start.offset}: it was "
                                    "truncated or replaced")
            offset = max(start.offset, self._offset)    # (0: a new content's start)
            self.stream.seek(offset)
            self._seeked, self._line_base = offset, None
            self._offset = self._end = self._prev_end = offset
            self._pending = b""
            self._queued.clear()
            self._head = bytearray(os.pread(self.stream.fileno(), min(HEAD_BYTES, offset),
                                            0))
            self._rows = start.rows
            return 0
        return start.rows

    def from_start(self) -> None:
        """Read the file from its start (after its header), numbering rows on from the
        resumed position: a file rotated since the checkpoint, resumed anyway."""
        self._start = Position(self._start.rows, 0)
        self._expect = None


def _count_lines(path, offset: int) -> int:
    """The line ends (LF) in the first ``offset`` bytes of a file. ``O(offset)``."""
    count = 0
    with open(path, "rb") as f:
        while offset > 0:
            chunk = f.read(min(offset, 1 << 22))
            if not chunk:
                break
            count += chunk.count(b"\n")
            offset -= len(chunk)
    return count
