"""The threshold curves and the multiclass AUC against scikit-learn, element for element.

* `roc_curve`, `precision_recall_curve`, `average_precision_score`: the same arrays (values
  and dtypes, thresholds included) on heavily tied scores, with weights (zeros among them)
  and ``drop_intermediate`` both ways; the same warnings where a class is missing; errors
  where scikit-learn raises, in this package's message format.
* `roc_auc_score` with ``multi_class="ovr"`` / ``"ovo"``, every ``average``, ``labels``
  given or not, string classes: the same floats; scikit-learn's error conditions.
"""

from __future__ import annotations

import doctest
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning

import streamrank as sr
import streamrank.batch._ccurves as cc
from streamrank.exceptions import UndefinedMetricWarning

CURVES = ("roc_curve", "precision_recall_curve")


def _assert_same_arrays(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        np.testing.assert_array_equal(g, e)


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _tied_data(rng, n, n_values, weights):
    y = rng.integers(0, 2, n)
    s = rng.integers(0, n_values, n) / 7.0
    w = None
    if weights:
        w = rng.choice([0.0, 1e-3, 0.1, 1.0, 3.3, 250.75], n) * rng.random(n).round(2)
        w[rng.integers(0, n)] = 1.0                   # some weight is positive
    return y, s, w


# ------------------------------------------------------------------ curves vs sklearn
@settings(derandomize=True, max_examples=150, deadline=None)
@given(n=st.integers(1, 70), n_values=st.integers(1, 12), weights=st.booleans(),
       drop=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_curves_equal_sklearn_element_for_element(n, n_values, weights, drop, seed):
    y, s, w = _tied_data(np.random.default_rng(seed), n, n_values, weights)
    for name in CURVES:
        got = _quiet(getattr(sr, name), y, s, sample_weight=w, drop_intermediate=drop)
        expected = _quiet(getattr(skm, name), y, s, sample_weight=w, drop_intermediate=drop)
        _assert_same_arrays(got, expected)
    got = _quiet(sr.average_precision_score, y, s, sample_weight=w)
    assert got == _quiet(skm.average_precision_score, y, s, sample_weight=w)


@pytest.mark.parametrize("n_values", [3, 50, 10**6])
def test_weighted_sums_are_sklearn_floats_on_large_tied_inputs(n_values):
    # The running sums of weights depend on the order of addition: they must be taken in
    # scikit-learn's order (decreasing score, ties in input order) to be its floats.
    rng = np.random.default_rng(n_values)
    n = 60_000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, n_values, n) / 3.0
    w = rng.random(n) * rng.choice([1e-6, 1.0, 1e6], n)
    w[::17] = 0.0
    for name in CURVES:
        for drop in (True, False):
            _assert_same_arrays(getattr(sr, name)(y, s, sample_weight=w, drop_intermediate=drop),
                                getattr(skm, name)(y, s, sample_weight=w,
                                                   drop_intermediate=drop))
    assert sr.average_precision_score(y, s, sample_weight=w) == \
        skm.average_precision_score(y, s, sample_weight=w)


def test_continuous_scores_without_ties():
    rng = np.random.default_rng(5)
    y = rng.random(5000) < 0.2
    s = rng.normal(size=5000)
    for name in CURVES:
        _assert_same_arrays(getattr(sr, name)(y, s), getattr(skm, name)(y, s))
    assert sr.average_precision_score(y, s) == skm.average_precision_score(y, s)


@pytest.mark.parametrize("scores", [
    [1, 2, 2, 3, 1],
    np.array([1, 2, 2, 3, 1], dtype=np.int32),
    np.array([1, 2, 2, 3, 1], dtype=np.uint8),
    np.array([0.1, 0.2, 0.2, 0.3, 0.1], dtype=np.float32),
    [True, False, True, True, False],
    np.array([0.0, -0.0, 0.0, 1.0, -0.0]),           # -0.0 and 0.0: one threshold
    np.array([[0.5], [0.2], [0.2], [0.9], [0.5]]),   # a column
    [2**60 + 1, 2**60, 2**60, 3, 1],                 # exact int64 thresholds
], ids=["int", "int32", "uint8", "float32", "bool", "signed-zeros", "column", "big-int"])
def test_score_dtypes_as_sklearn(scores):
    y = [0, 1, 1, 0, 1]
    for name in CURVES:
        _assert_same_arrays(getattr(sr, name)(y, scores), getattr(skm, name)(y, scores))
    assert sr.average_precision_score(y, scores) == skm.average_precision_score(y, scores)


@pytest.mark.parametrize("y, pos_label", [
    ([-1, 1, 1, -1, 1], None),
    ([True, False, True, True, False], None),
    ([0.0, 1.0, 1.0, 0.0, 1.0], None),
    (["no", "yes", "yes", "no", "yes"], "yes"),
    (["no", "yes", "yes", "no", "yes"], "no"),
    ([3, 7, 7, 3, 7], 3),
])
def test_labels_and_pos_label_as_sklearn(y, pos_label):
    s = [0.3, 0.9, 0.3, 0.1, 0.5]
    for name in CURVES:
        _assert_same_arrays(getattr(sr, name)(y, s, pos_label=pos_label),
                            getattr(skm, name)(y, s, pos_label=pos_label))
    pl = 1 if pos_label is None else pos_label
    assert sr.average_precision_score(y, s, pos_label=pl) == \
        skm.average_precision_score(y, s, pos_label=pl)


@pytest.mark.parametrize("y", [["a", "b", "a"], [1, 2, 1], [2, 2, 2], [-1, 0, 0]])
def test_labels_outside_0_1_need_pos_label_as_sklearn(y):
    for name in CURVES:
        with pytest.raises(ValueError):
            getattr(skm, name)(y, [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match=rf"The 'y_true' parameter of {name} must be "
                           r"of values in \{0, 1\} or \{-1, 1\} when pos_label is not given"
                           r".* Got labels \["):
            getattr(sr, name)(y, [0.1, 0.2, 0.3])


def test_ap_pos_label_must_be_a_label_of_two_as_sklearn():
    y, s = ["a", "b", "a"], [0.1, 0.2, 0.3]
    with pytest.raises(ValueError):
        skm.average_precision_score(y, s)             # pos_label=1 is not a label
    with pytest.raises(ValueError, match=r"The 'pos_label' parameter of "
                       r"average_precision_score must be one of the labels in y_true\. "
                       r"Got 1 \(labels: \['a', 'b'\]\) instead"):
        sr.average_precision_score(y, s)
    assert sr.average_precision_score(y, s, pos_label="b") == \
        skm.average_precision_score(y, s, pos_label="b")


def test_pos_label_not_a_label_is_refused_by_the_curves():
    # A choice: scikit-learn's curves then take every sample as negative (and warn); the
    # rule of streamrank's label checks refuses the label instead.
    with pytest.raises(ValueError, match=r"The 'pos_label' parameter of roc_curve must be "
                       r"one of the labels in y_true\. Got 3 \(labels: \[1, 2\]\) instead"):
        sr.roc_curve([1, 2, 1], [0.1, 0.2, 0.3], pos_label=3)


def test_more_than_two_labels_name_y_true():
    for name in CURVES + ("average_precision_score",):
        with pytest.raises(ValueError, match=rf"The 'y_true' parameter of {name} must be "
                           r"binary \(two distinct values\)\. Got more than two distinct "
                           r"values: \[0, 1, 2\] instead"):
            getattr(sr, name)([0, 1, 2], [0.1, 0.2, 0.3], pos_label=1)


# ------------------------------------------------------------------ undefined cases
@pytest.mark.parametrize("y", [[0, 0, 0], [1, 1, 1]])
def test_one_class_warns_and_gives_nan_rates_as_sklearn(y):
    s = [0.1, 0.5, 0.5]
    with pytest.warns(UndefinedMetricWarning, match="No (negative|positive) samples"):
        got = sr.roc_curve(y, s)
    with pytest.warns(SkUndefinedMetricWarning):
        expected = skm.roc_curve(y, s)
    _assert_same_arrays(got, expected)


def test_no_positive_sets_recall_to_one_as_sklearn():
    y, s = [0, 0, 0], [0.1, 0.5, 0.5]
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        got = sr.precision_recall_curve(y, s)
    with pytest.warns(UserWarning):
        expected = skm.precision_recall_curve(y, s)
    _assert_same_arrays(got, expected)
    with pytest.warns(UserWarning):
        assert sr.average_precision_score(y, s) == 0.0
    with pytest.warns(UserWarning):
        assert skm.average_precision_score(y, s) == 0.0


def test_zero_weights_drop_their_thresholds_as_sklearn():
    y, s, w = [0, 1, 1, 0], [0.1, 0.7, 0.4, 0.9], [1.0, 2.0, 1.0, 0.0]
    got = sr.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    assert 0.9 not in got[2].tolist()
    _assert_same_arrays(got, skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False))


# ------------------------------------------------------------------ argument errors
@pytest.mark.parametrize("call, match, cls", [
    (lambda: sr.roc_curve([0, 1], [0.1, 0.2], drop_intermediate=1),
     r"The 'drop_intermediate' parameter of roc_curve must be a bool\. Got 1 instead", TypeError),
    (lambda: sr.precision_recall_curve([0, 1], [0.1, 0.2], drop_intermediate="yes"),
     r"The 'drop_intermediate' parameter of precision_recall_curve must be a bool", TypeError),
    (lambda: sr.average_precision_score([0, 1], [0.1, 0.2], average="mean"),
     r"The 'average' parameter of average_precision_score must be one of", ValueError),
    (lambda: sr.average_precision_score([0, 1], [0.1, 0.2], pos_label=None),
     r"The 'pos_label' parameter of average_precision_score must be a class label", ValueError),
    (lambda: sr.roc_curve([0, 1], [0.1, 0.2], sample_weight=[0, 0]),
     r"The 'sample_weight' parameter of roc_curve must be positive for at least one sample",
     ValueError),
    (lambda: sr.roc_curve([0, 1], [0.1, 0.2], sample_weight=[1, -1]),
     r"The 'sample_weight' parameter of roc_curve must be non-negative", ValueError),
    (lambda: sr.roc_curve([0, 1, 1], [0.1, 0.2]),
     r"The 'y_score' parameter of roc_curve must be the same length as 'y_true'", ValueError),
    (lambda: sr.roc_curve([0, 1], [0.1, float("nan")]),
     r"The 'y_score' parameter of roc_curve must be finite numbers", ValueError),
    (lambda: sr.precision_recall_curve([0, 1], [[0.1, 0.9], [0.2, 0.8]]),
     r"The 'y_score' parameter of precision_recall_curve must be a 1-D array of scores, or "
     r"of shape \(n, 1\)", ValueError),
])
def test_argument_errors(call, match, cls):
    with pytest.raises(cls, match=match):
        call()


def test_sklearn_refuses_the_same_arguments():
    with pytest.raises(ValueError):                  # InvalidParameterError is a ValueError
        skm.roc_curve([0, 1], [0.1, 0.2], drop_intermediate="yes")
    with pytest.raises(ValueError):
        skm.average_precision_score([0, 1], [0.1, 0.2], average="mean")
    with pytest.raises(ValueError):
        skm.average_precision_score([0, 1], [0.1, 0.2], pos_label=None)
    with pytest.raises(ValueError):
        skm.precision_recall_curve([0, 1], [[0.1, 0.9], [0.2, 0.8]])


# ------------------------------------------------------------------ multiclass AUC
def _proba(rng, n, k, n_values):
    raw = rng.integers(0, n_values, (n, k)).astype(np.float64) + 1e-3
    return raw / raw.sum(axis=1, keepdims=True)


@settings(derandomize=True, max_examples=120, deadline=None)
@given(k=st.integers(3, 6), n=st.integers(3, 90), n_values=st.integers(1, 5),
       kind=st.sampled_from(["ints", "strings", "labels", "absent"]),
       weights=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_multiclass_auc_equals_sklearn(k, n, n_values, kind, weights, seed):
    rng = np.random.default_rng(seed)
    P = _proba(rng, n, k, n_values)
    codes = rng.integers(0, k - 1 if kind == "absent" else k, n)
    labels = None
    if kind == "strings":
        y = np.array([f"class-{c}" for c in codes])
    elif kind in ("labels", "absent"):
        names = np.sort(rng.choice(100, k, replace=False))
        y, labels = names[codes], names.tolist()
    else:
        y = codes
    w = rng.choice([0.0, 0.5, 1.0, 2.25], n) if weights else None
    if w is not None:
        w[0] = 1.0
    for multi_class in ("ovr", "ovo"):
        ww = w if multi_class == "ovr" else None
        for average in ("macro", "weighted", None, "micro"):
            kwargs = dict(multi_class=multi_class, average=average, labels=labels,
                          sample_weight=ww)
            try:
                expected = _quiet(skm.roc_auc_score, y, P, **kwargs)
            except ZeroDivisionError:       # ovo, weighted, one class present: no pair
                assert np.unique(codes).size == 1
                with pytest.warns(UndefinedMetricWarning, match="one-vs-one"):
                    assert math.isnan(sr.roc_auc_score(y, P, **kwargs))
                continue
            except (ValueError, NotImplementedError) as exc:
                with pytest.raises(type(exc), match=r"The '\w+' parameter of roc_auc_score"):
                    _quiet(sr.roc_auc_score, y, P, **kwargs)
                continue
            got = _quiet(sr.roc_auc_score, y, P, **kwargs)
            if average is None:
                np.testing.assert_array_equal(got, expected)
            else:
                assert (math.isnan(got) and math.isnan(expected)) or got == expected


def test_multiclass_ovo_prevalence_and_string_labels():
    rng = np.random.default_rng(11)
    y = rng.choice(["ant", "bee", "cat", "dog"], 400, p=[0.1, 0.2, 0.3, 0.4])
    P = _proba(rng, 400, 4, 3)
    for average in ("macro", "weighted"):
        assert sr.roc_auc_score(y, P, multi_class="ovo", average=average) == \
            skm.roc_auc_score(y, P, multi_class="ovo", average=average)


@pytest.mark.parametrize("labels", [["ant", "bee", "cat"], ["ant", "bee", "cats"]])
def test_string_labels_given_as_sklearn(labels):
    rng = np.random.default_rng(12)
    y = rng.choice(["ant", "bee", "cat"], 60)
    P = _proba(rng, 60, 3, 4)
    for multi_class in ("ovr", "ovo"):
        try:
            expected = skm.roc_auc_score(y, P, multi_class=multi_class, labels=labels)
        except ValueError:                  # "cat" is not among the labels
            with pytest.raises(ValueError, match=r"The 'labels' parameter of roc_auc_score "
                               r"must be a list holding every label of y_true\. Got "
                               r"\['ant', 'bee', 'cats'\] \(no 'cat'\) instead"):
                sr.roc_auc_score(y, P, multi_class=multi_class, labels=labels)
            continue
        assert sr.roc_auc_score(y, P, multi_class=multi_class, labels=labels) == expected


def test_an_absent_class_gives_nan_and_a_warning_as_sklearn():
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.5, 0.4, 0.1], [0.1, 0.8, 0.1]])
    y = [0, 1, 0, 1]
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        got = sr.roc_auc_score(y, P, multi_class="ovr", labels=[0, 1, 2], average=None)
    assert math.isnan(got[2])
    np.testing.assert_array_equal(
        got, _quiet(skm.roc_auc_score, y, P, multi_class="ovr", labels=[0, 1, 2], average=None))
    with pytest.warns(UndefinedMetricWarning):     # its weight is 0: the mean is defined
        got = sr.roc_auc_score(y, P, multi_class="ovr", labels=[0, 1, 2], average="weighted")
    assert got == _quiet(skm.roc_auc_score, y, P, multi_class="ovr", labels=[0, 1, 2],
                         average="weighted")


