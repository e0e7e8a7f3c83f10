"""Threshold curves with scikit-learn's names, signatures and outputs: `roc_curve`,
`precision_recall_curve` and `average_precision_score`.

`average_precision_score` also takes multilabel and multiclass targets, averaged over
their columns as scikit-learn averages them (`_multilabel`).

Each returns scikit-learn's arrays element for element (the same thresholds, the first ROC
threshold ``inf``, the same float sums with weights, the same warnings), from one sort per
class instead of a stable argsort of all the scores:

* without weights, ``np.sort`` of each class's scores (no argsort, no gather), then one
  compiled merge of the two sorted classes into the distinct thresholds with the counts of
  positives and negatives at or above each (`_ccurves.threshold_counts`);
* with weights, a stable radix sort of each class's scores that moves the weights along
  (`_ccurves.weighted_class_sort`, ``O(n)``), so that the merge adds each class's weights in the
  order scikit-learn's cumulative sums do (decreasing score, ties in input order): the
  running sums are the same floats, bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._ccurves import (from_bits, pr_points, roc_points, threshold_counts,
                       weighted_class_sort)
from ._kernels import key_array
from ._multilabel import (BinaryMetric, average_binary_score, indicator_inputs, is_indicator,
                          is_one, row_average_precision)
from .._validation import (_label_values, _ne, as_score_column, check_binary_labels,
                           check_consistent_length, check_weights, describe, param_error)
from ..exceptions import UndefinedMetricWarning

__all__ = ["average_precision_score", "precision_recall_curve", "roc_curve"]

_AVERAGES = ("micro", "macro", "samples", "weighted")
#: (min, max) of the label sets the curves read without pos_label: {0, 1}, {-1, 1}, {0},
#: {-1} and {1} (scikit-learn's ``_check_pos_label_consistency``).
_CURVE_LABEL_RANGES = {(0.0, 1.0), (-1.0, 1.0), (0.0, 0.0), (-1.0, -1.0), (1.0, 1.0)}


# ------------------------------------------------------------------ inputs
def _curve_labels(y_true, pos_label, func: str) -> np.ndarray:
    """"Is positive" of binary ``y_true`` by scikit-learn's rule for the curves
    (``_check_pos_label_consistency``): without ``pos_label`` the labels must lie in
    {0, 1} or {-1, 1} (or be one of 0, -1 and 1 only), and 1 is positive; other labels,
    strings among them, need ``pos_label``. ``O(n)``."""
    if pos_label is not None:
        return check_binary_labels(y_true, pos_label, func)
    y = _label_values(y_true, "y_true", func)
    if y.dtype == bool:
        return y
    if y.dtype.kind in "iuf":
        lo, hi = y.min(), y.max()
        if (float(lo), float(hi)) in _CURVE_LABEL_RANGES and ((y == lo) | (y == hi)).all():
            return check_binary_labels(y, 1, func)
    check_binary_labels(y, None, func)            # more than two labels: that error first
    try:
        shown = sorted(set(y.tolist()))
    except TypeError:
        shown = sorted(set(y.tolist()), key=repr)
    raise param_error("y_true", func, "of values in {0, 1} or {-1, 1} when pos_label is "
                      "not given (as in scikit-learn; pass pos_label for other labels)",
                      f"labels {describe(shown)}")


def _curve_inputs(y_true, y_score, pos_label, sample_weight, func: str):
    """Validated ``(pos, s, w, dtype)``: positives (bool), scores (1-D, or an (n, 1)
    column), weights (None or float64) and the scores' own dtype (scikit-learn's
    precision-recall thresholds keep it)."""
    pos = _curve_labels(y_true, pos_label, func)
    raw = np.asarray(y_score) if not isinstance(y_score, np.ndarray) else y_score
    s = as_score_column(y_score, "y_score", func)
    n = check_consistent_length(func, y_true=pos, y_score=s)
    w = check_weights(sample_weight, n, func)
    dtype = raw.dtype if raw.dtype.kind in "biuf" else s.dtype
    if w is not None and not w.any():
        raise param_error("sample_weight", func, "positive for at least one sample",
                          "only zero weights")
    return pos, s, w, dtype


def _threshold_counts(pos: np.ndarray, s: np.ndarray, w: np.ndarray | None):
    """``(thresholds, tps, fps)`` of scikit-learn's ``confusion_matrix_at_thresholds``:
    the distinct scores decreasing (in the keys' dtype, `key_array`), with the (weighted)
    positives and negatives scored at or above each, as float64. Zero-weight rows count
    for nothing, not even as a threshold. One sort per class and one merge: ``np.sort``,
    ``O(n log n)``, without weights; a radix sort, ``O(n)``, with them."""
    keys = key_array(s)
    if w is None:
        p, q = keys[pos], keys[~pos]                  # fresh copies: sorted in place
        p.sort()
        q.sort()
        return threshold_counts(p, q)
    k1, w1, k0, w0 = weighted_class_sort(keys, pos, w)
    thr, tps, fps = threshold_counts(k1, k0, w1, w0)
    return from_bits(thr, keys.dtype), tps, fps


# ------------------------------------------------------------------ ROC
def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """Receiver operating characteristic: false and true positive rates per threshold.

    Equal to ``sklearn.metrics.roc_curve`` element for element: the thresholds are the
    distinct scores in decreasing order after a first one of ``inf`` (the point (0, 0));
    ``fpr[i]`` and ``tpr[i]`` are the rates of the samples scored ``>= thresholds[i]``.
    Tied scores make one threshold (one step of the curve, diagonal when it holds both
    classes). Samples of weight 0 are dropped, thresholds and all.

    Runtime complexity: ``O(n log n)``: ``np.sort`` of each class's scores and one merge
    (a stable ``O(n)`` radix sort per class with weights); scikit-learn argsorts all
    the scores stably.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels. Without ``pos_label`` they must lie in {0, 1} or {-1, 1}
        (booleans too), 1 (``True``) being positive, scikit-learn's rule; other labels,
        such as strings, need ``pos_label`` (`ValueError` otherwise).
    y_score : array-like of shape (n,) or (n, 1)
        Finite scores; higher means "more likely positive".
    pos_label : label, optional
        The positive class, one of the labels.
    sample_weight : array-like of shape (n,), optional
        Nonnegative weights.
    drop_intermediate : bool, default True
        Drop the thresholds whose point lies on a straight line between its neighbours
        (where neither the false nor the true positives bend), as scikit-learn: the curve
        and its area are unchanged.

    Returns
    -------
    fpr, tpr : ndarray of float64
        Increasing rates; all ``nan`` with an `UndefinedMetricWarning` when the negatives
        (for ``fpr``) or the positives (for ``tpr``) are missing.
    thresholds : ndarray of float64
        Decreasing: ``inf``, then the distinct scores kept.

    Examples
    --------
    >>> from streamrank import roc_curve
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    >>> thresholds.tolist()
    [inf, 0.8, 0.4, 0.35, 0.1]
    >>> roc_curve([0, 1, 1], [0.5, 0.5, 0.9])[1].tolist()  # a tie: one diagonal step
    [0.0, 0.5, 1.0]
    """
    func = "roc_curve"
    _check_bool(drop_intermediate, "drop_intermediate", func)
    pos, s, w, _ = _curve_inputs(y_true, y_score, pos_label, sample_weight, func)
    return _roc_from_counts(*_threshold_counts(pos, s, w), drop_intermediate)


def _roc_from_counts(thr, tps, fps, drop_intermediate):
    """scikit-learn's ``roc_curve`` from its threshold counts (`roc_points`, ``O(m)`` for
    ``m`` thresholds), with its warnings for a missing class."""
    fpr, tpr, thr = roc_points(thr, tps, fps, drop_intermediate)
    if not fps[-1] > 0:
        warnings.warn("No negative samples in y_true, false positive value should be "
                      "meaningless", UndefinedMetricWarning, stacklevel=3)
    if not tps[-1] > 0:
        warnings.warn("No positive samples in y_true, true positive value should be "
                      "meaningless", UndefinedMetricWarning, stacklevel=3)
    return fpr, tpr, thr


def trapezoid_auc(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """The area under a ROC curve by the trapezoidal rule, as scikit-learn's ``auc``
    (``scipy.integrate.trapezoid``) sums it: the same floats. ``O(m)``."""
    return float((np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0).sum())


def binary_curve_auc(pos: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
    """ROC AUC of validated arrays computed as scikit-learn's ``_binary_roc_auc_score``
    does (its ROC curve, then the trapezoids), so that the float is its float: ``nan``
    with an `UndefinedMetricWarning` when one class is missing (or has zero weight
    only). Some weight must be positive."""
    if pos.all() or not pos.any():
        warnings.warn("Only one class is present in y_true. ROC AUC score is not defined "
                      "in that case.", UndefinedMetricWarning, stacklevel=3)
        return float("nan")
    fpr, tpr, _ = _roc_from_counts(*_threshold_counts(pos, s, w), True)
    return trapezoid_auc(fpr, tpr)


def sorted_pair_auc(pos_sorted: np.ndarray, neg_sorted: np.ndarray) -> float:
    """`binary_curve_auc` of two classes whose scores are given sorted ascending (float64,
    int64 or uint64, one dtype; neither empty): one merge, ``O(len(pos) + len(neg))``."""
    fpr, tpr, _ = _roc_from_counts(*threshold_counts(pos_sorted, neg_sorted), True)
    return trapezoid_auc(fpr, tpr)


# ------------------------------------------------------------------ precision-recall
def precision_recall_curve(y_true, y_score, *, pos_label=None, sample_weight=None,
                           drop_intermediate=False):
    """Precision and recall per threshold, as ``sklearn.metrics.precision_recall_curve``.

    ``precision[i]`` and ``recall[i]`` are those of the samples scored
    ``>= thresholds[i]``; the thresholds are the distinct scores, increasing, in the
    scores' dtype; a last point (precision 1, recall 0) has no threshold. Tied scores make
    one threshold. Element for element scikit-learn's arrays, with weights too (samples of
    weight 0 are dropped).

    Runtime complexity: ``O(n log n)``, as `roc_curve`.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight
        As in `roc_curve`.
    drop_intermediate : bool, default False
        Keep only the first and last threshold of each run of equal true positives (the
        points of one recall), as scikit-learn.

    Returns
    -------
    precision : ndarray of float64, shape (m + 1,)
    recall : ndarray of float64, shape (m + 1,)
        Decreasing; all ones (but the last 0) with a warning when there is no positive.
    thresholds : ndarray, shape (m,)

    Examples
    --------
    >>> from streamrank import precision_recall_curve
    >>> p, r, t = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> p.round(4).tolist(), r.tolist(), t.tolist()
    ([0.5, 0.6667, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """
    func = "precision_recall_curve"
    _check_bool(drop_intermediate, "drop_intermediate", func)
    pos, s, w, dtype = _curve_inputs(y_true, y_score, pos_label, sample_weight, func)
    return _pr_from_counts(*_threshold_counts(pos, s, w), dtype, drop_intermediate)


def _pr_from_counts(thr, tps, fps, dtype, drop_intermediate):
    """scikit-learn's ``precision_recall_curve`` from its threshold counts (`pr_points`,
    ``O(m)``), the thresholds in the scores' dtype, with its warning for no positive."""
    precision, recall, thr = pr_points(thr, tps, fps, drop_intermediate)
    if tps[-1] == 0:
        warnings.warn("No positive class found in y_true, recall is set to one for all "
                      "thresholds.", UndefinedMetricWarning, stacklevel=4)
    return precision, recall, thr.astype(dtype, copy=False)


def average_precision_score(y_true, y_score, *, average="macro", pos_label=1,
                            sample_weight=None):
    """Average precision: the precision-recall curve's step integral,
    ``AP = sum_i (R_i - R_{i+1}) P_i``, as ``sklearn.metrics.average_precision_score``;
    binary, multilabel or multiclass.

    Binary labels: scikit-learn's binary path, which ignores ``average``; the float is
    scikit-learn's float (the same curve and the same sum). Tied scores are one
    threshold: their samples enter the precision together. With no positive sample the
    score is 0 (and a warning, as scikit-learn).

    A multilabel indicator matrix ``y_true`` of shape (n, k): column ``j`` of ``y_true``
    and of ``y_score`` is one binary problem (positives: its 1s), combined by
    ``average``. Multiclass labels (more than two, with scores of shape (n, k)): each
    class against the rest, as scikit-learn's ``label_binarize`` of the labels present,
    then the same averages. A column (``"samples"``: a row) with no positive has average
    precision 0, with one `UndefinedMetricWarning` naming them, as scikit-learn.

    Runtime complexity: ``O(n log n)``, as `roc_curve`. Multilabel and multiclass, ``k``
    columns: ``O(k n log n)``, the binary curve once per column (``"micro"``: once over
    the ``n k`` cells; ``"samples"``: one argsort along the rows, ``O(n k log k)``, no
    Python loop over rows).

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, k)
        Binary labels; multiclass labels (more than two: integers, strings or other
        labels that order); or a multilabel indicator matrix of ``k >= 2`` columns, values
        0 and 1 (or bools). Other values, such as {-1, 1} or {0, 2} in a matrix, raise a
        `ValueError` naming ``y_true``.
    y_score : array-like of shape (n,), (n, 1) or (n, k)
        Finite scores. Multilabel: the shape of ``y_true``. Multiclass: one column per
        class, the classes of ``y_true`` sorted (any scale; rows need not sum to 1).
    average : {"micro", "macro", "samples", "weighted"} or None, default "macro"
        Ignored for binary labels, as scikit-learn. Multilabel and multiclass: ``None``
        the ``k`` columns' average precisions, ``"macro"`` their mean, ``"weighted"``
        their mean weighted by each column's positives (weighted by ``sample_weight``;
        0 when there is no positive at all), ``"micro"`` the average precision of the
        ``n k`` cells as one binary problem, ``"samples"`` the mean of each row's (its
        ``k`` cells; weighted by ``sample_weight``).
    pos_label : label, default 1
        The positive class; it must be one of the labels when there are two (strings
        need it given). Multilabel and multiclass: 1 only (the positive indicator), as
        scikit-learn.
    sample_weight : array-like of shape (n,), optional
        Nonnegative weights, one per row.

    Returns
    -------
    float, or ndarray of shape (k,) for ``average=None`` (multilabel, multiclass)

    Examples
    --------
    >>> from streamrank import average_precision_score
    >>> average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333333333333333
    >>> average_precision_score(["a", "a", "b", "b"], [0.1, 0.4, 0.35, 0.8], pos_label="b")
    0.8333333333333333

    Multilabel, an indicator matrix and a score per label; multiclass, a column per class:

    >>> Y = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]]
    >>> S = [[0.9, 0.2, 0.6], [0.7, 0.8, 0.6], [0.6, 0.4, 0.1], [0.2, 0.7, 0.7]]
    >>> average_precision_score(Y, S, average=None).tolist()
    [0.8333333333333333, 0.8333333333333333, 1.0]
    >>> average_precision_score(Y, S, average="samples")
    0.8333333333333333
    >>> average_precision_score(["a", "b", "c", "a"], S)  # classes a, b, c
    0.6666666666666666
    """
    func = "average_precision_score"
    if average is not None and not (isinstance(average, str) and average in _AVERAGES):
        raise param_error("average", func, f"one of {_AVERAGES} or None", describe(average))
    if pos_label is None:
        raise param_error("pos_label", func, "a class label (scikit-learn's default is 1)",
                          "None")
    if is_indicator(y_true):
        _check_fixed_pos_label(pos_label, "a multilabel indicator y_true",
                               "its positives are its 1s", func)
        Y, S, w = indicator_inputs(y_true, y_score, sample_weight, func)
        return average_binary_score(_AP, Y, S, w, average)
    if _is_matrix(y_score) and _more_than_two_labels(y_true, func):
        # Imported here, not at the top: `_multiclass` imports this module.
        from ._multiclass import class_indicator
        _check_fixed_pos_label(pos_label, "multiclass y_true",
                               "each class is the positive of its column", func)
        Y, S, w = class_indicator(y_true, y_score, sample_weight, func)
        return average_binary_score(_AP, Y, S, w, average)
    pos, s, w, dtype = _curve_inputs(y_true, y_score, pos_label, sample_weight, func)
    precision, recall, _ = _pr_from_counts(*_threshold_counts(pos, s, w), dtype, False)
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


def _check_fixed_pos_label(pos_label, kind: str, reason: str, func: str) -> None:
    """scikit-learn's rule: ``pos_label`` is 1 for multilabel and multiclass labels."""
    if not is_one(pos_label):
        raise param_error("pos_label", func, f"1 with {kind} ({reason}, as in "
                          "scikit-learn)", describe(pos_label))


def _is_matrix(y_score) -> bool:
    try:
        return np.ndim(y_score) == 2
    except ValueError:                       # ragged rows: the binary checks say so
        return False


def _more_than_two_labels(y_true, func: str) -> bool:
    """Whether the 1-D labels hold more than two distinct values (scikit-learn's
    'multiclass' for average precision). ``O(n)``."""
    y = _label_values(y_true, "y_true", func)
    rest = y[_ne(y, y[0])]
    return bool(rest.size and _ne(rest, rest[0]).any())


def _column_ap(pos: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> float:
    """Average precision of one binary problem with a positive (of positive weight):
    the binary path's curve and sum, without its warning."""
    thr, tps, fps = _threshold_counts(pos, s, w)
    precision, recall, _ = pr_points(thr, tps, fps, False)
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


def _no_positive(Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The columns of ``Y`` without a positive (of positive weight)."""
    if w is not None:
        Y = Y[w > 0]
    return np.asarray(~Y.any(axis=0))


#: Average precision as the multilabel averages read it (`average_binary_score`).
_AP = BinaryMetric("Average precision", _column_ap, row_average_precision, _no_positive,
                   0.0, "no positive sample, the recall set to one")


def _check_bool(value, name: str, func: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise param_error(name, func, "a bool", describe(value), TypeError)
