"""Multilabel `roc_auc_score` and `average_precision_score`, and multiclass average
precision, against scikit-learn.

* Every ``average`` scikit-learn offers (None, "micro", "macro", "weighted", "samples"),
  with unit, integer and float weights, on seeded random indicator matrices whose scores
  hold many ties (rounded to one decimal), and with ``max_fpr``: equal to 1e-12.
* Unit weights: every AUC is the exact pair count's, to the last bit.
* Undefined columns and rows take scikit-learn's value (ROC AUC ``nan``, average
  precision 0) and warn where it warns.
* Bad input raises an error naming the parameter, what was expected and what came.
"""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction
from functools import partial
from itertools import product

import numpy as np
import pytest
from sklearn.metrics import average_precision_score as sk_ap
from sklearn.metrics import roc_auc_score as sk_roc

import streamrank as sr
from streamrank.exceptions import UndefinedMetricWarning

#: The comparisons record their warnings themselves (`_run`); elsewhere they are noise.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

AVERAGES = [None, "micro", "macro", "weighted", "samples"]
WEIGHTS = ["none", "int", "float"]
SEEDS = range(12)


def _weights(rng, n, kind):
    if kind == "none":
        return None
    w = rng.integers(0, 4, n).astype(float) if kind == "int" else rng.random(n) * 3
    w[0] = max(w[0], 1.0)                            # one weight at least is positive
    return w


def _multilabel(seed, weights="none", n=None, k=None):
    """An indicator matrix (some columns nearly empty or full), scores with heavy ties."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60)) if n is None else n
    k = int(rng.integers(2, 6)) if k is None else k
    Y = (rng.random((n, k)) < rng.uniform(0.05, 0.95, k)).astype(int)
    S = np.round(rng.random((n, k)), 1)
    return Y, S, _weights(rng, n, weights)


def _multiclass(seed, weights="none"):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(8, 60)), int(rng.integers(3, 6))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)                             # every class present
    S = np.round(rng.random((n, k)), 1)
    return y, S, _weights(rng, n, weights)


def _run(call):
    """``(value, warned)``: the result and whether a UserWarning (scikit-learn's and
    streamrank's UndefinedMetricWarning both are) was emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, any(issubclass(w.category, UserWarning) for w in caught)


def _assert_equal(got, expected, tol=1e-12):
    if expected is None or np.ndim(expected) == 0:
        assert isinstance(got, float)
    else:
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, np.asarray(expected, dtype=float), rtol=tol, atol=tol,
                               equal_nan=True)


def _same_as_sklearn(ours, theirs, *args, **kwargs):
    """``ours(*args, **kwargs)`` equals ``theirs(...)``, and warns where it warns."""
    expected, sk_warned = _run(partial(theirs, *args, **kwargs))
    got, warned = _run(partial(ours, *args, **kwargs))
    _assert_equal(got, expected)
    assert warned == sk_warned
    return got


# ------------------------------------------------------------------ against scikit-learn
@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weights", WEIGHTS)
def test_multilabel_roc_auc_equals_sklearn(average, weights):
    for seed in SEEDS:
        Y, S, w = _multilabel(seed, weights)
        _same_as_sklearn(sr.roc_auc_score, sk_roc, Y, S, average=average, sample_weight=w)


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("max_fpr", [0.05, 0.3, 0.75, 1.0])
def test_multilabel_partial_roc_auc_equals_sklearn(average, max_fpr):
    for seed, weights in product(SEEDS, WEIGHTS):
        Y, S, w = _multilabel(seed, weights)
        if w is not None:
            w[w == 0] = 0.5      # scikit-learn fails (2 points needed) on a column whose
                                 # negatives all weigh 0 (streamrank: nan): not compared
        _same_as_sklearn(sr.roc_auc_score, sk_roc, Y, S, average=average, sample_weight=w,
                         max_fpr=max_fpr)


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("weights", WEIGHTS)
def test_multilabel_average_precision_equals_sklearn(average, weights):
    for seed in SEEDS:
        Y, S, w = _multilabel(seed, weights)
        _same_as_sklearn(sr.average_precision_score, sk_ap, Y, S, average=average,
                         sample_weight=w)