_P3 = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.2, 0.2], [0.3, 0.3, 0.4]])
_Y3 = [0, 1, 2, 1]


@pytest.mark.parametrize("kwargs, name, cls", [
    (dict(), "multi_class", ValueError),
    (dict(multi_class="ovr", max_fpr=0.5), "max_fpr", ValueError),
    (dict(multi_class="ovr", y_score=_P3[:, 0]), "y_score", ValueError),
    (dict(multi_class="ovr", y_score=_P3 * 2), "y_score", ValueError),
    (dict(multi_class="ovo", average="micro"), "average", ValueError),
    (dict(multi_class="ovo", average=None), "average", NotImplementedError),
    (dict(multi_class="ovr", average="samples"), "average", ValueError),
    (dict(multi_class="ovr", labels=[0, 0, 1]), "labels", ValueError),
    (dict(multi_class="ovr", labels=[2, 1, 0]), "labels", ValueError),
    (dict(multi_class="ovr", labels=[0, 1, 2, 3]), "labels", ValueError),
    (dict(multi_class="ovr", labels=[0, 1, 3]), "labels", ValueError),
    (dict(multi_class="ovr", y_true=[0, 1, 0, 1]), "y_score", ValueError),
    (dict(y_true=[0, 1, 0, 1]), "multi_class", ValueError),
    (dict(multi_class="ovo", sample_weight=[1, 1, 1, 1]), "sample_weight", ValueError),
    (dict(multi_class="one"), "multi_class", ValueError),
    (dict(multi_class="ovr", average="mean"), "average", ValueError),
    (dict(multi_class="ovr", y_true=[0, 1, 2, 3]), "y_score", ValueError),
])
def test_multiclass_errors_where_sklearn_raises(kwargs, name, cls):
    args = dict(y_true=_Y3, y_score=_P3)
    args.update(kwargs)
    with pytest.raises(cls):
        skm.roc_auc_score(**args)
    with pytest.raises(cls, match=rf"^The '{name}' parameter of roc_auc_score must be .* "
                       r"Got .* instead\.$"):
        sr.roc_auc_score(**args)


