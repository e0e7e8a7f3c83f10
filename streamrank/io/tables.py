"""Read a few columns of a CSV, Parquet or JSON-lines file, streaming, with row-located errors.

`read_columns` is the one reader of the command line (``streamrank eval``, ``epochs``,
...). It reads *only* the requested columns, batch by batch, converts them with pyarrow
and numpy (no Python loop per row), and either stops at the first bad row with a
`TableError` that names the file, the line, the row, the column and the value, or drops the bad
rows and counts them (``on_error="skip"``).

Formats, chosen by ``format=``, else by the file name, else by the first bytes
(`streamrank.io._detect.detect_format`, the detector of ``streamrank monitor`` too):

===========  ==============================================  ==============================
format       file names                                      how the columns are read
===========  ==============================================  ==============================
``csv``      ``.csv``, ``.csv.gz``, ``-`` (stdin), others    ``pyarrow.csv.open_csv`` with
                                                             ``include_columns``: the other
                                                             columns are tokenized, never
                                                             converted or kept
``tsv``      ``.tsv``, ``.tsv.gz``, ``.tab``                 as ``csv``, tab-separated
``parquet``  ``.parquet``, ``.pq``                           ``ParquetFile.iter_batches
                                                             (columns=...)``: the other
                                                             columns are never read
``jsonl``    ``.jsonl``, ``.ndjson``, ``.json`` (``.gz``)    ``pyarrow.json.read_json`` on
                                                             blocks of whole lines; only
                                                             the requested fields are kept
===========  ==============================================  ==============================

A directory is one data set: every file under it, in name order (subdirectories too, Hive
partitions ``key=value/`` as columns; names starting with ``.`` or ``_``, such as
``_SUCCESS`` or ``.crc`` files, skipped), each of the format its name says, else
``format=``, else its first bytes (`streamrank.io._detect.folder_formats`). They must all
be of one format: files of several formats are a `TableError` naming them, never a read
of some of them. Rows are numbered within each file, and a message names the file.

A CSV or TSV header read as one column that holds another separator (``id;y;p``, a
tab-separated ``.csv``) gets a hint about it in the message of a column not found.

Rows are numbered from 1 as a user counts them: the first data row after the CSV header
is row 1; in a JSON-lines file the row is the line number. A message names the line where
a row starts, as an editor numbers lines (the header is line 1; lines end with LF, CRLF or
CR alone, all read as line ends), then the row: ``line 6 (row 5)``, or ``line 9 (row 5)``
after blank lines or a quoted field spanning lines (`streamrank.io._located.location`,
the words of ``streamrank monitor`` too). (The line is found by reading the file again up
to the row, for the message only; standard input is not read again, its messages name
the row.) Memory is bounded by one batch of the file plus the requested columns of the
rows kept (8 bytes per numeric value).

Blank lines, empty or of nothing but spaces and tabs (and a CR), are skipped in every text
format: they are no rows and no errors.

What counts as a bad row, checked column by column on each whole batch with masks:

* a *missing* value: an empty CSV cell, a JSON ``null`` or absent field, a Parquet null;
* in a ``numeric`` column, a value that is *not a number* (``"abc"``, ``"NA"``); numbers
  may be written ``1``, ``-2.5e3``, ``inf``, ``nan``, and the words ``true`` / ``false``
  (any case) read as 1 / 0 (`streamrank.io._numbers.parse_number`, the rule of
  ``streamrank monitor`` too); in a ``times`` column also an ISO 8601 timestamp
  (`streamrank.io._numbers.parse_time`: POSIX seconds, UTC without a zone);
* with ``finite=True``, a NaN or infinite value in a ``numeric`` column (a number beyond
  the float64 range, ``1e400``, reads as infinity);
* a cell that is *not UTF-8 text* (CSV cells, Parquet bytes; JSON lines that are not UTF-8
  are malformed); the columns not requested are never decoded;
* in a ``keys`` column of JSON lines, a number of 2**53 or more read as a float (pyarrow
  reads a block holding an integer beyond int64 as floats: such ids may collide);
* a *malformed* row: a CSV row with the wrong number of fields, a line that is not a JSON
  object.

A column absent from the file, or named twice in its header, is an error before any row
is read, whatever ``on_error``; its message lists the columns the file has (or where the
two are). (JSON lines have no header: a field that no line of the first block, 16 MiB,
holds is absent; later lines without it have a missing value.) So is a file that cannot
be read as its format says, with the line where that is known: an empty file, a header
that is blank, not UTF-8 or holds a NUL byte (a binary file), a ``.gz`` file that is not
gzip or is truncated, a Parquet file that is damaged, a directory without data files,
a CSV row longer than 64 MiB (the reader's longest block; rows longer than the first 1 MiB
block make the read start over with larger blocks). A quote that is never closed makes the
rest of a CSV file one field: a row with the wrong number of fields, or a value that is
not a number, where the columns it swallows are read.
"""

