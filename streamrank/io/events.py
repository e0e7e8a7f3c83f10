"""Reading prediction events from a file or a pipe, one row at a time, with a position.

The input of ``streamrank monitor``: a CSV (or TSV) file with a header, JSON lines (one
object per line), or a Parquet file (replayed), from a path or from standard input
(``-``); text may be gzip-compressed (``.csv.gz``). An `EventSource` yields ``(row,
record)`` pairs as they are read and knows, after each, the *position* just past it: the
number of rows consumed and, for plain files, the byte offset. A checkpoint stores that
position and a fingerprint of the input's first bytes (`EventSource.head`); a resumed
reader checks the fingerprint (`EventSource.expect_head`), then seeks to the offset (a
plain file) or skips that many rows (standard input, compressed files, Parquet), so no
row is read twice or lost.

Rows are numbered from 1 as a user counts them: CSV data rows after the header (blank
lines are skipped but keep their number), JSON lines by line number, Parquet rows by
index + 1.

``follow=True`` is ``tail -f``: at the end of the file the source polls every ``poll``
seconds for more lines, and stops after ``max_idle`` seconds without a complete new line
(never, if ``max_idle`` is None: stop it with Ctrl-C). A line still being written (no
newline yet) is never read, whatever stops the reading: it is left for the next run.

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

import datetime as _dt
import math
import re
from dataclasses import dataclass

from ._eventsource import (FORMATS, HEAD_BYTES, EventError, EventSource,  # noqa: F401
                           InputMismatch, Position, StopGate, _DupDict, detect_format)

__all__ = [
    "Columns",
    "EventError",
    "EventParser",
    "EventSource",
    "HEAD_BYTES",
    "InputMismatch",
    "Position",
    "StopGate",
    "detect_format",
    "format_time",
    "parse_period",
    "parse_time",
]


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
        try:
            t = float(value)
        except OverflowError:
            raise ValueError("a number too large for a float") from None
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
    try:
        return dt.timestamp(), True
    except (OverflowError, OSError):
        raise ValueError("a timestamp out of range") from None


def format_time(t: float) -> str:
    """POSIX seconds as an ISO 8601 UTC timestamp (``2024-01-01T00:00:00Z``)."""
    dt = _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc)
    text = dt.isoformat(timespec="milliseconds" if t % 1 else "seconds")
    return text.replace("+00:00", "Z")



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
        try:
            return float(value)
        except OverflowError:
            digits = str(value)
            raise EventError(f"a number too large for a float ({len(digits)} digits)", row,
                             column, digits[:20] + "...") from None
    raise EventError(f"not a {what}", row, column, value)


class EventParser:
    """Turns the records of an `EventSource` into ``(key, score, label, weight, time)``.

    Built once per source: it checks that every named column is in the CSV header or the
    Parquet schema (`EventError` naming the missing column and the columns there) and is
    there once (a header naming a used column twice is an `EventError` naming both
    positions), and resolves them to positions. JSON lines are checked on their first
    object (the id and score fields must be there, to catch a misspelt name); later
    objects may omit any field but the id. A JSON object with a used field twice is a bad
    row.

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
        self._csv = self.format in ("csv", "tsv")
        self._sep = "\t" if self.format == "tsv" else ","
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
            for c in names:
                where = [i + 1 for i, h in enumerate(header) if h == c]
                if len(where) > 1:
                    raise EventError(f"the header names column {c!r} more than once "
                                     f"(columns {' and '.join(map(str, where))}): which "
                                     "one to read is ambiguous; rename one")
            self._idx = [None if c is None else header.index(c) for c in names]
            self._width = len(header)
        self._names = names

    @property
    def resolved(self) -> list:
        """The columns read, as ``[id, score, label, weight, time]`` (None: not read; an
        id of None gives row numbers). For JSON lines, final once a first object was
        parsed (`restore` sets it on a resumed stream)."""
        return list(self._names)

    def restore(self, resolved) -> None:
        """Take the `resolved` columns of an earlier parser of the same stream (a JSON
        stream resumed past its first object keeps that object's id resolution)."""
        if not self._checked and len(resolved) == 5:
            self._names = list(resolved)
            self._checked = True

    def __call__(self, row, rec):
        """``(key, score, label, weight, time)`` of one record (`EventError` if bad)."""
        if isinstance(rec, EventError):
            raise rec
        if self._csv:
            if len(rec) != self._width:
                raise EventError(f"expected {self._width} fields, got {len(rec)}", row,
                                 value=self._sep.join(rec)[:80])
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
            if type(rec) is _DupDict:
                dup = [c for c in self._names if c in rec.dups]
                if dup:
                    raise EventError("the field is in the object more than once", row,
                                     dup[0])
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
