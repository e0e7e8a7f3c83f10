"""Reading prediction events from a file or a pipe, one row at a time, with a position.

The input of ``streamrank monitor``: a CSV file with a header, JSON lines (one object per
line), or a Parquet file (replayed), from a path or from standard input (``-``). An
`EventSource` yields ``(row, record)`` pairs as they are read and knows, after each, the
*position* just past it: the number of rows consumed and, for files, the byte offset. A
checkpoint stores that position; a resumed reader seeks to the offset (a file) or skips
that many rows (standard input, Parquet), so no row is read twice or lost.

Rows are numbered from 1 as a user counts them: CSV data rows after the header (blank
lines count), JSON lines by line number, Parquet rows by index + 1.

``follow=True`` is ``tail -f``: at the end of the file the source polls every ``poll``
seconds for more lines, and stops after ``max_idle`` seconds without a complete new line
(never, if ``max_idle`` is None: stop it with Ctrl-C). A line still being written (no
newline yet) is not read until it is complete.

`EventParser` turns a record into ``(key, score, label, weight, time)``. Empty cells
(CSV ``""``, JSON ``null`` or a missing field) are None: a late label row has no score, a
prediction no label. Scores, labels and weights are numbers (labels also ``true`` /
``false``); times are numbers or ISO 8601 timestamps (converted to POSIX seconds, a
timestamp without a zone being UTC). A bad value raises `EventError`, which says where.

Example
-------
>>> import io
>>> src = EventSource(io.BytesIO(b"id,score,label\\na,0.9,1\\nb,0.2,\\n"), name="s.csv")
>>> parse = EventParser(src, Columns())
>>> [(row, parse(row, rec)) for row, rec in src]
[(1, ('a', 0.9, 1.0, None, None)), (2, ('b', 0.2, None, None, None))]
>>> src.position
Position(rows=2, offset=None)
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import math
import os
import re
import time as _time
from dataclasses import dataclass
from typing import Iterator, NamedTuple

__all__ = [
    "Columns",
    "EventError",
    "EventParser",
    "EventSource",
    "Position",
    "StopGate",
    "detect_format",
    "format_time",
    "parse_period",
    "parse_time",
]

FORMATS = ("csv", "jsonl", "parquet")
_EXT = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
        ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


class Position(NamedTuple):
    """Where a reader is: ``rows`` consumed (header excluded), and the byte ``offset``
    just past the last of them (None when not seekable: stdin, Parquet)."""

    rows: int
    offset: int | None


class EventError(ValueError):
    """A bad row: ``row`` (1-based), the ``column`` and ``value`` at fault (if any), and
    a ``reason``. ``str()`` is ``"row 3, column 'score': 'abc': not a number"``."""

    def __init__(self, reason, row=None, column=None, value=None):
        self.reason, self.row, self.column, self.value = reason, row, column, value
        where = self.where()
        super().__init__(f"{where}: {reason}" if where else reason)

    def where(self, file=None) -> str:
        parts = [] if file is None else [str(file)]
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        text = ", ".join(parts)
        return text if self.value is None else f"{text}: {self.value!r}"


@dataclass(frozen=True)
class Columns:
    """Column (field) names of the events. ``id=None``: the row number is the id (no late
    labels or re-scores possible); ``id_required=False``: the same when the ``id`` column
    is not in the file."""

    id: str | None = "id"
    id_required: bool = True
    score: str = "score"
    label: str | None = "label"
    weight: str | None = None
    time: str | None = None


# --------------------------------------------------------------------------- values
_PERIOD = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_period(text) -> float:
    """``"90"``, ``"90s"``, ``"15m"``, ``"1.5h"``, ``"2d"``, ``"1w"`` -> seconds (a bare
    number is in the time column's own units). `ValueError` otherwise.

    >>> parse_period("1h"), parse_period("15m"), parse_period("2.5")
    (3600.0, 900.0, 2.5)
    """
    m = _PERIOD.match(str(text))
    value = float(m.group(1)) * _UNITS[m.group(2)] if m else math.nan
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"a period must be a positive number with an optional unit s, m, "
                         f"h, d or w (e.g. 3600, 15m, 1h); got {text!r}")
    return value


def parse_time(value) -> tuple[float, bool]:
    """``(seconds, is_timestamp)`` of a time cell: a number as it is, or an ISO 8601
    timestamp as POSIX seconds (no zone: UTC). `ValueError` otherwise.

    >>> parse_time("2024-01-01T00:00:00Z"), parse_time("12.5")
    ((1704067200.0, True), (12.5, False))
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        t = float(value)
        if not math.isfinite(t):
            raise ValueError("not a finite time")
        return t, False
    if isinstance(value, _dt.datetime):
        dt = value
    else:
        text = str(value).strip()
        try:
            t = float(text)
        except ValueError:
            pass
        else:
            if not math.isfinite(t):
                raise ValueError("not a finite time")
            return t, False
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = _dt.datetime.fromisoformat(text)
        except ValueError:
            raise ValueError("not a number or an ISO 8601 timestamp") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.timezone.utc)
    return dt.timestamp(), True


