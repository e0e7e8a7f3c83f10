"""scikit-learn's conventions where streamrank uses scikit-learn's names.

* Binary class labels of any type (`roc_auc_score`, `group_auc_score`): strings, bools,
  numbers, object arrays; the positive class by default the greater label, the rule of
  ``sklearn.metrics.roc_auc_score``; ``pos_label`` for another one.
* `roc_auc_score` takes scores of shape (n, 1) and refuses (n, 2) with binary labels, as
  scikit-learn does; more columns are multiclass scores (`multi_class`).
* scikit-learn scorers and ``cross_val_score`` on string targets.
* `ranking.ndcg_at_k` and `dcg_at_k` equal scikit-learn's `ndcg_score` and `dcg_score` with the defaults of both (linear gain).
* The River adapters with string classes (``pos_val``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import make_classification
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import dcg_score as sk_dcg, make_scorer, ndcg_score as sk_ndcg
from sklearn.metrics import roc_auc_score as sk_roc_auc
from sklearn.model_selection import StratifiedKFold, cross_val_score

import streamrank as sr
from streamrank import metrics as sm
from streamrank import ranking as rk
from streamrank.exceptions import UndefinedMetricWarning

#: Pairs of class labels, (smaller, greater), and how to build the array of them.
LABEL_PAIRS = {
    "strings": (("no", "yes"), lambda v: np.array(v)),
    "string-list": (("cat", "dog"), list),
    "string-objects": (("a", "b"), lambda v: np.array(v, dtype=object)),
    "bytes": ((b"n", b"p"), lambda v: np.array(v)),
    "bools": ((False, True), lambda v: np.array(v, dtype=bool)),
    "zero-one": ((0, 1), lambda v: np.array(v)),
    "minus-one-one": ((-1, 1), lambda v: np.array(v)),
    "one-two": ((1, 2), lambda v: np.array(v)),
    "floats": ((0.5, 3.25), lambda v: np.array(v)),
    "int-objects": ((3, 7), lambda v: np.array(v, dtype=object)),
}
#: Labels scikit-learn refuses (bytes; "continuous" floats; an object array of ints is of
#: "unknown" type): streamrank takes them, the greater positive as for the others.
SKLEARN_REFUSES = ("bytes", "floats", "int-objects")


def _binary(seed, n=60, ties=True, weights=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]                                   # both classes
    s = rng.integers(0, 6, n) / 5 if ties else rng.random(n)
    w = rng.integers(0, 4, n).astype(float) if weights else None
    if w is not None:
        w[:2] = 1.0
    return y, s, w


def _labels(kind, y01):
    (neg, pos), build = LABEL_PAIRS[kind]
    return build([pos if v else neg for v in y01.tolist()]), neg, pos


# ------------------------------------------------------------------ labels of any type
@pytest.mark.parametrize("kind", sorted(LABEL_PAIRS))
@pytest.mark.parametrize("weights", [False, True])
def test_roc_auc_of_any_labels_equals_sklearn(kind, weights):
    y01, s, w = _binary(11, weights=weights)
    y, neg, pos = _labels(kind, y01)
    expected = sk_roc_auc(y01, s, sample_weight=w)
    if kind in SKLEARN_REFUSES:
        with pytest.raises((TypeError, ValueError)):
            sk_roc_auc(y, s, sample_weight=w)
    else:                                                 # sklearn: the greater label
        assert math.isclose(sk_roc_auc(y, s, sample_weight=w), expected, rel_tol=1e-12)
    assert math.isclose(sr.roc_auc_score(y, s, sample_weight=w), expected, rel_tol=1e-12)
    assert math.isclose(sr.roc_auc_score(y, s, sample_weight=w, pos_label=pos), expected,
                        rel_tol=1e-12)
    flipped = sr.roc_auc_score(y, s, sample_weight=w, pos_label=neg)
    assert math.isclose(flipped, sk_roc_auc(y01 == 0, s, sample_weight=w), rel_tol=1e-12)
    assert math.isclose(sr.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3),
                        sk_roc_auc(y01, s, sample_weight=w, max_fpr=0.3), rel_tol=1e-12)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(LABEL_PAIRS)), n=st.integers(2, 40),
       seed=st.integers(0, 2**32 - 1), n_scores=st.integers(1, 6))
def test_roc_auc_of_any_labels_equals_sklearn_hypothesis(kind, n, seed, n_scores):
    rng = np.random.default_rng(seed)
    y01 = rng.integers(0, 2, n)
    s = rng.integers(0, n_scores, n).astype(float)
    y, neg, pos = _labels(kind, y01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", SkUndefinedMetricWarning)
        got = sr.roc_auc_score(y, s)
        expected = math.nan if len(set(y01.tolist())) < 2 else sk_roc_auc(
            y01 if kind in SKLEARN_REFUSES else y, s)
    assert (math.isnan(got) and math.isnan(expected)) or math.isclose(got, expected,
                                                                     rel_tol=1e-12)


@pytest.mark.parametrize("kind", ["strings", "string-list", "bools", "one-two"])
@pytest.mark.parametrize("weighting", ["impressions", "pairs", "uniform"])
def test_group_auc_of_any_labels_equals_numeric_labels(kind, weighting):
    y01, s, w = _binary(12, n=90, weights=True)
    g = np.arange(y01.size) % 7
    y, neg, pos = _labels(kind, y01)
    expected = sr.group_auc_score(y01, s, g, weighting=weighting, sample_weight=w)
    assert sr.group_auc_score(y, s, g, weighting=weighting, sample_weight=w) == expected
    assert sr.group_auc_score(y, s, g, weighting=weighting, sample_weight=w,
                              pos_label=pos) == expected
    assert sr.group_auc_score(y, s, g, weighting=weighting, sample_weight=w,
                              pos_label=neg) == sr.group_auc_score(
        y01 == 0, s, g, weighting=weighting, sample_weight=w)


def test_labels_are_compared_by_equality():
    """``1``, ``1.0`` and ``True`` are one label; tuples are labels too."""
    s = [0.1, 0.7, 0.5, 0.3]
    assert sr.roc_auc_score(np.array([0, 1.0, False, True], dtype=object), s) == 0.75
    assert sr.roc_auc_score([(1, 2), (3,), (1, 2), (3,)], s) == 0.75       # (3,) > (1, 2)
    assert sr.roc_auc_score([(1, 2), (3, 4), (1, 2), (3, 4)], s, pos_label=(1, 2)) == 0.25
    assert sr.roc_auc_score(np.array(["0", "1", "0", "1"]), s, pos_label="1") == 0.75


def test_labels_that_do_not_order_need_pos_label():
    y, s = [1, "a", 1, "a"], [0.1, 0.7, 0.5, 0.3]
    with pytest.raises(ValueError, match=r"^The 'pos_label' parameter of roc_auc_score must "
                       r"be given when the labels do not order .* Got None \(labels: "
                       r"\[1, 'a'\]\) instead\.$"):
        sr.roc_auc_score(y, s)
    with pytest.raises(ValueError, match="'pos_label' parameter of group_auc_score"):
        sr.group_auc_score(y, s, [0, 0, 1, 1])
    assert sr.roc_auc_score(y, s, pos_label="a") == 0.75
    assert sr.roc_auc_score(y, s, pos_label=1) == 0.25


@pytest.mark.parametrize("pos_label", [1, "1", "maybe", True])
def test_pos_label_not_among_the_labels_names_them(pos_label):
    with pytest.raises(ValueError, match=r"The 'pos_label' parameter of roc_auc_score must "
                       r"be one of the labels in y_true\. Got .* \(labels: \['no', 'yes'\]\)"):
        sr.roc_auc_score(["no", "yes", "yes"], [0.2, 0.4, 0.3], pos_label=pos_label)


def test_bad_labels_name_y_true():
    s = [0.1, 0.2, 0.3]
    for y, match in [(["a", "b", "c"], r"binary .* more than two distinct values: "
                      r"\['a', 'b', 'c'\]"),
                     (["a", None, "b"], "class labels, not None, nan, inf or NaT. Got None "
                      "at index 1"),
                     (np.array(["a", float("nan"), "a"], dtype=object),
                      "class labels, .* Got nan at index 1"),
                     ([], "a non-empty array")]:
        with pytest.raises(ValueError, match="The 'y_true' parameter of roc_auc_score must be "
                           + match):
            sr.roc_auc_score(y, s[:len(y)])
    with pytest.raises(TypeError, match="The 'pos_label' parameter of roc_auc_score"):
        sr.roc_auc_score(["a", "b"], [0.1, 0.2], pos_label=["a"])


def test_one_class_of_strings_is_undefined_as_in_sklearn():
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(sr.roc_auc_score(["yes", "yes"], [0.1, 0.2]))
    with pytest.warns(SkUndefinedMetricWarning):
        assert math.isnan(sk_roc_auc(["yes", "yes"], [0.1, 0.2]))


# ------------------------------------------------------------------ 2-D scores
def test_scores_of_shape_n_by_one_as_sklearn():
    y01, s, w = _binary(13, weights=True)
    y, _, _ = _labels("strings", y01)
    col = s.reshape(-1, 1)
    assert sr.roc_auc_score(y, col, sample_weight=w) == sr.roc_auc_score(y, s, sample_weight=w)
    assert math.isclose(sr.roc_auc_score(y, col, sample_weight=w),
                        sk_roc_auc(y, col, sample_weight=w), rel_tol=1e-12)


def test_scores_of_two_columns_are_refused_as_in_sklearn():
    y01, s, _ = _binary(14)
    proba = np.column_stack([1 - s, s])
    with pytest.raises(ValueError):
        sk_roc_auc(y01, proba)
    with pytest.raises(ValueError, match=r"The 'y_score' parameter of roc_auc_score must "
                       r"be a 1-D array of scores, or of shape \(n, 1\).*y_score\[:, 1\]"
                       rf"\)\. Got an array of shape \({y01.size}, 2\) instead"):
        sr.roc_auc_score(y01, proba)
    assert sr.roc_auc_score(y01, proba[:, 1]) == pytest.approx(sk_roc_auc(y01, s), rel=1e-12)


def test_binary_labels_with_three_columns_take_the_multiclass_path_as_sklearn():
    # scikit-learn: more than two columns are multiclass scores, even for binary labels;
    # multi_class must then be given, and the columns must match the (given) labels.
    y01, s, _ = _binary(14)
    proba = np.column_stack([1 - s, s / 2, s / 2])
    with pytest.raises(ValueError):
        sk_roc_auc(y01, proba)
    with pytest.raises(ValueError, match=r"The 'multi_class' parameter of roc_auc_score "
                       r"must be 'ovr' or 'ovo'.* Got 'raise' instead"):
        sr.roc_auc_score(y01, proba)
    with pytest.raises(ValueError):
        sk_roc_auc(y01, proba, multi_class="ovr")
    with pytest.raises(ValueError, match=r"The 'y_score' parameter of roc_auc_score must "
                       r"be of 2 columns, one per class in y_true"):
        sr.roc_auc_score(y01, proba, multi_class="ovr")
    with pytest.warns(UndefinedMetricWarning):      # class 2 absent: its AUC is nan
        got = sr.roc_auc_score(y01, proba, multi_class="ovr", labels=[0, 1, 2],
                               average=None)
    with pytest.warns(SkUndefinedMetricWarning):
        expected = sk_roc_auc(y01, proba, multi_class="ovr", labels=[0, 1, 2], average=None)
    np.testing.assert_array_equal(got, expected)


# ------------------------------------------------------------------ scorers
def _classification(seed):
    X, y01 = make_classification(n_samples=240, n_features=6, n_informative=3,
                                 random_state=seed)
    return X, np.where(y01 == 1, "spam", "ham"), StratifiedKFold(4, shuffle=True,
                                                                   random_state=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cross_val_score_on_string_targets_equals_sklearn_roc_auc(seed):
    X, y, cv = _classification(seed)
    expected = cross_val_score(LogisticRegression(), X, y, cv=cv, scoring="roc_auc",
                               error_score="raise")
    ours = make_scorer(sr.roc_auc_score, response_method="predict_proba")
    got = cross_val_score(LogisticRegression(), X, y, cv=cv, scoring=ours,
                          error_score="raise")
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # pos_label through make_scorer: the column of that class, and its AUC is the same
    for label in ("ham", "spam"):
        scorer = make_scorer(sr.roc_auc_score, response_method="predict_proba",
                             pos_label=label)
        got = cross_val_score(LogisticRegression(), X, y, cv=cv, scoring=scorer,
                              error_score="raise")
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_scorer_with_pos_label_reads_that_class_column():
    X, y, _ = _classification(3)
    model = LogisticRegression().fit(X, y)
    proba = model.predict_proba(X)
    for i, label in enumerate(model.classes_):
        scorer = make_scorer(sr.roc_auc_score, response_method="predict_proba",
                             pos_label=label)
        assert scorer(model, X, y) == pytest.approx(sk_roc_auc(y == label, proba[:, i]),
                                                    rel=1e-12)
    scorer = make_scorer(sr.roc_auc_score, response_method="decision_function",
                         pos_label="ham")       # sklearn negates the decision for "ham"
    assert scorer(model, X, y) == pytest.approx(
        sk_roc_auc(y == "ham", -model.decision_function(X)), rel=1e-12)


# ------------------------------------------------------------------ NDCG and DCG
@settings(derandomize=True, max_examples=40, deadline=None)
@given(nq=st.integers(1, 12), length=st.integers(1, 9), grades=st.integers(1, 5),
       n_scores=st.integers(1, 4), k=st.one_of(st.none(), st.integers(1, 10)),
       seed=st.integers(0, 2**32 - 1))
def test_ndcg_and_dcg_defaults_equal_sklearn_defaults(nq, length, grades, n_scores, k, seed):
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, grades + 1, (nq, length))
    S = rng.integers(0, n_scores, (nq, length)) / n_scores        # tie-heavy
    q = np.repeat(np.arange(nq), length)
    if length > 1:
        assert rk.dcg_at_k(q, Y.ravel(), S.ravel(), k=k) == pytest.approx(
            sk_dcg(Y, S, k=k), rel=1e-12, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if length > 1:      # sklearn counts a query without relevant documents as 0
            assert rk.ndcg_at_k(q, Y.ravel(), S.ravel(), k=k, empty=0) == pytest.approx(
                sk_ndcg(Y, S, k=k), rel=1e-12, abs=1e-12)
        keep = Y.max(axis=1) > 0
        if keep.any() and length > 1:     # every query relevant: the default empty too
            qk = np.repeat(np.arange(int(keep.sum())), length)
            assert rk.ndcg_at_k(qk, Y[keep].ravel(), S[keep].ravel(), k=k) == \
                pytest.approx(sk_ndcg(Y[keep], S[keep], k=k), rel=1e-12, abs=1e-12)


def test_one_default_gain_everywhere():
    assert rk.DEFAULT_GAIN == "linear"
    q, y, s = [1, 1, 1], [2, 0, 1], [0.9, 0.5, 0.1]
    expected = rk.ndcg_at_k(q, y, s, gain="linear")
    assert expected == pytest.approx(sk_ndcg([y], [s]), rel=1e-12)
    assert expected != rk.ndcg_at_k(q, y, s, gain="exponential")
    m = rk.NDCG(k=None)
    m.update(y, s)
    assert m.gain == "linear" and m.get() == pytest.approx(expected, rel=1e-12)
    qr = rk.QueryRanking()
    for doc, (r, x) in enumerate(zip(y, s)):
        qr.set(doc, r, x)
    assert qr.gain == "linear" and qr.ndcg() == pytest.approx(expected, rel=1e-12)
    state = rk.RankingState(k=None)
    for doc, (r, x) in enumerate(zip(y, s)):
        state.set("q", doc, r, x)
    assert state.gain == "linear"
    assert state.mean("ndcg") == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------ River adapters
@pytest.mark.parametrize("pos_val", ["yes", np.str_("yes")])
def test_river_roc_auc_with_string_classes_equals_sklearn(pos_val):
    """River's own ``ROCAUC`` gives 0 on string classes (it asks its confusion matrix of
    ``y_true == pos_val`` for the class ``pos_val``); streamrank's gives the AUC."""
    rng = np.random.default_rng(15)
    y = rng.choice(["no", "yes"], 200)
    p = rng.integers(0, 5, 200) / 4
    expected = sk_roc_auc(y, p)
    metrics = {"ROCAUC": sm.ROCAUC(pos_val=pos_val),
               "RollingROCAUC": sm.RollingROCAUC(window_size=1000, pos_val=pos_val),
               "proba": sm.ROCAUC(pos_val=pos_val)}
    for label, score in zip(y.tolist(), p.tolist()):        # str labels
        metrics["ROCAUC"].update(label, score)
        metrics["RollingROCAUC"].update(np.str_(label), score)
        metrics["proba"].update(label, {"yes": score, "no": 1 - score})
    for name, m in metrics.items():
        assert m.get() == pytest.approx(expected, rel=1e-12), name
    g = sm.GroupAUC(pos_val=pos_val)
    groups = np.arange(200) % 3
    for label, score, group in zip(y.tolist(), p.tolist(), groups.tolist()):
        g.update(label, (score, group))
    assert g.get() == pytest.approx(sr.group_auc_score(y, p, groups), rel=1e-12)


def test_river_roc_auc_refuses_a_label_of_another_kind():
    m = sm.ROCAUC(pos_val="yes")
    m.update("yes", 0.4)
    with pytest.raises(TypeError, match=r"The 'y_true' parameter of ROCAUC.update must be "
                       r"a str \(the type of pos_val='yes'\)\. Got 1 instead\."):
        m.update(1, 0.3)
    m = sm.ROCAUC(pos_val=np.True_)
    m.update(True, 0.4)
    m.update(0, 0.2)
    assert m.get() == 1.0
