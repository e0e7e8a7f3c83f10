"""The collector of `streamrank.io.tables.read_columns`: checks each batch of the requested
columns with masks, keeps the good rows, counts and locates the bad ones; and what the
format readers share (column-name checks, opening a file, a progress bar)."""

from __future__ import annotations

import gzip
import heapq
import math
import sys
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ._arrow import (_INEXACT, _INVALID, _MISSING, _NOT_FINITE, _NOT_NUMBER, _NOT_TEXT,
                     _OK, _arrow_mask, _as_text, _bools, _floats, _keys_array, _to_numeric,
                     _to_times)
from ._located import LocatedError
from ._located import shown as _shown

#: Messages kept in `Columns.first_errors` under ``on_error="skip"``.
MAX_FIRST_ERRORS = 5


class TableError(LocatedError):
    """A bad file, column or row of a table (`streamrank.io.tables.read_columns`): a
    `LocatedError`, whose message names the file, the line and the data row, the column
    and the value (``data.csv, line 6 (row 5), column 'score': 'abc' is not a number``).

    The line is the one where the row (or the header) starts, as an editor numbers lines
    (the header being line 1); a JSON line's row is its line; a Parquet row (or a CSV row
    of standard input, whose lines are not known) names only its row.
    """

    def __init__(self, reason, *, file, row=None, column=None, value=None, line=None,
                 expected=None):
        super().__init__(reason, file=file, line=line, row=row, column=column, value=value,
                         expected=expected)


# Its public home (the name tracebacks and ``except`` clauses use).
TableError.__module__ = "streamrank.io.tables"


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
    #: ``line_of(rows)``: the lines where data rows (1-based, skipped rows counted) start,
    #: as `TableError` names them (0: not found), for messages about the rows read;
    #: None when the lines are not known (Parquet, standard input). A CSV file is read
    #: again up to the last row asked (``O(bytes)``); a JSON line's row is its line.
    line_of: object = field(default=None, repr=False, compare=False)


def _value_at(arr: pa.Array, i: int):
    """The value of row ``i`` of a batch column as read, for a message."""
    return arr[int(i)].as_py()


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

# What a value of each bad code should have been (`LocatedError.expected`).
_EXPECTED = {_NOT_NUMBER: "a number", _NOT_FINITE: "a finite number", _NOT_TEXT: "UTF-8 text",
             _INEXACT: "an id below 2**53 (or a string)"}

