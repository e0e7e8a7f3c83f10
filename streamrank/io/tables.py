"""Read a few columns of a CSV, Parquet or JSON-lines file, streaming, with row-located errors.

`read_columns` is the one reader of the command line (``streamrank eval``, ``epochs``,
...). It reads *only* the requested columns, batch by batch, converts them with pyarrow
and numpy (no Python loop per row), and either stops at the first bad row with a
`TableError` that names the file, the row, the column and the value, or drops the bad
rows and counts them (``on_error="skip"``).

Formats, chosen by the file name or ``format=``:

===========  ==============================================  ==============================
format       file names                                      how the columns are read
===========  ==============================================  ==============================
``csv``      ``.csv``, ``.csv.gz``, ``-`` (stdin), others    ``pyarrow.csv.open_csv`` with
                                                             ``include_columns``: the other
                                                             columns are tokenized, never
                                                             converted or kept
``tsv``      ``.tsv``, ``.tsv.gz``, ``.tab``                 as ``csv``, tab-separated
``parquet``  ``.parquet``, ``.pq``, a directory of them      ``ParquetFile.iter_batches
                                                             (columns=...)``: the other
                                                             columns are never read
``jsonl``    ``.jsonl``, ``.ndjson``, ``.json`` (``.gz``)    ``pyarrow.json.read_json`` on
                                                             blocks of whole lines; only
                                                             the requested fields are kept
===========  ==============================================  ==============================

Rows are numbered from 1 as a user counts them: the first data row after the CSV header
is row 1; in a JSON-lines file the row is the line number. A message also names the line
where a CSV row starts, as an editor numbers lines (the header is line 1; lines end with
LF, CRLF or CR alone, all read as line ends): ``row 5 (line 6)``, or ``line 9`` after
blank lines or a quoted field spanning lines. (The line is found by reading the file
again up to the row, for the message only; standard input is not read again, its
messages name the row.) Memory is bounded by one batch of the file plus the requested
columns of the rows kept (8 bytes per numeric value).

Blank lines, empty or of nothing but spaces and tabs (and a CR), are skipped in every text
format: they are no rows and no errors.

What counts as a bad row, checked column by column on each whole batch with masks:

* a *missing* value: an empty CSV cell, a JSON ``null`` or absent field, a Parquet null;
* in a ``numeric`` column, a value that is *not a number* (``"abc"``, ``"NA"``); numbers
  may be written ``1``, ``-2.5e3``, ``inf``, ``nan``, and the words ``true`` / ``false``
  (any case) read as 1 / 0;
* with ``finite=True``, a NaN or infinite value in a ``numeric`` column (a number beyond
  the float64 range, ``1e400``, reads as infinity);
* a cell that is *not UTF-8 text* (CSV cells, Parquet bytes; JSON lines that are not UTF-8
  are malformed); the columns not requested are never decoded;
* in a ``keys`` column of JSON lines, a number of 2**53 or more read as a float (pyarrow
  reads a block holding an integer beyond int64 as floats: such ids may collide);
* a *malformed* row: a CSV row with the wrong number of fields, a line that is not a JSON
  object.

A column absent from the file, or named twice in its header, is an error before any row
is read, whatever ``on_error``; its message lists the columns the file has (or where the
two are). (JSON lines have no header: a field that no line of the first block, 16 MiB,
holds is absent; later lines without it have a missing value.) So is a file that cannot
be read as its format says, with the line where that is known: an empty file, a header
that is blank, not UTF-8 or holds a NUL byte (a binary file), a ``.gz`` file that is not
gzip or is truncated, a Parquet file that is damaged, a directory without Parquet files,
a CSV row longer than 64 MiB (the reader's longest block; rows longer than the first 1 MiB
block make the read start over with larger blocks). A quote that is never closed makes the
rest of a CSV file one field: a row with the wrong number of fields, or a value that is
not a number, where the columns it swallows are read.
"""

from __future__ import annotations

import gzip
import heapq
import io
import json
import math
import os
import queue
import re
import sys
import threading
import zlib
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["FORMATS", "Columns", "TableError", "detect_format", "parse_number", "read_columns"]

#: The formats `read_columns` understands (``format=`` values).
FORMATS = ("csv", "tsv", "parquet", "jsonl")

#: Messages kept in `Columns.first_errors` under ``on_error="skip"``.
MAX_FIRST_ERRORS = 5

# Bytes per pyarrow CSV block (one batch): pyarrow's parser holds ~30x a block, so 1 MiB
# blocks peak near 40 MB and read as fast as larger ones (benchmarks/bench_cli.py).
_CSV_BLOCK = 1 << 20
# A row longer than a block makes pyarrow fail; the read starts over with blocks 8 times
# larger, up to this (a longer row is an error that names it).
_CSV_BLOCK_MAX = 1 << 26
_GZ_READ = 1 << 22          # bytes of a .gz file read at a time
_JSON_BLOCK = 1 << 24       # bytes of whole lines per JSON block
_PARQUET_BATCH = 1 << 16    # rows per Parquet batch

# What pyarrow's string -> float64 cast accepts, after trimming blanks (a superset check
# follows: a value this accepts and the cast rejects is found by bisection).
_NUMBER = r"^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|infinity|nan)$"

# The words a numeric column may hold for 1 and 0 (any case).
_BOOL_WORDS = {"true": 1.0, "false": 0.0}

# Bad-value codes, in the order a row reports them (the first bad column wins).
_OK, _MISSING, _NOT_NUMBER, _NOT_FINITE, _INVALID, _NOT_TEXT, _INEXACT = range(7)

# Characters of a value shown in a message (the whole value stays in `TableError.value`).
_SHOWN = 60


