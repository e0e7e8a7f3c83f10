"""The one number parser and the one time parser of the readers.

A value read as a number, in ``streamrank eval`` / ``epochs`` (`streamrank.io.tables`,
vectorized with pyarrow on whole columns) and in ``streamrank monitor``
(`streamrank.io.events`, one cell at a time), follows the same rules:

* text: blanks trimmed, then a decimal number (``1``, ``-2.5e3``, ``.5``), ``inf`` /
  ``infinity`` / ``nan`` (any case, with a sign), or the words ``true`` / ``false`` (any
  case) as 1 / 0; anything else (``"NA"``, ``"1_000"``, ``"0x10"``) is not a number;
* a JSON or Parquet number as it is; a boolean as 1 / 0;
* whether NaN and infinity are accepted is the reader's choice (both refuse them by
  default); a number beyond the float64 range reads as infinity.

A time is such a number, or an ISO 8601 timestamp (converted to POSIX seconds; without a
zone it is UTC): `parse_time`.
"""

from __future__ import annotations

import datetime as _dt
import math
import re

__all__ = ["BOOL_WORDS", "NUMBER", "format_time", "parse_number", "parse_period",
           "parse_time", "to_number"]

#: The number syntax (after trimming blanks; matched ignoring case). pyarrow's string ->
#: float64 cast accepts the same numbers.
NUMBER = r"^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|infinity|nan)$"
_NUMBER_RE = re.compile(NUMBER, flags=re.IGNORECASE)

#: The words a number may be written as (any case).
BOOL_WORDS = {"true": 1.0, "false": 0.0}


def parse_number(text) -> float | None:
    """One text value as a number (see the module docstring), or None when it is not one.

    ``O(len(text))``. For a command-line value compared with a column's values, and for
    each cell of ``streamrank monitor``.

    >>> parse_number(" -2.5e3 "), parse_number("TRUE"), parse_number("1_000"), parse_number("x")
    (-2500.0, 1.0, None, None)
    >>> parse_number("-Inf"), parse_number("1e400")
    (-inf, inf)
    """
    text = str(text).strip()
    word = BOOL_WORDS.get(text.lower())
    if word is not None:
        return word
    return float(text) if _NUMBER_RE.match(text) else None


def to_number(value) -> float | None:
    """A cell (text, int, float, bool, None) as a float; None when empty (``None``, ``""``).

    Raises `ValueError` with the reason when it is not a number (a list, ``"abc"``) or an
    integer too large for a float. NaN and infinity come through: the caller decides.
    ``O(len(value))``.

    >>> to_number("1"), to_number(True), to_number(7), to_number(""), to_number(0.5)
    (1.0, 1.0, 7.0, None, 0.5)
    >>> to_number("abc")
    Traceback (most recent call last):
    ...
    ValueError: not a number
    """
    t = type(value)
    if t is float:
        return value
    if t is str:
        if not value:
            return None
        x = parse_number(value)
        if x is None:
            raise ValueError("not a number")
        return x
    if value is None:
        return None
    if t is bool:
        return float(value)
    if t is int:
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"a number too large for a float ({len(str(value))} "
                             "digits)") from None
    raise ValueError("not a number")


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
    """``(seconds, is_timestamp)`` of a time cell: a number as `to_number` reads it, or an
    ISO 8601 timestamp as POSIX seconds (no zone: UTC). `ValueError` otherwise (also for
    NaN and infinity). ``O(len(value))``.

    >>> parse_time("2024-01-01T00:00:00Z"), parse_time("12.5"), parse_time("2024-01-01")
    ((1704067200.0, True), (12.5, False), (1704067200.0, True))
    """
    if isinstance(value, _dt.datetime):
        dt = value
    else:
        text = value.strip() if isinstance(value, str) else value
        try:
            t = to_number(text)
        except ValueError:
            if not isinstance(text, str):
                raise
        else:
            if t is None:
                raise ValueError("not a number or an ISO 8601 timestamp")
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
    """POSIX seconds as an ISO 8601 UTC timestamp (``2024-01-01T00:00:00Z``).

    >>> format_time(1704067200.0), format_time(1704067200.5)
    ('2024-01-01T00:00:00Z', '2024-01-01T00:00:00.500Z')
    """
    dt = _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc)
    text = dt.isoformat(timespec="milliseconds" if t % 1 else "seconds")
    return text.replace("+00:00", "Z")
