"""Every bad input of issue 2 item 5, for every public function, raises the documented error.

The one message format (scikit-learn's)::

    The '<param>' parameter of <func> must be <expected>. Got <received> instead.

Tests match the parameter name, the function name, "must be" and "Got" -- not the rest of
the wording -- and, where the received value is unambiguous (nan, inf, a negative weight,
a wrong length), that it is named after "Got".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import streamrank
from streamrank import (
    PairCounts,
    average_precision_score,
    bootstrap_ci,
    concordance_ci,
    concordance_index,
    concordance_variance,
    delong_test,
    goodman_kruskal_gamma,
    group_auc_score,
    kendall_tau,
    pair_counts,
    precision_recall_curve,
    roc_auc_ci,
    roc_auc_score,
    roc_curve,
    somers_d,
)

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.4, 0.35, 0.8, 0.5, 0.2])
W = np.array([1.0, 2.0, 4.0, 1.0, 1.0, 3.0])  # whole numbers: DeLong's frequency weights
GROUPS = np.array([1, 1, 1, 2, 2, 2])


def _interval(r):
    return (r.estimate, r.low, r.high, r.se)


def _second_model(s):
    """Model b's scores for `delong_test`: a function of model a's, row by row (numbers
    only; anything else is passed on, as bad as it is)."""
    a = np.asarray(s)
    with np.errstate(invalid="ignore"):
        return np.cos(7.0 * a) if a.dtype.kind in "iuf" else s


def _groups_for(y):
    """Groups as long as ``y`` when ``y`` is 1-D, so that only the bad argument is bad."""
    return np.resize(GROUPS, len(y)) if np.ndim(y) == 1 else GROUPS


@dataclass(frozen=True)
class Fn:
    name: str
    label: str  # name of the label / time parameter
    score: str  # name of the score parameter
    call: Callable

    def __repr__(self):
        return self.name


FUNCTIONS = [
    Fn("pair_counts", "y_true", "y_score", lambda y, s, **kw: pair_counts(y, s, **kw)),
    Fn("roc_auc_score", "y_true", "y_score", lambda y, s, **kw: roc_auc_score(y, s, **kw)),
    Fn("group_auc_score", "y_true", "y_score",
       lambda y, s, **kw: group_auc_score(y, s, _groups_for(y), **kw)),
    Fn("kendall_tau", "y_true", "y_score", lambda y, s, **kw: kendall_tau(y, s, **kw)),
    Fn("goodman_kruskal_gamma", "y_true", "y_score",
       lambda y, s, **kw: goodman_kruskal_gamma(y, s, **kw)),
    Fn("somers_d", "y_true", "y_score", lambda y, s, **kw: somers_d(y, s, **kw)),
    Fn("concordance_index", "event_times", "predicted_scores",
       lambda y, s, **kw: concordance_index(y, s, **kw)),
    Fn("roc_curve", "y_true", "y_score", lambda y, s, **kw: roc_curve(y, s, **kw)),
    Fn("precision_recall_curve", "y_true", "y_score",
       lambda y, s, **kw: precision_recall_curve(y, s, **kw)),
    Fn("average_precision_score", "y_true", "y_score",
       lambda y, s, **kw: average_precision_score(y, s, **kw)),
    Fn("roc_auc_ci", "y_true", "y_score", lambda y, s, **kw: _interval(roc_auc_ci(y, s, **kw))),
    Fn("bootstrap_ci", "y_true", "y_score",
       lambda y, s, **kw: _interval(bootstrap_ci("auc", y, s, n_resamples=30, random_state=0,
                                                 **kw))),
    Fn("concordance_ci", "y_true", "y_score",
       lambda y, s, **kw: _interval(concordance_ci(y, s, **kw))),
    Fn("concordance_variance", "y_true", "y_score",
       lambda y, s, **kw: concordance_variance(y, s, **kw)),
    Fn("delong_test", "y_true", "y_score_a",
       lambda y, s, **kw: delong_test(y, s, _second_model(s), **kw).p_value),
]
IDS = [f.name for f in FUNCTIONS]


def message(param: str, func: str, got: str = "") -> str:
    """Regex of the message format, naming ``param`` (itself a regex, e.g. "(a|b)") and
    ``func``, and ``got`` (a regex, if given) somewhere after "Got"."""
    return rf"The '{param}' parameter of {re.escape(func)} must be .+\. Got .*{got}.* instead"


def with_value(arr, index, value):
    out = np.array(arr, dtype=np.result_type(arr, type(value)))
    out[index] = value
    return out


def test_every_public_function_is_covered():
    covered = {f.name for f in FUNCTIONS}
    public = {name for name in streamrank.__all__
              if callable(getattr(streamrank, name)) and not isinstance(getattr(streamrank, name), type)}
    assert public == covered


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_valid_base_input_is_accepted(fn):
    """The inputs the bad cases below are derived from are themselves valid."""
    assert fn.call(Y, S) is not None
    assert fn.call(Y, S, sample_weight=W) is not None
    assert fn.call(Y.tolist(), S.tolist(), sample_weight=W.tolist()) is not None


# --------------------------------------------------------------------------- values
NON_FINITE = [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "inf")]


@pytest.mark.parametrize("bad, got", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_finite_score_is_rejected(fn, bad, got):
    with pytest.raises(ValueError, match=message(fn.score, fn.name, got)):
        fn.call(Y, with_value(S, 3, bad))


@pytest.mark.parametrize("bad, got", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_finite_label_is_rejected(fn, bad, got):
    with pytest.raises(ValueError, match=message(fn.label, fn.name, got)):
        fn.call(with_value(Y, 2, bad), S)


@pytest.mark.parametrize("bad, got", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_finite_weight_is_rejected(fn, bad, got):
    with pytest.raises(ValueError, match=message("sample_weight", fn.name, got)):
        fn.call(Y, S, sample_weight=with_value(W, 4, bad))


@pytest.mark.parametrize("bad", [-2.0, -1e-300], ids=["-2", "tiny-negative"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_negative_weight_is_rejected(fn, bad):
    with pytest.raises(ValueError, match=message("sample_weight", fn.name, "-")):
        fn.call(Y, S, sample_weight=with_value(W, 1, bad))


def _comparable(result):
    if isinstance(result, tuple):    # the curves: exactly the arrays of the dropped rows
        return _SameArrays(result)
    if isinstance(result, PairCounts):
        d = result.as_dict()
        d.pop("n")  # n reports every row given, zero weights included
        return pytest.approx(d, rel=1e-12)
    return pytest.approx(result, rel=1e-12)


class _SameArrays:
    def __init__(self, arrays):
        self.arrays = arrays

    def __eq__(self, other):
        return len(other) == len(self.arrays) and all(
            np.array_equal(a, b) for a, b in zip(other, self.arrays))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_zero_weights_are_accepted_and_equal_dropped_rows(fn):
    got = fn.call(Y, S, sample_weight=with_value(W, 5, 0.0))
    dropped = fn.call(Y[:5], S[:5], sample_weight=W[:5])
    if isinstance(got, PairCounts):
        got = got.as_dict()
        got.pop("n")
    assert got == _comparable(dropped)


# --------------------------------------------------------------------------- lengths, shapes
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_mismatched_lengths_are_rejected(fn):
    either = f"({fn.label}|{fn.score})"
    with pytest.raises(ValueError, match=message(either, fn.name, "5")):
        fn.call(Y, S[:5])


@pytest.mark.parametrize("length", [5, 7])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_weights_of_wrong_length_are_rejected(fn, length):
    with pytest.raises(ValueError, match=message("sample_weight", fn.name, str(length))):
        fn.call(Y, S, sample_weight=np.ones(length))


#: Functions that take scores of shape (n, 1), as scikit-learn's do.
COLUMN_SCORES = ("roc_auc_score", "roc_curve", "precision_recall_curve",
                 "average_precision_score")

SHAPES = {
    "column": lambda a: a.reshape(-1, 1),
    "row": lambda a: a.reshape(1, -1),
    "matrix": lambda a: a.reshape(2, -1),
    "scalar": lambda a: a[0],
}


#: Functions that take binary labels' scores as an (n, 1) column too (`as_score_column`).
SCORE_COLUMNS = ("roc_auc_score", "roc_auc_ci", "bootstrap_ci", "delong_test")


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_1d_scores_are_rejected(fn, shape):
    if fn.name in COLUMN_SCORES + SCORE_COLUMNS and shape == "column":   # as scikit-learn
        assert _comparable(fn.call(Y, SHAPES[shape](S))) == fn.call(Y, S)
        return
    with pytest.raises(ValueError, match=message(fn.score, fn.name)):
        fn.call(Y, SHAPES[shape](S))


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_1d_labels_are_rejected(fn, shape):
    with pytest.raises(ValueError, match=message(fn.label, fn.name)):
        fn.call(SHAPES[shape](Y), S)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_1d_weights_are_rejected(fn):
    with pytest.raises(ValueError, match=message("sample_weight", fn.name)):
        fn.call(Y, S, sample_weight=W.reshape(-1, 1))


@pytest.mark.parametrize("empty", [[], np.array([]), np.array([], dtype=int)],
                         ids=["list", "float-array", "int-array"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_empty_input_is_rejected(fn, empty):
    either = f"({fn.label}|{fn.score})"
    with pytest.raises(ValueError, match=message(either, fn.name)):
        fn.call(empty, empty)


# --------------------------------------------------------------------------- types
NON_NUMERIC = {
    "strings": lambda a: np.array([f"v{v}" for v in a]),
    "string-list": lambda a: [str(v) for v in a.tolist()],
    "objects": lambda a: np.array([object() for _ in a], dtype=object),
    "none": lambda a: [None] + a.tolist()[1:],
    "complex": lambda a: a.astype(complex) + 1j,
}


#: Functions whose labels are classes of any type (`check_binary_labels`).
CLASS_LABELS = ("roc_auc_score", "group_auc_score", "roc_auc_ci", "bootstrap_ci", "delong_test")
#: The curves: classes of any type too, but labels outside {0, 1} and {-1, 1} need
#: pos_label (average precision: pos_label=1 by default), scikit-learn's rule.
CURVE_LABELS = ("roc_curve", "precision_recall_curve", "average_precision_score")


@pytest.mark.parametrize("kind", list(NON_NUMERIC))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_numeric_labels_are_rejected(fn, kind):
    if fn.name in CLASS_LABELS and kind in ("strings", "string-list"):
        # class labels: strings are labels, the greater one positive (as scikit-learn)
        assert fn.call(NON_NUMERIC[kind](Y), S) == fn.call(Y, S)
        return
    if fn.name in CURVE_LABELS and kind in ("strings", "string-list"):
        with pytest.raises(ValueError, match=message("(y_true|pos_label)", fn.name)):
            fn.call(NON_NUMERIC[kind](Y), S)
        positive = "v1" if kind == "strings" else "1"
        assert _comparable(fn.call(Y, S)) == fn.call(NON_NUMERIC[kind](Y), S,
                                                     pos_label=positive)
        return
    with pytest.raises((TypeError, ValueError), match=message(fn.label, fn.name)):
        fn.call(NON_NUMERIC[kind](Y), S)


@pytest.mark.parametrize("kind", list(NON_NUMERIC))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_numeric_scores_are_rejected(fn, kind):
    with pytest.raises((TypeError, ValueError), match=message(fn.score, fn.name)):
        fn.call(Y, NON_NUMERIC[kind](S))


@pytest.mark.parametrize("kind", ["strings", "objects", "none"])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=IDS)
def test_non_numeric_weights_are_rejected(fn, kind):
    with pytest.raises((TypeError, ValueError), match=message("sample_weight", fn.name)):
        fn.call(Y, S, sample_weight=NON_NUMERIC[kind](W))


@pytest.mark.parametrize("fn", [f for f in FUNCTIONS
                                if f.name not in CLASS_LABELS + CURVE_LABELS],
                         ids=[i for i in IDS if i not in CLASS_LABELS + CURVE_LABELS])
def test_string_labels_raise_type_error(fn):
    """Labels of ordered quantities must be numbers (the class labels of `roc_auc_score`
    and `group_auc_score` may be strings: tests/batch/test_sklearn_conventions.py)."""
    with pytest.raises(TypeError, match=message(fn.label, fn.name)):
        fn.call(np.array(["neg", "pos", "neg", "pos", "pos", "neg"]), S)


# --------------------------------------------------------------------------- per-function options
@pytest.mark.parametrize("y", [[0, 1, 2, 0, 1, 2], [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]],
                         ids=["three-ints", "three-floats"])
def test_roc_auc_rejects_more_than_two_classes(y):
    with pytest.raises(ValueError, match=message("y_true", "roc_auc_score")):
        roc_auc_score(y, S)


@pytest.mark.parametrize("max_fpr", [0, 0.0, -0.1, 1.0000001, 2, np.nan, np.inf])
def test_roc_auc_rejects_max_fpr_outside_zero_one(max_fpr):
    with pytest.raises(ValueError, match=message("max_fpr", "roc_auc_score")):
        roc_auc_score(Y, S, max_fpr=max_fpr)


def test_roc_auc_rejects_non_numeric_max_fpr():
    with pytest.raises((TypeError, ValueError), match=message("max_fpr", "roc_auc_score")):
        roc_auc_score(Y, S, max_fpr="0.5")


@pytest.mark.parametrize("pos_label", [2, -1, 0.5])
def test_roc_auc_rejects_pos_label_not_among_the_labels(pos_label):
    with pytest.raises(ValueError, match=message("pos_label", "roc_auc_score")):
        roc_auc_score(Y, S, pos_label=pos_label)


@pytest.mark.parametrize("variant", ["d", "tau_b", "", None, 2])
def test_kendall_tau_rejects_unknown_variant(variant):
    with pytest.raises((ValueError, TypeError), match=message("variant", "kendall_tau")):
        kendall_tau(Y, S, variant=variant)


@pytest.mark.parametrize("weighting", ["impression", "pair", "", None, 1])
def test_group_auc_rejects_unknown_weighting(weighting):
    with pytest.raises((ValueError, TypeError), match=message("weighting", "group_auc_score")):
        group_auc_score(Y, S, GROUPS, weighting=weighting)


@pytest.mark.parametrize("groups", [GROUPS[:5], np.append(GROUPS, 3)], ids=["short", "long"])
def test_group_auc_rejects_groups_of_wrong_length(groups):
    with pytest.raises(ValueError, match=message("groups", "group_auc_score")):
        group_auc_score(Y, S, groups)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_group_auc_rejects_non_finite_group_ids(bad):
    with pytest.raises(ValueError, match=message("groups", "group_auc_score")):
        group_auc_score(Y, S, with_value(GROUPS, 2, bad))


def test_group_auc_rejects_non_1d_groups():
    with pytest.raises(ValueError, match=message("groups", "group_auc_score")):
        group_auc_score(Y, S, GROUPS.reshape(2, -1))


@pytest.mark.parametrize(
    "event_observed, exc, got",
    [
        (np.array([1, 0, 1, 1, 0]), ValueError, "5"),
        (np.array([1.0, np.nan, 1.0, 0.0, 1.0, 1.0]), ValueError, "nan"),
        (np.ones((6, 1)), ValueError, ""),
        (np.array(["y", "n", "y", "y", "n", "y"]), (TypeError, ValueError), ""),
        (np.array([2, 0, 1, 1, 0, 1]), ValueError, "2"),
        (np.array([1.0, 0.5, 1.0, 1.0, 0.0, 1.0]), ValueError, "0.5"),
        (np.array([1, -1, 1, 1, 0, 1]), ValueError, "-1"),
    ],
    ids=["wrong-length", "nan", "2-D", "strings", "two", "half", "minus-one"],
)
def test_concordance_index_rejects_bad_event_observed(event_observed, exc, got):
    with pytest.raises(exc, match=message("event_observed", "concordance_index", got)):
        concordance_index(Y + 1, S, event_observed)