class TableError(ValueError):
    """A bad file, column or row: the message names the file, the row and its line, the
    column and the value.

    The location reads ``row 5 (line 6)`` for a CSV row (the line as an editor numbers
    it, the header being line 1), ``line 6`` for a JSON line (its row is its line) or a
    header, ``row 5`` for a Parquet row (or a CSV row of standard input, whose lines are
    not known).

    Attributes
    ----------
    file : str
        The file as the user named it (``"<stdin>"`` for ``-``).
    row : int or None
        The 1-based data row (see the module docstring), or None when the error is not
        about one row (an unknown column, an unreadable file).
    column : str or None
        The column, when the error is about one.
    value : object
        The bad value as read (the text of a CSV cell or a malformed row, the bytes of a
        cell that is not UTF-8, a JSON value, a float), or None.
    reason : str
        What is wrong, without the location.
    line : int or None
        The line of the file where the row (or the header) starts, when known.
    """

    def __init__(self, reason, *, file, row=None, column=None, value=None, line=None):
        self.file, self.row, self.column, self.value, self.reason = file, row, column, value, reason
        self.line = line
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [str(self.file)]
        if self.row is not None and self.line is not None and self.row != self.line:
            parts.append(f"row {self.row} (line {self.line})")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        elif self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        return f"{', '.join(parts)}: {self.reason}"

    def _at_line(self, line):
        """Set the line (found after the error was made) and the message with it."""
        if line:
            self.line = int(line)
            self.args = (self._message(),)
        return self


@dataclass
class Columns:
    """The requested columns of a file, with what was read and skipped.

    Attributes
    ----------
    data : dict of str to ndarray
        Requested column -> values of the rows kept, in file order: float64 for a
        ``numeric`` column; for a ``keys`` column int64 when every value is an integer
        (an integer column, a float column of whole numbers such as JSON's ``17.0``, or
        text that reads back the same as an integer), float64 for other float columns,
        else a numpy ``str`` array (or, with ``key_codes=True``, int64 codes into
        `levels`).
    n_rows : int
        Data rows read, skipped ones included.
    skipped : int
        Rows dropped under ``on_error="skip"`` (0 under ``"fail"``).
    first_errors : list of str
        The messages of the first few skipped rows (at most ``MAX_FIRST_ERRORS``), by row.
    levels : dict of str to ndarray
        With ``key_codes=True``: each text ``keys`` column's distinct values, sorted;
        ``data[col]`` holds indices into them (so codes sort as the values do).
    """

    data: dict
    n_rows: int
    skipped: int
    first_errors: list
    levels: dict = field(default_factory=dict)


def detect_format(path, format=None) -> str:
    """The format of ``path``: ``format`` if given, else from the file name.

    >>> detect_format("scores.csv.gz"), detect_format("part.pq"), detect_format("-")
    ('csv', 'parquet', 'csv')
    >>> detect_format("events.ndjson"), detect_format("x.txt", "tsv")
    ('jsonl', 'tsv')
    """
    if format is not None:
        fmt = {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet"}.get(format, format)
        if fmt not in FORMATS:
            raise ValueError(f"The 'format' parameter of read_columns must be one of "
                             f"{FORMATS}. Got {format!r} instead.")
        return fmt
    name = str(path).lower().rstrip("/\\")
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".parquet", ".pq")) or (name != "-" and os.path.isdir(str(path))):
        return "parquet"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    return "csv"


def parse_number(text) -> float | None:
    """One value as `read_columns` reads it in a ``numeric`` column, or None when that is
    not a number: the same syntax (blanks trimmed, ``inf`` and ``nan`` allowed, ``true``
    / ``false`` as 1 / 0). For a command-line value compared with a column's values.

    >>> parse_number(" -2.5e3 "), parse_number("TRUE"), parse_number("1_000"), parse_number("x")
    (-2500.0, 1.0, None, None)
    """
    text = str(text).strip()
    word = _BOOL_WORDS.get(text.lower())
    if word is not None:
        return word
    return float(text) if re.match(_NUMBER, text, flags=re.IGNORECASE) else None


# ============================================================================ conversion
# Every conversion of a Python or numpy value to Arrow (``pa.scalar``, ``pa.array``,
# ``fill_null(x)``, even ``to_numpy()`` of integers) makes pyarrow import
# pandas: 0.3 s and 50 MB for a command that never needs it. These helpers go through the
# buffers instead (and the string comparisons are regex options, not scalars).
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


def _value_at(arr: pa.Array, i: int):
    """The value of row ``i`` of a batch column as read, for a message."""
    return arr[int(i)].as_py()


def _shown(value) -> str:
    """``repr(value)``, shortened past `_SHOWN` characters (with the full length)."""
    if isinstance(value, (str, bytes)) and len(value) > _SHOWN:
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{value[:_SHOWN]!r}... ({len(value):,} {unit})"
    return repr(value)


def _not_finite(value) -> str:
    text = value.strip().lower() if isinstance(value, str) else None
    if isinstance(value, float) or text in {"nan", "+nan", "-nan", "inf", "+inf", "-inf",
                                            "infinity", "+infinity", "-infinity"}:
        return f"{_shown(value)} is not finite (NaN or infinity)"
    return (f"{_shown(value)} is not finite: beyond the float64 range (about 1.8e308), it "
            "reads as infinity")


_REASONS = {
    _NOT_NUMBER: lambda v: f"{_shown(v)} is not a number",
    _NOT_FINITE: _not_finite,
    _NOT_TEXT: lambda v: f"{_shown(v)} is not UTF-8 text",
    _INEXACT: lambda v: (f"{_shown(v)} is an id beyond 2**53 read as a float, maybe not "
                         "exactly (an integer beyond int64 makes the JSON reader read its "
                         "block as floats): write such ids as strings"),
}

# How each format writes a missing value, for the message (value: what `TableError.value`
# holds then).
_MISSING_TEXT = {"csv": ("empty cell", ""), "tsv": ("empty cell", ""),
                 "jsonl": ("null or absent field", None), "parquet": ("null", None)}


