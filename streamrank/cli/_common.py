"""What every command shares: exit codes, the input-error type, output formats, options.

Output formats (``--format``):

* ``table``: aligned columns for a terminal (a missing value shows as ``-``), every line
  at most `TABLE_WIDTH` (100) characters: a long text value is cut short with an
  ellipsis (``…``) and, where a command says so, the least needed columns are left out
  (`table_text`); JSON and CSV always carry every column, whole;
* ``json``: one JSON document (a list of records, or one record) — exact integers stay
  integers; a value that is not finite is the string ``"nan"``, ``"inf"`` or ``"-inf"``
  (JSON has no literal for them; ``null`` is kept for a value that does not exist);
* ``csv``: a header and one line per record (``nan``, ``inf``, ``-inf`` as written by
  Python, read back as numbers by ``float()``, pandas and Arrow; an empty cell is a
  value that does not exist).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from typing import Iterable, Sequence

import click

__all__ = [
    "EXIT_ALERT",
    "EXIT_INPUT",
    "EXIT_OK",
    "InputError",
    "TABLE_WIDTH",
    "check_distinct_columns",
    "check_output_folder",
    "format_option",
    "format_records",
    "location",
    "on_error_option",
    "progress_option",
    "read_error",
    "table_text",
]

EXIT_OK = 0
EXIT_ALERT = 1
EXIT_INPUT = 2

#: The widest line of ``--format table``, in characters (a terminal of 100 columns).
TABLE_WIDTH = 100


class InputError(click.ClickException):
    """Bad input (a file, a column, a row, a value): the message says where, exit code 2."""

    exit_code = EXIT_INPUT


def location(file, row=None, column=None, value=None, *, line=None) -> str:
    """``"data.csv, line 18 (row 17), column 'score': 'abc'"``: where a bad value is, for
    messages, in the words of the readers' errors (`streamrank.io._located.location`).

    Rows are numbered from 1 (the first data row, after any header), as a user counts them;
    ``line`` is the line where the row starts, when known.

    >>> location("data.csv", 17, "score", "abc")
    "data.csv, row 17, column 'score': 'abc'"
    >>> location("data.csv", 17, "score", line=18)
    "data.csv, line 18 (row 17), column 'score'"
    """
    from ..io._located import location as _where

    text = _where(file, line=line, row=row, column=column)
    return text if value is None else f"{text}: {value!r}"


def read_error(exc: Exception, file, hint: str = "") -> InputError:
    """The `InputError` (exit code 2) for a failed read of ``file``: the one place where the
    command line words the readers' errors.

    ``exc`` is a `streamrank.io.tables.TableError` or `streamrank.io.events.EventError`
    (both a `streamrank.io._located.LocatedError`: its message names the file, the line
    and the row, the column and the value; the file is set to ``file`` when the reader did
    not know it) or an `OSError` (a file that cannot be opened); ``hint`` is appended to
    the message.

    >>> from streamrank.io.tables import TableError
    >>> read_error(TableError("'x' is not a number", file="d.csv", row=2, line=3,
    ...                       column="score"), "d.csv").message
    "d.csv, line 3 (row 2), column 'score': 'x' is not a number"
    >>> from streamrank.io.events import EventError
    >>> read_error(EventError("not a score", 2, "score", "x", line=3), "e.csv").message
    "e.csv, line 3 (row 2), column 'score': 'x': not a score"
    >>> read_error(PermissionError(13, "Permission denied"), "d.csv").message
    'd.csv: Permission denied'
    """
    from ..io._located import LocatedError

    if isinstance(exc, LocatedError):
        return InputError(f"{exc.at(file=file)}{hint}")
    if isinstance(exc, OSError):
        return InputError(f"{file}: {exc.strerror or exc}{hint}")
    return InputError(f"{file}: {exc}{hint}")


def check_distinct_columns(options: dict) -> None:
    """Raise a usage error (exit 2) when two options name the same column.

    ``options`` maps option names to column names (``None``: not given).

    >>> check_distinct_columns({"--label": "y", "--score": "p", "--weight": None})
    >>> check_distinct_columns({"--label": "y", "--score": "y"})
    Traceback (most recent call last):
    ...
    click.exceptions.UsageError: --label and --score name the same column 'y': each needs a column of its own.
    """
    seen: dict = {}     # column -> the first option naming it
    for opt, col in options.items():
        if col is not None and seen.setdefault(col, opt) != opt:
            raise click.UsageError(f"{seen[col]} and {opt} name the same column {col!r}: "
                                   "each needs a column of its own.")


def check_output_folder(path, option: str) -> None:
    """Fail before the work, not after it, when an output file's folder does not exist."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise click.BadParameter(f"the folder {folder!r} does not exist.",
                                 param_hint=f"'{option}'")


format_option = click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
    show_default=True, help="Output format: table (for a terminal, lines of at most 100 "
                            "characters: long values cut short, some columns left out), "
                            "json or csv (every column, whole values).")

on_error_option = click.option(
    "--on-error", type=click.Choice(["fail", "skip"]), default="fail", show_default=True,
    help="A bad row (malformed, NaN score, non-numeric label): stop with exit code 2, or "
         "skip it and count it in the summary.")

progress_option = click.option(
    "--progress/--no-progress", default=None,
    help="Show a progress bar on stderr (default: when stderr is a terminal).")


