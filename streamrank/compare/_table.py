"""The input of a GSD comparison: a long performance table and the declaration of its metrics.

One row per (model, data set) with one column per metric. Data sets may equally be time
windows of a live model (days, weeks). Each metric is declared

* **cardinal** (differences mean something: accuracy, AUC) or **ordinal** (only the order
  means something: an interpretability grade, latency deciles), and
* **larger** or **smaller** is better.

Internally every metric is oriented so that larger is better: cardinal values are negated
when smaller is better, ordinal values become integer codes (category positions, quantile
bins or dense ranks) reversed when smaller is better.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, describe, param_error

__all__ = ["Metric", "PerformanceTable", "cardinal", "ordinal", "performance_table", "quantile_bins"]

_DIRECTIONS = ("larger", "smaller")


@dataclass(frozen=True)
class Metric:
    """The declaration of one metric column; build it with `cardinal` or `ordinal`.

    Attributes
    ----------
    name : str
        Column name in the table.
    scale : {"cardinal", "ordinal"}
        Cardinal: differences are meaningful. Ordinal: only the order is.
    direction : {"larger", "smaller"}
        Which values are better.
    bins : int or None
        Ordinal only: cut the numeric column into ``bins`` quantile classes over the pooled
        table (all models and data sets), see `quantile_bins`.
    categories : tuple or None
        Ordinal only: the possible values from worst to best when ``direction="larger"``
        (from best to worst when ``direction="smaller"``).
    rightmost_closed : bool
        Ordinal with ``bins`` only: whether the pooled maximum joins the top bin (``True``)
        or forms a class of its own (``False``, the authors' R code).
    """

    name: str
    scale: str
    direction: str = "larger"
    bins: int | None = None
    categories: tuple | None = None
    rightmost_closed: bool = False

    def __repr__(self) -> str:
        extra = ""
        if self.bins is not None:
            extra += f", bins={self.bins}"
            if self.rightmost_closed:
                extra += ", rightmost_closed=True"
        if self.categories is not None:
            extra += f", categories={self.categories!r}"
        return f"{self.scale}({self.name!r}, direction={self.direction!r}{extra})"


def _check_name_direction(name, direction, func):
    if not isinstance(name, str) or not name:
        raise param_error("name", func, "a non-empty str (a column name)", describe(name), TypeError)
    if direction not in _DIRECTIONS:
        raise param_error("direction", func, "'larger' or 'smaller'", describe(direction))


def cardinal(name: str, direction: str = "larger") -> Metric:
    """Declare a cardinal metric: differences of its values are meaningful.

    >>> cardinal("accuracy")
    cardinal('accuracy', direction='larger')
    >>> cardinal("latency_ms", direction="smaller")
    cardinal('latency_ms', direction='smaller')
    """
    _check_name_direction(name, direction, "cardinal")
    return Metric(name, "cardinal", direction)


def ordinal(
    name: str,
    direction: str = "larger",
    *,
    bins: int | None = None,
    categories: Sequence[object] | None = None,
    rightmost_closed: bool = False,
) -> Metric:
    """Declare an ordinal metric: only the order of its values is meaningful.

    Give ``categories`` for a column of labels (listed worst to best for
    ``direction="larger"``), ``bins`` to cut a numeric column into quantile classes over the
    pooled table as the authors did (deciles of CPU time, quartiles of noisy accuracy), or
    neither to use the numeric values' order as it is.

    >>> ordinal("grade", categories=["low", "mid", "high"])
    ordinal('grade', direction='larger', categories=('low', 'mid', 'high'))
    >>> ordinal("train_time", direction="smaller", bins=10)
    ordinal('train_time', direction='smaller', bins=10)
    """
    _check_name_direction(name, direction, "ordinal")
    if bins is not None and categories is not None:
        raise param_error("bins", "ordinal", "None when categories are given",
                          f"bins={bins!r} and categories={describe(categories)}")
    if bins is not None:
        bins = check_int(bins, "bins", "ordinal", expected="a positive int or None")
    if categories is not None:
        if isinstance(categories, str) or not isinstance(categories, Sequence):
            raise param_error("categories", "ordinal", "a sequence of distinct labels or None",
                              describe(categories), TypeError)
        categories = tuple(categories)
        if len(set(categories)) != len(categories) or not categories:
            raise param_error("categories", "ordinal", "a non-empty sequence of distinct labels",
                              describe(categories))
    return Metric(name, "ordinal", direction, bins, categories, bool(rightmost_closed))


def quantile_bins(values: ArrayLike, bins: int, *, rightmost_closed: bool = False) -> np.ndarray:
    """Quantile class (1-based) of every value, with the cut points taken over ``values``.

    The cut points are ``np.quantile(values, [0, 1/bins, ..., 1])`` (numpy's default
    ``"linear"`` method, which is R's ``quantile(type = 7)``), and a value's class is the
    number of cut points ``<=`` it (R's ``findInterval``). Values equal to the maximum
    therefore get class ``bins + 1`` of their own, exactly as in the authors' R code;
    ``rightmost_closed=True`` puts them in class ``bins``. Ties at a cut point go up.

    Runtime complexity: ``O(n log n)``.

    >>> quantile_bins([1, 2, 3, 4, 5, 6, 7, 8], 4).tolist()
    [1, 1, 2, 2, 3, 3, 4, 5]
    >>> quantile_bins([1, 2, 3, 4, 5, 6, 7, 8], 4, rightmost_closed=True).tolist()
    [1, 1, 2, 2, 3, 3, 4, 4]
    """
    x = np.asarray(values, dtype=np.float64)
    edges = np.quantile(x, np.linspace(0.0, 1.0, bins + 1))
    codes = np.searchsorted(edges, x, side="right")
    if rightmost_closed:
        codes = np.minimum(codes, bins)
    return codes.astype(np.int64)


@dataclass(frozen=True, eq=False)
class PerformanceTable:
    """A validated long performance table, oriented so that larger is better everywhere.

    Build it with `performance_table`. All arrays are read-only.

    Attributes
    ----------
    models : tuple
        Model labels in order of first appearance.
    datasets : tuple
        Data set (or time window) labels in order of first appearance.
    metrics : tuple of Metric
        Ordinal metrics first, then cardinal ones, each group in declaration order.
    model_index, dataset_index : ndarray of int, shape (n_rows,)
        Row -> position in ``models`` / ``datasets``.
    values : ndarray of float64, shape (n_rows, n_metrics)
        The oriented values: ordinal codes (exact small integers) then cardinal values.
    n_ordinal : int
        How many leading columns of ``values`` are ordinal.
    """

    models: tuple
    datasets: tuple
    metrics: tuple
    model_index: np.ndarray = field(repr=False)
    dataset_index: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    n_ordinal: int = 0

    def __repr__(self) -> str:
        return (f"PerformanceTable({len(self.models)} models x {len(self.datasets)} data sets, "
                f"{len(self.model_index)} rows, metrics={list(self.metrics)!r})")

    def rows(self, model: Hashable) -> np.ndarray:
        """Oriented metric vectors of ``model``, one row per data set, shape (n_m, n_metrics).

        >>> t = performance_table({"model": ["a", "b"], "dataset": [1, 1], "acc": [0.5, 0.7]},
        ...                       metrics=[cardinal("acc")])
        >>> t.rows("b")
        array([[0.7]])
        """
        return self.values[self.model_index == self.index_of(model, "rows")]

    def index_of(self, model, func: str = "index_of", name: str = "model") -> int:
        """The position of ``model`` in `models`, or a `ValueError` naming the parameter
        ``name`` of ``func``. ``O(M)`` for ``M`` models."""
        for i, m in enumerate(self.models):
            if m == model:
                return i
        raise param_error(name, func, f"one of the table's models {list(self.models)!r}",
                          describe(model))


def check_metrics(metrics, model, dataset, func: str) -> None:
    """Raise the error naming ``metrics`` unless it is a non-empty sequence of `Metric` with
    distinct names, none of them the model or the data set column."""
    if isinstance(metrics, Metric) or not isinstance(metrics, Sequence) or not metrics:
        raise param_error("metrics", func, "a non-empty list of metrics from cardinal() and "
                          "ordinal()", describe(metrics), TypeError)
    for m in metrics:
        if not isinstance(m, Metric):
            raise param_error("metrics", func, "a list of metrics from cardinal() and ordinal()",
                              f"an item {describe(m)}", TypeError)
    names = [m.name for m in metrics]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise param_error("metrics", func, "metrics with distinct names",
                          f"{sorted(dup)!r} declared more than once")
    for m in metrics:
        if m.name in (model, dataset):
            raise param_error("metrics", func, "metric columns other than the model and "
                              "data set columns", describe(m.name))
    if model == dataset:
        raise param_error("dataset", func, "a column other than the model column",
                          describe(dataset))


def _columns(data) -> dict:
    """Dict of column name -> sequence, from the accepted input forms."""
    if isinstance(data, Mapping):
        return dict(data)
    if isinstance(data, np.ndarray) and data.dtype.names:
        return {name: data[name] for name in data.dtype.names}
    if hasattr(data, "columns") and hasattr(data, "__getitem__"):  # pandas / polars frame
        return {str(c): np.asarray(data[c]) for c in data.columns}
    if isinstance(data, Sequence) and data and all(isinstance(r, Mapping) for r in data):
        names = list(data[0])
        return {c: [r.get(c) for r in data] for c in names}
    raise param_error(
        "data", "performance_table",
        "a dict of columns, a numpy structured array, a pandas DataFrame or a list of row dicts",
        describe(data), TypeError)


def _column(cols: dict, name, what: str) -> np.ndarray:
    if name not in cols:
        raise param_error(what, "performance_table", f"a column of data {sorted(map(str, cols))!r}",
                          describe(name))
    return np.asarray(cols[name], dtype=object) if not isinstance(cols[name], np.ndarray) \
        else cols[name]


def _numeric(raw: np.ndarray, metric: Metric) -> np.ndarray:
    """The column as finite float64, or the one-format error naming the metric."""
    try:
        x = np.asarray(raw).astype(np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "data", "performance_table",
            f"numbers in the {metric.scale} metric column {metric.name!r}",
            f"values such as {describe(np.asarray(raw)[:3].tolist())}", TypeError) from None
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise param_error(
            "data", "performance_table",
            f"finite numbers in the {metric.scale} metric column {metric.name!r}",
            f"{float(x[i])!r} at row {i} ({int(bad.sum())} such values)")
    return x


def _ordinal_codes(raw: np.ndarray, metric: Metric) -> np.ndarray:
    """Integer codes, larger = better, for an ordinal metric column."""
    if metric.categories is not None:
        pos = {c: i + 1 for i, c in enumerate(metric.categories)}
        try:
            codes = np.array([pos[v] for v in np.asarray(raw).tolist()], dtype=np.int64)
        except (KeyError, TypeError):
            bad = next(v for v in np.asarray(raw).tolist() if v not in pos)
            raise param_error(
                "data", "performance_table",
                f"one of the categories {list(metric.categories)!r} in the ordinal metric "
                f"column {metric.name!r}", describe(bad)) from None
        top = len(metric.categories)
    else:
        x = _numeric(raw, metric)
        if metric.bins is not None:
            codes = quantile_bins(x, metric.bins, rightmost_closed=metric.rightmost_closed)
            top = metric.bins + (0 if metric.rightmost_closed else 1)
        else:
            codes = np.unique(x, return_inverse=True)[1].ravel().astype(np.int64) + 1
            top = int(codes.max())
    return codes if metric.direction == "larger" else (top + 1) - codes


def _labels(raw: np.ndarray) -> tuple[tuple, np.ndarray]:
    """Distinct labels in order of first appearance and the row -> label position."""
    lst = np.asarray(raw).tolist()
    first: dict = {}
    index = np.empty(len(lst), dtype=np.intp)
    for i, v in enumerate(lst):
        index[i] = first.setdefault(v, len(first))
    return tuple(first), index


def performance_table(
    data: object,
    *,
    model: str = "model",
    dataset: str = "dataset",
    metrics: Sequence[Metric],
) -> PerformanceTable:
    """Validate a long performance table and orient its metrics.

    Parameters
    ----------
    data : dict of columns, numpy structured array, pandas DataFrame or list of row dicts
        One row per (model, data set). Metric columns may hold numbers or numeric strings
        (as read from a CSV file); ordinal columns with ``categories`` hold labels.
    model, dataset : str
        Names of the model and data set (or time window) columns.
    metrics : sequence of Metric
        At least one, from `cardinal` and `ordinal`.

    Returns
    -------
    PerformanceTable

    Raises
    ------
    TypeError, ValueError
        Unknown column, NaN or non-numeric value in a numeric metric, unknown category,
        duplicate (model, data set) row, empty table; the message names the parameter.

    Notes
    -----
    Runtime complexity: ``O(n r log n)`` for ``n`` rows and ``r`` metrics (the sorts of
    the binning). Quantile bins are computed over the pooled table, all models together.

    Examples
    --------
    >>> data = {"model": ["a", "a", "b", "b"], "dataset": ["d1", "d2", "d1", "d2"],
    ...         "acc": [0.8, 0.9, 0.7, 0.95], "seconds": [3.0, 1.0, 2.0, 5.0]}
    >>> t = performance_table(data, metrics=[cardinal("acc"),
    ...                                      ordinal("seconds", direction="smaller")])
    >>> t
    PerformanceTable(2 models x 2 data sets, 4 rows, metrics=[ordinal('seconds', direction='smaller'), cardinal('acc', direction='larger')])
    >>> t.rows("a")
    array([[2. , 0.8],
           [4. , 0.9]])
    """
    func = "performance_table"
    cols = _columns(data)
    check_metrics(metrics, model, dataset, func)
    names = [m.name for m in metrics]
    model_col = _column(cols, model, "model")
    dataset_col = _column(cols, dataset, "dataset")
    n = len(model_col)
    if n == 0:
        raise param_error("data", func, "a non-empty table", "0 rows")
    for name in [dataset] + names:
        col = _column(cols, name, "metrics" if name in names else "dataset")
        if len(col) != n:
            raise param_error("data", func, f"columns of equal length ({n}, like {model!r})",
                              f"{len(col)} values in column {name!r}")
    models, model_index = _labels(model_col)
    datasets, dataset_index = _labels(dataset_col)
    pair = model_index * len(datasets) + dataset_index
    uniq, counts = np.unique(pair, return_counts=True)
    if (counts > 1).any():
        p = int(uniq[counts > 1][0])
        raise param_error("data", func, "one row per (model, data set)",
                          f"{counts.max()} rows for model {models[p // len(datasets)]!r} and "
                          f"data set {datasets[p % len(datasets)]!r}")
    ordered = [m for m in metrics if m.scale == "ordinal"] + \
        [m for m in metrics if m.scale == "cardinal"]
    values = np.empty((n, len(ordered)), dtype=np.float64)
    for j, m in enumerate(ordered):
        raw = _column(cols, m.name, "metrics")
        if m.scale == "ordinal":
            values[:, j] = _ordinal_codes(raw, m)
        else:
            x = _numeric(raw, m)
            values[:, j] = x if m.direction == "larger" else -x
    for arr in (model_index, dataset_index, values):
        arr.setflags(write=False)
    n_ord = sum(m.scale == "ordinal" for m in ordered)
    return PerformanceTable(models, datasets, tuple(ordered), model_index, dataset_index,
                            values, n_ord)