# ============================================================================ the collector
class _Buffer:
    """A float64 array filled chunk by chunk without keeping the chunks: capacity from the
    expected row count (`hint`), grown by half when the guess was short. The peak is the
    result plus one chunk (a list of chunks concatenated at the end would hold both)."""

    def __init__(self):
        self.arr = np.empty(0)
        self.n = 0

    def reserve(self, rows: int):
        if rows > self.arr.size:
            new = np.empty(int(rows))
            new[:self.n] = self.arr[:self.n]
            self.arr = new

    def append(self, chunk: np.ndarray):
        end = self.n + chunk.size
        if end > self.arr.size:
            self.reserve(max(end, self.arr.size + self.arr.size // 2, 1024))
        self.arr[self.n:end] = chunk
        self.n = end

    def result(self) -> np.ndarray:
        if self.arr.size > self.n + self.n // 8 + 1024:  # a poor guess: give memory back
            return self.arr[:self.n].copy()
        return self.arr[:self.n]


class _Collector:
    """Checks and converts each batch, keeps the good rows, counts and reports the bad."""

    def __init__(self, file, numeric, keys, on_error, finite, key_codes, fmt="csv",
                 checks=None):
        self.file, self.numeric, self.keys = file, list(numeric), list(keys)
        self.checks = dict(checks or {})
        self.fmt = fmt
        self.missing_text, self.missing_value = _MISSING_TEXT[fmt]
        self.on_error, self.finite, self.key_codes = on_error, finite, key_codes
        self.num_bufs = {c: _Buffer() for c in self.numeric}
        self.key_chunks = {c: [] for c in self.keys}
        self.n_rows = 0
        self.skipped = 0
        self.value_errors: list = []     # (row, TableError), the first few bad-value rows
        self.row_errors: list = []       # (row, TableError), the first few malformed rows
        # Data rows -> their lines (0: unknown), set by a reader that can tell; a JSON
        # line's row is its line.
        self.line_of = (lambda rows: rows) if fmt == "jsonl" else None

    # ---------------------------------------------------------------- errors
    def malformed(self, row, reason, value) -> TableError:
        """Count a malformed row that a format reader left out of its batches; returns
        its error (raised by the reader or `add` under ``"fail"``, after `located`)."""
        err = TableError(reason, file=self.file, row=row, value=value)
        self.n_rows += 1
        self.skipped += 1
        if len(self.row_errors) < MAX_FIRST_ERRORS:
            self.row_errors.append((row if row is not None else 0, err))
        return err

    def located(self, *errors) -> TableError:
        """The errors with their lines (when the reader can tell them); the first one."""
        rows = sorted({e.row for e in errors if e.row is not None and e.line is None})
        if rows and self.line_of is not None:
            lines = dict(zip(rows, np.asarray(self.line_of(np.asarray(rows))).tolist()))
            for e in errors:
                if e.row in lines and e.line is None:
                    e._at_line(lines[e.row])
        return errors[0] if errors else None

    def first_errors(self) -> list:
        # Both lists are in file order; merging keeps it (a sort by row number would mix
        # the files of a Parquet directory, whose rows are numbered per file).
        merged = [e for _, e in heapq.merge(self.value_errors, self.row_errors,
                                            key=lambda e: e[0])][:MAX_FIRST_ERRORS]
        self.located(*merged)
        return [str(e) for e in merged]

    def expect(self, rows: int):
        """Reserve room for about ``rows`` more rows (an estimate; more can come)."""
        for b in self.num_bufs.values():
            b.reserve(b.n + int(rows))

    # ---------------------------------------------------------------- batches
    def add(self, cols: dict, rows, pending=()):
        """Check and keep one batch.

        ``cols``: requested column -> pyarrow array (all of one length); ``rows(idx)``:
        the 1-based data rows of batch positions ``idx``; ``pending``: `TableError` of
        malformed rows that come before this batch's last row (under ``"fail"`` the
        earliest error of the batch and ``pending`` is raised).
        """
        n = len(next(iter(cols.values()))) if cols else 0
        raw = cols
        cols, not_text = {}, {}
        for c, a in raw.items():
            cols[c], not_text[c] = _as_text(a)
        conv: dict = {}
        codes = []          # (column, bad codes) in report order: numeric, then keys
        for c in self.numeric:
            values, bad = _to_numeric(cols[c])
            if self.finite:
                bad[(bad == _OK) & ~np.isfinite(values)] = _NOT_FINITE
            if c in self.checks:
                ok = bad == _OK
                with np.errstate(invalid="ignore"):
                    valid = np.asarray(self.checks[c][0](values), dtype=bool)
                bad[ok & ~valid] = _INVALID
            conv[c] = values
            codes.append((c, bad))
        for c in self.keys:
            bad = _bools(cols[c].is_null()).astype(np.uint8)
            if self.fmt == "jsonl" and pa.types.is_floating(cols[c].type):
                # pyarrow reads a JSON integer beyond int64 as a double, and so every
                # integer of its block: past 2**53, distinct ids may read as one.
                with np.errstate(invalid="ignore"):
                    bad[(bad == _OK) & (np.abs(_floats(cols[c])) >= 2.0**53)] = _INEXACT
            codes.append((c, bad))
        for c, bad in codes:
            if not_text[c] is not None:
                bad[not_text[c]] = _NOT_TEXT
        any_bad = np.zeros(n, dtype=bool)
        for _, bad in codes:
            any_bad |= bad != _OK
        n_bad = int(np.count_nonzero(any_bad))
        if self.on_error == "fail":
            first = None
            if n_bad:
                i = int(np.argmax(any_bad))
                first = self._error_at(i, int(rows(np.array([i]))[0]), raw, cols, codes)
            pend = min(pending, key=lambda e: e.row, default=None)
            if pend is not None and (first is None or pend.row < first.row):
                first = pend
            if first is not None:
                raise self.located(first)
        elif n_bad:
            room = MAX_FIRST_ERRORS - len(self.value_errors)
            if room > 0:
                idx = np.flatnonzero(any_bad)[:room]
                for i, r in zip(idx.tolist(), rows(idx).tolist()):
                    self.value_errors.append((r, self._error_at(i, r, raw, cols, codes)))
        self.n_rows += n
        self.skipped += n_bad
        keep = ~any_bad if n_bad else None
        for c in self.numeric:
            v = conv[c]
            self.num_bufs[c].append(v if keep is None else v[keep])
        for c in self.keys:
            a = cols[c]
            self.key_chunks[c].append(a if keep is None else a.filter(_arrow_mask(keep)))

    def _error_at(self, i, row, raw, cols, codes) -> TableError:
        for c, bad in codes:
            if bad[i] == _MISSING:
                return TableError(f"missing value ({self.missing_text})", file=self.file,
                                  row=row, column=c, value=self.missing_value)
            if bad[i] != _OK:
                value = _value_at(raw[c] if bad[i] == _NOT_TEXT else cols[c], i)
                if bad[i] == _INVALID:
                    reason = f"{_shown(value)} {self.checks[c][1]}"
                elif (bad[i] == _NOT_FINITE and self.fmt == "jsonl"
                      and isinstance(value, float) and math.isinf(value)):
                    reason = (f"{_shown(value)} is not finite: a JSON number beyond the "
                              "float64 range (about 1.8e308) reads as infinity")
                else:
                    reason = _REASONS[int(bad[i])](value)
                return TableError(reason, file=self.file, row=row, column=c, value=value)
        raise AssertionError("no bad value at row", row)  # pragma: no cover

    # ---------------------------------------------------------------- result
    def result(self) -> Columns:
        data, levels = {}, {}
        for c in self.numeric:
            data[c] = self.num_bufs.pop(c).result()
        for c in self.keys:
            data[c], lev = _keys_array(self.key_chunks.pop(c), self.key_codes)
            if lev is not None:
                levels[c] = lev
        return Columns(data, self.n_rows, self.skipped, self.first_errors(), levels)


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


# ============================================================================ progress
class _Progress:
    """A tqdm bar on stderr (bytes or rows), or nothing."""

    def __init__(self, show, total, unit, desc):
        self.bar = None
        if show:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit=unit, unit_scale=True, desc=desc,
                            file=sys.stderr, leave=False, delay=0.5, dynamic_ncols=True)
        self.pos = 0

    def to(self, pos):
        if self.bar is not None and pos > self.pos:
            self.bar.update(pos - self.pos)
        self.pos = max(self.pos, pos)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _unknown(file, missing, available) -> TableError:
    c = missing[0]
    shown = ", ".join(repr(a) for a in list(available)[:30])
    more = ", ..." if len(available) > 30 else ""
    return TableError(f"no such column; the file has the columns {shown}{more}", file=file,
                      column=c)


# ============================================================================ readers
class _RowTooLong(Exception):
    """A CSV row longer than pyarrow's block: the read starts over with larger blocks."""


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _open_bytes(path):
    """The bytes of a file, decompressed when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if str(path).lower().endswith(".gz") else open(path, "rb")


def _gzip_error(name, exc) -> TableError:
    """A failed read of a ``.gz`` file (Python's gzip or pyarrow's) as a `TableError`."""
    if isinstance(exc, gzip.BadGzipFile) and "Not a gzipped file" in str(exc):
        return TableError("not a gzip file, though its name ends in .gz", file=name)
    return TableError(f"damaged or truncated gzip data ({exc})", file=name)


def _check_names(file, names, wanted, line=None, what="the header"):
    """Every wanted column is in ``names`` once (else a `TableError` naming it)."""
    missing = [c for c in wanted if c not in names]
    if missing:
        raise _unknown(file, missing, names)
    for c in wanted:
        where = [i + 1 for i, n in enumerate(names) if n == c]
        if len(where) > 1:
            cols = ", ".join(map(str, where[:-1])) + f" and {where[-1]}"
            raise TableError(f"{what} has {len(where)} columns of this name (columns "
                             f"{cols}): which one to read is ambiguous; rename them",
                             file=file, column=c, line=line)


def _read_header(path, name, delimiter):
    """The `Header` of a CSV file or of standard input (``-``)."""
    from ._csvtext import HeaderError, read_header

    try:
        if path == "-":
            return read_header(sys.stdin.buffer.read, delimiter)
        with _open_bytes(path) as f:
            return read_header(f.read, delimiter)
    except HeaderError as exc:
        raise TableError(exc.reason, file=name, line=exc.line) from None
    except (OSError, EOFError, zlib.error) as exc:
        if path != "-" and str(path).lower().endswith(".gz") and not isinstance(
                exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise _gzip_error(name, exc) from None
        raise


class _Records:
    """The numbering of a CSV read: pyarrow's records -> data rows.

    pyarrow numbers *records* (the header is record 0; empty lines are no records). It
    leaves some out of its batches: malformed ones and blank ones (only spaces and tabs,
    with another number of fields than the header); blank records with the header's
    number of fields come in batches and are dropped there. A data row is a record that is
    not blank: data row = record - #(blank records before it). Batches come in file order
    and the parser runs ahead of them, so that every record left out before a batch's
    last one is known when the batch is: cursors keep each step to the records since the
    previous batch (linear in all).
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.out: list = []         # records left out (malformed or blank), parser thread
        self.blank_out: list = []   # the blank ones among them
        self.blank_in: list = []    # blank records of batches, main thread
        self.pending: list = []     # (record, expected, actual, text) of malformed ones
        self.i_out = self.i_bout = self.i_bin = 0   # entries before the current batch

    def left_out(self, record, row, blank):
        with self.lock:
            self.out.append(record)
            if blank:
                self.blank_out.append(record)
            else:
                self.pending.append((record, row.expected_columns, row.actual_columns,
                                     row.text))

    def take(self, last=None) -> list:
        """The malformed records up to record ``last`` (all: None) not taken yet."""
        with self.lock:
            due = [p for p in self.pending if last is None or p[0] <= last]
            self.pending = [p for p in self.pending if not (last is None or p[0] <= last)]
        return due

    def delivered(self, kept: int, n: int) -> np.ndarray:
        """The records of the ``n`` rows of a batch after ``kept`` delivered rows: the k-th
        delivered (1-based) is record k + #(left out before it); with s sorted and
        s'_j = s_j - j that is searchsorted(s', k, "right")."""
        k = kept + np.arange(1, n + 1, dtype=np.int64)
        with self.lock:
            new = np.asarray(self.out[self.i_out:], dtype=np.int64)
        # The entries before the cursor all have s' <= k (they precede the batch).
        s = new - (self.i_out + np.arange(new.size))
        return k + self.i_out + np.searchsorted(s, k, side="right")

    def _blank_before(self, recs) -> np.ndarray:
        with self.lock:
            out = np.asarray(self.blank_out[self.i_bout:], dtype=np.int64)
        within = np.asarray(self.blank_in[self.i_bin:], dtype=np.int64)
        return (self.i_bout + np.searchsorted(out, recs, side="left")
                + self.i_bin + np.searchsorted(within, recs, side="left"))

    def data_rows(self, recs) -> np.ndarray:
        """The data rows of records of the current batch (or after it)."""
        recs = np.asarray(recs, dtype=np.int64)
        return recs - self._blank_before(recs)

    def passed(self, last: int):
        """The batch ending at record ``last`` is done: move the cursors past it."""
        with self.lock:
            self.i_out += int(np.searchsorted(np.asarray(self.out[self.i_out:]), last + 1))
            self.i_bout += int(np.searchsorted(np.asarray(self.blank_out[self.i_bout:]),
                                               last + 1))
        self.i_bin = len(self.blank_in)

    def records_of_rows(self, rows) -> np.ndarray:
        """The records of data rows (any: for messages, once the read is done)."""
        with self.lock:
            blank = np.sort(np.asarray(self.blank_out + self.blank_in, dtype=np.int64))
        rows = np.asarray(rows, dtype=np.int64)
        return rows + np.searchsorted(blank - np.arange(blank.size), rows, side="right")


def _read_csv(path, name, make, delimiter, progress) -> _Collector:
    """Read a CSV file into a new collector ``make()``; a row longer than the block makes
    the read start over with blocks 8 times larger (up to `_CSV_BLOCK_MAX`)."""
    block = _CSV_BLOCK
    while True:
        col = make()
        try:
            _read_csv_blocks(path, name, col, delimiter, progress, block)
            return col
        except _RowTooLong:
            if path == "-":
                raise TableError(f"a row is longer than {_size(block)}, the longest row "
                                 "read from standard input (a file may hold rows up to "
                                 f"{_size(_CSV_BLOCK_MAX)})", file=name) from None
            if block >= _CSV_BLOCK_MAX:
                raise TableError(f"a row is longer than {_size(block)}, the longest the "
                                 "CSV reader takes (a quote that is never closed makes "
                                 "one row of the rest of the file)", file=name) from None
            block = min(8 * block, _CSV_BLOCK_MAX)


def _read_csv_blocks(path, name, col: _Collector, delimiter, progress, block):
    import pyarrow.csv as pcsv

    from ._csvtext import Guarded, Prefixed, RecordLines, is_blank_record

    wanted = list(dict.fromkeys(col.numeric + col.keys))
    gz = str(path).lower().endswith(".gz")
    head = _read_header(path, name, delimiter)
    _check_names(name, head.names, wanted, line=head.line)
    if head.at_end:
        return      # a header and nothing else: no rows
    lines = None    # record -> line (not for standard input, which cannot be read again)
    # pyarrow reads ahead on a thread of its own, and on after an error: `Guarded` refuses
    # the reads after the close below, and closes the file only once the read in progress
    # (if any) has returned, not under it.
    if path == "-":
        stdin = Prefixed(head.consumed, sys.stdin.buffer)
        position, total = (lambda: stdin.count), None
        guard = Guarded(stdin, close_inner=False)
        source = pa.PythonFile(guard, mode="r")
    else:
        osf = pa.OSFile(str(path), "rb")
        position, total = osf.tell, os.path.getsize(path)
        guard = Guarded(osf)
        source = pa.PythonFile(guard, mode="r")
        if gz:
            # Inflated by pyarrow, without the GIL; the compressed bytes come through
            # Python in large reads (a read per 1 MiB block costs 15% of a .gz read).
            source = pa.CompressedInputStream(pa.BufferedInputStream(source, _GZ_READ),
                                              "gzip")
        lines = RecordLines(lambda: _open_bytes(path), delimiter)

    numbers = _Records()

    def on_invalid(row):
        # Runs in the parsing thread: record only; the collector counts in the main one.
        r = row.number - 1 if row.number is not None else 0  # record 0 = header
        numbers.left_out(r, row, blank=not row.text.strip(" \t\r\n"))
        return "skip"

    def line_of(rows):
        return lines.records(numbers.records_of_rows(rows))[0]

    if lines is not None:
        col.line_of = line_of

    def take(last=None):
        return [col.malformed(int(numbers.data_rows(np.array([r]))[0]),
                              f"expected {e} fields, got {a}: {_shown(t)}", t)
                for r, e, a, t in numbers.take(last)]

    n_fields = len(head.names)
    check_blank = n_fields == 1 or delimiter in " \t"

    def drop_blank(cols, recs):
        """The batch without the blank lines pyarrow took as rows (of empty cells)."""
        cand = None
        for c in wanted:
            a = cols[c]
            m = _bools(a.is_null()) | _bools(pc.match_substring_regex(a, "^[ \t]+$"))
            cand = m if cand is None else cand & m
            if not cand.any():
                return cols, recs
        idx = np.flatnonzero(cand)
        if n_fields == len(wanted):     # the cells are the whole record
            cells = [cols[c].filter(_arrow_mask(cand)).to_pylist() for c in wanted]
            blank = np.array([is_blank_record([(v or b"").decode("latin-1") for v in rec],
                                              delimiter) for rec in zip(*cells)])
        elif lines is not None:
            blank = lines.records(recs[idx])[1]
        else:   # standard input, some columns not read: taken as a row of empty cells
            return cols, recs
        drop = idx[blank]
        if drop.size == 0:
            return cols, recs
        numbers.blank_in.extend(recs[drop].tolist())
        keep = np.ones(recs.size, dtype=bool)
        keep[drop] = False
        mask = _arrow_mask(keep)
        return {c: a.filter(mask) for c, a in cols.items()}, recs[keep]

    bar = _Progress(progress, total, "B", os.path.basename(name))
    kept = 0        # rows delivered in batches so far
    last = 0        # the last record delivered
    batches = None
    try:
        reader = pcsv.open_csv(
            source,
            # Single-threaded parsing is what makes pyarrow report a malformed row's
            # number; `_prefetch` runs it in a thread of its own, beside the conversion.
            # Cells are read as bytes: text that is not UTF-8 is a bad value of its row.
            read_options=pcsv.ReadOptions(use_threads=False, block_size=block),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=True,
                                            invalid_row_handler=on_invalid),
            convert_options=pcsv.ConvertOptions(
                include_columns=wanted, column_types={c: pa.binary() for c in wanted},
                null_values=[""], strings_can_be_null=True,
                quoted_strings_can_be_null=True),
        )
        batches = _prefetch(reader.read_next_batch)
        for batch in batches:
            n = batch.num_rows
            if kept == 0 and total is not None and not gz:
                # Room for the whole file, guessed from the first block's rows per byte.
                col.expect(n * (total / block) * 1.03 + 1024)
            recs = numbers.delivered(kept, n)
            last = int(recs[-1]) if n else last
            cols = {c: batch.column(c) for c in wanted}
            if check_blank and n:
                cols, recs = drop_blank(cols, recs)
            rows = numbers.data_rows(recs)
            col.add(cols, lambda idx, rows=rows: rows[np.asarray(idx, dtype=np.int64)],
                    take(last))
            numbers.passed(last)
            kept += n
            bar.to(position())
        due = take()
        if due and col.on_error == "fail":
            raise col.located(min(due, key=lambda e: e.row))
    except pa.ArrowInvalid as exc:
        if "straddl" in str(exc):
            raise _RowTooLong() from None
        raise _arrow_error(name, exc) from None
    except OSError as exc:  # pyarrow's: a damaged .gz file, a failed read
        if gz:
            raise _gzip_error(name, exc) from None
        raise TableError(f"cannot read the file ({exc})", file=name) from None
    finally:
        if batches is not None:
            batches.close()
        bar.close()
        guard.close()
        if lines is not None:
            lines.close()