from __future__ import annotations

import os
import sys

from .._extras import require

pa = require("pyarrow", "cli", "reading tables (streamrank.io.tables)")

from ._collect import MAX_FIRST_ERRORS, Columns, TableError, _Collector
from ._detect import ALIASES, FORMATS, SKIPPED_PREFIXES, detect_format, folder_formats
from ._located import LocatedError
from ._numbers import parse_number, parse_time

__all__ = ["FORMATS", "MAX_FIRST_ERRORS", "Columns", "LocatedError", "TableError",
           "detect_format", "directory_files", "parse_number", "parse_time", "read_columns"]


def read_columns(path, *, numeric=(), keys=(), format=None, on_error="fail", progress=None,
                 finite=True, key_codes=False, checks=None, times=()) -> Columns:
    """Read the ``numeric`` and ``keys`` columns of a CSV, Parquet or JSON-lines file.

    Only the requested columns are converted and kept, batch by batch: a 10^7-row file with
    ten columns costs the memory of the requested ones (8 bytes per numeric value) plus one
    batch. Every batch is checked with vectorized masks (see the module docstring for what
    a bad row is); under ``on_error="fail"`` the first bad row raises `TableError`, under
    ``"skip"`` bad rows are dropped and counted.

    Runtime complexity: ``O(n)`` for ``n`` rows (one pyarrow parse and one cast per
    column and batch); a batch with bad values costs one more regex pass, and ``O(b log n)``
    extra casts for ``b`` values the regex accepts but the cast rejects. A JSON-lines block
    that pyarrow cannot parse falls back to one ``json.loads`` per line of that block. The
    line of a CSV row in a message costs a second read of the file up to that row (Python's
    ``csv`` module, about 70 MB/s), once for all the messages; so does telling a blank
    line from a row of empty cells in a TSV or one-column file, where pyarrow reads a
    blank line as a row.

    Parameters
    ----------
    path : str or os.PathLike
        A file, a directory of files of one format (module docstring), or ``"-"`` for
        CSV (or ``format="jsonl"``) on standard input.
    numeric : sequence of str
        Columns read as float64 (labels, scores, weights, times, event flags); a name
        given twice is read once.
    keys : sequence of str
        Columns read as ids (groups, queries): int64 when every value is an integer,
        else text (see `Columns.data`). Not a column of ``numeric``.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the file name (`detect_format`); ``"json"`` means ``"jsonl"``.
    on_error : {"fail", "skip"}
        ``"fail"``: raise `TableError` at the first bad row. ``"skip"``: drop bad rows,
        count them in `Columns.skipped` and keep their first messages.
    progress : bool, optional
        A tqdm bar on stderr (bytes for text files, rows for Parquet) for reads longer than
        half a second. ``None``: when stderr is a terminal.
    finite : bool
        Whether a NaN or infinite value in a ``numeric`` column is a bad row.
    key_codes : bool
        Text ``keys`` come back as int64 codes into ``Columns.levels[col]`` (sorted
        distinct values) rather than as a ``str`` array: 8 bytes per row whatever the id
        length, and the same order.
    checks : dict, optional
        ``{column: (valid, text)}`` for ``numeric`` columns: ``valid(values)`` returns a
        boolean mask of the acceptable float64 values of a batch (vectorized); a row where
        it is False is bad, reported as ``"<value> <text>"`` (for example
        ``(lambda w: w >= 0, "is not a valid weight (must be >= 0)")``).

    times : sequence of str
        ``numeric`` columns that may also hold ISO 8601 timestamps (text), read as POSIX
        seconds (`parse_time`: a timestamp without a zone is UTC), as ``streamrank
        monitor`` reads its time column. One Python parse per distinct timestamp text.

    Returns
    -------
    Columns

    Raises
    ------
    TableError
        An unknown or ambiguous column (always), a file that cannot be read as its format
        (see the module docstring), or a bad row under ``"fail"``.
    FileNotFoundError
        ``path`` does not exist.
    OSError
        ``path`` cannot be opened (permissions).

    Examples
    --------
    >>> import os, tempfile
    >>> from streamrank.io.tables import read_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "preds.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("id,user,label,score\\n1,ann,0,0.1\\n2,bob,1,0.9\\n3,ann,1,abc\\n")
    >>> cols = read_columns(path, numeric=["label", "score"], keys=["user"],
    ...                     on_error="skip", progress=False)
    >>> cols.data["score"], cols.data["user"], cols.n_rows, cols.skipped
    (array([0.1, 0.9]), array(['ann', 'bob'], dtype='<U3'), 3, 1)
    >>> print(cols.first_errors[0])
    /.../preds.csv, line 4 (row 3), column 'score': 'abc' is not a number
    >>> read_columns(path, numeric=["scor"], progress=False)
    Traceback (most recent call last):
    ...
    streamrank.io.tables.TableError: /.../preds.csv, column 'scor': no such column; the file ...
    """
    numeric, keys = list(dict.fromkeys(numeric)), list(dict.fromkeys(keys))
    for pname, cols in (("numeric", numeric), ("keys", keys)):
        if not all(isinstance(c, str) for c in cols):
            raise TypeError(f"The {pname!r} parameter of read_columns must be column names "
                            f"(str). Got {cols!r} instead.")
    if on_error not in ("fail", "skip"):
        raise ValueError("The 'on_error' parameter of read_columns must be 'fail' or "
                         f"'skip'. Got {on_error!r} instead.")
    both = set(numeric) & set(keys)
    if both:
        raise ValueError("The 'keys' parameter of read_columns must not repeat a numeric "
                         f"column. Got {sorted(both)!r} both numeric and a key instead.")
    times = list(dict.fromkeys(times))
    if not set(times) <= set(numeric):
        raise ValueError("The 'times' parameter of read_columns must name numeric columns. "
                         f"Got {sorted(set(times) - set(numeric))!r} instead.")
    unknown = set(checks or {}) - set(numeric)
    if unknown:
        raise ValueError("The 'checks' parameter of read_columns must name numeric columns. "
                         f"Got {sorted(unknown)!r} instead.")
    path = os.fspath(path)
    if format is not None and format not in FORMATS and format not in ("json", "ndjson",
                                                                       "pq", "tab"):
        raise ValueError(f"The 'format' parameter of read_columns must be one of "
                         f"{FORMATS}. Got {format!r} instead.")
    if path != "-" and not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    name = "<stdin>" if path == "-" else path
    files = None        # a directory's data files
    if path != "-" and os.path.isdir(path):
        fmt, files = directory_files(path, format)
    else:
        fmt = detect_format(path, format)
    if progress is None:
        progress = sys.stderr.isatty()
    def make():
        return _Collector(name, numeric, keys, on_error, finite, key_codes, fmt, checks,
                          times)

    col = make()
    if not numeric and not keys:
        return col.result()
    if fmt == "parquet" and path == "-":
        raise TableError("Parquet cannot be read from standard input", file=name)
    try:
        if fmt == "parquet":
            from ._parquet import _read_parquet

            _read_parquet(path, name, col, progress, files)
        elif files is not None:
            _read_each(files, col, fmt, progress)
            col.file = name
        elif fmt in ("csv", "tsv"):
            from ._csv import _read_csv

            col = _read_csv(path, name, make, "\t" if fmt == "tsv" else ",", progress)
        else:
            from ._jsonl import _read_jsonl

            _read_jsonl(path, name, col, progress)
    except pa.ArrowException as exc:  # pragma: no cover - a pyarrow error not foreseen
        raise TableError(f"cannot read the file ({exc})", file=name) from None
    return col.result()


_FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "parquet": "Parquet", "jsonl": "JSON-lines"}


def directory_files(path, format=None) -> tuple[str, list]:
    """The one format of a directory's data files, and the files (`folder_formats`,
    ``format`` for the files whose name says nothing); a `TableError` for a directory
    without any, or with files of several formats (``streamrank eval --dask`` reads a
    directory by it too). ``O(files)``."""
    by_format = folder_formats(path, None if format is None else ALIASES.get(format,
                                                                             format))
    if not by_format:
        raise TableError("no data file in this directory (Parquet, CSV, TSV or JSON "
                         f"lines; names starting with {' or '.join(SKIPPED_PREFIXES)} "
                         "are skipped)", file=path)
    if len(by_format) > 1:
        def some(files):
            names = [os.path.relpath(f, path) for f in files[:2]]
            return ", ".join(names + ["..."] * (len(files) > 2))

        found = "; ".join(f"{len(files)} {_FORMAT_NAMES[fmt]} file"
                          f"{'s' * (len(files) > 1)} ({some(files)})"
                          for fmt, files in by_format.items())
        raise TableError(f"files of several formats: {found}. A directory is read as one "
                         "data set of one format: move the other files out, or read each "
                         "file by itself", file=path)
    return next(iter(by_format.items()))


def _read_each(files, col: _Collector, fmt, progress):
    """Read a directory's text ``files`` (all of ``fmt``) in order into the one
    collector ``col``: rows are numbered within each file, and a message names the file
    and the line (each file's lines are found before the next file is read)."""
    from ._csv import _read_csv
    from ._jsonl import _read_jsonl

    for f in files:
        col.file = f
        if fmt == "jsonl":
            col.line_of = lambda rows: rows     # a JSON line's row is its line
            _read_jsonl(f, f, col, progress)
        else:
            mark = col.mark()
            _read_csv(f, f, lambda: col.rollback(mark), "\t" if fmt == "tsv" else ",",
                      progress)
        col.settle()
