"""The one error type of the readers: a bad file, column or row, with where it is.

`LocatedError` is what `streamrank.io.tables.read_columns` (as its subclass `TableError`)
and the event reader of ``streamrank monitor`` (`EventError`) raise. Its message starts
with the location, always in the same words (`location`):

* ``data.csv, line 6 (row 5), column 'score'``: a data row, with the line where it starts
  as an editor numbers lines (the header is line 1, so the first data row of a CSV file
  is line 2; a record with a quoted field spanning lines starts on its first line; a
  JSON line is its own line and its row: ``events.jsonl, line 4``);
* ``data.csv, line 1``: the header, or another line that is no data row;
* ``data.parquet, row 5``: a row whose line is not known (Parquet; standard input read
  by ``streamrank eval``, which is not read again for the message).
"""

from __future__ import annotations

__all__ = ["LocatedError", "location", "shown"]

#: Characters of a value shown in a message (the whole value stays in the error).
SHOWN = 60


def shown(value, limit: int = SHOWN) -> str:
    """``repr(value)``, shortened past ``limit`` characters (with the full length).

    >>> shown("abc"), shown("x" * 70)[-18:]
    ("'abc'", '... (70 characters)')
    """
    if isinstance(value, (str, bytes)) and len(value) > limit:
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{value[:limit]!r}... ({len(value):,} {unit})"
    return repr(value)


def location(file=None, *, line=None, row=None, column=None) -> str:
    """Where something is, for a message: ``"data.csv, line 3 (row 2), column 'y'"``.

    Each part is left out when None: the line alone (a header; a JSON line, whose row is
    its line) reads ``line 1``, the row alone (its line not known) ``row 2``. ``O(1)``.

    >>> location("d.csv", line=3, row=2, column="y")
    "d.csv, line 3 (row 2), column 'y'"
    >>> location("d.csv", line=1), location("d.jsonl", line=4, row=4), location(row=2)
    ('d.csv, line 1', 'd.jsonl, line 4', 'row 2')
    """
    parts = [] if file is None else [str(file)]
    if line is not None and row is not None and line != row:
        parts.append(f"line {line} (row {row})")
    elif line is not None:
        parts.append(f"line {line}")
    elif row is not None:
        parts.append(f"row {row}")
    if column is not None:
        parts.append(f"column {column!r}")
    return ", ".join(parts)


class LocatedError(ValueError):
    """A bad file, column or row, and where it is: the message is ``"<location>:
    <reason>"`` (see `location`).

    Attributes
    ----------
    reason : str
        What is wrong, without the location (what was expected and, unless `value` is
        shown in the message, what was received).
    file : str or None
        The file as the user named it (``"<stdin>"`` for standard input).
    line : int or None
        The line where the row (or the header) starts, as an editor numbers lines.
    row : int or None
        The 1-based data row, or None when the error is not about one row.
    column : str or None
        The column (or JSON field), when the error is about one.
    value : object
        The bad value as read, or None.
    expected : str or None
        What the value should have been (``"a number"``), when the reason names it.

    Examples
    --------
    >>> err = LocatedError("'x' is not a number", file="d.csv", line=3, row=2, column="y")
    >>> str(err)
    "d.csv, line 3 (row 2), column 'y': 'x' is not a number"
    >>> err = LocatedError("'x' is not a number", row=2, column="y")
    >>> str(err.at(file="d.csv", line=3))
    "d.csv, line 3 (row 2), column 'y': 'x' is not a number"
    """

    #: Whether the message shows `value` between the location and the reason
    #: (``"...: 'abc': not a score"``), for reasons that do not quote it.
    value_in_message = False

    def __init__(self, reason, *, file=None, line=None, row=None, column=None, value=None,
                 expected=None):
        self.reason, self.file, self.line, self.row = reason, file, line, row
        self.column, self.value, self.expected = column, value, expected
        super().__init__(self._message())

    def where(self, file=None) -> str:
        """The location of the message (`file`, or this one when given)."""
        return location(self.file if file is None else file, line=self.line, row=self.row,
                        column=self.column)

    def _message(self) -> str:
        where = self.where()
        reason = self.reason
        if self.value_in_message and self.value is not None:
            reason = f"{shown(self.value)}: {reason}"
        return f"{where}: {reason}" if where else reason

    def at(self, *, file=None, line=None):
        """Set the file and the line when not known yet (found after the error was
        made); returns the error. ``O(1)``."""
        if file is not None and self.file is None:
            self.file = file
        if line and self.line is None:
            self.line = int(line)
        self.args = (self._message(),)
        return self

    def __reduce__(self):
        kw = {k: getattr(self, k) for k in ("file", "line", "row", "column", "value",
                                             "expected")}
        return _rebuild, (type(self), self.reason, kw)


def _rebuild(cls, reason, kw):
    err = cls.__new__(cls)
    LocatedError.__init__(err, reason, **kw)
    return err