def _prefetch(next_item, depth=2):
    """Iterate ``next_item()`` (until StopIteration) in a background thread, ``depth``
    items ahead: pyarrow parses the next batch (GIL released) while this thread converts
    the current one. Exceptions come out of the iteration as raised."""
    q: queue.Queue = queue.Queue(depth)
    stop = threading.Event()

    def work():
        try:
            while not stop.is_set():
                q.put((True, next_item()))
        except StopIteration:
            q.put((False, None))
        except BaseException as exc:  # handed to the consumer
            q.put((False, exc))

    t = threading.Thread(target=work, daemon=True, name="streamrank-read")
    t.start()
    try:
        while True:
            ok, item = q.get()
            if not ok:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()
        while t.is_alive():  # unblock a put() so the thread sees `stop`
            try:
                q.get(timeout=0.05)
            except queue.Empty:
                pass


def _arrow_error(name, exc) -> TableError:
    """A pyarrow parse error as a `TableError` (with the row when pyarrow gives it)."""
    text = str(exc)
    m = re.search(r"Row #(\d+)", text)
    return TableError(f"cannot parse the file: {text}", file=name,
                      row=int(m.group(1)) - 1 if m else None)


def _parquet_files(path) -> list:
    if os.path.isdir(path):
        found = []
        for root, dirs, files in os.walk(path):
            dirs.sort()
            found += [os.path.join(root, f) for f in sorted(files)
                      if f.endswith((".parquet", ".pq")) or (
                          not f.startswith(("_", ".")) and "." not in f)]
        return found
    return [path]


