"""The byte side of `streamrank.io.events`: opening an input (plain, gzip), reading complete
lines (following a growing file), positions and the fingerprint a checkpoint keeps.

`EventSource` is documented in `streamrank.io.events`, which re-exports everything public
here.
"""

from __future__ import annotations

import csv
import os
import stat as _stat
from collections import deque
from typing import Iterator

from ._blockread import Block, BlockMode
from ._csvtext import is_blank_record
from ._detect import FORMATS, detect_format, format_from_name, sniff
from ._follow import FileId, FollowMode, Watch
from ._records import EventError, _csv_reason, _json_record
from ._resume import HEAD_BYTES, InputMismatch, Position, ResumeMode, _count_lines
from ._stopgate import StopGate

__all__ = ["FORMATS", "HEAD_BYTES", "EventError", "EventSource", "FileId", "InputMismatch",
           "Position", "StopGate", "detect_format"]


def _peek(stream, n=16) -> bytes:
    """The first ``n`` bytes of a stream, left unread (b"" when it cannot tell)."""
    if hasattr(stream, "peek"):
        return stream.peek(n)[:n]
    if getattr(stream, "seekable", lambda: False)():
        pos = stream.tell()
        data = stream.read(n)
        stream.seek(pos)
        return data
    return b""


class EventSource(FollowMode, ResumeMode, BlockMode):
    """The rows of an event stream, one at a time, with the position after each.

    Parameters
    ----------
    stream : binary file object or path
        A path (opened here; a regular file is seekable: byte offsets), ``"-"`` for
        standard input, or an open binary stream. Gzip-compressed input (by its first
        bytes) is decompressed (not seekable then); other compressions and UTF-16 text
        are refused with an `EventError`.
    fmt : {"auto", "csv", "tsv", "jsonl", "parquet"}
        ``auto``: from the extension (a ``.gz`` suffix aside), else from the first bytes
        (Parquet) or the first line (``{`` starts JSON lines).
    follow : bool
        Poll at the end of the file for more lines; a regular file only. The file is
        followed across log rotation (``tail -F``): see Notes and `FollowMode`.
    poll, max_idle : float
        Seconds between polls; stop after ``max_idle`` idle seconds (None: never).
    start : Position, optional
        Resume here: seek to ``start.offset`` (a seekable file) or skip ``start.rows``
        rows. The CSV header is read from the start of the file either way.
    header : list of str, optional
        A resumed CSV's columns (the checkpoint's): the file's first line is its header
        when it names one of them; otherwise (content a producer kept appending after a
        ``copytruncate``) these are the columns and the first line is data.
    name : str, optional
        The name used in messages (default: the path, or ``<stdin>``).
    gate : StopGate, optional
        Marks the waits (reads, polls) where a stop signal may interrupt, and ends a
        followed file's polling once a stop was requested.
    on_rotate : callable, optional
        Called with a one-line message (``"events.csv: file truncated; ..."``) when a
        followed file was truncated, rewritten or replaced, once its new content is
        open (`position` is then at its start, between two rows), and when its path
        goes missing or is back.

    Attributes
    ----------
    header : list of str or None
        CSV column names (None for JSON lines; Parquet: the schema's names).
    identity : str
        What the input is, for a checkpoint: the real path of a regular file, the
        absolute path of another file (a named pipe), ``<stdin>``, or the stream's name.
    file_id : FileId or None
        The device and inode of the regular file read (the current one, after a
        rotation); None for other inputs.
    position : Position
        After the last row yielded.
    before : Position
        Before the last row yielded (where a checkpoint taken because of that row's
        failure must point).
    stopped : bool
        True once a followed file's reading stopped (idle, or a stop request) rather
        than ended: a last line without its newline, or a CSV record cut inside a quoted
        field, was left unread for the next run.

    Notes
    -----
    In follow mode a line is read only once complete (its newline written), on every
    stop path: at the idle timeout or a stop request the fragment is left unread and the
    position stays before it. Without ``follow`` the end of the input is real, and a
    last line without a newline is read as a row. Blank lines (only spaces, tabs or a
    CR) are skipped: in CSV they are no rows (as `streamrank.io.tables.read_columns`
    numbers them), in JSON lines a row is its line. `line` is the line where the last
    row starts (a quoted field may span lines). Each line costs ``O(its length)``;
    memory is one line.

    With ``follow``, the file is followed across log rotation (`FollowMode`): rows are
    numbered on across files, `position` is in the current file, `line` counts its lines.
    """

    def __init__(self, stream, *, fmt="auto", follow=False, poll=0.2, max_idle=None,
                 start: Position | None = None, name=None, gate: StopGate | None = None,
                 header: list | None = None, on_rotate=None):
        import sys

        self._owned = False
        self.gate = gate
        self.path = None
        self.compression = None
        self.follow, self.poll, self.max_idle = follow, poll, max_idle
        self.stopped = False
        self.seekable = False     # set once the format is known
        self._idle_since = None
        self._pending = b""       # bytes read past the last complete line
        self._queued = deque()    # complete lines put back, read before `_pending`
        self._offset = 0          # bytes of the complete lines read
        self._end = 0             # bytes up to the end of the last record (or blank line)
        self._head = bytearray()  # the first HEAD_BYTES of a stream (fingerprint)
        self._expect = None       # (bytes, sha256, on_mismatch) still to check
        self._raw = None          # the file under a decompressor
        self._expected = header   # a resumed CSV's columns
        self._on_rotate = on_rotate or (lambda message: None)
        self._watch = None        # a followed file's path (`Watch`)
        self._switched = None     # the new content's cause, until its first line is read
        self._drain = False       # a replaced file read to its end once more
        self.file_id = None
        regular = False
        if isinstance(stream, (str, os.PathLike)) and str(stream) == "-":
            stream = sys.stdin.buffer
            self.name = name or "<stdin>"
            self.identity = "<stdin>"
        elif isinstance(stream, (str, os.PathLike)):
            self.path = os.fspath(stream)
            self.name = name or self.path
            stream = open(self.path, "rb")  # noqa: SIM115 (closed in close())
            self._owned = True
            regular = _stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
            self.identity = (os.path.realpath(self.path) if regular
                             else os.path.abspath(self.path))
            if regular:
                self.file_id = FileId.of(stream.fileno())
                if follow:
                    self._watch = Watch(self.path, stream.fileno(), self.name,
                                        self._on_rotate)
        else:
            self.name = name or getattr(stream, "name", "<stream>")
            self.identity = str(self.name)
        self.stream = stream
        try:
            self._open(fmt, regular, start)
        except BaseException:
            self.close()
            raise

    def _open(self, fmt, regular, start):
        if self.follow and not regular:
            raise ValueError("only a regular file can be followed (a pipe or standard "
                             "input is read until it closes)")
        kind = sniff(self._blocking(_peek, self.stream))
        if kind == "parquet" and fmt == "auto":
            fmt = "parquet"
        elif kind == "gzip" and fmt != "parquet":
            if self.follow:
                raise ValueError("a gzip-compressed file cannot be followed (it is read "
                                 "to its end)")
            import gzip

            self._raw = self.stream
            self.stream = gzip.GzipFile(fileobj=self.stream, mode="rb")
            self.compression = "gzip"
        elif kind == "utf-16":
            raise EventError("UTF-16 text (it starts with a UTF-16 byte-order mark): "
                             "events must be UTF-8; convert it, e.g. "
                             "iconv -f UTF-16 -t UTF-8")
        elif kind is not None and kind != "parquet":
            raise EventError(f"{kind}-compressed: events must be plain or "
                             f"gzip-compressed text; decompress it first and pipe it in "
                             f"(... | streamrank monitor -)")
        if fmt == "auto":
            base = str(self.path or self.name)
            fmt = format_from_name(base) or detect_format(base, head=self._first_line())
        else:
            fmt = detect_format(self.path or self.name, fmt)
        if fmt == "parquet" and (self.path is None or not regular):
            raise ValueError("Parquet is read from a file (not a pipe or standard input)")
        self.format = fmt
        self.delimiter = "\t" if fmt == "tsv" else ","
        self.seekable = regular and self.compression is None and fmt != "parquet"
        self._start = start or Position(0, 0 if self.seekable else None)
        self._rows = 0
        # Lines: `_line_base` before where `_lines` began (None: not counted yet, after a
        # seek), `_lines_read` since; the last record's row and its first line.
        self._line_base, self._lines_read = 0, 0
        self._record_row, self._record_line = None, None
        self._prev = self._start
        self.header = None
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self.close()
            self._owned = False
            self._pq = pq.ParquetFile(self.path)
            self.header = list(self._pq.schema_arrow.names)
        elif fmt != "jsonl":
            self._read_header()
        self._end = self._offset  # (past the header)
        self._prev_end = self._end
        self._switched = None     # (the file replaced while its header was awaited)

    # ------------------------------------------------------------------ position
    @property
    def position(self) -> Position:
        return Position(self._rows, self._end if self.seekable else None)

    @property
    def line(self) -> int | None:
        """The line where the last row yielded starts, as an editor numbers lines (the
        header is line 1); None for Parquet or before any row. After a resume by seeking,
        the first call counts the line ends before the position (``O(offset)``)."""
        if self._record_line is None:
            return None
        if self._line_base is None:
            self._line_base = _count_lines(self.path, self._seeked)
        return self._line_base + self._record_line

    def locate(self, exc: EventError, row=None) -> EventError:
        """``exc`` with this input's name and, when it is about the last row yielded (or
        ``row``), its line."""
        last = exc.row is not None and exc.row == self._record_row and row in (
            None, self._record_row)
        line = self.line if last else None
        return exc.at(file=self.name, line=line)

    @property
    def before(self) -> Position:
        return self._prev

    @property
    def consumed(self) -> int:
        """Bytes of the (decompressed) input up to `position`, the header included."""
        return self._end

    @property
    def consumed_before(self) -> int:
        """Bytes of the input up to `before`."""
        return self._prev_end

    def close(self) -> None:
        if self._owned:
            self.stream.close()
            if self._raw is not None:  # under a GzipFile, which leaves it open
                self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ lines
    def _blocking(self, read, *args):
        """``read(*args)`` as a wait: a stop signal may interrupt it."""
        gate = self.gate
        if gate is None:
            return read(*args)
        gate.blocking = True
        try:
            return read(*args)
        finally:
            gate.blocking = False

    def _read(self) -> bytes:
        chunk = self._blocking(self.stream.readline)
        if len(self._head) < HEAD_BYTES:    # (a stream's fingerprint; a followed file's
            self._head.extend(chunk[:HEAD_BYTES - len(self._head)])  # first bytes)
            if self._expect is not None and not self.seekable:
                self._check_head()
        return chunk

    def _next_line(self) -> bytes | None:
        """The next complete line (a real end: the last line, newline or not), or None
        at the end (in follow mode, a stop: `stopped`, the fragment kept unread)."""
        if self._queued:
            return self._take_queued()
        pending = self._pending
        if pending[-1:] == b"\n":
            self._pending = b""
            self._offset += len(pending)
            return pending
        while True:
            chunk = self._read()
            if chunk:
                if pending:
                    chunk = pending + chunk
                if chunk[-1:] == b"\n":
                    self._pending = b""
                    self._offset += len(chunk)
                    self._idle_since = None
                    return chunk
                pending = chunk  # no newline yet (or the last line of the input)
                continue
            if self.follow:
                self._pending = pending
                if self._at_end():
                    pending = self._pending     # (new content: nothing pending)
                    continue
                self.stopped = True
                return None
            self._pending = b""
            self._offset += len(pending)
            return pending or None

    def _first_line(self) -> bytes:
        """The first line, read ahead (to sniff the format) and kept for the reader."""
        line = self._whole_line("first line")
        self._unread(line)
        return line

    def _whole_line(self, what) -> bytes:
        line = self._next_line()
        if line is None and self.stopped:
            if self.gate is not None and self.gate.requested:
                raise KeyboardInterrupt
            raise EventError(f"no complete {what} after {self.max_idle:g} s idle (the file "
                             "is empty, or that line has no line end yet)")
        return line or b""

    def _read_header(self) -> None:
        expected = self._expected
        if expected is None:
            self.header = self._parse_header(self._whole_line("header line"))
            self._line_base = 1
            return
        line = self._next_line()     # resumed: the file's header, or its first row
        if line is None:             # (a followed file's new content, not written yet)
            if self.gate is not None and self.gate.requested:
                raise KeyboardInterrupt
            self.header = list(expected)
            return
        header = self._header_of(line)
        if header is not None and set(header) & set(expected):
            self.header = header     # (compared with the checkpoint's by the caller)
            self._line_base = 1
        else:
            self.header = list(expected)
            self._unread(line)

    def _parse_header(self, line: bytes) -> list:
        try:
            text = line.decode("utf-8-sig").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise EventError(f"the header line is not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start})", line=1) from None
        if not text.strip():
            raise EventError("no header line (an empty input)", row=None)
        try:
            return next(csv.reader([text], delimiter=self.delimiter))
        except csv.Error as exc:
            raise EventError(f"the header line {text[:60]!r}: {_csv_reason(exc)}",
                             line=1) \
                from None

    def _header_of(self, line: bytes) -> list | None:
        """The fields of ``line`` read as a header; None if it cannot be one."""
        try:
            return self._parse_header(line)
        except EventError:
            return None

    def _unread(self, line: bytes) -> None:
        """Put a complete line back: the next one read."""
        self._offset -= len(line)
        self._queued.appendleft(line)

    def _lines(self) -> Iterator[str]:
        """Complete lines, decoded (`_bad_text` holds a line's UTF-8 error)."""
        codec = "utf-8-sig" if self._offset == 0 else "utf-8"  # a JSON file's BOM
        self._idle_since = None
        readline, gate = self.stream.readline, self.gate
        while True:
            if self._pending or self._queued or len(self._head) < HEAD_BYTES:
                raw = self._next_line()       # the careful way: a fragment, the head
            else:                             # the common case: one whole line
                if gate is None:
                    raw = readline()
                else:
                    gate.blocking = True
                    try:
                        raw = readline()
                    finally:
                        gate.blocking = False
                if raw[-1:] == b"\n":
                    self._offset += len(raw)
                    self._idle_since = None
                else:
                    self._pending = raw
                    raw = self._next_line()
            if self._switched is not None:    # new content (a rotation): its first line
                if raw is not None:            # is for `_new_content`
                    self._unread(raw)
                return
            if raw is None:
                return
            try:
                text = raw.decode(codec)
            except UnicodeDecodeError as exc:
                self._bad_text = exc
                text = raw.decode(codec, "replace")
            codec = "utf-8"
            self._line = text
            self._lines_read += 1
            yield text

    def __iter__(self) -> Iterator[tuple[int, object]]:
        """``(row, record)``: a list of strings (CSV), a parsed object (JSON lines), a
        dict (Parquet). A line that does not parse gives an `EventError` record."""
        return self._iterate(None)

    def blocks(self, parse) -> Iterator[Block | tuple[int, object]]:
        """As iterating the source, but the rows of a plain CSV or TSV stretch come as
        a `streamrank.io._blockread.Block` of the columns ``parse(lines)`` makes of its
        whole lines (bytes), where it does not decline them (None); the others as
        ``(row, record)``. The same rows, positions and errors
        (`streamrank.io._blockread`)."""
        return self._iterate(parse if self.format in ("csv", "tsv") else None)

    def _iterate(self, parse):
        skip = self._seek_or_skip()
        if self.format == "parquet":
            yield from self._parquet(skip)
            return
        while not self.stopped:     # (stopped: a resumed follow found no new line yet)
            skip = yield from self._records(skip, parse)
            if self._switched is None or not self._new_content():
                break
        if self.stopped:
            return
        if skip:
            raise InputMismatch(f"it ends after {self._rows} rows, before the "
                                f"checkpoint's position (row {self._start.rows}): it is "
                                "not the input the checkpoint was taken on")
        if self._expect is not None:
            self._check_head(ended=True)

    def _records(self, skip, parse=None):
        """The rows of one content (a followed file's, up to a rotation); returns the
        rows still to skip. With ``parse``, plain stretches come as blocks."""
        self._bad_text = None
        self._line = ""
        jsonl = self.format == "jsonl"
        seekable = self.seekable
        lines = self._lines()
        records = lines if jsonl else csv.reader(lines, delimiter=self.delimiter)
        while True:
            if parse is not None and not skip:
                block = self._block(parse)
                if block is not None:
                    yield block
                    continue
            first_line = self._lines_read + 1
            try:
                rec = next(records)
            except StopIteration:
                break
            except csv.Error as exc:
                rec = EventError(_csv_reason(exc), row=self._rows + 1,
                                 value=self._line.rstrip("\r\n")[:60])
            if self.stopped:
                break   # a CSV record cut by the stop inside a quoted field: unread
            if self._switched is not None:
                continue    # what the csv reader held when the content changed: unread
            row = self._rows + 1
            bad, self._bad_text = self._bad_text, None
            if not jsonl and isinstance(rec, list) and (
                    not rec or is_blank_record(rec, self.delimiter)):
                self._end = self._offset    # a blank line: no row (as `read_columns`)
                continue
            if skip:
                skip -= 1
                self._rows, self._end = row, self._offset
                continue
            if isinstance(rec, EventError):
                pass
            elif bad is not None:
                text = self.delimiter.join(rec) if isinstance(rec, list) else rec.strip()
                rec = EventError(f"not UTF-8 text ({bad.reason} at byte {bad.start} of "
                                 "the line)", row=row, value=text[:60])
            elif jsonl:
                text = rec.strip()
                if not text:
                    self._rows, self._end = row, self._offset  # a blank line
                    continue
                rec = _json_record(text, row)
            # the csv reader pulls exactly the lines of one row: the offset now is past
            # this row, and `_end` (at the previous row) is before it
            end = self._end
            self._prev = Position(row - 1, end if seekable else None)
            self._prev_end = end
            self._rows, self._end = row, self._offset
            self._record_row, self._record_line = row, first_line
            if isinstance(rec, EventError):
                rec = self.locate(rec)
            yield row, rec
        return skip

    def _parquet(self, skip) -> Iterator[tuple[int, object]]:
        names = self.header
        for batch in self._pq.iter_batches(batch_size=65536):
            n = batch.num_rows
            if skip >= n:
                skip -= n
                self._rows += n
                continue
            cols = [batch.column(i).to_pylist() for i in range(len(names))]
            for i in range(skip, n):
                row = self._rows + 1
                self._prev = Position(self._rows, None)
                self._rows = self._record_row = row
                yield row, {name: col[i] for name, col in zip(names, cols)}
            skip = 0
        if skip:
            raise InputMismatch(f"it has {self._rows} rows, fewer than the checkpoint's "
                                f"position (row {self._start.rows})")
