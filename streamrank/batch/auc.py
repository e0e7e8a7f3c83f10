"""ROC AUC with ties (and McClish partial AUC), and group AUC (GAUC)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._typing import Number
from ._groups import factorize_groups
from ._kernels import count_pairs, exclusive_cumsum_in_groups, scale_weights
from ._multiclass import check_multiclass_options, is_multiclass, multiclass_roc_auc
from ._multilabel import (BinaryMetric, average_binary_score, indicator_inputs, is_indicator,
                          is_one, row_auc, row_partial_auc)
from ..counts import quiet_metric
from .._validation import (as_1d_numeric, as_score_column, check_binary_labels,
                           check_consistent_length, check_weights, describe, param_error)
from ..exceptions import UndefinedMetricWarning

__all__ = ["GroupAUCResult", "group_auc_score", "roc_auc_score"]

_WEIGHTINGS = ("impressions", "pairs", "uniform")
_Weighting = Literal["impressions", "pairs", "uniform"]


@overload
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *,
                  sample_weight: ArrayLike | None = ..., max_fpr: float | None = ...,
                  pos_label: Number | None = ...,
                  average: Literal["macro", "weighted", "micro", "samples"] = ...,
                  multi_class: Literal["raise", "ovr", "ovo"] = ...,
                  labels: ArrayLike | None = ...) -> float: ...
@overload
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *,
                  sample_weight: ArrayLike | None = ..., max_fpr: float | None = ...,
                  pos_label: Number | None = ..., average: None,
                  multi_class: Literal["raise", "ovr", "ovo"] = ...,
                  labels: ArrayLike | None = ...) -> float | NDArray[np.float64]: ...
def roc_auc_score(y_true: ArrayLike, y_score: ArrayLike, *,
                  sample_weight: ArrayLike | None = None, max_fpr: float | None = None,
                  pos_label: Number | None = None,
                  average: Literal["macro", "weighted", "micro", "samples"] | None = "macro",
                  multi_class: Literal["raise", "ovr", "ovo"] = "raise",
                  labels: ArrayLike | None = None) -> float | NDArray[np.float64]:
    """Area under the ROC curve, ties in score counted as one half; binary, multiclass or
    multilabel.

    ``AUC = (C + T / 2) / P``: the probability that a random positive scores above a random
    negative, a tie counting 1/2 (the Mann-Whitney U statistic over ``n+ n-``). Equal to
    ``sklearn.metrics.roc_auc_score`` (also with ``sample_weight`` and ``max_fpr``).

    Multiclass labels (more than two), or scores of more than two columns, take
    scikit-learn's multiclass path, which needs ``multi_class``: ``"ovr"`` averages the
    AUC of each class against the rest (its column of ``y_score``), ``"ovo"`` that of
    each pair of classes present, on the pair's rows, both ways (Hand and Till, 2001).
    Each AUC is computed as scikit-learn computes it (its ROC curve and the trapezoids),
    so the floats are its floats; its checks and errors are kept (in this package's
    message format).

    A multilabel indicator matrix ``y_true`` of shape (n, k) takes scikit-learn's
    multilabel path: column ``j`` of ``y_true`` and of ``y_score`` is one binary problem,
    its AUC from the exact pair counts (Python ints with unit weights), and ``average``
    says how the ``k`` problems combine. A column (or, for ``"samples"``, a row) holding
    one class only has AUC ``nan``, with one `UndefinedMetricWarning` naming them, as
    scikit-learn.

    Runtime complexity: ``O(n log n)``: two ``np.sort`` of the classes' scores and one merge,
    cheaper than a single ``np.argsort`` of the scores (``max_fpr`` costs one argsort).
    Multiclass, ``k`` classes: one sort per column, in pieces (``ovr``: the class and the
    rest; ``ovo``: the rows of each class), then one merge per AUC, ``O(k n log n + k^2 n)``
    for ``ovo``. Multilabel, ``k`` labels: ``O(k n log n)``, the binary count once per
    column (``"micro"``: once over the ``n k`` cells; ``"samples"``: one argsort along
    the rows, ``O(n k log k)``, no Python loop over rows).

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, k)
        Binary class labels of any type: bools, numbers, strings or other hashable
        objects (two distinct values; one only gives ``nan``). Multiclass: more than two
        labels. Multilabel: an indicator matrix of ``k >= 2`` columns, values 0 and 1
        (or bools), 1 marking the positives of each column (``ValueError`` naming
        ``y_true`` for other values).
    y_score : array-like of shape (n,), (n, 1) or (n, k)
        Scores, finite, any scale; higher means "more likely positive". As in scikit-learn,
        a 2-D array of two columns (a whole ``predict_proba``) is refused with binary
        labels: pass the positive class's column. Multiclass: the probabilities of the
        ``k`` classes (rows summing to 1), columns in the order of ``labels`` (by default
        the sorted labels of ``y_true``). A scikit-learn scorer,
        ``make_scorer(roc_auc_score, response_method="predict_proba")``, passes that
        column, also for string classes. Multilabel: the shape of ``y_true``, one score
        per label (any scale, as for binary labels).
    sample_weight : array-like of shape (n,), optional
        Nonnegative weights; a pair counts ``w_i * w_j``. Multilabel: a row's weight
        weights it in each column (and its cells for ``"micro"``, the row itself for
        ``"samples"``).
    max_fpr : float in (0, 1], optional
        Return the McClish-standardised partial AUC over ``FPR <= max_fpr``, as scikit-learn;
        multilabel: of each column (of the cells for ``"micro"``, of each row for
        ``"samples"``). Not with multiclass labels.
    pos_label : label, optional
        The positive class. By default the greater of the two labels, scikit-learn's rule
        (``True``; ``1`` of {0, 1} or {-1, 1}; ``"yes"`` of {"no", "yes"}); labels that do
        not order, such as ``1`` and ``"a"``, need it (`ValueError` otherwise). Binary
        labels only (multilabel: None or 1, the positive indicator).
    average : {"macro", "weighted", "micro", "samples"} or None, default "macro"
        Ignored for binary labels, as in scikit-learn. Multiclass: the mean of the
        per-class (``ovr``) or per-pair (``ovo``) AUCs, ``"weighted"`` by class support
        (``ovr``, with ``sample_weight``) or pair prevalence (``ovo``); ``None`` the
        per-class AUCs (``ovr`` only); ``"micro"`` (``ovr`` only) the AUC of every
        (row, class) cell as one binary problem; ``"samples"`` is refused. Multilabel,
        every option: ``None`` the ``k`` columns' AUCs, ``"macro"`` their mean,
        ``"weighted"`` their mean weighted by each column's positives (weighted by
        ``sample_weight``; 0 when there is no positive at all), ``"micro"`` the AUC of
        the ``n k`` cells as one binary problem, ``"samples"`` the mean of each row's
        AUC (its ``k`` cells; weighted by ``sample_weight``).
    multi_class : {"raise", "ovr", "ovo"}, default "raise"
        The multiclass scheme; ``"raise"`` refuses multiclass input (scikit-learn's
        default). ``"ovo"`` takes no ``sample_weight``, no ``max_fpr``. Ignored for
        binary and multilabel ``y_true``.
    labels : array-like of shape (k,), optional
        Multiclass only: the classes of the columns of ``y_score``, unique and sorted,
        holding every label of ``y_true``.

    Returns
    -------
    float, or ndarray of shape (k,) for ``average=None``
        ``nan`` with an `UndefinedMetricWarning` when only one class is present.

    Examples
    --------
    >>> from streamrank import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 1], [0.5, 0.5])  # a tie counts one half
    0.5
    >>> roc_auc_score(["no", "no", "yes", "yes"], [0.1, 0.4, 0.35, 0.8])  # "yes" > "no"
    0.75
    >>> roc_auc_score(["no", "no", "yes", "yes"], [0.1, 0.4, 0.35, 0.8], pos_label="no")
    0.25
    >>> y = ["a", "b", "c", "b", "a"]
    >>> proba = [[0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5], [0.4, 0.35, 0.25],
    ...          [0.3, 0.3, 0.4]]
    >>> roc_auc_score(y, proba, multi_class="ovr")  # the mean of the classes' AUCs
    0.9166666666666666
    >>> roc_auc_score(y, proba, multi_class="ovr", average=None).tolist()
    [0.75, 1.0, 1.0]
    >>> roc_auc_score(y, proba, multi_class="ovo", average="weighted")
    0.925

    Multilabel, an indicator matrix and a score per label:

    >>> Y = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]]
    >>> S = [[0.9, 0.2, 0.6], [0.7, 0.8, 0.6], [0.6, 0.4, 0.1], [0.2, 0.7, 0.7]]
    >>> roc_auc_score(Y, S, average=None).tolist()
    [0.75, 0.75, 1.0]
    >>> roc_auc_score(Y, S), roc_auc_score(Y, S, average="samples")  # columns; rows
    (0.8333333333333334, 0.8125)
    """
    func = "roc_auc_score"
    check_multiclass_options(average, multi_class, max_fpr, func)
    if is_indicator(y_true):
        Y, S, w = indicator_inputs(y_true, y_score, sample_weight, func)
        if pos_label is not None and not is_one(pos_label):
            raise param_error("pos_label", func, "None or 1 with a multilabel indicator "
                              "y_true (its positives are its 1s)", describe(pos_label))
        _check_max_fpr(max_fpr, func)
        return average_binary_score(_roc_metric(max_fpr), Y, S, w, average)
    if is_multiclass(y_true, y_score, func):
        return multiclass_roc_auc(y_true, y_score, sample_weight, max_fpr, pos_label,
                                  average, multi_class, labels)
    pos = check_binary_labels(y_true, pos_label, func)
    s = as_score_column(y_score, "y_score", func)
    n = check_consistent_length(func, y_true=pos, y_score=s)
    w = scale_weights(check_weights(sample_weight, n, func))[0]
    _check_max_fpr(max_fpr, func)
    if max_fpr is not None and max_fpr != 1:
        return _partial_auc(pos, s, w, float(max_fpr))
    return count_pairs(pos, s, w).auc


def _check_max_fpr(max_fpr, func: str) -> None:
    if max_fpr is not None and not (
        isinstance(max_fpr, (int, float, np.floating)) and 0 < max_fpr <= 1
    ):
        raise param_error("max_fpr", func, "a float in the range (0, 1]", describe(max_fpr))


def _one_class(Y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """The columns of ``Y`` holding one class only (among the rows of positive weight)."""
    if w is not None:
        Y = Y[w > 0]
    return np.asarray(Y.all(axis=0) | ~Y.any(axis=0))


def _roc_metric(max_fpr) -> BinaryMetric:
    """ROC AUC (or the partial AUC up to ``max_fpr``) as `average_binary_score` reads it:
    of one column, the binary path's kernels (`count_pairs`, `_partial_auc`)."""
    full = max_fpr is None or max_fpr == 1

    def column(pos, s, w):
        w = scale_weights(w)[0]
        if full:
            return quiet_metric(count_pairs(pos, s, w), "auc")
        return _partial_auc(pos, s, w, float(max_fpr))

    def rows(Y, S):
        return row_auc(Y, S) if full else row_partial_auc(Y, S, float(max_fpr))

    return BinaryMetric("ROC AUC", column, rows, _one_class, math.nan,
                        "only one class is present")