def _read_parquet(path, name, col: _Collector, progress):
    import pyarrow.parquet as pq

    wanted = list(dict.fromkeys(col.numeric + col.keys))
    files = _parquet_files(str(path))
    if not files:
        raise TableError("no Parquet file in this directory", file=name)
    opened = []
    try:
        for f in files:
            shown = f if f != path else name
            try:
                pf = pq.ParquetFile(f)
            except (pa.ArrowInvalid, OSError) as exc:
                raise TableError(f"not a readable Parquet file: {str(exc).strip()}",
                                 file=shown) from None
            opened.append(pf)
            _check_names(shown, pf.schema_arrow.names, wanted, what="the file")
        total = sum(pf.metadata.num_rows for pf in opened)
        col.expect(total)
        bar = _Progress(progress, total, "rows", os.path.basename(name.rstrip("/")))
        offset = 0
        try:
            for f, pf in zip(files, opened):
                # In a directory, rows are numbered within each file, which is named.
                col.file = name if f == path else f
                local = 0
                # No `_prefetch` here: decoding two columns is cheaper than the thread
                # hand-off (measured: 0.4 s vs 0.9 s for 1e7 rows).
                batches = pf.iter_batches(batch_size=_PARQUET_BATCH, columns=wanted)
                while True:
                    try:
                        batch = next(batches, None)
                    except (pa.ArrowException, OSError) as exc:
                        # Damaged pages: the footer read, the data does not decode.
                        raise TableError(f"a damaged Parquet file: the rows after row "
                                         f"{local} cannot be read ({str(exc).strip()})",
                                         file=col.file) from None
                    if batch is None:
                        break
                    cols = {c: batch.column(c) for c in wanted}
                    base = local
                    col.add(cols, lambda idx, b=base: b + np.asarray(idx, np.int64) + 1)
                    local += batch.num_rows
                    offset += batch.num_rows
                    bar.to(offset)
        finally:
            bar.close()
            col.file = name
    finally:
        for pf in opened:
            pf.close()


