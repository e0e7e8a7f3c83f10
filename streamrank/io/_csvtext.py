"""The raw text of a CSV or TSV file, for `streamrank.io.tables`: its header, and the line
where each row starts.

pyarrow parses the rows; these helpers read the bytes around it for what pyarrow does not
say: the column names (checked before any row is read: text, no NUL byte, UTF-8, no
blank line), and, for messages only, the line of a row as an editor numbers it (a row
after blank lines or with a quoted field spanning lines is not on line ``row + 1``);
and the stream pyarrow reads the text from (`Guarded`: safe to close under pyarrow's
read-ahead).

Lines end with LF, CRLF or CR alone, as pyarrow reads them. A *record* is what pyarrow
counts as a row (its ``row.number``, the header being record 0): a line end outside
double quotes ends one, and empty records are no records. A *blank* record holds nothing
but spaces and tabs: `streamrank.io.tables` skips it, as it skips empty lines.
"""

from __future__ import annotations

import csv
import io
import sys
import threading
import zlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

__all__ = ["Guarded", "Header", "HeaderError", "Prefixed", "RecordLines", "is_blank_record",
           "read_header"]

#: Bytes read for a header before giving up (a file without a line end this long is not
#: a CSV file with a header).
HEADER_MAX = 1 << 24

_LF, _CR, _QUOTE = 10, 13, 34


_limit_lock = threading.Lock()
_lifted = {"uses": 0, "limit": None}    # uses of `_any_field_length`; the limit it lifted


@contextmanager
def _any_field_length():
    """Python's ``csv`` module without its limit on a field's length (131072 characters)
    for the duration. The limit is global: the first of overlapping uses (nested, or in
    other threads) lifts it, the last one puts it back."""
    with _limit_lock:
        if _lifted["uses"] == 0:
            _lifted["limit"] = csv.field_size_limit(sys.maxsize)
        _lifted["uses"] += 1
    try:
        yield
    finally:
        with _limit_lock:
            _lifted["uses"] -= 1
            if _lifted["uses"] == 0:
                csv.field_size_limit(_lifted["limit"])


class HeaderError(ValueError):
    """The header cannot be read; ``line`` is its line (None: an empty file)."""

    def __init__(self, reason, line=None):
        super().__init__(reason)
        self.reason, self.line = reason, line


@dataclass
class Header:
    """The header of a CSV text.

    Attributes
    ----------
    names : list of str
        The column names, in order.
    line : int
        The line where the header starts (1 unless empty lines come first).
    consumed : bytes
        Every byte read from the stream (the header and what followed it in the last
        read), to hand back to a reader of a stream that cannot seek.
    at_end : bool
        The header is the whole text, without a line end (pyarrow refuses such a text:
        it has no rows).
    """

    names: list
    line: int
    consumed: bytes
    at_end: bool = False


def _line_ends(b: np.ndarray) -> np.ndarray:
    """Positions of the line ends of ``b``: each LF, and each CR not followed by LF (a CR
    as the last byte counts: the caller only asks about complete text)."""
    lf = b == _LF
    cr = b == _CR
    cr[:-1] &= ~lf[1:]
    return np.flatnonzero(lf | cr)