@pytest.mark.parametrize("average", AVERAGES)           # scikit-learn takes all five
@pytest.mark.parametrize("weights", WEIGHTS)
def test_multiclass_average_precision_equals_sklearn(average, weights):
    for seed in SEEDS:
        y, S, w = _multiclass(seed, weights)
        _same_as_sklearn(sr.average_precision_score, sk_ap, y, S, average=average,
                         sample_weight=w)


@pytest.mark.parametrize("average", AVERAGES)
def test_multiclass_average_precision_of_string_classes(average):
    y, S, w = _multiclass(3, "float")
    names = np.array(["ant", "bee", "cat", "dog", "eel"])[y]
    assert np.array_equal(np.unique(names), np.sort(np.unique(names)))
    _assert_equal(sr.average_precision_score(names.tolist(), S.tolist(), average=average,
                                             sample_weight=w),
                  sk_ap(names, S, average=average, sample_weight=w))


def test_multiclass_average_precision_is_the_binarized_multilabel_one():
    y, S, w = _multiclass(5, "int")
    Y = (y[:, None] == np.arange(S.shape[1])).astype(int)
    for average in AVERAGES:
        _assert_equal(sr.average_precision_score(y, S, average=average, sample_weight=w),
                      sr.average_precision_score(Y, S, average=average, sample_weight=w),
                      tol=0)


@pytest.mark.parametrize("build", [
    lambda Y: Y.astype(bool), lambda Y: Y.astype(float), lambda Y: Y.astype(np.uint8),
    lambda Y: Y.tolist(), lambda Y: np.asarray(Y, dtype=object),
], ids=["bool", "float", "uint8", "list", "object"])
def test_indicator_matrices_of_any_numeric_kind(build):
    Y, S, w = _multilabel(7, "float")
    for average in AVERAGES:
        _assert_equal(sr.roc_auc_score(build(Y), S.tolist(), average=average,
                                       sample_weight=w),
                      sk_roc(Y, S, average=average, sample_weight=w))
        _assert_equal(sr.average_precision_score(build(Y), S, average=average,
                                                 sample_weight=w),
                      sk_ap(Y, S, average=average, sample_weight=w))


def test_integer_scores_and_larger_matrices():
    rng = np.random.default_rng(42)
    Y = (rng.random((800, 7)) < 0.3).astype(int)
    S = rng.integers(0, 20, (800, 7))
    w = rng.integers(1, 5, 800).astype(float)
    for average, weights in product(AVERAGES, [None, w]):
        _assert_equal(sr.roc_auc_score(Y, S, average=average, sample_weight=weights),
                      sk_roc(Y, S, average=average, sample_weight=weights))
        _assert_equal(sr.average_precision_score(Y, S, average=average,
                                                 sample_weight=weights),
                      sk_ap(Y, S, average=average, sample_weight=weights))


# ------------------------------------------------------------------ exact counts
def _exact_auc(y, s):
    """``(C + T/2) / P`` by the O(n^2) pair loop, in fractions, rounded once."""
    pos, neg = s[y == 1], s[y == 0]
    twice = sum(2 * int(p > q) + int(p == q) for p in pos for q in neg)
    return float(Fraction(twice, 2 * pos.size * neg.size))


@pytest.mark.parametrize("seed", range(20))
def test_unit_weights_give_the_exact_pair_count_auc(seed):
    Y, S, _ = _multilabel(seed)
    Y[:2] = [[0] * Y.shape[1], [1] * Y.shape[1]]        # both classes in every column
    per_column = sr.roc_auc_score(Y, S, average=None)
    assert per_column.tolist() == [_exact_auc(Y[:, c], S[:, c]) for c in range(Y.shape[1])]
    assert sr.roc_auc_score(Y, S, average="micro") == _exact_auc(Y.ravel(), S.ravel())
    for i in range(Y.shape[0]):                          # "samples": a row's own AUC
        if 0 < Y[i].sum() < Y.shape[1]:
            assert sr.roc_auc_score(Y[i:i + 1], S[i:i + 1], average="samples") == \
                _exact_auc(Y[i], S[i])