def _read_jsonl(path, name, col: _Collector, progress):
    import pyarrow.json as pj

    wanted = list(dict.fromkeys(col.numeric + col.keys))
    gz = str(path).lower().endswith(".gz")
    if path == "-":
        f, total = sys.stdin.buffer, None
    else:
        f, total = _open_bytes(path), os.path.getsize(path)
    raw = f.fileobj if gz and path != "-" else f
    bar = _Progress(progress, total, "B", os.path.basename(name))
    line0 = 0   # lines before the current block
    rest = b""
    first = True
    try:
        while True:
            try:
                chunk = f.read(_JSON_BLOCK)
            except (OSError, EOFError, zlib.error) as exc:
                if not gz:
                    raise TableError(f"cannot read the file ({exc})", file=name) from None
                raise _gzip_error(name, exc) from None
            block = rest + chunk
            if chunk:
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    rest = block
                    continue
                block, rest = block[:cut], block[cut:]
            else:
                rest = b""
            if block:
                n_lines = block.count(b"\n") + (0 if block.endswith(b"\n") else 1)
                _json_block(pj, block, line0, name, col, wanted, first)
                first = False
                line0 += n_lines
                if total is not None:
                    bar.to(raw.tell())
            if not chunk:
                break
    finally:
        bar.close()
        if path != "-":
            f.close()