def test_multiclass_labels_with_1d_scores_name_y_true():
    with pytest.raises(ValueError, match=r"The 'y_true' parameter of roc_auc_score must be "
                       r"binary \(two distinct values\) with 1-D scores; .*multi_class="):
        sr.roc_auc_score(_Y3, [0.1, 0.2, 0.3, 0.4])


def test_multiclass_rejects_pos_label():
    with pytest.raises(ValueError, match=r"The 'pos_label' parameter of roc_auc_score must "
                       r"be None with multiclass labels\. Got 2 instead"):
        sr.roc_auc_score(_Y3, _P3, multi_class="ovr", pos_label=2)


def test_binary_labels_ignore_average_and_multi_class_as_sklearn():
    y, s = [0, 1, 1, 0], [0.1, 0.7, 0.4, 0.5]
    for average in ("micro", "macro", "samples", "weighted", None):
        assert sr.roc_auc_score(y, s, average=average, multi_class="ovo") == \
            skm.roc_auc_score(y, s, average=average, multi_class="ovo")


# ------------------------------------------------------------------ the public face
def test_exports():
    for name in ("roc_curve", "precision_recall_curve", "average_precision_score"):
        assert name in sr.__all__ and name in sr.batch.__all__
        assert getattr(sr, name) is getattr(sr.batch, name)
    # the per-query average precision of the ranking metrics is another function
    assert not hasattr(sr.ranking, "average_precision_score")


def test_doctests_of_the_compiled_curve_kernels():
    result = doctest.testmod(cc, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
