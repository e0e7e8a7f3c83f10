"""Blocks of CSV rows read at once: the fast path of `streamrank.io.events.EventSource`.

Where a CSV (or TSV) stream is plain, the source reads up to `BLOCK_BYTES` at a time,
cuts them at the last line end and hands the whole lines to a parse function (the
parser's `streamrank.io.events.EventParser.block`), which turns them into columns in a
few vectorized calls, or declines. A block is taken only when nothing about it needs
the row-by-row reader: no quote, no blank line, no carriage return but in CRLF line
ends, UTF-8 text, every row the header's width, every cell by the number rules; the
parse function checks the cells. A block declined goes back, line by line, to the
row-by-row reader, which reads it as it reads every row (and says where a bad row is);
so the rows, their numbers, lines and positions, and every error are the same either
way.

A `Block` knows the position after each of its rows, as the source knows it after each
row it yields, so a caller that stops inside a block (an error, a signal) or saves a
checkpoint there keeps its place exactly.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ._resume import HEAD_BYTES, Position

__all__ = ["BLOCK_BYTES", "Block", "BlockMode"]

#: Bytes read at once for a block (the rows of a block are whole lines of them).
BLOCK_BYTES = 1 << 20


class Block:
    """Rows ``first .. first + n - 1`` of the source, parsed into ``columns`` (what the
    parse function returned), with the position after each row.

    ``ends[i]``: the byte count of the input (from its start, the header included) up
    to the end of row ``i`` (0-based in the block); ``start``: up to the row before the
    block; ``seekable``: whether a `Position` carries the offset."""

    __slots__ = ("first", "n", "columns", "start", "ends", "seekable", "_line")

    def __init__(self, first, columns, start, ends, seekable, line_of) -> None:
        self.first, self.n, self.columns = first, len(ends), columns
        self.start, self.ends, self.seekable = start, ends, seekable
        self._line = line_of

    def row(self, i: int) -> int:
        """The row number of row ``i`` of the block."""
        return self.first + i

    def line(self, i: int) -> int:
        """The line where row ``i`` starts (each row of a block is one line)."""
        return self._line(i)

    def consumed(self, i: int) -> int:
        """Bytes up to the end of row ``i`` (``i = -1``: before the block)."""
        return self.start if i < 0 else int(self.ends[i])

    def position(self, i: int) -> Position:
        """The position after row ``i`` (``i = -1``: before the block)."""
        return Position(self.first + i, self.consumed(i) if self.seekable else None)


class BlockMode:
    """`EventSource`'s block reading (module docstring): `_block`, and the queue of
    complete lines put back (`_queued`) that the row-by-row reader takes first."""

    __slots__ = ()

    def _take_queued(self) -> bytes | None:
        """The next line put back (`_unread`, a declined block), or None."""
        queued = self._queued
        if not queued:
            return None
        line = queued.popleft()
        self._offset += len(line)
        return line

    def _block(self, parse) -> Block | None:
        """The next rows as a `Block` (``parse(body)``: their columns, or None to
        decline), or None: the row-by-row reader goes on (nothing to read now, a
        fragment, or a declined block, whose lines it then reads first)."""
        if self._queued or self._switched is not None or self.stopped \
                or len(self._head) < HEAD_BYTES:
            return None
        read = getattr(self.stream, "read1", self.stream.read)
        chunk = self._blocking(read, BLOCK_BYTES)
        if not chunk:
            return None
        data = self._pending + chunk if self._pending else chunk
        cut = data.rfind(b"\n") + 1
        body, self._pending = data[:cut], data[cut:]
        if not body:
            return None
        columns = parse(body) if _plain(body) else None
        if columns is None:
            lines = body.split(b"\n")
            lines.pop()     # (after the last line end)
            self._queued = deque(line + b"\n" for line in lines)
            return None
        return self._took(body, columns)

    def _took(self, body, columns) -> Block:
        """Count the rows of ``body`` read (the source's state after its last row)."""
        ends = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == 10)
        start = self._offset
        ends += start + 1
        first, n = self._rows + 1, len(ends)
        line0 = self._lines_read

        def line_of(i):
            if self._line_base is None:
                self.line   # (counts the lines before a resumed position)
            return self._line_base + line0 + i + 1

        self._offset += len(body)
        self._lines_read += n
        self._rows += n
        self._end = self._offset
        before = int(ends[-2]) if n > 1 else start
        self._prev = Position(self._rows - 1, before if self.seekable else None)
        self._prev_end = before
        self._record_row, self._record_line = self._rows, self._lines_read
        self._idle_since = None
        return Block(first, columns, start, ends, self.seekable, line_of)


def _plain(body: bytes) -> bool:
    """Whether ``body`` (whole lines) can be a block: no quote, no blank line, no
    carriage return but before a line feed, UTF-8 text."""
    if b'"' in body or b"\n\n" in body or body[:1] == b"\n":
        return False
    cr = body.count(b"\r")
    if cr and (cr != body.count(b"\r\n") or b"\r\n\r\n" in body or body[:2] == b"\r\n"):
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