def test_rows_of_many_labels_with_ties():
    rng = np.random.default_rng(1)
    Y = (rng.random((40, 300)) < 0.4).astype(int)
    S = rng.integers(0, 5, (40, 300))
    _assert_equal(sr.roc_auc_score(Y, S, average="samples"),
                  sk_roc(Y, S, average="samples"))
    _assert_equal(sr.roc_auc_score(Y, S, average="samples", max_fpr=0.2),
                  sk_roc(Y, S, average="samples", max_fpr=0.2))
    _assert_equal(sr.average_precision_score(Y, S, average="samples"),
                  sk_ap(Y, S, average="samples"))


# ------------------------------------------------------------------ undefined columns
Y_ONE_CLASS = np.array([[1, 0, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1], [1, 0, 1, 1]])
S_ONE_CLASS = np.array([[0.9, 0.1, 0.3, 0.5], [0.2, 0.4, 0.8, 0.5], [0.7, 0.3, 0.3, 0.2],
                        [0.4, 0.4, 0.6, 0.9], [0.4, 0.2, 0.1, 0.1]])


@pytest.mark.parametrize("average", AVERAGES)
def test_a_column_of_one_class_follows_sklearn(average):
    # column 1: no positive; column 3: positives only
    got = _same_as_sklearn(sr.roc_auc_score, sk_roc, Y_ONE_CLASS, S_ONE_CLASS, average=average)
    if average is None:
        assert np.isnan(got[[1, 3]]).all() and not np.isnan(got[[0, 2]]).any()
    _same_as_sklearn(sr.average_precision_score, sk_ap, Y_ONE_CLASS, S_ONE_CLASS,
                     average=average)


def test_undefined_columns_warn_once_naming_them():
    with pytest.warns(UndefinedMetricWarning, match=r"ROC AUC is undefined in 2 of the 4 "
                      r"columns of y_true \(columns 1, 3: only one class is present\); it "
                      r"is nan there") as record:
        got = sr.roc_auc_score(Y_ONE_CLASS, S_ONE_CLASS, average=None)
    assert len(record) == 1 and record[0].filename == __file__
    assert math.isnan(got[1]) and math.isnan(got[3])
    with pytest.warns(UndefinedMetricWarning, match=r"Average precision is undefined in 1 "
                      r"of the 4 columns of y_true \(columns 1: no positive sample"):
        got = sr.average_precision_score(Y_ONE_CLASS, S_ONE_CLASS, average=None)
    assert got[1] == 0.0 and got[3] == 1.0               # no positive: 0; all positive: 1
    with pytest.warns(UndefinedMetricWarning, match=r"ROC AUC is undefined in 1 of the 5 "
                      r"rows of y_true \(rows 4: only one class"):
        sr.roc_auc_score(Y_ONE_CLASS[:, [0, 2, 3]], S_ONE_CLASS[:, [0, 2, 3]],
                         average="samples")


def test_a_weighted_average_with_no_positive_is_0_without_warning():
    Y, S = np.zeros((4, 3), dtype=int), np.round(np.random.default_rng(0).random((4, 3)), 1)
    for fn, sk_fn in ((sr.roc_auc_score, sk_roc), (sr.average_precision_score, sk_ap)):
        got, warned = _run(partial(fn, Y, S, average="weighted"))
        expected, sk_warned = _run(partial(sk_fn, Y, S, average="weighted"))
        assert got == expected == 0 and isinstance(got, float)
        assert not warned and not sk_warned


def test_zero_weights_follow_sklearn():
    Y = np.array([[1, 0], [0, 1], [0, 0], [1, 1]])
    S = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.5, 0.1]])
    for w in ([0, 1, 1, 1], [1, 1, 1, 0], [0, 1, 1, 0], [1, 0, 2, 0]):
        for average in AVERAGES:
            _same_as_sklearn(sr.roc_auc_score, sk_roc, Y, S, average=average, sample_weight=w)
            _same_as_sklearn(sr.average_precision_score, sk_ap, Y, S, average=average,
                             sample_weight=w)


