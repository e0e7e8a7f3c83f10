"""Reading files: the tables of ``streamrank eval``, ``epochs`` and ``compare``
(`tables`), and the event streams of ``streamrank monitor`` (`events`).

Both readers share, one module per concern:

* `_located`: the one error type, `LocatedError` (`tables.TableError` and
  `events.EventError` are its subclasses), and the words of a location (`location`:
  ``data.csv, line 6 (row 5), column 'score'``);
* `_detect`: the one format detector, `detect_format` (the file name, else its first
  bytes: CSV, TSV, JSON lines, Parquet; gzip);
* `_numbers`: the one number parser (`parse_number`, `to_number`) and time parser
  (`parse_time`: numbers and ISO 8601 timestamps).

The table reader's parts: `_arrow` (Arrow columns as numpy, vectorized), `_collect` (the
checks of each batch, `Columns`), `_csv` with `_csvtext`, `_parquet` (Hive partitions
included), `_jsonl`. The event reader's: `_eventsource` (bytes, lines, positions),
`_records` (`EventError`, a line's record) and `_stopgate`. Nothing here imports the rest of streamrank.
"""

from ._detect import FORMATS, detect_format
from ._located import LocatedError, location
from ._numbers import parse_number, parse_time, to_number

__all__ = ["FORMATS", "LocatedError", "detect_format", "location", "parse_number",
           "parse_time", "to_number"]
