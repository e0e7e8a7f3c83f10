"""Event records and their errors, for `streamrank.io._eventsource`: `EventError`, and what
a line decodes to (a JSON object, its repeated fields kept) or the reason why not (a CSV
or JSON fault)."""

from __future__ import annotations

import csv
import json
import re

from ._located import LocatedError

__all__ = ["EventError"]


class EventError(LocatedError):
    """A bad event row, or an input that cannot be read as events: a `LocatedError`
    whose message shows the value before the reason (``"s.csv, line 4 (row 3), column
    'score': 'abc': not a number"``).

    ``EventError(reason, row, column, value)``: the file and the line are set by the
    reader (`EventSource`, `EventParser`) that knows them.
    """

    value_in_message = True

    def __init__(self, reason, row=None, column=None, value=None, *, file=None, line=None,
                 expected=None):
        super().__init__(reason, file=file, line=line, row=row, column=column, value=value,
                         expected=expected)


# Its public home (the name tracebacks and ``except`` clauses use).
EventError.__module__ = "streamrank.io.events"


def _csv_reason(exc: csv.Error) -> str:
    """What Python's CSV parser found, in the words of a row error."""
    text = str(exc)
    m = re.match(r"field larger than field limit \((\d+)\)", text)
    if m:
        return f"a field longer than {m.group(1)} characters (the CSV field limit)"
    if text.startswith("new-line character seen in unquoted field"):
        return ("a carriage return (\\r) inside an unquoted field: are the line ends CR "
                "only (old Mac)? Lines must end with LF or CRLF")
    return f"not CSV ({text})"


class _DupDict(dict):
    """A JSON object with a repeated field (`dups`: the repeated names)."""

    dups: tuple = ()


def _object(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set = set()
        d = _DupDict(d)
        d.dups = tuple({k for k, _ in pairs if k in seen or seen.add(k)})
    return d


_JSON = json.JSONDecoder(object_pairs_hook=_object).decode


def _json_record(text, row):
    """A JSON line's value, or the `EventError` saying why it is not one."""
    try:
        return _JSON(text)
    except RecursionError:
        reason = "nested too deeply"
    except ValueError as exc:  # JSONDecodeError, or an integer of over 4300 digits
        reason = getattr(exc, "msg", None) or str(exc)
    if "\r" in text.rstrip("\r"):
        reason += "; it holds a carriage return (\\r): are the line ends CR only?"
    return EventError(f"not a JSON object ({reason})", row=row, value=text[:60])