# ------------------------------------------------------------------ bad input
Y = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]])
S = np.array([[0.9, 0.2, 0.6], [0.7, 0.8, 0.6], [0.6, 0.4, 0.1], [0.2, 0.7, 0.7]])
BOTH = (sr.roc_auc_score, sr.average_precision_score)


def _message(param, func, expected="", got=""):
    return (rf"The '{param}' parameter of {func} must be .*{expected}.*\. Got .*{got}.* "
            "instead")


@pytest.mark.parametrize("fn", BOTH, ids=lambda f: f.__name__)
@pytest.mark.parametrize("y_score, expected, got", [
    (S[:, :2], r"of shape \(4, 3\), the shape of y_true", r"shape \(4, 2\)"),
    (S[:3], r"of shape \(4, 3\)", r"shape \(3, 3\)"),
    (np.hstack([S, S]), r"of shape \(4, 3\)", r"shape \(4, 6\)"),
    (S[:, 0], r"of shape \(4, 3\)", r"shape \(4,\)"),            # 1-D, one per row
], ids=["fewer-columns", "fewer-rows", "more-columns", "1-D"])
def test_scores_of_another_shape_are_refused(fn, y_score, expected, got):
    with pytest.raises(ValueError, match=_message("y_score", fn.__name__, expected, got)):
        fn(Y, y_score)


def test_sklearn_refuses_or_misreads_those_shapes():
    with pytest.raises(ValueError):
        sk_roc(Y, S[:3])
    with pytest.raises(ValueError):
        sk_roc(Y, S[:, 0])
    with pytest.raises(IndexError):
        sk_roc(Y, np.hstack([S, S]))
    # fewer columns of scores: scikit-learn reads as many columns of y_true, silently
    assert sk_roc(Y, S[:, :2], average=None).tolist() == \
        sr.roc_auc_score(Y[:, :2], S[:, :2], average=None).tolist()


@pytest.mark.parametrize("fn", BOTH, ids=lambda f: f.__name__)
def test_1d_scores_with_a_matrix_of_other_length_name_y_true(fn):
    with pytest.raises(ValueError, match=_message("y_true", fn.__name__, "1-D class labels "
                                                  r"with 1-D scores", r"shape \(2, 6\)")):
        fn(Y.reshape(2, 6), S.ravel()[:6])


@pytest.mark.parametrize("fn", BOTH, ids=lambda f: f.__name__)
@pytest.mark.parametrize("y_true, got", [
    (2 * Y, r"values \[0, 2\]"),
    (2 * Y - 1, r"values \[-1, 1\]"),
    (Y * 0.5, r"values \[0.0, 0.5\]"),
    (np.where(Y == 1, np.nan, 0.0), r"values \[0.0, nan\]"),
    (Y + (np.arange(4) == 1)[:, None], r"values \[0, 1, 2\]"),
], ids=["zero-two", "minus-one-one", "half", "nan", "three-values"])
def test_non_binary_indicator_values_are_refused(fn, y_true, got):
    with pytest.raises(ValueError, match=_message("y_true", fn.__name__,
                                                  r"a multilabel indicator matrix \(values "
                                                  r"0 and 1, or bools\)", got)):
        fn(y_true, S)


def test_sklearn_refuses_non_binary_indicators_too():
    for y_true in (2 * Y, Y * 0.5, Y + (np.arange(4) == 1)[:, None]):
        with pytest.raises(ValueError):
            sk_roc(y_true, S)
    with pytest.raises(ValueError):
        sk_ap(Y * 0.5, S)