def _plain(value):
    """A JSON/CSV-friendly value: numpy scalars to Python, non-finite floats to the strings
    ``"nan"``, ``"inf"``, ``"-inf"`` (JSON has no literal for them).

    >>> _plain(float("inf")), _plain(float("nan")), _plain(0.5), _plain(None)
    ('inf', 'nan', 0.5, None)
    """
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)   # "nan", "inf", "-inf"
    return value


def _cell(value) -> str:
    if value is None:
        return "-"
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "nan", "inf", "-inf"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.6e}"
    return str(value)


def format_records(records: Sequence[dict], fmt: str, *, columns: Iterable[str] | None = None,
                   single: bool = False) -> str:
    """Render records (dicts with the same keys) as ``table``, ``json`` or ``csv`` text.

    ``single=True`` renders one record: as a two-column ``metric value`` table, or a JSON
    object rather than a list.

    >>> print(format_records([{"metric": "auc", "value": 0.75}], "table"))
    metric  value
    auc      0.75
    >>> print(format_records([{"auc": 0.75, "n": 4}], "json", single=True))
    {"auc": 0.75, "n": 4}
    """
    records = list(records)
    cols = list(columns) if columns is not None else (list(records[0]) if records else [])
    if fmt == "json":
        rows = [{c: _plain(r.get(c)) for c in cols} for r in records]
        return json.dumps(rows[0] if single and rows else rows)
    if single and records:
        records = [{"metric": c, "value": records[0].get(c)} for c in cols]
        cols = ["metric", "value"]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(cols)
        for r in records:
            writer.writerow(["" if _plain(r.get(c)) is None else _plain(r.get(c))
                             for c in cols])
        return buf.getvalue().rstrip("\n")
    return table_text(records, cols)


def table_text(records: Sequence[dict], columns: Sequence[str], *,
               headers: dict | None = None, formats: dict | None = None,
               drop: Sequence[str] = (), middle: Sequence[str] = (), keep: int = 12,
               right_titles: bool = False, width: int = TABLE_WIDTH) -> str:
    """An aligned table of ``records``: a header line, then a line per record, each line
    at most ``width`` characters wherever that can be done.

    ``headers`` maps a column to its title (default: its name); ``formats`` to a function
    that writes a value (default: 6 significant digits, ``-`` for a missing value). A
    column of numbers is aligned right, any other left, its title too. A line wider than
    ``width`` is made narrower, in turn: by cutting the text columns' values short, to
    ``keep`` characters at least, with an ellipsis (``…``: at their end, or in their
    middle for the columns in ``middle``, as names whose end tells them apart); by
    leaving out the columns of ``drop``, in that order, until the lines fit; by cutting
    the text values further, to 6 characters. A table that fits is as it was (columns two spaces
    apart, each as wide as its widest cell or title). Titles are aligned left, or as
    their column with ``right_titles``.

    >>> recs = [{"name": "a" * 60, "x": 0.5, "y": 1, "z": 2.25}]
    >>> print(table_text(recs, ["name", "x", "y", "z"], width=30))
    name              x    y  z
    aaaaaaaaaaaaaaa…  0.5  1  2.25
    >>> print(table_text(recs, ["name", "x", "y", "z"], drop=["y"], width=24,
    ...                  right_titles=True))
    name            x     z
    aaaaaaaaaaa…  0.5  2.25
    """
    records = list(records)
    cols = list(columns)
    headers = headers or {}
    formats = formats or {}
    text = {c: [formats.get(c, _cell)(r.get(c)) if c in formats or r.get(c) is not None
                else "-" for r in records] for c in cols}
    numeric = {c: _is_number(next((r.get(c) for r in records if r.get(c) is not None),
                                  None)) for c in cols}
    widths = {c: max([len(headers.get(c, c))] + [len(v) for v in text[c]]) for c in cols}

    def total():
        return sum(widths[c] for c in cols) + 2 * (len(cols) - 1)

    def shrink(floor):
        for c in sorted((c for c in cols if not numeric[c]), key=lambda c: -widths[c]):
            over = total() - width
            if over <= 0:
                return
            least = max(floor, len(headers.get(c, c)))
            widths[c] = min(widths[c], max(least, widths[c] - over))

    shrink(keep)
    for c in drop:
        if total() <= width:
            break
        if c in cols:
            cols.remove(c)
    shrink(6)

    def cell(c, v):
        v = _cut(v, widths[c], c in middle)
        return v.rjust(widths[c]) if numeric[c] else v.ljust(widths[c])

    def title(c):
        h = headers.get(c, c)
        return h.rjust(widths[c]) if numeric[c] and right_titles else h.ljust(widths[c])

    lines = ["  ".join(title(c) for c in cols).rstrip()]
    lines += ["  ".join(cell(c, text[c][i]) for c in cols).rstrip()
              for i in range(len(records))]
    return "\n".join(lines)


def _cut(text: str, width: int, middle: bool = False) -> str:
    """``text`` in at most ``width`` characters: cut short with an ellipsis (``…``) at its
    end, or in its middle.

    >>> _cut("epoch_12_of_the_run.csv", 12), _cut("epoch_12_of_the_run.csv", 12, True)
    ('epoch_12_of…', 'epoch…un.csv')
    """
    if len(text) <= width:
        return text
    if not middle:
        return text[:width - 1] + "…"
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _is_number(value) -> bool:
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    return isinstance(value, (int, float)) and not isinstance(value, bool)
