"""The raw text of a CSV or TSV file, for `streamrank.tables`: its header, and the line
where each row starts.

pyarrow parses the rows; these helpers read the bytes around it for what pyarrow does not
say: the column names (checked before any row is read: text, no NUL byte, UTF-8, no
blank line), and, for messages only, the line of a row as an editor numbers it (a row
after blank lines or with a quoted field spanning lines is not on line ``row + 1``).

Lines end with LF, CRLF or CR alone, as pyarrow reads them. A *record* is what pyarrow
counts as a row (its ``row.number``, the header being record 0): a line end outside
double quotes ends one, and empty records are no records. A *blank* record holds nothing
but spaces and tabs: `streamrank.tables` skips it, as it skips empty lines.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["Header", "HeaderError", "RecordLines", "is_blank_record", "read_header"]

#: Bytes read for a header before giving up (a file without a line end this long is not
#: a CSV file with a header).
HEADER_MAX = 1 << 24

_LF, _CR, _QUOTE = 10, 13, 34


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


class RecordLines:
    """Record number -> (line, blank) of a CSV text, by reading it again with Python's
    ``csv`` module (for messages and for blank lines pyarrow took as rows).

    ``opener()`` returns a new binary stream of the whole text. Queries run forward from
    where the previous one stopped (a query before it starts over): ``O(r)`` for a
    record ``r``, about 70 MB/s. A text that cannot be read again (damaged, or its
    parse differs) leaves the lines unknown (0).
    """

    def __init__(self, opener, delimiter: str):
        self.opener, self.delimiter = opener, delimiter
        self._state = None   # (stream, csv reader, number of the next record)

    def close(self):
        if self._state is not None:
            self._state[0].close()
            self._state = None

    def records(self, wanted) -> tuple[np.ndarray, np.ndarray]:
        """``(lines, blank)`` of the sorted record numbers ``wanted`` (0 / False when not
        found)."""
        wanted = np.asarray(wanted, dtype=np.int64)
        lines = np.zeros(wanted.size, dtype=np.int64)
        blank = np.zeros(wanted.size, dtype=bool)
        if wanted.size == 0:
            return lines, blank
        if self._state is None or self._state[2] > int(wanted[0]):
            self.close()
            try:
                raw = self.opener()
            except (OSError, EOFError, ValueError):
                return lines, blank
            stream = io.TextIOWrapper(raw, encoding="latin-1", newline="")
            self._state = (stream, csv.reader(stream, delimiter=self.delimiter), 0)
        stream, reader, number = self._state
        limit = csv.field_size_limit()
        csv.field_size_limit(sys.maxsize)
        j = 0
        try:
            while j < wanted.size:
                before = reader.line_num
                fields = next(reader)
                if not fields:          # an empty line: not a record
                    continue
                while j < wanted.size and wanted[j] == number:
                    lines[j] = before + 1
                    blank[j] = is_blank_record(fields, self.delimiter)
                    j += 1
                number += 1
        except (StopIteration, csv.Error, OSError, EOFError, ValueError):
            self.close()
            return lines, blank
        finally:
            csv.field_size_limit(limit)
        self._state = (stream, reader, number)
        return lines, blank