def _partial_auc(pos, s, w, max_fpr) -> float:
    """McClish-standardised partial AUC over ``FPR <= max_fpr`` (scikit-learn's definition)."""
    order = np.argsort(s)[::-1]
    s_desc, pos_desc = s[order], pos[order]
    w_desc = np.ones(s.size) if w is None else w[order]
    # Threshold ends: the last index of each distinct score (descending).
    ends = np.flatnonzero(np.diff(s_desc) != 0)
    ends = np.append(ends, s.size - 1)
    tps = np.cumsum(w_desc * pos_desc)[ends]
    fps = np.cumsum(w_desc * ~pos_desc)[ends]
    if tps[-1] <= 0 or fps[-1] <= 0:
        warnings.warn("Only one class is present in y_true: ROC AUC is undefined; "
                      "returning nan.", UndefinedMetricWarning, stacklevel=3)
        return math.nan
    fpr = np.concatenate(([0.0], fps / fps[-1]))
    tpr = np.concatenate(([0.0], tps / tps[-1]))
    stop = np.searchsorted(fpr, max_fpr, side="right")
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    partial = float(np.trapezoid(tpr, fpr)) if hasattr(np, "trapezoid") else float(np.trapz(tpr, fpr))
    # McClish (1989): map [min_area, max_area] onto [0.5, 1].
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))


