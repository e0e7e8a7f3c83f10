"""Multilabel input, an indicator matrix ``y_true`` of shape (n, k) with scores of the same
shape, for `roc_auc_score` and `average_precision_score`, averaged as scikit-learn's
``_average_binary_score`` averages a binary metric.

The binary metric comes from its module (`auc`, `curves`) as a `BinaryMetric`: its kernel
for one column (called once per column: ``k`` calls, each ``O(n log n)``, and once on
the ``n k`` cells for ``"micro"``) and its kernel for every row at once (``"samples"``:
one ``np.argsort`` of the matrix along its rows, ``O(n k log k)``, then 2-D cumulative
sums, no Python loop over the rows). Multiclass average precision
(`streamrank.batch._multiclass`) binarizes its labels into such a matrix.

A column (or row) where the metric is undefined takes scikit-learn's value (ROC AUC:
``nan``, one class only; average precision: 0, no positive), with one
`UndefinedMetricWarning` naming them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._validation import check_weights, describe, param_error
from ..exceptions import UndefinedMetricWarning

__all__ = ["BinaryMetric", "average_binary_score", "finite_matrix", "indicator_inputs", "is_indicator",
           "is_one", "row_auc", "row_average_precision", "row_partial_auc", "score_matrix"]


@dataclass(frozen=True)
class BinaryMetric:
    """A binary metric as `average_binary_score` reads it.

    ``column(pos, s, w)`` is the metric of one binary problem (validated 1-D arrays,
    bool labels, ``w`` None or float64), called only where it is defined;
    ``rows(Y, S)`` the metric of every row of the matrices at once, an array of ``n``
    (any value where a row is undefined); ``undefined(Y, w)`` marks the columns (a
    bool array of ``k``) where the metric is undefined, ``value`` is then its value,
    and ``what`` says why (the warning's text).
    """

    name: str
    column: Callable[[np.ndarray, np.ndarray, np.ndarray | None], float]
    rows: Callable[[np.ndarray, np.ndarray], np.ndarray]
    undefined: Callable[[np.ndarray, np.ndarray | None], np.ndarray]
    value: float
    what: str


# ------------------------------------------------------------------ inputs
def is_indicator(y_true) -> bool:
    """Whether ``y_true`` is 2-D, the multilabel path of scikit-learn (a list of tuples
    stays a list of class labels, as `streamrank` reads it elsewhere). ``O(1)`` for arrays."""
    if isinstance(y_true, (list, tuple)) and y_true and \
            all(isinstance(v, tuple) for v in y_true):
        return False
    try:
        return np.ndim(y_true) == 2
    except ValueError:                       # ragged rows: not a matrix
        return False


def is_one(value) -> bool:
    """Whether ``value`` is the number 1 (``True`` too): the positive indicator."""
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)) \
        and value == 1


def indicator_inputs(y_true, y_score, sample_weight, func: str):
    """Validated ``(Y, S, w)``: ``Y`` the (n, k) bool indicator matrix (``k >= 2``), ``S``
    scores of its shape (float64, or int64 for integers), ``w`` None or float64 weights of
    which one at least is positive. ``O(n k)``."""
    Y = _indicator_matrix(y_true, y_score, func)
    S = score_matrix(y_score, Y.shape, func, "the shape of y_true (one score per label)")
    w = check_weights(sample_weight, Y.shape[0], func)
    if w is not None and not w.any():
        raise param_error("sample_weight", func, "positive for at least one sample",
                          "only zero weights")
    return Y, S, w


def _indicator_matrix(y_true, y_score, func: str) -> np.ndarray:
    arr = np.asarray(y_true)
    expected = "a multilabel indicator matrix (values 0 and 1, or bools)"
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise param_error("y_true", func, expected, f"values such as "
                              f"{describe(arr.ravel()[:3].tolist())}", TypeError) from None
    if arr.dtype.kind not in "biuf":
        raise param_error("y_true", func, expected, f"dtype {arr.dtype}", TypeError)
    if arr.size == 0:
        raise param_error("y_true", func, "a non-empty array",
                          f"an empty array of shape {arr.shape}")
    if arr.shape[1] < 2:
        raise param_error("y_true", func, "1-D class labels, or a multilabel indicator "
                          "matrix of two columns or more", f"an array of shape {arr.shape}")
    try:
        score_shape = np.shape(y_score)
    except ValueError:                       # ragged rows: the score checks say so
        score_shape = None
    if score_shape is not None and len(score_shape) < 2 and \
            (not score_shape or score_shape[0] != arr.shape[0]):
        raise param_error("y_true", func, "1-D class labels with 1-D scores (a multilabel "
                          "indicator matrix needs y_score of its shape (n, k))",
                          f"an array of shape {arr.shape} (y_score: shape {score_shape})")
    if arr.dtype == bool:
        return arr
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        raise param_error("y_true", func, expected, "values "
                          f"{describe(np.unique(arr)[:6].tolist())}")
    return arr == 1


def score_matrix(y_score, shape: tuple, func: str, what: str) -> np.ndarray:
    """``y_score`` as an array of ``shape`` (float64, or int64 for bools and integers)
    of finite numbers; ``what`` names the shape in the error. ``O(n k)``."""
    try:
        arr = np.asarray(y_score)
    except ValueError:
        raise param_error("y_score", func, "a 2-D array of scores",
                          f"rows of different lengths in {describe(y_score)}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise param_error("y_score", func, "numeric (bool, int or float)",
                              f"values such as {describe(arr.ravel()[:3].tolist())}",
                              TypeError) from None
    if arr.shape != shape:
        raise param_error("y_score", func, f"of shape {shape}, {what}",
                          f"an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise param_error("y_score", func, "numeric (bool, int or float)",
                          f"dtype {arr.dtype}", TypeError)
    if arr.dtype.kind in "bi":
        return np.ascontiguousarray(arr, dtype=np.int64)
    if arr.dtype.kind == "u":
        return np.ascontiguousarray(arr)
    return finite_matrix(arr, func)


def finite_matrix(arr, func: str) -> np.ndarray:
    """``y_score`` of shape (n, k) as contiguous float64, or `ValueError` naming the
    first value that is not finite (its row and column). O(n k)."""
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        raise param_error("y_score", func, "finite numbers",
                          f"{float(arr[r, c])!r} at row {r}, column {c}")
    return arr


# ------------------------------------------------------------------ averaging
def average_binary_score(metric: BinaryMetric, Y: np.ndarray, S: np.ndarray,
                         w: np.ndarray | None, average):
    """scikit-learn's ``_average_binary_score`` of ``metric`` over the columns of the
    indicator matrix ``Y`` (module docstring): a float, or the ``k`` scores for
    ``average=None``."""
    n, k = Y.shape
    if average == "micro":                   # every cell one sample, row after row
        pos, s = Y.ravel(), S.ravel()
        wm = None if w is None else np.repeat(w, k)
        if metric.undefined(pos[:, None], wm)[0]:
            _warn(metric, "average='micro'", None, 1)
            return metric.value
        return metric.column(pos, s, wm)
    if average == "samples":                 # each row one problem, unweighted
        score = np.asarray(metric.rows(Y, S), dtype=np.float64)
        bad = metric.undefined(Y.T, None)
        if bad.any():
            score[bad] = metric.value
            _warn(metric, "rows", np.flatnonzero(bad), n)
        if w is not None:
            score[w == 0] = 0
        return float(np.average(score, weights=w))
    support = None
    if average == "weighted":                # scikit-learn's sums, in its order
        support = Y.sum(axis=0) if w is None else \
            np.sum(Y.astype(np.float64) * w[:, None], axis=0)
        if np.isclose(np.sum(support), 0):
            return 0.0
    bad = metric.undefined(Y, w)
    score = np.full(k, metric.value, dtype=np.float64)
    Yt, St = np.ascontiguousarray(Y.T), np.ascontiguousarray(S.T)
    for c in np.flatnonzero(~bad).tolist():
        score[c] = metric.column(Yt[c], St[c], w)
    if bad.any():
        _warn(metric, "columns", np.flatnonzero(bad), k)
    if average is None:
        return score
    if support is not None:
        score[support == 0] = 0
    return float(np.average(score, weights=support))


def _warn(metric: BinaryMetric, where: str, index, total: int) -> None:
    """One warning for every undefined column (or row) of a call: their number and the
    first five."""
    if index is None:
        text = (f"{metric.name} is undefined for {where} ({metric.what} in y_true); it is "
                f"{metric.value}")
    else:
        shown = str(index[:5].tolist())[1:-1] + (", ..." if index.size > 5 else "")
        text = (f"{metric.name} is undefined in {index.size} of the {total} {where} of "
                f"y_true ({where} {shown}: {metric.what}); it is {metric.value} there")
    warnings.warn(f"{text}, as in scikit-learn.", UndefinedMetricWarning, stacklevel=4)


# ------------------------------------------------------------------ row kernels
def _rows_descending(Y: np.ndarray, S: np.ndarray):
    """Each row ordered by score, decreasing: ``(y, first, last)``, its labels and, for
    each position, the first and last position of its run of tied scores. One
    ``np.argsort`` along the rows, ``O(n k log k)``; the rest ``O(n k)``."""
    n, k = S.shape
    order = np.argsort(S, axis=1)[:, ::-1]
    s = np.take_along_axis(S, order, axis=1)
    y = np.take_along_axis(Y, order, axis=1)
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = s[:, :-1] != s[:, 1:]
    starts = np.ones((n, k), dtype=bool)
    starts[:, 1:] = ends[:, :-1]
    position = np.arange(k)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return y, first, last


def row_auc(Y: np.ndarray, S: np.ndarray) -> np.ndarray:
    """The ROC AUC of each row (its ``k`` labels and scores), ties one half, from exact
    integer counts: ``(2 sum_pos (negatives below) + (negatives tied)) / 2PN``, one
    rounding. ``nan`` where a row holds one class."""
    y, first, last = _rows_descending(Y, S)
    neg = ~y
    neg_upto = np.cumsum(neg, axis=1)                     # negatives at or above
    neg_before = neg_upto - neg                           # negatives strictly above
    n_pos = y.sum(axis=1)
    n_neg = Y.shape[1] - n_pos
    # A positive: negatives below its run count 1, tied ones 1/2 (twice: 2 and 1).
    below2 = 2 * n_neg[:, None] - np.take_along_axis(neg_upto, last, axis=1) \
        - np.take_along_axis(neg_before, first, axis=1)
    num = np.sum(below2, axis=1, where=y)
    den = 2 * n_pos * n_neg
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def row_partial_auc(Y: np.ndarray, S: np.ndarray, max_fpr: float) -> np.ndarray:
    """The McClish-standardised partial ROC AUC over ``FPR <= max_fpr`` of each row, as
    scikit-learn's ``_binary_roc_auc_score`` (the curve's points at the ends of the runs
    of tied scores, cut at ``max_fpr`` by linear interpolation). ``nan`` where a row holds
    one class."""
    y, _, last = _rows_descending(Y, S)
    n_pos = y.sum(axis=1)
    n_neg = Y.shape[1] - n_pos
    ok = (n_pos > 0) & (n_neg > 0)
    tp = np.take_along_axis(np.cumsum(y, axis=1), last, axis=1)   # each run's end point,
    fp = np.take_along_axis(np.cumsum(~y, axis=1), last, axis=1)  # repeated over the run
    t1 = tp / np.maximum(n_pos, 1)[:, None]
    f1 = fp / np.maximum(n_neg, 1)[:, None]
    t0 = np.zeros_like(t1)
    f0 = np.zeros_like(f1)
    t0[:, 1:], f0[:, 1:] = t1[:, :-1], f1[:, :-1]
    m = max_fpr
    inside = f1 <= m
    cross = (f0 < m) & (f1 > m)
    slope = np.divide(t1 - t0, f1 - f0, out=np.zeros_like(t1), where=cross)
    t_m = slope * (m - f0) + t0
    area = np.where(inside, (f1 - f0) * (t1 + t0) / 2, 0.0) + \
        np.where(cross, (m - f0) * (t_m + t0) / 2, 0.0)
    partial = area.sum(axis=1)
    min_area = 0.5 * m ** 2
    score = 0.5 * (1 + (partial - min_area) / (m - min_area))
    score[~ok] = np.nan
    return score


def row_average_precision(Y: np.ndarray, S: np.ndarray) -> np.ndarray:
    """The average precision of each row, as scikit-learn's: each positive adds the
    precision at the end of its run of tied scores, ``TP / (TP + FP)`` there, and the sum
    is divided by the positives. 0 where a row holds no positive."""
    y, _, last = _rows_descending(Y, S)
    tp_end = np.take_along_axis(np.cumsum(y, axis=1), last, axis=1)
    precision = tp_end / (last + 1)
    n_pos = y.sum(axis=1)
    total = np.sum(precision, axis=1, where=y)
    return np.divide(total, n_pos, out=np.zeros(total.shape), where=n_pos > 0)