@pytest.mark.parametrize("fn", BOTH, ids=lambda f: f.__name__)
@pytest.mark.parametrize("call, param, cls", [
    (lambda fn: fn(Y.astype(str), S), "y_true", TypeError),
    (lambda fn: fn(Y[:, :1], S[:, :1]), "y_true", ValueError),
    (lambda fn: fn(np.empty((0, 3)), np.empty((0, 3))), "y_true", ValueError),
    (lambda fn: fn(Y, S.astype(str)), "y_score", TypeError),
    (lambda fn: fn(Y, np.where(S > 0.8, np.inf, S)), "y_score", ValueError),
    (lambda fn: fn(Y, S, sample_weight=[1, 2, 3]), "sample_weight", ValueError),
    (lambda fn: fn(Y, S, sample_weight=[0, 0, 0, 0]), "sample_weight", ValueError),
    (lambda fn: fn(Y, S, sample_weight=[1, -1, 1, 1]), "sample_weight", ValueError),
    (lambda fn: fn(Y, S, pos_label=0), "pos_label", ValueError),
    (lambda fn: fn(Y, S, average="mean"), "average", ValueError),
], ids=["strings", "one-column", "empty", "string-scores", "inf-score", "weights-length",
        "zero-weights", "negative-weight", "pos-label", "average"])
def test_bad_multilabel_arguments_name_the_parameter(fn, call, param, cls):
    with pytest.raises(cls, match=_message(param, fn.__name__)):
        call(fn)


def test_multilabel_roc_auc_checks_max_fpr_and_takes_pos_label_1():
    with pytest.raises(ValueError, match=_message("max_fpr", "roc_auc_score",
                                                  r"a float in the range \(0, 1\]")):
        sr.roc_auc_score(Y, S, max_fpr=1.5)
    assert sr.roc_auc_score(Y, S, pos_label=1) == sr.roc_auc_score(Y, S) == sk_roc(Y, S)
    assert sr.average_precision_score(Y, S, pos_label=True) == sk_ap(Y, S, pos_label=True)


def test_multiclass_options_are_ignored_for_multilabel_input_as_sklearn():
    for kwargs in ({"multi_class": "ovr"}, {"multi_class": "ovo"}, {"labels": [0, 1, 2]}):
        assert sr.roc_auc_score(Y, S, **kwargs) == sk_roc(Y, S, **kwargs)


def test_bad_multiclass_average_precision_arguments():
    y = [0, 1, 2, 1]
    func = "average_precision_score"
    with pytest.raises(ValueError, match=_message("y_true", func, r"binary \(two distinct "
                                                  r"values\)", r"\[0, 1, 2\]")):
        sr.average_precision_score(y, S[:, 0])             # 1-D scores: binary labels
    with pytest.raises(ValueError, match=_message("y_score", func, "of 3 columns, one per "
                                                  "class in y_true", "2 columns")):
        sr.average_precision_score(y, S[:, :2])
    with pytest.raises(ValueError, match=_message("y_score", func, "the same length")):
        sr.average_precision_score(y[:3], S)
    with pytest.raises(ValueError, match=_message("pos_label", func, "1 with multiclass "
                                                  "y_true", "2")):
        sr.average_precision_score(y, S, pos_label=2)
    with pytest.raises(ValueError, match=_message("sample_weight", func, "positive for at "
                                                  "least one sample")):
        sr.average_precision_score(y, S, sample_weight=[0, 0, 0, 0])
    for call in (lambda: sk_ap(np.array(y), S[:, 0]), lambda: sk_ap(np.array(y), S[:, :2]),
                 lambda: sk_ap(np.array(y), S, pos_label=2),
                 lambda: sk_ap(np.array(y), S, sample_weight=[0, 0, 0, 0])):
        with pytest.raises(ValueError):
            call()


def test_tuple_labels_stay_labels():
    # a list of tuples is a list of class labels (binary here), not a matrix
    y = [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert sr.roc_auc_score(y, [0.1, 0.9, 0.2, 0.8]) == 1.0


def test_messages_are_one_sentence_format():
    with pytest.raises(ValueError) as info:
        sr.roc_auc_score(2 * Y, S)
    exc = info.value
    assert (exc.param, exc.func) == ("y_true", "roc_auc_score")
    assert re.fullmatch(r"The 'y_true' parameter of roc_auc_score must be .+\. Got .+ "
                        r"instead\.", str(exc))