@dataclass(frozen=True)
class GroupAUCResult:
    """Group AUC with its parts.

    Attributes
    ----------
    score : float
        The weighted mean of the per-group AUCs (``nan`` if no group has both classes).
    n_groups : int
        Number of groups evaluated (with both classes).
    n_skipped : int
        Groups left out because their AUC is undefined (one class only).
    groups : ndarray
        The ids of the evaluated groups, sorted (in order of first appearance when they
        do not compare, such as ``1`` and ``"a"``); each group by its first id seen.
    group_scores, group_weights : ndarray
        Each evaluated group's AUC and weight.
    """

    score: float
    n_groups: int
    n_skipped: int
    groups: np.ndarray
    group_scores: np.ndarray
    group_weights: np.ndarray


@overload
def group_auc_score(y_true: ArrayLike, y_score: ArrayLike,
                    groups: ArrayLike | Sequence[object], *,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: Literal[False] = ..., pos_label: Number | None = ...) -> float: ...
@overload
def group_auc_score(y_true: ArrayLike, y_score: ArrayLike,
                    groups: ArrayLike | Sequence[object], *,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: Literal[True], pos_label: Number | None = ...) -> GroupAUCResult: ...
@overload
def group_auc_score(y_true: ArrayLike, y_score: ArrayLike,
                    groups: ArrayLike | Sequence[object], *,
                    weighting: _Weighting = ..., sample_weight: ArrayLike | None = ...,
                    return_details: bool = ..., pos_label: Number | None = ...) -> float | GroupAUCResult: ...
