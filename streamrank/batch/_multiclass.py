"""Multiclass ROC AUC, one-vs-rest and one-vs-one, as scikit-learn's ``roc_auc_score``.

`streamrank.batch.roc_auc_score` sends here multiclass labels (more than two) and scores of
more than two columns. Each binary AUC is computed as scikit-learn's
``_binary_roc_auc_score`` computes it, its ROC curve then the trapezoids
(`curves.binary_curve_auc`), and averaged as its ``_average_binary_score`` (``ovr``) and
``_average_multiclass_ovo_score`` (``ovo``) average them, so that the floats are its floats.
scikit-learn's checks come in its order, with this package's message format.

Multiclass average precision (`curves.average_precision_score`) takes its labels from here
as an indicator matrix (`class_indicator`), then averages as the multilabel path
(`_multilabel`).

Sorting: ``ovr`` sorts each column once, in two pieces (the class, the rest); ``ovo``
groups the rows by class once (a stable sort of small codes) and sorts each column once,
in one piece per class, then merges the two sorted pieces of each pair, ``O(n)`` per pair.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import numpy as np

from ._kernels import encode_labels
from ._multilabel import finite_matrix, score_matrix
from .curves import binary_curve_auc, sorted_pair_auc
from ..exceptions import UndefinedMetricWarning
from .._validation import (_label_values, _ne, check_consistent_length, check_weights,
                           describe, param_error)

__all__ = ["check_multiclass_options", "class_indicator", "is_multiclass",
           "multiclass_roc_auc"]

_AVERAGES = ("micro", "macro", "samples", "weighted")
_SCHEMES = ("raise", "ovr", "ovo")


def check_multiclass_options(average, multi_class, max_fpr, func: str) -> None:
    """The options' domains, checked whatever the labels (scikit-learn's parameter
    validation): ``average`` among its names or None, ``multi_class`` a scheme."""
    if average is not None and not (isinstance(average, str) and average in _AVERAGES):
        raise param_error("average", func, f"one of {_AVERAGES} or None", describe(average))
    if not (isinstance(multi_class, str) and multi_class in _SCHEMES):
        raise param_error("multi_class", func, f"one of {_SCHEMES}", describe(multi_class))


def is_multiclass(y_true, y_score, func: str) -> bool:
    """Whether scikit-learn's multiclass path applies: more than two distinct labels, or
    scores of more than two columns. ``O(n)``."""
    try:
        shape = np.shape(y_score)
    except ValueError:                       # ragged rows: the score checks say so
        shape = ()
    if len(shape) == 2 and shape[1] > 2:
        return True
    y = _label_values(y_true, "y_true", func)
    rest = y[_ne(y, y[0])]
    return bool(rest.size and _ne(rest, rest[0]).any())


def _score_matrix(y_score, func: str) -> np.ndarray:
    """``y_score`` as a 2-D float64 array of finite numbers whose rows sum to 1
    (``np.allclose``, scikit-learn's test)."""
    try:
        arr = np.asarray(y_score)
    except ValueError:
        raise param_error("y_score", func, "a 2-D array of scores",
                          f"rows of different lengths in {describe(y_score)}") from None
    if arr.ndim != 2:
        raise param_error("y_score", func, "of shape (n_samples, n_classes) with multiclass "
                          "labels (the probability of each class)",
                          f"an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise param_error("y_score", func, "numeric (bool, int or float)",
                              f"dtype {arr.dtype}", TypeError) from None
    arr = finite_matrix(arr, func)
    sums = arr.sum(axis=1)
    if not np.allclose(1, sums):
        r = int(np.flatnonzero(~np.isclose(1, sums))[0])
        raise param_error("y_score", func, "probabilities with multiclass labels: each row "
                          "summing to 1 over the classes",
                          f"row {r} summing to {float(sums[r])!r}")
    return arr


def _classes(y: np.ndarray, labels, n_columns: int, func: str,
             hint: str = " (or pass labels)"):
    """``(codes, n_classes)``: each row's class index (into ``labels``, or the sorted
    labels of ``y``), checked as scikit-learn checks them. ``O(n)`` for up to 255 classes
    of numbers or strings (`encode_labels`), else a sort or a dict lookup per row.
    ``hint`` ends the message of a wrong number of columns."""
    if labels is None:
        enc = encode_labels(y, 255) if y.dtype.kind in "iufUS" else None
        if enc is not None:
            codes, levels = enc
            classes = levels.tolist()
        else:
            classes = _sorted_unique(y, "y_true", func)
            codes = None
        if len(classes) != n_columns:
            raise param_error("y_score", func, f"of {len(classes)} columns, one per class "
                              f"in y_true{hint}", f"{n_columns} columns")
        if codes is not None:
            return codes.astype(np.intp), len(classes)
    else:
        given = _label_values(labels, "labels", func)
        classes = _sorted_unique(given, "labels", func)
        if len(classes) != len(given):
            raise param_error("labels", func, "unique", describe(given.tolist()))
        if classes != given.tolist():
            raise param_error("labels", func, "ordered (sorted ascending)",
                              describe(given.tolist()))
        if len(classes) != n_columns:
            raise param_error("labels", func, f"of length {n_columns}, the columns of "
                              "y_score", f"{len(classes)} labels")
    table = np.asarray(classes) if y.dtype != object else None
    if table is not None and table.dtype.kind in "biufUS" and \
            (table.dtype.kind in "US") == (y.dtype.kind in "US"):
        codes = np.searchsorted(table, y)          # sorted classes: a binary search per row
        np.minimum(codes, table.size - 1, out=codes)
        missing = table[codes] != y
        if missing.any():
            raise param_error("labels", func, "a list holding every label of y_true",
                              f"{describe(classes)} (no {y[missing][0].item()!r})")
        return codes, len(classes)
    index = {c: i for i, c in enumerate(classes)}
    codes = np.empty(y.size, dtype=np.intp)
    for i, v in enumerate(y.tolist()):
        c = index.get(v)
        if c is None:
            raise param_error("labels", func, "a list holding every label of y_true",
                              f"{describe(classes)} (no {v!r})")
        codes[i] = c
    return codes, len(classes)


def _sorted_unique(y: np.ndarray, name: str, func: str) -> list:
    if y.dtype != object:
        return np.unique(y).tolist()
    try:
        return sorted(set(y.tolist()))
    except TypeError:
        raise param_error(name, func, "labels that order (multiclass: the columns of "
                          "y_score follow the sorted labels)",
                          describe(sorted(set(y.tolist()), key=repr)[:5])) from None


def class_indicator(y_true, y_score, sample_weight, func: str):
    """Multiclass labels as scikit-learn's average precision reads them (its
    ``label_binarize`` over the labels present): ``(Y, S, w)``, the (n, k) bool matrix of
    "row i is of class j" (the classes sorted), the scores checked of shape (n, k) (any
    finite numbers) and the weights (None, or float64 with one positive). ``O(n k)``."""
    y = _label_values(y_true, "y_true", func)
    n_columns = np.shape(y_score)[1]
    check_consistent_length(func, y_true=y, y_score=range(np.shape(y_score)[0]))
    codes, k = _classes(y, None, n_columns, func, "")
    S = score_matrix(y_score, (y.size, k), func, "one column per class of y_true, the "
                     "classes sorted")
    w = check_weights(sample_weight, y.size, func)
    if w is not None and not w.any():
        raise param_error("sample_weight", func, "positive for at least one sample",
                          "only zero weights")
    return codes[:, None] == np.arange(k), S, w


def multiclass_roc_auc(y_true, y_score, sample_weight, max_fpr, pos_label, average,
                       multi_class, labels):
    """scikit-learn's multiclass ``roc_auc_score`` (module docstring): a float, or the
    per-class AUCs for ``average=None``."""
    func = "roc_auc_score"
    y = _label_values(y_true, "y_true", func)
    if np.ndim(y_score) == 2:                # rows first: one row of scores per label
        check_consistent_length(func, y_true=y, y_score=range(np.shape(y_score)[0]))
    if max_fpr is not None and max_fpr != 1:
        raise param_error("max_fpr", func, "None or 1 with multiclass labels (no partial "
                          "AUC, as in scikit-learn)", describe(max_fpr))
    if multi_class == "raise":
        if np.ndim(y_score) != 2:            # 1-D scores: the labels were meant binary
            shown = _sorted_unique(y, "y_true", func)[:5]
            raise param_error("y_true", func, "binary (two distinct values) with 1-D "
                              "scores; multiclass labels need scores of one column per "
                              "class and multi_class='ovr' or 'ovo'",
                              f"more than two distinct values: {describe(shown)}")
        raise param_error("multi_class", func, "'ovr' or 'ovo' with multiclass labels or "
                          "scores of more than two columns (scikit-learn's default "
                          "'raise' refuses them)", "'raise'")
    if pos_label is not None:
        raise param_error("pos_label", func, "None with multiclass labels",
                          describe(pos_label))
    P = _score_matrix(y_score, func)
    n = check_consistent_length(func, y_true=y, y_score=P)
    w = check_weights(sample_weight, n, func)
    options = ("macro", "weighted", None) if multi_class == "ovo" else \
        ("micro", "macro", "weighted", None)
    if average not in options:
        raise param_error("average", func, f"one of {options} with multi_class="
                          f"{multi_class!r}", describe(average))
    if average is None and multi_class == "ovo":
        raise param_error("average", func, "'macro' or 'weighted' with multi_class='ovo'",
                          "None", NotImplementedError)
    codes, k = _classes(y, labels, P.shape[1], func)
    if multi_class == "ovo":
        if w is not None:
            raise param_error("sample_weight", func, "None with multi_class='ovo' (as in "
                              "scikit-learn)", describe(sample_weight))
        return _ovo(codes, k, P, average)
    if w is not None and not w.any():
        raise param_error("sample_weight", func, "positive for at least one sample",
                          "only zero weights")
    return _ovr(codes, k, P, w, average)


def _ovr(codes, k, P, w, average):
    """One-vs-rest: each class's column, the class against the rest."""
    if average == "micro":
        pos = (codes[:, None] == np.arange(k)).ravel()
        return binary_curve_auc(pos, P.ravel(), None if w is None else np.repeat(w, k))
    score = np.array([binary_curve_auc(codes == c, P[:, c], w) for c in range(k)])
    if average is None:
        return score
    if average == "macro":
        return float(np.average(score))
    if w is None:
        support = np.bincount(codes, minlength=k)
    else:                                    # scikit-learn's sum, in its order
        support = np.sum((codes[:, None] == np.arange(k)).astype(np.float64) * w[:, None],
                         axis=0)
    if np.isclose(np.sum(support), 0):
        return 0.0
    score[support == 0] = 0
    return float(np.average(score, weights=support))


def _ovo(codes, k, P, average):
    """One-vs-one over the pairs of classes present: the rows grouped by class once, each
    column sorted once per class, each pair's AUC from two sorted pieces."""
    n = codes.size
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=k)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    grouped = P[order]
    present = np.flatnonzero(counts)
    sorted_piece = {}

    def piece(c, j):                         # column j of class c's rows, sorted
        key = (c, j)
        if key not in sorted_piece:
            sorted_piece[key] = np.sort(grouped[bounds[c]:bounds[c + 1], j])
        return sorted_piece[key]

    pairs = list(combinations(present.tolist(), 2))
    if not pairs:        # scikit-learn: nan (macro) or ZeroDivisionError (weighted)
        warnings.warn("Only one class is present in y_true: the one-vs-one ROC AUC is "
                      "undefined; returning nan.", UndefinedMetricWarning, stacklevel=4)
        return math.nan
    pair_scores = np.empty(len(pairs))
    prevalence = np.empty(len(pairs)) if average == "weighted" else None
    for ix, (a, b) in enumerate(pairs):
        if prevalence is not None:
            prevalence[ix] = (counts[a] + counts[b]) / n   # np.average of the pair's mask
        a_score = sorted_pair_auc(piece(a, a), piece(b, a))
        b_score = sorted_pair_auc(piece(b, b), piece(a, b))
        pair_scores[ix] = (a_score + b_score) / 2
    return float(np.average(pair_scores, weights=prevalence))
