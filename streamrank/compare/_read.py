"""Read a performance table from a file: CSV, TSV, Parquet (a file or a directory), JSON lines.

The columns are read with `streamrank.io.tables.read_columns`, the reader of every
``streamrank`` command: only the model, data set and metric columns are read, and a bad
value stops the read with a `streamrank.io.tables.TableError` that names the file, the
line, the row, the column and the value. What the reader cannot know, a label outside an
ordinal metric's declared categories and a second row for the same model and data set, is
reported here with the same error type and location.
"""

from __future__ import annotations

import numpy as np

from ._table import Metric, PerformanceTable, check_metrics, performance_table

__all__ = ["read_performance_table"]


def _text_labels(values: np.ndarray, categories: tuple) -> np.ndarray:
    """A category column read as numbers (``1``, ``2.5``) as the text of the declared
    categories: a value equal, as a number, to a category becomes that category's text
    (``"1.0"`` declared, ``1`` read), any other value its own text."""
    from ..io.tables import parse_number

    as_number = {}
    for c in categories:
        x = parse_number(c)
        if x is not None:
            as_number.setdefault(x, c)
    uniq, inverse = np.unique(values, return_inverse=True)
    text = [as_number.get(float(v), str(v)) for v in uniq.tolist()]
    return np.asarray(text, dtype=object)[inverse.ravel()]


def _located(reason, name, fmt, i, column=None, value=None):
    """The `TableError` of the ``i``-th (0-based) data row kept by the reader.

    Under ``on_error="fail"`` every data row is kept, in file order, so it is row ``i + 1``
    of a CSV, TSV or Parquet file; a JSON-lines row is its line, which blank lines shift,
    so there the message counts data rows instead.
    """
    from ..io.tables import TableError

    if fmt == "jsonl":
        return TableError(f"{reason} (data row {i + 1}, blank lines not counted)", file=name,
                          column=column, value=value)
    return TableError(reason, file=name, row=i + 1, column=column, value=value)


def read_performance_table(
    path,
    *,
    model: str = "model",
    dataset: str = "dataset",
    metrics,
    format: str | None = None,
    name: str | None = None,
    progress: bool | None = False,
) -> PerformanceTable:
    """Read the long performance table of a file and build it with `performance_table`.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV, TSV, Parquet or JSON-lines file (``.gz`` for the text formats), a directory
        of Parquet files, or ``"-"`` for CSV on standard input.
    model, dataset : str
        The model and data set (or time window) columns, read as labels: whole numbers
        become ``int`` labels, other values text.
    metrics : sequence of Metric
        From `cardinal` and `ordinal`. A metric column is read as numbers, except an
        ordinal metric with ``categories``, read as labels.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the file name (`streamrank.io.tables.detect_format`).
    name : str, optional
        The file as messages name it (default: ``str(path)``).
    progress : bool, optional
        A progress bar on stderr for long reads (``None``: when stderr is a terminal).

    Returns
    -------
    PerformanceTable

    Raises
    ------
    streamrank.io.tables.TableError
        A column the file lacks, a file that cannot be read as its format, a value that is
        missing, not a number or not finite in a numeric metric, a label that is not one
        of its metric's categories, two rows for the same model and data set: the message
        names the file, the line, the row, the column and the value.
    TypeError, ValueError
        Bad ``metrics`` (the message names the parameter), or no data row.
    OSError
        The file cannot be opened.

    Notes
    -----
    Runtime complexity: ``O(n log n)`` for ``n`` rows (the read is ``O(n)``, the checks
    sort the labels), plus `performance_table`.

    Examples
    --------
    >>> import os, tempfile
    >>> from streamrank.compare import cardinal, ordinal
    >>> path = os.path.join(tempfile.mkdtemp(), "perf.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("model,dataset,acc,grade\\na,1,0.8,low\\na,2,0.9,high\\n"
    ...                 "b,1,0.7,high\\nb,2,0.75,mid\\n")
    >>> read_performance_table(path, metrics=[cardinal("acc"),
    ...                        ordinal("grade", categories=["low", "mid", "high"])])
    PerformanceTable(2 models x 2 data sets, 4 rows, metrics=[ordinal('grade', direction='larger', categories=('low', 'mid', 'high')), cardinal('acc', direction='larger')])
    >>> read_performance_table(path, metrics=[ordinal("grade", categories=["low", "high"])])
    Traceback (most recent call last):
    ...
    streamrank.io.tables.TableError: /.../perf.csv, row 4, column 'grade': 'mid' is not one of the categories low < high
    """
    from ..io.tables import TableError, detect_format, read_columns

    func = "read_performance_table"
    check_metrics(metrics, model, dataset, func)
    name = str(path) if name is None else name
    fmt = detect_format(path, format)
    labelled = [m for m in metrics if m.categories is not None]
    numeric = [m.name for m in metrics if m.categories is None]
    cols = read_columns(path, numeric=numeric,
                        keys=[model, dataset] + [m.name for m in labelled],
                        format=fmt, on_error="fail", progress=progress, finite=True)
    data = dict(cols.data)
    n = data[model].size
    if n == 0:
        raise TableError("no data rows: expected one row per model and data set", file=name)
    for m in labelled:
        data[m.name] = _check_categories(data[m.name], m, name, fmt)
    _check_unique(data[model], data[dataset], name, fmt, model, dataset)
    return performance_table(data, model=model, dataset=dataset, metrics=list(metrics))


def _check_categories(values: np.ndarray, metric: Metric, name, fmt) -> np.ndarray:
    """The column as the declared categories' labels, or the error at its first other value."""
    if values.dtype.kind in "iuf":
        values = _text_labels(values, metric.categories)
    known = np.isin(values.astype(str), np.asarray([str(c) for c in metric.categories]))
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        value = values[i]
        raise _located(f"{str(value)!r} is not one of the categories "
                       f"{' < '.join(map(str, metric.categories))}", name, fmt, i,
                       column=metric.name, value=value)
    # Labels equal as text to their category: the category itself (a declared 1 matches "1").
    by_text = {str(c): c for c in metric.categories}
    return np.asarray([by_text[str(v)] for v in values.tolist()], dtype=object)


def _check_unique(models: np.ndarray, datasets: np.ndarray, name, fmt, model_col, dataset_col):
    """Raise at the first row that repeats an earlier row's model and data set."""
    _, m_codes = np.unique(models, return_inverse=True)
    _, d_codes = np.unique(datasets, return_inverse=True)
    pair = m_codes.ravel().astype(np.int64) * (int(d_codes.max()) + 1) + d_codes.ravel()
    order = np.argsort(pair, kind="stable")
    repeat = np.flatnonzero(pair[order][1:] == pair[order][:-1])
    if repeat.size:
        # The first row (in file order) whose pair was seen before, and that earlier row.
        later = order[repeat + 1]
        k = int(np.argmin(later))
        i, first = int(later[k]), int(order[repeat[k]])
        first_row = first + 1 if fmt != "jsonl" else None
        where = f"row {first_row}" if first_row is not None else "an earlier row"
        raise _located(f"a second row for {model_col} {models[i].item()!r} and {dataset_col} "
                       f"{datasets[i].item()!r} (the first is {where}): expected one row per "
                       "model and data set", name, fmt, i)