def group_auc_score(y_true: ArrayLike, y_score: ArrayLike,
                    groups: ArrayLike | Sequence[object], *,
                    weighting: _Weighting = "impressions",
                    sample_weight: ArrayLike | None = None,
                    return_details: bool = False,
                    pos_label: Number | None = None) -> float | GroupAUCResult:
    """Group AUC (GAUC): the AUC within each group, averaged over groups with both classes.

    ``GAUC = sum_g v_g AUC_g / sum_g v_g`` over the groups (users, queries, sessions) that
    contain both a positive and a negative; ties in score count one half within a group.
    The group weight ``v_g`` is, by ``weighting``:

    * ``"impressions"``: the group's number of samples (sum of ``sample_weight``), the
      usual definition in recommendation and advertising;
    * ``"pairs"``: its positive-negative pairs ``n+ n-`` (weighted), which makes GAUC the
      share of within-group pairs ordered correctly;
    * ``"uniform"``: 1 per group.

    Groups with one class only are skipped and counted in ``n_skipped``.

    Runtime complexity: ``O(n log n)``: one lexicographic sort by (group, score) and
    segment sums; no Python loop over groups (ids given as a list or an object array are
    first looked up one by one in a dict, ``O(n)``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary class labels of any type, as in `roc_auc_score`.
    y_score : array-like of shape (n,)
        Finite scores.
    groups : array-like of shape (n,)
        Group ids, compared as ``dict`` keys are (by Python equality and hash, the rule
        of `streamrank.metrics.GroupAUC` too): ``1``, ``1.0`` and ``True`` are one group,
        ``1`` and ``"1"`` two. Any hashable value except ``None``, ``nan``, ``inf`` and
        ``NaT`` (`ValueError`). A list, tuple or object array is read element by element
        (numpy would turn ``[1, "1"]`` into two equal strings); a numpy array or Series of
        one numeric, string or datetime dtype with numpy, by the same rule.
    weighting : {"impressions", "pairs", "uniform"}
    sample_weight : array-like of shape (n,), optional
    return_details : bool
        Return a `GroupAUCResult` instead of the score.
    pos_label : label, optional
        The positive class; by default the greater of the two labels, as in
        `roc_auc_score`.

    Examples
    --------
    >>> from streamrank import group_auc_score
    >>> y = [1, 0, 1, 0, 0, 1, 1]
    >>> s = [0.9, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6]
    >>> g = ["u1", "u1", "u2", "u2", "u2", "u3", "u3"]
    >>> group_auc_score(y, s, g)  # u1: 1.0 (2 impressions), u2: 0.0 (3), u3 skipped
    0.4
    >>> r = group_auc_score(y, s, g, weighting="uniform", return_details=True)
    >>> r.score, r.n_groups, r.n_skipped, r.groups.tolist()
    (0.5, 2, 1, ['u1', 'u2'])
    """
    func = "group_auc_score"
    pos = check_binary_labels(y_true, pos_label, func)
    s = as_1d_numeric(y_score, "y_score", func)
    n = check_consistent_length(func, y_true=pos, y_score=s)
    w, e = scale_weights(check_weights(sample_weight, n, func))
    if weighting not in _WEIGHTINGS:
        raise param_error("weighting", func, f"one of {_WEIGHTINGS}", describe(weighting))
    group_ids, gcode = factorize_groups(groups, func)
    check_consistent_length(func, y_true=pos, groups=gcode)
    n_groups = group_ids.size
    # Order by (group, score): one argsort by score, then a stable sort by group code, an
    # O(n) radix sort when the codes fit 16 bits (np.lexsort is several times slower).
    order = np.argsort(s)
    small = np.uint16 if n_groups <= 1 << 16 else np.int64
    order = order[np.argsort(gcode[order].astype(small), kind="stable")]
    gs, ss, ps = gcode[order], s[order], pos[order]
    # Runs of equal (group, score): within a group, a negative's discordant positives are
    # those in earlier runs, its tied positives those in its own run.
    new_run = np.ones(gs.size, dtype=bool)
    new_run[1:] = (gs[1:] != gs[:-1]) | (ss[1:] != ss[:-1])
    run_starts = np.flatnonzero(new_run)
    run_group = gs[run_starts]
    if w is None:
        wpos = ps.astype(np.int64)
        wneg = 1 - wpos
    else:
        wv = w[order]
        wpos, wneg = wv * ps, wv * ~ps
    run_pos = np.add.reduceat(wpos, run_starts)
    run_neg = np.add.reduceat(wneg, run_starts)
    # Positive weight in earlier runs (lower scores) of the same group.
    group_first_run = np.flatnonzero(np.r_[True, run_group[1:] != run_group[:-1]])
    pos_below = exclusive_cumsum_in_groups(run_pos, group_first_run)
    disc_run = run_neg * pos_below
    tied_run = run_neg * run_pos
    D = np.add.reduceat(disc_run, group_first_run)
    T = np.add.reduceat(tied_run, group_first_run)
    n_pos = np.add.reduceat(run_pos, group_first_run)
    n_neg = np.add.reduceat(run_neg, group_first_run)
    P = n_pos * n_neg
    ok = P > 0
    # AUC_g = (C + T/2) / P = 1 - (D + T/2) / P
    auc = 1.0 - (D[ok] + 0.5 * T[ok]) / P[ok]
    if weighting == "impressions":
        vg = (n_pos + n_neg)[ok]
    elif weighting == "pairs":
        vg = P[ok]
    else:
        vg = np.ones(int(ok.sum()))
    vg = vg.astype(np.float64)
    if not ok.any() or vg.sum() == 0:
        warnings.warn("Group AUC is undefined: no group contains both classes; returning nan.",
                      UndefinedMetricWarning, stacklevel=2)
        score = math.nan
    else:
        score = float(np.dot(vg, auc) / vg.sum())
        score = min(1.0, max(0.0, score))
    if not return_details:
        return score
    if e and weighting != "uniform":   # report the group weights in the caller's scale
        with np.errstate(over="ignore"):
            vg = np.ldexp(vg, e if weighting == "impressions" else 2 * e)
    return GroupAUCResult(score, int(ok.sum()), int(n_groups - ok.sum()),
                          group_ids[run_group[group_first_run][ok]], auc, vg)