def read_header(read, delimiter: str) -> Header:
    """The header of the text that ``read(n)`` returns (bytes; ``b""`` at the end).

    Leading empty lines are skipped, as pyarrow does. Raises `HeaderError` for an empty
    text, a blank header line, a header with a NUL byte or that is not UTF-8 (a binary
    file), or no line end in the first `HEADER_MAX` bytes. ``O(h)`` for a header of ``h``
    bytes (plus the 64 KiB of the first read).
    """
    buf = b""
    eof = False
    step = 1 << 16
    while True:
        if not eof:
            chunk = read(step)
            eof = not chunk
            buf += chunk
            step = min(2 * step, HEADER_MAX)
        b = np.frombuffer(buf, dtype=np.uint8)
        content = np.flatnonzero((b != _LF) & (b != _CR))
        if content.size == 0:
            if eof:
                raise HeaderError("empty file: no header row with the column names")
            continue
        start = int(content[0])
        line = 1 + _line_ends(b[:start]).size
        quotes = np.cumsum(b[start:] == _QUOTE)
        ends = _line_ends(b[start:])
        ends = ends[quotes[ends] % 2 == 0] if ends.size else ends
        if ends.size:
            end, at_end = start + int(ends[0]), False
            break
        if eof:
            end, at_end = b.size, True
            break
        if b.size > HEADER_MAX:
            raise HeaderError(f"no line end in the first {HEADER_MAX >> 20} MiB: not a CSV "
                              "file with a header line", line)
    raw = buf[start:end]
    if start == 0 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if b"\x00" in raw:
        raise HeaderError("the header holds a NUL byte: not a text file", line)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HeaderError(f"the header is not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                          f"byte {exc.start + 1}): not a UTF-8 CSV file", line) from None
    if not text.strip(" \t"):
        raise HeaderError("a blank line where the header (the column names) should be",
                          line)
    with _any_field_length():
        names = next(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    return Header(names, line, buf, at_end)


def is_blank_record(fields, delimiter: str) -> bool:
    """Whether a record of these field texts is a line of nothing but spaces and tabs.

    >>> is_blank_record(["  "], ","), is_blank_record(["", ""], "\\t"), is_blank_record([""], ",")
    (True, True, False)
    >>> is_blank_record(["", ""], ",")   # a line holding a comma
    False
    """
    if not all(f.strip(" \t") == "" for f in fields):
        return False
    if delimiter in " \t":
        return len(fields) > 1 or fields[0] != ""
    return len(fields) == 1 and fields[0] != ""


class Prefixed(io.RawIOBase):
    """A read-only byte stream: some bytes already read (a header), then the rest."""

    def __init__(self, head: bytes, rest):
        self.head, self.rest, self.count = head, rest, len(head)

    def readable(self):
        return True

    def read(self, n=-1):
        if self.head:
            out, self.head = (self.head, b"") if n is None or n < 0 or n >= len(self.head) \
                else (self.head[:n], self.head[n:])
            return out
        out = self.rest.read() if n is None or n < 0 else self.rest.read(n)
        self.count += len(out)
        return out

    def readinto(self, b):
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

    def close(self):
        super().close()
        self.rest.close()


class Guarded(io.RawIOBase):
    """A byte stream that one thread may close while another reads it: for pyarrow.

    pyarrow's streaming CSV reader reads its input on a thread of its own, blocks ahead of
    the parser, and goes on reading after it has raised an error. A `pyarrow.OSFile`
    closed under such a read frees its descriptor while the read may be about to use it:
    the next file opened (the same file again, read with larger blocks, or any other) gets
    that descriptor, and loses a block of its bytes to the stale read. Here `close` stops
    the reads at once (a read after it fails without touching the stream) but closes the
    inner stream only when no read is in progress: a read still running closes it when it
    returns. `close` never waits (a read from a pipe may wait for its writer).

    ``inner``: a pyarrow stream (`read_buffer` hands its buffer over, no copy) or a Python
    binary stream, read by one thread at a time; ``close_inner=False`` leaves it open
    (standard input). ``O(1)`` besides the inner read (a lock taken twice per read).

    >>> g = Guarded(io.BytesIO(b"ab,c"))
    >>> g.read(2), g.closed, g.close(), g.closed, g.inner.closed
    (b'ab', False, None, True, True)
    >>> g.read(2)
    Traceback (most recent call last):
    ...
    ValueError: I/O operation on closed file.
    """

    def __init__(self, inner, close_inner=True):
        self.inner, self.close_inner = inner, close_inner
        self._lock = threading.Lock()
        self._reads = 0     # reads in progress

    def readable(self):
        return True

    def read(self, n=-1):
        return self._read(self.inner.read, n)

    def read_buffer(self, n):
        """What pyarrow calls: the inner stream's `read_buffer` when it has one."""
        return self._read(getattr(self.inner, "read_buffer", None) or self.inner.read, n)

    def readinto(self, b):
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

    def _read(self, read, n):
        with self._lock:
            if self.closed:
                raise ValueError("I/O operation on closed file.")
            self._reads += 1
        try:
            return read(n)
        finally:
            with self._lock:
                self._reads -= 1
                last = self.closed and self._reads == 0
            if last:
                self._release()

    def close(self):
        with self._lock:
            if self.closed:
                return
            super().close()     # no read starts from here on
            idle = self._reads == 0
        if idle:
            self._release()

    def _release(self):
        if self.close_inner:
            self.inner.close()


class _End(Exception):
    """The text ended (or cannot be read again) before a wanted record."""


class RecordLines:
    """Record number -> (line, blank) of a CSV text, by reading it again (for messages,
    and for blank lines pyarrow took as rows).

    ``opener()`` returns a new binary stream of the whole text. Queries run forward from
    where the previous one stopped (a query before it starts over): ``O(r)`` for a record
    ``r``. Text without double quotes is scanned with numpy (a line is a record there,
    about 300 MB/s); from the first block of 4 MiB holding a quote on, Python's ``csv``
    module reads the records (about 70 MB/s). A text that cannot be read again (damaged)
    leaves the lines unknown (0).
    """

    CHUNK = 1 << 22

    def __init__(self, opener, delimiter: str):
        self.opener, self.delimiter = opener, delimiter
        self._state = None

    def close(self):
        if self._state is not None:
            (self._state["csv"][0] if self._state["csv"] else self._state["raw"]).close()
            self._state = None

    def records(self, wanted) -> tuple[np.ndarray, np.ndarray]:
        """``(lines, blank)`` of the sorted record numbers ``wanted`` (0 / False when not
        found)."""
        wanted = np.asarray(wanted, dtype=np.int64)
        lines = np.zeros(wanted.size, dtype=np.int64)
        blank = np.zeros(wanted.size, dtype=bool)
        if wanted.size == 0:
            return lines, blank
        if self._state is None or self._state["number"] > int(wanted[0]):
            self.close()
            try:
                raw = self.opener()
            except (OSError, EOFError, ValueError):
                return lines, blank
            # line0: lines before the unread text; number: the next record (0: header).
            self._state = dict(raw=raw, carry=b"", line0=0, number=0, csv=None)
        j = 0
        try:
            while j < wanted.size:
                if self._state["csv"] is None:
                    j = self._fast(wanted, j, lines, blank)
                else:
                    j = self._slow(wanted, j, lines, blank)
        except (_End, csv.Error, OSError, EOFError, ValueError, zlib.error):
            self.close()
        return lines, blank

    def _fast(self, wanted, j, lines, blank) -> int:
        """One chunk without quotes, by numpy; a chunk with a quote switches to `_slow`."""
        st = self._state
        chunk = st["raw"].read(self.CHUNK)
        data = st["carry"] + chunk
        if not data:
            raise _End()
        b = np.frombuffer(data, dtype=np.uint8)
        has_cr = data.find(b"\r") >= 0
        ends = _line_ends(b) if has_cr else np.flatnonzero(b == _LF)
        if chunk:
            # A CR as the last byte may be the first half of a CRLF: keep it for later.
            ends = ends[ends < b.size - 1] if b[-1] == _CR else ends
            if ends.size == 0:
                st["carry"] = data
                return j
            cut = int(ends[-1]) + 1
        else:
            cut = b.size
            if not ends.size or ends[-1] != b.size - 1:
                ends = np.append(ends, b.size)    # the last line, without its line end
        if data.find(b'"', 0, cut) >= 0:
            stream = io.TextIOWrapper(Prefixed(data, st["raw"]), encoding="latin-1",
                                      newline="")
            st["csv"] = (stream, csv.reader(stream, delimiter=self.delimiter))
            return j
        st["carry"] = data[cut:]
        # A line is a record unless empty (nothing, or the CR of a CRLF); it is blank when
        # it holds only spaces and tabs: only lines that start with one are looked at.
        n_lines = ends.size
        starts = np.concatenate(([0], ends[:-1] + 1))
        length = ends - starts
        first = b[np.minimum(starts, b.size - 1)]
        has = (length > 1) | ((length == 1) & (first != _CR))
        line_no = st["line0"] + 1 + np.flatnonzero(has)
        starts, ends, first = starts[has], ends[has], first[has]
        is_blank = np.zeros(starts.size, dtype=bool)
        for i in np.flatnonzero((first == 32) | (first == 9)).tolist():
            is_blank[i] = not data[starts[i]:ends[i]].strip(b" \t\r")
        n = line_no.size
        lo = st["number"]
        k = j + int(np.searchsorted(wanted[j:], lo + n, side="left"))
        idx = wanted[j:k] - lo
        lines[j:k] = line_no[idx]
        blank[j:k] = is_blank[idx]
        st["number"] = lo + n
        st["line0"] += n_lines
        return k

    def _slow(self, wanted, j, lines, blank) -> int:
        """Records by the ``csv`` module, until the wanted ones are found."""
        st = self._state
        stream, reader = st["csv"]
        with _any_field_length():
            while j < wanted.size:
                before = reader.line_num
                try:
                    fields = next(reader)
                except StopIteration:
                    raise _End() from None
                if not fields:          # an empty line: not a record
                    continue
                while j < wanted.size and wanted[j] == st["number"]:
                    lines[j] = st["line0"] + before + 1
                    blank[j] = is_blank_record(fields, self.delimiter)
                    j += 1
                st["number"] += 1
        return j