def _line_numbers(block: bytes, line0: int):
    """1-based line numbers of the non-blank lines of a block, and whether any is blank."""
    b = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if not block.endswith(b"\n"):
        ends = np.append(ends, b.size)
    starts = np.concatenate(([0], ends[:-1] + 1))
    # A line of only blanks (spaces, tabs, CR) is blank; pyarrow skips such lines.
    blank_byte = (b == 32) | (b == 9) | (b == 13) | (b == 10)
    cum = np.concatenate(([0], np.cumsum(~blank_byte)))
    nonblank = (cum[ends] - cum[starts]) > 0
    return line0 + 1 + np.flatnonzero(nonblank), bool((~nonblank).any())


def _json_block(pj, block, line0, name, col: _Collector, wanted, first):
    lines, _ = _line_numbers(block, line0)
    if lines.size == 0:
        return
    try:
        table = pj.read_json(io.BytesIO(block),
                             read_options=pj.ReadOptions(block_size=len(block) + 1))
        names = table.column_names
        if first:
            missing = [c for c in wanted if c not in names]
            if missing:
                raise _unknown(name, missing, names)
        cols = {c: (table.column(c).combine_chunks() if c in names
                    else pa.nulls(table.num_rows)) for c in wanted}
        if table.num_rows != lines.size:  # pragma: no cover - defensive
            raise pa.ArrowInvalid("row count mismatch")
        # pyarrow reads a line "null" as an object of nulls: rows without any wanted
        # value may be such lines, which the slow path names as not objects.
        empty = np.ones(table.num_rows, dtype=bool)
        for a in cols.values():
            empty &= _bools(a.is_null())
        if empty.any() and re.search(rb"(?m)^[ \t]*null[ \t\r]*$", block):
            raise pa.ArrowInvalid("a line that is not an object")
    except pa.ArrowInvalid:
        cols, lines = _json_block_slow(block, line0, name, col, wanted, first)
    col.add(cols, lambda idx: lines[np.asarray(idx, dtype=np.int64)])


def _json_float(text: str):
    value = float(text)
    return value if math.isfinite(value) else text


def _json_block_slow(block, line0, name, col: _Collector, wanted, first):
    """The fallback for a block pyarrow cannot read (a malformed line, a field whose type
    changes): one ``json.loads`` per line, to find the bad lines and read the others."""
    values = {c: [] for c in wanted}
    kept = []
    seen: set = set()
    pending = []
    for i, text in enumerate(block.split(b"\n")):
        if not text.strip(b" \t\r"):     # a blank line, as `_line_numbers` says
            continue
        lineno = line0 + i + 1
        try:
            # A number beyond float64 keeps its text (for the message: "1e400", not inf).
            obj = json.loads(text, parse_float=_json_float)
            reason = None if isinstance(obj, dict) else "not a JSON object"
        except UnicodeDecodeError as exc:
            reason = (f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at byte "
                      f"{exc.start + 1})")
        except ValueError as exc:   # json's own "line 1 column c" would mislead
            reason = (f"malformed JSON ({exc.msg} at character {exc.colno})"
                      if isinstance(exc, json.JSONDecodeError) else f"malformed JSON ({exc})")
            if b"\r" in text.rstrip(b"\r"):
                reason += ("; the line holds a CR: JSON lines end with LF (or CRLF), not "
                           "with CR alone")
        if reason is not None:
            shown = text.decode("utf-8", "replace").rstrip("\r")
            pending.append(col.malformed(lineno, f"{reason}: {_shown(shown)}", shown))
            continue
        if first:
            seen.update(obj)
        kept.append(lineno)
        for c in wanted:
            v = obj.get(c)
            if v is None or isinstance(v, str):
                values[c].append(v)
            elif isinstance(v, bool):
                values[c].append("true" if v else "false")
            elif isinstance(v, (int, float)):
                values[c].append(repr(v))
            else:
                values[c].append(json.dumps(v))
    if first and kept:
        missing = [c for c in wanted if c not in seen]
        if missing:
            raise _unknown(name, missing, sorted(seen))
    if pending and col.on_error == "fail":
        # The earliest of the malformed lines and the bad values of the lines before it.
        stop = min(e.row for e in pending)
        head = [j for j, r in enumerate(kept) if r < stop]
        cols = {c: pa.array([values[c][j] for j in head], pa.string()) for c in wanted}
        if head:
            col.add(cols, lambda idx: np.asarray(kept)[np.asarray(idx, dtype=np.int64)])
        raise col.located(min(pending, key=lambda e: e.row))
    cols = {c: pa.array(values[c], pa.string()) for c in wanted}
    return cols, np.asarray(kept, dtype=np.int64)


