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

Rows are numbered from 1 as a user counts them, as `streamrank.io.tables.read_columns`
numbers them: CSV data rows after the header (blank lines are skipped and are no rows),
JSON lines by line number, Parquet rows by index + 1. An `EventError` names the file, the
line where the row starts (the header is line 1) and the row: ``s.csv, line 4 (row 3),
column 'score': 'abc': not a number`` (`streamrank.io._located.location`).

``follow=True`` is ``tail -F``: at the end of the file the source polls every ``poll``
seconds for more lines, and stops after ``max_idle`` seconds without a complete new line
(never, if ``max_idle`` is None: stop it with Ctrl-C). A line still being written (no
newline yet) is never read, whatever stops the reading: it is left for the next run.
The file is followed across log rotation (truncated, rewritten, renamed and replaced:
`streamrank.io._follow`), each row read once; ``on_rotate`` is told, and
`EventSource.file_id` is the file read now.

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

from dataclasses import dataclass

import numpy as np

from ._eventsource import (HEAD_BYTES, EventError, EventSource, FileId,  # noqa: F401
                           InputMismatch, Position, StopGate, detect_format)
from ._located import LocatedError
from ._numbers import format_time, parse_period, parse_time, to_number
from ._records import _DupDict

__all__ = [
    "Columns",
    "EventError",
    "EventParser",
    "EventSource",
    "FileId",
    "HEAD_BYTES",
    "InputMismatch",
    "LocatedError",
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
    is not in the file. ``challenger``: a second model's score column (``streamrank
    monitor --challenger-score``): the parser then gives it as a sixth field."""

    id: str | None = "id"
    id_required: bool = True
    score: str = "score"
    label: str | None = "label"
    weight: str | None = None
    time: str | None = None
    challenger: str | None = None
    #: The segment column (``streamrank monitor --segment``): when set, the parser
    #: returns its cell as a string (None when empty), after the challenger's score.
    segment: str | None = None
    #: The row contract "every row is a prediction" (``streamrank monitor
    #: --require-score``): a row without a score (an empty cell, JSON ``null`` or a
    #: missing field; the challenger's too, when read) is a bad row (`EventError`), not
    #: a label or weight row for an earlier prediction.
    score_required: bool = False


# --------------------------------------------------------------------------- parsing
def _number(value, column, row, what="number"):
    """A finite float from a cell (`streamrank.io._numbers.to_number`: the number rules
    of `streamrank.io.tables.read_columns`); None when empty."""
    if type(value) is float:    # the common case of JSON and Parquet
        if value - value == 0.0:
            return value
        raise EventError(f"not a finite {what}", row, column, value)
    try:
        x = to_number(value)
    except ValueError as exc:
        reason = str(exc)
        if type(value) is int:      # too large for a float: its first digits
            value = str(value)[:20] + "..."
        raise EventError(f"not a {what}" if reason == "not a number" else reason, row,
                         column, value, expected=f"a {what}") from None
    if x is None or x - x == 0.0:
        return x
    raise EventError(f"not a finite {what}", row, column, value, expected=f"a finite {what}")


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
        try:
            self._init(source, columns)
        except EventError as exc:
            raise exc.at(file=source.name) from None

    def _init(self, source, columns):
        self.source = source
        self.columns = columns
        self.name = source.name
        self.format = source.format
        self.iso_time = False
        self._checked = self.format != "jsonl"
        self._csv = self.format in ("csv", "tsv")
        self._sep = "\t" if self.format == "tsv" else ","
        names = [columns.id, columns.score, columns.label, columns.weight, columns.time]
        if columns.challenger is not None:
            names.append(columns.challenger)
        if columns.segment is not None:
            names.append(columns.segment)
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
                                     "one to read is ambiguous; rename one",
                                     line=1 if self._csv else None)
            self._idx = [None if c is None else header.index(c) for c in names]
            self._width = len(header)
        self._names = names

    @property
    def resolved(self) -> list:
        """The columns read, as ``[id, score, label, weight, time]`` (then the challenger's
        score column and the segment's, when read; None: not read; an id of None gives
        row numbers). For JSON lines, final once a first object was
        parsed (`restore` sets it on a resumed stream)."""
        return list(self._names)

    def restore(self, resolved) -> None:
        """Take the `resolved` columns of an earlier parser of the same stream (a JSON
        stream resumed past its first object keeps that object's id resolution)."""
        if not self._checked and len(resolved) == len(self._names):
            self._names = list(resolved)
            self._checked = True

    def __call__(self, row, rec):
        """``(key, score, label, weight, time)`` of one record, then the challenger's score
        when ``columns.challenger`` is set and the segment (a string, None when empty)
        when ``columns.segment`` is set (`EventError` if bad, naming the source's file
        and, for its last row, the line)."""
        try:
            return self._parse(row, rec)
        except EventError as exc:
            raise self.source.locate(exc, row) from None

    def block(self, body: bytes):
        """The columns of whole CSV (or TSV) lines ``body``, read at once
        (`EventSource.blocks`): ``(keys, columns)``, ``columns`` named as the keywords of
        a monitor's ``observe_many`` (float arrays, NaN for an empty cell; the segment's
        strings, None for an empty one); or None when a row is not plain (a field count
        off, an empty id, a cell that is not a finite number, a negative weight; a time
        may be an ISO 8601 timestamp): the row-by-row reader then reads these lines and
        says what is wrong.
        Vectorized: one pyarrow read, one cast per column in the common case.

        >>> import io
        >>> src = EventSource(io.BytesIO(b"id,score,label\\n"), name="s.csv")
        >>> p = EventParser(src, Columns())
        >>> keys, cols = p.block(b"a,0.9,1\\nb,0.2,\\n")
        >>> keys, cols["score"].tolist(), cols["label"].tolist()
        (['a', 'b'], [0.9, 0.2], [1.0, nan])
        >>> p.block(b"a,x,1\\n") is None, p.block(b"a,0.5\\n") is None
        (True, True)
        """
        if not self._csv:
            return None
        return self._block_columns(body)

    def _block_columns(self, body):
        """`block`'s work: the columns of the whole CSV lines ``body``, or None (the
        block goes to the row reader)."""
        read = self._block_text(body)
        if read is None:
            return None
        text, n = read
        keys = self._block_keys(text, n)
        cols = None if keys is None else self._block_numbers(text)
        if cols is None:
            return None
        if self.columns.segment is not None:
            cols["segment"] = text(6 if self.columns.challenger is not None else 5
                                   ).to_pylist()
        return keys, cols

    def _block_text(self, body):
        """The block parsed by pyarrow's CSV reader: ``(text, rows)``, ``text(k)`` the
        column of the parser's name ``k`` as one string array (nulls: empty fields);
        None when pyarrow refuses the block."""
        import pyarrow as pa
        from pyarrow import csv as pacsv

        used = [i for i in self._idx if i is not None]
        header = [f"c{i}" for i in range(self._width)]
        try:
            table = pacsv.read_csv(
                pa.py_buffer(body),
                read_options=pacsv.ReadOptions(column_names=header, use_threads=False,
                                               block_size=max(len(body), 1 << 16)),
                parse_options=pacsv.ParseOptions(delimiter=self._sep, quote_char=False,
                                                 ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    include_columns=[header[i] for i in dict.fromkeys(used)],
                    column_types={header[i]: pa.string() for i in used},
                    null_values=[""], strings_can_be_null=True))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None

        def text(k):
            return table.column(header[self._idx[k]]).combine_chunks()
        return text, table.num_rows

    def _block_keys(self, text, n):
        """The ids of the block's ``n`` rows (their row numbers without an id column), or
        None when an id is missing."""
        if self._names[0] is None:
            first = self.source.position.rows + 1
            return list(range(first, first + n))
        ids = text(0)
        return None if ids.null_count else ids.to_pylist()

    def _block_numbers(self, text):
        """The block's score, label, weight, time (and challenger) columns as float64
        (nan: missing), the columns the parser has; None when a value is not one the
        row reader would take (it then says which)."""
        from ._arrow import _OK, _parse_numbers, _times

        iso = False

        def numbers(k, missing_ok=True, nonnegative=False):
            nonlocal iso
            if self._names[k] is None:
                return None
            if k == 4:                              # a time: a number or an ISO timestamp
                values, bad, iso = _times(text(k))
            else:
                values, bad = _parse_numbers(text(k))
            ok = bad == _OK
            if (~ok & (bad != 1)).any() or not missing_ok and (bad == 1).any() \
                    or not np.isfinite(values[ok]).all() \
                    or nonnegative and (values[ok] < 0).any():
                return False
            return values

        required = self.columns.score_required
        out = {"score": numbers(1, not required), "label": numbers(2),
               "weight": numbers(3, nonnegative=True), "time": numbers(4)}
        if self.columns.challenger is not None:
            out["challenger"] = numbers(5, not required)
        if any(c is False for c in out.values()):
            return None
        if iso:
            self.iso_time = True
        return {c: v for c, v in out.items() if v is not None}

    def _parse(self, row, rec):
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
        kid, ks, kl, kw, kt = self._names[:5]
        key = vals[0]
        if kid is None:
            key = row
        elif type(key) is not str:
            key = _key(key, row, kid)
        elif not key:
            raise EventError("an empty id", row, kid, key)
        score = _number(vals[1], ks, row, "score")
        if score is None and self.columns.score_required:
            _missing_score(vals[1], row, ks)
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
        if len(vals) == 5:
            return key, score, label, weight, t
        out = [key, score, label, weight, t]
        i = 5
        if self.columns.challenger is not None:
            out.append(_number(vals[5], self._names[5], row, "score"))
            if out[-1] is None and self.columns.score_required:
                _missing_score(vals[5], row, self._names[5])
            i = 6
        if self.columns.segment is not None:    # a string as ids are, None when empty
            seg = vals[i]
            if seg is not None and seg != "":
                if type(seg) is not str:
                    if isinstance(seg, (dict, list)):
                        raise EventError("not a segment value (a string or a number)",
                                         row, self._names[i], str(seg)[:60])
                    seg = _key(seg, row, self._names[i])
            else:
                seg = None
            out.append(seg)
        return tuple(out)


def _missing_score(value, row, column):
    """A row without a score where every row is a prediction (``value``: the empty cell,
    or None: JSON ``null`` or no field)."""
    raise EventError("no score, and every row is a prediction (a score is required)",
                     row, column, value, expected="a score")


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