# How each format writes a missing value, for the message (value: what `TableError.value`
# holds then).
_MISSING_TEXT = {"csv": ("empty cell", ""), "tsv": ("empty cell", ""),
                 "jsonl": ("null or absent field", None), "parquet": ("null", None)}


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
                 checks=None, times=()):
        self.file, self.numeric, self.keys = file, list(numeric), list(keys)
        self.times = set(times)
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
        self.close_lines = None     # closes what ``line_of`` opened

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
                    e.at(line=lines[e.row])
        return errors[0] if errors else None

    def first_errors(self) -> list:
        # Both lists are in file order; merging keeps it (a sort by row number would mix
        # the files of a Parquet directory, whose rows are numbered per file).
        merged = [e for _, e in heapq.merge(self.value_errors, self.row_errors,
                                            key=lambda e: e[0])][:MAX_FIRST_ERRORS]
        self.located(*merged)
        return [str(e) for e in merged]

    def mark(self) -> tuple:
        """Where the rows read so far end, for `rollback` (a file read again)."""
        return (self.n_rows, self.skipped, len(self.value_errors), len(self.row_errors),
                {c: b.n for c, b in self.num_bufs.items()},
                {c: len(chunks) for c, chunks in self.key_chunks.items()})

    def rollback(self, mark: tuple) -> "_Collector":
        """Forget the rows read after `mark`; returns the collector. O(1)."""
        self.n_rows, self.skipped, n_value, n_row, nums, keys = mark
        del self.value_errors[n_value:], self.row_errors[n_row:]
        for c, n in nums.items():
            self.num_bufs[c].n = n
        for c, n in keys.items():
            del self.key_chunks[c][n:]
        return self

    def settle(self):
        """A file of several is read: its errors get their lines now (the next file's
        reader brings its own), and what its lines read is closed."""
        self.located(*(e for _, e in self.value_errors + self.row_errors))
        if self.close_lines is not None:
            self.close_lines()
        self.line_of = self.close_lines = None

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
            values, bad = (_to_times if c in self.times else _to_numeric)(cols[c])
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
                                  row=row, column=c, value=self.missing_value,
                                  expected="a value")
            if bad[i] != _OK:
                value = _value_at(raw[c] if bad[i] == _NOT_TEXT else cols[c], i)
                if bad[i] == _INVALID:
                    reason = f"{_shown(value)} {self.checks[c][1]}"
                elif (bad[i] == _NOT_FINITE and self.fmt == "jsonl"
                      and isinstance(value, float) and math.isinf(value)):
                    reason = (f"{_shown(value)} is not finite: a JSON number beyond the "
                              "float64 range (about 1.8e308) reads as infinity")
                elif bad[i] == _NOT_NUMBER and c in self.times:
                    reason = f"{_shown(value)} is not a number or an ISO 8601 timestamp"
                else:
                    reason = _REASONS[int(bad[i])](value)
                return TableError(reason, file=self.file, row=row, column=c, value=value,
                                  expected=_EXPECTED.get(int(bad[i])))
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
        return Columns(data, self.n_rows, self.skipped, self.first_errors(), levels,
                       None if self.line_of is None else self.lines)

    def lines(self, rows) -> np.ndarray:
        """The lines of data ``rows`` (any order), through the reader's ``line_of``; the
        file read again for them is closed after."""
        rows = np.asarray(rows, dtype=np.int64)
        uniq, inv = np.unique(rows, return_inverse=True)
        try:
            got = np.asarray(self.line_of(uniq), dtype=np.int64)
        finally:
            if self.close_lines is not None:
                self.close_lines()
        return got[inv].reshape(rows.shape)


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


def _unknown(file, missing, available, delimiter=None) -> TableError:
    c = missing[0]
    shown = ", ".join(repr(a) for a in list(available)[:30])
    more = ", ..." if len(available) > 30 else ""
    return TableError(f"no such column; the file has the columns {shown}{more}"
                      f"{_delimiter_hint(available, delimiter)}", file=file, column=c)


# (delimiter, how a message names it) of the separators a header of one column may hide
_SEPARATORS = ((";", "semicolons (';')"), ("\t", "tabs"), ("|", "bars ('|')"),
               (",", "commas"))


def _delimiter_hint(names, delimiter) -> str:
    """A hint when a text header read as one column holds another separator (``id;y;p``
    read as CSV, a CSV read as TSV): what the file seems to be separated by, and what
    the reader reads. Empty otherwise."""
    if delimiter is None or len(names) != 1:
        return ""
    for sep, text in _SEPARATORS:
        if sep != delimiter and sep in names[0]:
            break
    else:
        return ""
    if sep == "\t":
        return (": the header seems to be separated by tabs; read the file as TSV "
                "(format 'tsv', --input-format tsv, or a name ending in .tsv)")
    if sep == ",":
        return (": the header seems to be separated by commas; read the file as CSV "
                "(format 'csv', --input-format csv, or a name ending in .csv)")
    read = "tab" if delimiter == "\t" else "comma"
    return (f": the header seems to be separated by {text}, and the file is read as "
            f"{read}-separated (streamrank reads CSV with commas and TSV with tabs: "
            "convert the file to one of them)")



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


def _check_names(file, names, wanted, line=None, what="the header", delimiter=None):
    """Every wanted column is in ``names`` once (else a `TableError` naming it, with a
    hint when a text header's ``delimiter`` seems to be another)."""
    missing = [c for c in wanted if c not in names]
    if missing:
        raise _unknown(file, missing, names, delimiter)
    for c in wanted:
        where = [i + 1 for i, n in enumerate(names) if n == c]
        if len(where) > 1:
            cols = ", ".join(map(str, where[:-1])) + f" and {where[-1]}"
            raise TableError(f"{what} has {len(where)} columns of this name (columns "
                             f"{cols}): which one to read is ambiguous; rename them",
                             file=file, column=c, line=line)