# ============================================================================ entry point
def read_columns(path, *, numeric=(), keys=(), format=None, on_error="fail", progress=None,
                 finite=True, key_codes=False, checks=None) -> Columns:
    """Read the ``numeric`` and ``keys`` columns of a CSV, Parquet or JSON-lines file.

    Only the requested columns are converted and kept, batch by batch: a 10^7-row file with
    ten columns costs the memory of the requested ones (8 bytes per numeric value) plus one
    batch. Every batch is checked with vectorized masks (see the module docstring for what
    a bad row is); under ``on_error="fail"`` the first bad row raises `TableError`, under
    ``"skip"`` bad rows are dropped and counted.

    Runtime complexity: ``O(n)`` for ``n`` rows (one pyarrow parse and one cast per
    column and batch); a batch with bad values costs one more regex pass, and ``O(b log n)``
    extra casts for ``b`` values the regex accepts but the cast rejects. A JSON-lines block
    that pyarrow cannot parse falls back to one ``json.loads`` per line of that block. The
    line of a CSV row in a message costs a second read of the file up to that row (Python's
    ``csv`` module, about 70 MB/s), once for all the messages; so does telling a blank
    line from a row of empty cells in a TSV or one-column file, where pyarrow reads a
    blank line as a row.

    Parameters
    ----------
    path : str or os.PathLike
        A file, a directory of Parquet files, or ``"-"`` for CSV (or ``format="jsonl"``)
        on standard input.
    numeric : sequence of str
        Columns read as float64 (labels, scores, weights, times, event flags); a name
        given twice is read once.
    keys : sequence of str
        Columns read as ids (groups, queries): int64 when every value is an integer,
        else text (see `Columns.data`). Not a column of ``numeric``.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the file name (`detect_format`); ``"json"`` means ``"jsonl"``.
    on_error : {"fail", "skip"}
        ``"fail"``: raise `TableError` at the first bad row. ``"skip"``: drop bad rows,
        count them in `Columns.skipped` and keep their first messages.
    progress : bool, optional
        A tqdm bar on stderr (bytes for text files, rows for Parquet) for reads longer than
        half a second. ``None``: when stderr is a terminal.
    finite : bool
        Whether a NaN or infinite value in a ``numeric`` column is a bad row.
    key_codes : bool
        Text ``keys`` come back as int64 codes into ``Columns.levels[col]`` (sorted
        distinct values) rather than as a ``str`` array: 8 bytes per row whatever the id
        length, and the same order.
    checks : dict, optional
        ``{column: (valid, text)}`` for ``numeric`` columns: ``valid(values)`` returns a
        boolean mask of the acceptable float64 values of a batch (vectorized); a row where
        it is False is bad, reported as ``"<value> <text>"`` (for example
        ``(lambda w: w >= 0, "is not a valid weight (must be >= 0)")``).

    Returns
    -------
    Columns

    Raises
    ------
    TableError
        An unknown or ambiguous column (always), a file that cannot be read as its format
        (see the module docstring), or a bad row under ``"fail"``.
    FileNotFoundError
        ``path`` does not exist.
    OSError
        ``path`` cannot be opened (permissions).

    Examples
    --------
    >>> import os, tempfile
    >>> from streamrank.io.tables import read_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "preds.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("id,user,label,score\\n1,ann,0,0.1\\n2,bob,1,0.9\\n3,ann,1,abc\\n")
    >>> cols = read_columns(path, numeric=["label", "score"], keys=["user"],
    ...                     on_error="skip", progress=False)
    >>> cols.data["score"], cols.data["user"], cols.n_rows, cols.skipped
    (array([0.1, 0.9]), array(['ann', 'bob'], dtype='<U3'), 3, 1)
    >>> print(cols.first_errors[0])
    /.../preds.csv, row 3 (line 4), column 'score': 'abc' is not a number
    >>> read_columns(path, numeric=["scor"], progress=False)
    Traceback (most recent call last):
    ...
    streamrank.io.tables.TableError: /.../preds.csv, column 'scor': no such column; the file ...
    """
    numeric, keys = list(dict.fromkeys(numeric)), list(dict.fromkeys(keys))
    for pname, cols in (("numeric", numeric), ("keys", keys)):
        if not all(isinstance(c, str) for c in cols):
            raise TypeError(f"The {pname!r} parameter of read_columns must be column names "
                            f"(str). Got {cols!r} instead.")
    if on_error not in ("fail", "skip"):
        raise ValueError("The 'on_error' parameter of read_columns must be 'fail' or "
                         f"'skip'. Got {on_error!r} instead.")
    both = set(numeric) & set(keys)
    if both:
        raise ValueError("The 'keys' parameter of read_columns must not repeat a numeric "
                         f"column. Got {sorted(both)!r} both numeric and a key instead.")
    unknown = set(checks or {}) - set(numeric)
    if unknown:
        raise ValueError("The 'checks' parameter of read_columns must name numeric columns. "
                         f"Got {sorted(unknown)!r} instead.")
    path = os.fspath(path)
    fmt = detect_format(path, format)
    name = "<stdin>" if path == "-" else path
    if path != "-" and not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    if progress is None:
        progress = sys.stderr.isatty()
    def make():
        return _Collector(name, numeric, keys, on_error, finite, key_codes, fmt, checks)

    col = make()
    if not numeric and not keys:
        return col.result()
    if fmt == "parquet" and path == "-":
        raise TableError("Parquet cannot be read from standard input", file=name)
    if os.path.isdir(path) and fmt != "parquet":
        raise TableError(f"a directory, not a {fmt.upper()} file (a directory is read as "
                         "Parquet files)", file=name)
    try:
        if fmt in ("csv", "tsv"):
            col = _read_csv(path, name, make, "\t" if fmt == "tsv" else ",", progress)
        elif fmt == "parquet":
            _read_parquet(path, name, col, progress)
        else:
            _read_jsonl(path, name, col, progress)
    except pa.ArrowException as exc:  # pragma: no cover - a pyarrow error not foreseen
        raise TableError(f"cannot read the file ({exc})", file=name) from None
    return col.result()
