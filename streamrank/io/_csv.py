"""The CSV and TSV reader of `streamrank.io.tables.read_columns`: pyarrow's streaming
parser on the requested columns, the numbering of its records as data rows, and the
lines of the rows named in messages (`streamrank.io._csvtext`)."""

from __future__ import annotations

import os
import queue
import re
import sys
import threading
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._arrow import _arrow_mask, _bools
from ._collect import (TableError, _check_names, _Collector, _gzip_error, _open_bytes,
                       _Progress, _size)
from ._located import shown as _shown

# Bytes per pyarrow CSV block (one batch): pyarrow's parser holds ~30x a block, so 1 MiB
# blocks peak near 40 MB and read as fast as larger ones (benchmarks/bench_cli.py).
_CSV_BLOCK = 1 << 20
# A row longer than a block makes pyarrow fail; the read starts over with blocks 8 times
# larger, up to this (a longer row is an error that names it).
_CSV_BLOCK_MAX = 1 << 26
_GZ_READ = 1 << 22          # bytes of a .gz file read at a time


class _RowTooLong(Exception):
    """A CSV row longer than pyarrow's block: the read starts over with larger blocks."""


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
    _check_names(name, head.names, wanted, line=head.line, delimiter=delimiter)
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
        col.line_of, col.close_lines = line_of, lines.close

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