def format_time(t: float) -> str:
    """POSIX seconds as an ISO 8601 UTC timestamp (``2024-01-01T00:00:00Z``)."""
    dt = _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc)
    text = dt.isoformat(timespec="milliseconds" if t % 1 else "seconds")
    return text.replace("+00:00", "Z")


def detect_format(path: str, first_line: str | None = None) -> str:
    """``csv``, ``jsonl`` or ``parquet`` from the file extension, else from the first
    line (``{`` starts JSON lines)."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext in _EXT:
        return _EXT[ext]
    if first_line is not None and first_line.lstrip().startswith("{"):
        return "jsonl"
    return "csv"


# --------------------------------------------------------------------------- stopping
class StopGate:
    """Turns Ctrl-C (SIGINT) and SIGTERM into a *request* to stop between rows.

    A signal arriving while a row is being processed only sets `requested`; the loop
    checks it after the row, so the monitor's state is never left half-updated (a
    `KeyboardInterrupt` in the middle of an update could not be undone). A signal
    arriving while the source *waits* (a poll at the end of a followed file, a read on
    standard input) raises `KeyboardInterrupt` there, so a stop does not wait for a
    next line that may never come. Use as a context manager (the previous handlers come
    back on exit; outside the main thread it installs nothing).
    """

    def __init__(self):
        self.requested = False
        self.blocking = False
        self.signal = None
        self._old: dict = {}

    def _handler(self, signum, frame):
        self.requested = True
        self.signal = signum
        if self.blocking:
            raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()


# --------------------------------------------------------------------------- sources
class EventSource:
    """The rows of an event stream, one at a time, with the position after each.

    Parameters
    ----------
    stream : binary file object or path
        A path (opened here, seekable: byte offsets), ``"-"`` for standard input, or an
        open binary stream.
    fmt : {"auto", "csv", "jsonl", "parquet"}
        ``auto``: from the extension, else from the first line.
    follow : bool
        Poll at the end of the file for more lines (``tail -f``).
    poll, max_idle : float
        Seconds between polls; stop after ``max_idle`` idle seconds (None: never).
    start : Position, optional
        Resume here: seek to ``start.offset`` (a seekable file) or skip ``start.rows``
        rows. The CSV header is read from the start of the file either way.
    name : str, optional
        The name used in messages (default: the path, or ``<stdin>``).
    gate : StopGate, optional
        Marks the waits (reads, polls) where a stop signal may interrupt, and ends a
        followed file's polling once a stop was requested.

    Attributes
    ----------
    header : list of str or None
        CSV column names (None for JSON lines; Parquet: the schema's names).
    position : Position
        After the last row yielded.
    before : Position
        Before the last row yielded (where a checkpoint taken because of that row's
        failure must point).
    """

    def __init__(self, stream, *, fmt="auto", follow=False, poll=0.2, max_idle=None,
                 start: Position | None = None, name=None, gate: StopGate | None = None):
        self._owned = False
        self.gate = gate
        self.path = None
        if isinstance(stream, (str, os.PathLike)):
            if str(stream) == "-":
                import sys

                stream = sys.stdin.buffer
                self.name = name or "<stdin>"
            else:
                self.path = os.fspath(stream)
                self.name = name or self.path
                if fmt == "auto":
                    fmt = detect_format(self.path, None if os.path.splitext(self.path)[1]
                                        .lower() in _EXT else _peek_line(self.path))
                if fmt != "parquet":
                    stream = open(self.path, "rb")  # noqa: SIM115 (closed in close())
                    self._owned = True
        else:
            self.name = name or getattr(stream, "name", "<stream>")
        self.stream = stream
        self.follow, self.poll, self.max_idle = follow, poll, max_idle
        self.seekable = self.path is not None and fmt != "parquet"
        self._start = start or Position(0, 0 if self.seekable else None)
        self._rows = 0
        self._offset = 0
        self._prev = self._start
        self.header = None
        self._first = None       # a line read ahead to sniff the format
        self._bad_text = None    # the UnicodeDecodeError of a line of the current row
        self._idle_since = None
        if fmt == "auto":
            self._first = self._readline_blocking()
            fmt = detect_format(str(self.name), self._first.decode("utf-8", "replace")
                                if self._first else None)
        if fmt not in FORMATS:
            raise ValueError(f"unknown input format {fmt!r}; use one of {FORMATS}")
        self.format = fmt
        if fmt == "csv":
            self._read_header()
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            self._pq = pq.ParquetFile(self.path)
            self.header = list(self._pq.schema_arrow.names)

    # ------------------------------------------------------------------ position
    @property
    def position(self) -> Position:
        return Position(self._rows, self._offset if self.seekable else None)

    @property
    def before(self) -> Position:
        return self._prev

    def close(self) -> None:
        if self._owned:
            self.stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ lines
    def _readline_blocking(self) -> bytes:
        gate = self.gate
        if gate is not None:
            gate.blocking = True
        line = self.stream.readline()
        if gate is not None:
            gate.blocking = False
        self._offset += len(line)
        return line

    def _read_header(self) -> None:
        line = self._first if self._first is not None else self._readline_blocking()
        self._first = None
        while self.follow and not line.endswith(b"\n"):
            # the header itself is still being written
            if not self._wait():
                break
            more = self.stream.readline()
            self._offset += len(more)
            line += more
        try:
            text = line.decode("utf-8-sig").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise EventError(f"the header line is not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start})") from None
        if not text.strip():
            raise EventError("no header line (an empty input)", row=None)
        self.header = next(csv.reader([text]))

    def _wait(self) -> bool:
        """Sleep one poll at the end of a followed file; False once idle too long."""
        gate = self.gate
        if gate is not None and gate.requested:
            return False
        now = _time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if self.max_idle is not None and now - self._idle_since >= self.max_idle:
            return False
        if gate is not None:
            gate.blocking = True
        _time.sleep(self.poll)
        if gate is not None:
            gate.blocking = False
        return True

    def _decode(self, raw: bytes, codec="utf-8") -> str:
        """A line as text; bytes that are not UTF-8 are replaced and remembered, so that
        `__iter__` turns the row into an `EventError` (a bad row, not a crash)."""
        try:
            return raw.decode(codec)
        except UnicodeDecodeError as exc:
            self._bad_text = exc
            return raw.decode(codec, "replace")

    def _lines(self) -> Iterator[str]:
        """Complete lines, decoded; ``self._offset`` is past each line as it is yielded."""
        raw_readline = self.stream.readline
        gate = self.gate
        if gate is None:
            readline = raw_readline
        else:
            def readline():
                # a stop signal may interrupt the read (a wait), not what follows it
                gate.blocking = True
                line = raw_readline()
                gate.blocking = False
                return line
        if self._first is not None:  # a sniffed first line (JSON lines)
            first, self._first = self._first, None
            if first.endswith(b"\n") or not self.follow:
                yield self._decode(first, "utf-8-sig")
                pending = b""
            else:
                pending = first
                self._offset -= len(first)
        else:
            pending = b""
        self._idle_since = None
        while True:
            chunk = readline()
            if chunk:
                if pending:
                    chunk = pending + chunk
                    pending = b""
                if chunk[-1:] == b"\n":
                    self._offset += len(chunk)
                    self._idle_since = None
                    yield self._decode(chunk)
                    continue
                pending = chunk  # a line without its newline yet (or the last line)
                if not self.follow:
                    self._offset += len(chunk)
                    yield self._decode(chunk)
                    return
                continue
            if not self.follow or not self._wait():
                if pending:  # the last line never got its newline
                    self._offset += len(pending)
                    yield self._decode(pending)
                return

    def _seek_or_skip(self) -> int:
        """Move to the start position: seek (returns 0 rows left to skip) or not."""
        start = self._start
        if start.rows == 0:
            return 0
        if self.seekable and start.offset is not None:
            size = os.fstat(self.stream.fileno()).st_size
            if size < start.offset:
                raise EventError(f"the file has {size} bytes, fewer than the checkpoint's "
                                 f"position {start.offset}: it was truncated or replaced")
            self.stream.seek(start.offset)
            self._offset = start.offset
            self._rows = start.rows
            return 0
        return start.rows

    def __iter__(self) -> Iterator[tuple[int, object]]:
        """``(row, record)``: a list of strings (CSV), a parsed object (JSON lines), a
        dict (Parquet). A JSON line that does not parse gives an `EventError` record."""
        skip = self._seek_or_skip()
        if self.format == "parquet":
            yield from self._parquet(skip)
            return
        if self.format == "csv":
            records = csv.reader(self._lines())
        else:
            records = self._lines()
        jsonl = self.format == "jsonl"
        after = self._offset if self.seekable else None
        for rec in records:
            row = self._rows + 1
            bad, self._bad_text = self._bad_text, None
            if skip:
                skip -= 1
                self._rows = row
                continue
            if bad is not None:
                text = ",".join(rec) if isinstance(rec, list) else rec.strip()
                rec = EventError(f"not UTF-8 text ({bad.reason} at byte {bad.start} of "
                                 "the line)", row=row, value=text[:60])
            elif jsonl:
                text = rec.strip()
                if not text:
                    rec = None
                else:
                    try:
                        rec = json.loads(text)
                    except ValueError as exc:
                        rec = EventError(f"not a JSON object ({exc.msg})", row=row,
                                         value=text[:60])
            # the csv reader pulls exactly the lines of one row: the offset now is past
            # this row, and `after` (saved at the previous row) is before it
            self._prev = Position(self._rows, after)
            self._rows = row
            if after is not None:
                after = self._offset
            yield row, rec

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
                self._rows = row
                yield row, {name: col[i] for name, col in zip(names, cols)}
            skip = 0


def _peek_line(path) -> str:
    with open(path, "rb") as f:
        return f.readline().decode("utf-8", "replace")


# --------------------------------------------------------------------------- parsing
_TRUE = {"true": 1.0, "false": 0.0, "True": 1.0, "False": 0.0, "TRUE": 1.0, "FALSE": 0.0}


def _number(value, column, row, what="number"):
    """A finite float from a cell (str, int, float, bool); None when empty."""
    t = type(value)
    if t is float:
        if value - value == 0.0:
            return value
        raise EventError(f"not a finite {what}", row, column, value)
    if t is str:
        if not value:
            return None
        try:
            x = float(value)
        except ValueError:
            if value in _TRUE and what == "label":
                return _TRUE[value]
            raise EventError(f"not a {what}", row, column, value) from None
        if x - x == 0.0:
            return x
        raise EventError(f"not a finite {what}", row, column, value)
    if value is None:
        return None
    if t is bool:
        if what == "label":
            return float(value)
        raise EventError(f"not a {what}", row, column, value)
    if t is int:
        return float(value)
    raise EventError(f"not a {what}", row, column, value)


class EventParser:
    """Turns the records of an `EventSource` into ``(key, score, label, weight, time)``.

    Built once per source: it checks that every named column is in the CSV header or the
    Parquet schema (`EventError` naming the missing column and the columns there), and
    resolves them to positions. JSON lines are checked on their first object (the id and
    score fields must be there, to catch a misspelt name); later objects may omit any
    field but the id.

    Keys are strings (a JSON or Parquet integer id ``7`` becomes ``"7"``, so that a file's
    ids compare equal whatever their JSON type), or the row number when ``columns.id`` is
    None. ``iso_time`` becomes True once a time was an ISO timestamp.
    """

    def __init__(self, source: EventSource, columns: Columns):
        self.columns = columns
        self.name = source.name
        self.format = source.format
        self.iso_time = False
        self._checked = self.format != "jsonl"
        names = [columns.id, columns.score, columns.label, columns.weight, columns.time]
        self._id_optional = columns.id is not None and not columns.id_required
        if source.header is not None:
            header = source.header
            if self._id_optional and columns.id not in header:
                names[0] = None
            missing = [c for c in names if c is not None and c not in header]
            if missing:
                raise EventError(f"no column {missing[0]!r} (columns: "
                                 f"{', '.join(header)})")
            self._idx = [None if c is None else header.index(c) for c in names]
            self._width = len(header)
        self._names = names

    def __call__(self, row, rec):
        """``(key, score, label, weight, time)`` of one record (`EventError` if bad)."""
        if isinstance(rec, EventError):
            raise rec
        if self.format == "csv":
            if len(rec) != self._width:
                if not rec:
                    raise EventError("an empty row", row)
                raise EventError(f"expected {self._width} fields, got {len(rec)}", row,
                                 value=",".join(rec)[:80])
            vals = [None if i is None else rec[i] for i in self._idx]
        else:
            if not isinstance(rec, dict):
                if rec is None:
                    raise EventError("an empty line", row)
                raise EventError("not a JSON object", row, value=str(rec)[:60])
            if not self._checked:
                if self._id_optional and self._names[0] not in rec:
                    self._names[0] = None
                for c in self._names[:2]:
                    if c is not None and c not in rec:
                        raise EventError(f"no field {c!r} in the first object (fields: "
                                         f"{', '.join(map(str, rec))})", row)
                self._checked = True
            vals = [None if c is None else rec.get(c) for c in self._names]
        kid, ks, kl, kw, kt = self._names
        key = vals[0]
        if kid is None:
            key = row
        elif type(key) is not str:
            key = _key(key, row, kid)
        elif not key:
            raise EventError("an empty id", row, kid, key)
        score = _number(vals[1], ks, row, "score")
        label = _number(vals[2], kl, row, "label") if kl is not None else None
        weight = _number(vals[3], kw, row, "weight") if kw is not None else None
        if weight is not None and weight < 0:
            raise EventError("a negative weight", row, kw, vals[3])
        t = vals[4]
        if t is not None and t != "":
            try:
                t, iso = parse_time(t)
            except ValueError as exc:
                raise EventError(str(exc), row, kt, vals[4]) from None
            if iso:
                self.iso_time = True
        else:
            t = None
        return key, score, label, weight, t


def _key(value, row, column):
    if value is None or value == "":
        raise EventError("an empty id", row, column, value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
