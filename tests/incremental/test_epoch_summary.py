"""`summarize_epochs`, `early_stopping` and `natural_key` (streamrank.epochs).

Every record of `summarize_epochs` is recounted from scratch: the pair counts and metrics of
each epoch with `pair_counts`, the churn as the pairs the two score vectors order strictly
opposite ways (the O(n^2) oracle on small runs), the best epoch and the early-stopping replay
by a second, differently written rule. Runs are tie-heavy (scores on a coarse grid), mix
epochs that move every score (a fresh ``step``) with epochs that move a few (the incremental
``step_partial``), and use fixed seeds.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from oracle import pair_counts_brute
from streamrank import EpochTracker, UndefinedMetricWarning, pair_counts
from streamrank.epochs import early_stopping, natural_key, summarize_epochs

FIELDS = ("concordant", "discordant", "tied_score")


# --------------------------------------------------------------------------- runs
def _run(seed, n, epochs, levels, weighted, integer=False):
    """``(y, w, [scores per epoch])``: grid scores (heavy ties); each epoch after the first
    moves every score, one to three scores, or none."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, n) if levels else rng.random(n).round(2)
    w = rng.integers(1, 8, n) / 4.0 if weighted else None

    def fresh():
        s = rng.integers(0, 6, n)
        return s if integer else s / 5.0

    scores = [fresh()]
    for _ in range(epochs - 1):
        kind = rng.integers(0, 4)
        if kind == 0:
            s = fresh()
        else:
            s = scores[-1].copy()
            if kind < 3:
                at = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
                s[at] = fresh()[at]
        scores.append(s)
    return y, w, scores


def _churn(old, new, w):
    """The pairs (weight) ordered strictly opposite ways by ``old`` and ``new``: with ``old``
    as the labels, the discordant pairs of ``new`` (a tie in either is no flip)."""
    return pair_counts(old, new, sample_weight=w).discordant


def _replay(values, patience):
    """Early stopping, written as a rule on epochs rather than a loop with a counter: an
    epoch improves when it beats every earlier value; training stops at the first epoch
    ``patience`` epochs after the last improvement (or after the start)."""
    finite = [v if not math.isnan(v) else -math.inf for v in values]
    improved = [e for e in range(1, len(values) + 1)
                if finite[e - 1] > max([-math.inf] + finite[:e - 1])]

    def last_improvement(e):
        return max([i for i in improved if i <= e], default=None)

    for e in range(1, len(values) + 1):
        if e - (last_improvement(e) or 0) >= patience:
            return e, last_improvement(e)
    return None, last_improvement(len(values))


def _close(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == pytest.approx(b, rel=1e-12, abs=1e-12)


def _check(report, y, w, scores, patience, names=None):
    levels = np.unique(y).size
    metric = "auc" if levels == 2 else "c_index"
    assert report["metric"] == metric and report["label_levels"] == levels
    assert report["items"] == len(y) and report["weighted"] == (w is not None)
    assert len(report["epochs"]) == len(scores)
    values = []
    for i, (record, s) in enumerate(zip(report["epochs"], scores)):
        ref = pair_counts(y, s, sample_weight=w)
        assert record["epoch"] == i + 1
        if names is not None:
            assert record["file"] == names[i]
        for f in FIELDS:
            assert _close(record[f], getattr(ref, f)), (i, f, record[f], getattr(ref, f))
        with warnings.catch_warnings():     # undefined (P = 0): NaN, as in the report
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            expected_metric = getattr(ref, metric)
            expected_ratio = ref.right_wrong_ratio
            expected_tau = ref.tau_b if metric == "c_index" else None
        assert _close(record[metric], expected_metric)
        assert _close(record["right_wrong"], expected_ratio)
        if metric == "c_index":
            assert _close(record["tau_b"], expected_tau)
        if i == 0:
            assert record["changed"] is None and record["churn"] is None
            assert record["churn_rate"] is None and record["d_" + metric] is None
        else:
            prev = scores[i - 1]
            assert record["changed"] == int(np.count_nonzero(prev != s))
            churn = _churn(prev, s, w)
            assert _close(record["churn"], churn)
            assert _close(record["churn_rate"], churn / ref.total)
            assert _close(record["d_" + metric],
                          expected_metric - report["epochs"][i - 1][metric])
        if w is None:   # exact: C + T/2 of each epoch, as a fraction of the same P
            values.append(Fraction(2 * ref.concordant + ref.tied_score) if ref.comparable
                          else math.nan)
        else:
            values.append(2 * ref.concordant + ref.tied_score if ref.comparable else math.nan)
    comparable = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    best = values.index(max(comparable)) + 1 if comparable else None
    assert report["best_epoch"] == best
    assert report["comparable_pairs"] == pair_counts(y, scores[-1], sample_weight=w).comparable
    if patience is None:
        assert (report["stop_epoch"], report["keep_epoch"]) == (None, None)
    else:
        assert (report["stop_epoch"], report["keep_epoch"]) == _replay(
            [float(v) for v in values], patience)


@pytest.fixture
def paths(monkeypatch):
    """Counts the epochs that take ``step`` and ``step_partial``."""
    calls = {"step": 0, "step_partial": 0}
    for name in calls:
        original = getattr(EpochTracker, name)

        def spy(self, *args, _name=name, _original=original):
            calls[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(EpochTracker, name, spy)
    return calls


# --------------------------------------------------------------------------- summarize_epochs
@pytest.mark.parametrize("levels", [2, 3, 5, 0])   # 0: continuous labels (> 8 levels)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_epoch_equals_a_recount(levels, weighted, seed, paths):
    y, w, scores = _run(seed, n=300, epochs=12, levels=levels, weighted=weighted)
    patience = 1 + seed
    names = [f"e{i}.csv" for i in range(len(scores))]
    report = summarize_epochs(y, scores, sample_weight=w, names=names, patience=patience)
    _check(report, y, w, scores, patience, names)
    # The run took both paths, so both are checked above.
    assert paths["step"] >= 1 and paths["step_partial"] >= 1


@pytest.mark.parametrize("seed", range(4))
def test_small_runs_against_the_pair_loop(seed):
    """n = 12: the O(n^2) oracle for every count, the churn by looking at every pair."""
    rng = np.random.default_rng(100 + seed)
    n = 12
    y = rng.integers(0, 3 if seed % 2 else 2, n)
    w = None if seed < 2 else rng.integers(1, 5, n) / 2.0
    scores = [rng.integers(0, 3, n) / 2.0 for _ in range(5)]
    report = summarize_epochs(y, scores, sample_weight=w)
    for i, (record, s) in enumerate(zip(report["epochs"], scores)):
        ref = pair_counts_brute(y, s, w)
        assert (record["concordant"], record["discordant"], record["tied_score"]) == \
            pytest.approx((float(ref.C), float(ref.D), float(ref.T)), rel=1e-12)
        if i:
            old = scores[i - 1]
            flips = sum((1 if w is None else w[a] * w[b])
                        for a in range(n) for b in range(a + 1, n)
                        if (old[a] - old[b]) * (s[a] - s[b]) < 0)
            assert record["churn"] == pytest.approx(flips, rel=1e-12)


def test_integer_scores_stay_exact_beyond_float64():
    """Integer scores are compared as integers, also on the incremental path."""
    big = 2 ** 60
    n = 200
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, n)
    s0 = big + rng.integers(0, 4, n)           # float64 would tie them all
    s1 = s0.copy()
    s1[7] += 1                                  # one move of 1: step_partial
    s2 = s1.astype(np.float64)                  # floats: a fresh step, ties as float64 does
    report = summarize_epochs(y, [s0, s1, s2])
    for record, s in zip(report["epochs"], [s0, s1, s2]):
        ref = pair_counts(y, s)
        assert [record[f] for f in FIELDS] == [getattr(ref, f) for f in FIELDS]
    assert report["epochs"][0]["tied_score"] < pair_counts(y, s2).tied_score
    assert report["epochs"][1]["changed"] == 1
    assert report["epochs"][1]["churn"] == _churn(s0, s1, None)


def test_one_label_level_has_no_metric_and_no_best_epoch():
    y = [1, 1, 1, 1]
    report = summarize_epochs(y, [[0.1, 0.2, 0.2, 0.3], [0.3, 0.2, 0.2, 0.1]], patience=1)
    assert report["metric"] == "c_index" and report["comparable_pairs"] == 0
    assert all(math.isnan(r["c_index"]) for r in report["epochs"])
    assert report["best_epoch"] is None
    assert (report["stop_epoch"], report["keep_epoch"]) == (1, None)
    assert report["epochs"][1]["churn"] == 5          # every ordered pair reversed


def test_a_tied_best_epoch_is_the_first_one():
    y = [0, 1, 0, 1]
    same = [0.1, 0.9, 0.2, 0.8]
    other = [0.2, 0.8, 0.1, 0.9]                       # another order, the same AUC 1.0
    report = summarize_epochs(y, [[0.5, 0.5, 0.5, 0.5], same, other, same], patience=2)
    assert [r["auc"] for r in report["epochs"]] == [0.5, 1.0, 1.0, 1.0]
    assert report["best_epoch"] == 2
    assert (report["stop_epoch"], report["keep_epoch"]) == (4, 2)
    assert report["epochs"][2]["churn"] == 2 and report["epochs"][3]["churn"] == 2


def test_any_iterable_and_the_progress_wrapper():
    y = [0, 1, 1, 0]
    vectors = [[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]
    seen = []

    def progress(it):
        for item in it:
            seen.append(1)
            yield item

    report = summarize_epochs(y, (v for v in vectors), progress=progress)
    assert len(seen) == 2 and [r["auc"] for r in report["epochs"]] == [0.5, 0.5]
    assert report == summarize_epochs(y, vectors)


def test_a_few_changed_scores_take_the_incremental_step(paths):
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 400)
    s0 = rng.random(400).round(2)
    s1 = s0.copy()
    s1[[3, 17]] = [0.5, 0.01]            # 2 of 400 changed: incremental
    s2 = rng.random(400).round(2)        # everything changed: a fresh count
    report = summarize_epochs(y, [s0, s1, s1, s2])
    assert paths == {"step": 2, "step_partial": 2}   # the unchanged epoch: 0 moves
    _check(report, y, None, [s0, s1, s1, s2], None)
    assert report["epochs"][2]["churn"] == 0 and report["epochs"][2]["changed"] == 0


@pytest.mark.parametrize("kwargs, epochs, message", [
    ({}, [], "The 'epoch_scores' parameter of summarize_epochs must be at least one score "
             "vector. Got no epoch at all instead."),
    ({}, [[0.1, 0.2, 0.3], [0.1, 0.2]], "The 'epoch_scores[1]' parameter of "
     "summarize_epochs must be of length 3 (len(y_true)). Got length 2 instead."),
    ({}, [[0.1, 0.2, 0.3], [0.1, float("nan"), 0.3]], "The 'epoch_scores[1]' parameter of "
     "summarize_epochs must be finite numbers. Got "),
    ({"names": ["a"]}, [[0.1, 0.2, 0.3]] * 2, "The 'names' parameter of summarize_epochs "
     "must be one name per epoch (2). Got 1 names instead."),
    ({"sample_weight": [1.0, 0.0, 1.0]}, [[0.1, 0.2, 0.3]], "The 'sample_weight' parameter "
     "of summarize_epochs must be positive"),
    ({"patience": 0}, [[0.1, 0.2, 0.3]], "The 'patience' parameter of summarize_epochs must "
     "be an int >= 1. Got 0 instead."),
])
def test_bad_input_names_the_parameter(kwargs, epochs, message):
    with pytest.raises(ValueError) as info:
        summarize_epochs([0, 1, 1], epochs, **kwargs)
    assert str(info.value).startswith(message), str(info.value)


def test_names_of_a_generator_are_checked_against_the_epochs_it_gave():
    gen = ([0.1, 0.2, 0.3] for _ in range(3))
    with pytest.raises(ValueError, match="'names' parameter of summarize_epochs must be one "
                                         "name per epoch. Got 2 names for more epochs"):
        summarize_epochs([0, 1, 1], gen, names=["a", "b"])
    with pytest.raises(ValueError, match=r"one name per epoch \(1\). Got 2 names"):
        summarize_epochs([0, 1, 1], ([0.1, 0.2, 0.3] for _ in range(1)), names=["a", "b"])


def test_bad_patience_is_refused_before_any_epoch_is_read():
    read = []

    def epochs():
        read.append(1)
        yield [0.1, 0.2, 0.3]

    with pytest.raises(ValueError, match="'patience' parameter of summarize_epochs"):
        summarize_epochs([0, 1, 1], epochs(), patience=1.5)
    assert read == []


def test_bad_labels_name_summarize_epochs():
    with pytest.raises(ValueError, match="The 'y_true' parameter of summarize_epochs must be "
                                         "finite numbers. Got .*nan.* at index 0 instead"):
        summarize_epochs([float("nan"), 1], [[0.1, 0.2]])


# --------------------------------------------------------------------------- early_stopping
@pytest.mark.parametrize("values, patience, expected", [
    ([0.70, 0.75, 0.74, 0.76, 0.75, 0.75], 2, (6, 4)),
    ([0.70, 0.75, 0.76], 2, (None, 3)),
    ([0.5, 0.5], 1, (2, 1)),                          # patience 1: the first non-gain stops
    ([0.5, 0.6, 0.7], 1, (None, 3)),
    ([0.5, 0.4], 1, (2, 1)),
    ([1, 3, 3, 3, 2], 3, (5, 2)),                     # a tie with the best is no gain ...
    ([1, 3, 3, 4, 2], 3, (None, 4)),                  # ... and a later gain resets the wait
    ([3, 3, 3], 5, (None, 1)),                        # the first of tied bests is kept
    ([float("nan"), 0.5, 0.5], 2, (None, 2)),
    ([0.5, float("nan"), 0.5], 2, (3, 1)),            # NaN only adds to the wait
    ([float("nan"), 1.0, float("nan"), float("nan")], 2, (4, 2)),
    ([float("nan")] * 3, 5, (None, None)),
    ([float("nan")] * 3, 2, (2, None)),               # stops without any best epoch
    ([-math.inf, -math.inf], 5, (None, None)),        # -inf never improves either
    ([], 1, (None, None)),
    ([2 ** 60 + 1, 2 ** 60 + 2], 1, (None, 2)),       # ints compared exactly, not as floats
    ([np.float64(0.2), np.int64(1)], 1, (None, 2)),
])
def test_early_stopping_cases(values, patience, expected):
    assert early_stopping(values, patience) == expected
    assert early_stopping(iter(values), patience) == expected
    floats = [float(v) for v in values]
    if all(math.isnan(f) or f == v for f, v in zip(floats, values)):   # (not 2**60 + 1)
        assert _replay(floats, patience) == expected


def test_early_stopping_agrees_with_the_rule_on_random_plateaus():
    rng = np.random.default_rng(3)
    for _ in range(300):
        values = rng.integers(0, 4, int(rng.integers(0, 12))).astype(float)
        values[rng.random(values.size) < 0.15] = np.nan
        patience = int(rng.integers(1, 5))
        assert early_stopping(values.tolist(), patience) == _replay(values.tolist(), patience)


@pytest.mark.parametrize("patience", [0, -1, 1.0, 1.5, True, "2", None, np.float64(2)])
def test_bad_patience(patience):
    with pytest.raises(ValueError) as info:
        early_stopping([0.5, 0.6], patience)
    assert str(info.value).startswith("The 'patience' parameter of early_stopping must be "
                                      "an int >= 1. Got ")


def test_patience_accepts_numpy_ints():
    assert early_stopping([0.5, 0.5, 0.5], np.int64(2)) == (3, 1)


@pytest.mark.parametrize("values, got", [
    ([0.5, "0.6"], "'0.6' at index 1"),
    ([None], "None at index 0"),
    ([0.5, True], "True at index 1"),
    ([1j], "1j at index 0"),
])
def test_values_must_be_real_numbers(values, got):
    with pytest.raises(TypeError) as info:
        early_stopping(values, 1)
    assert str(info.value) == ("The 'values' parameter of early_stopping must be real "
                               f"numbers (the metric of each epoch). Got {got} instead.")


# --------------------------------------------------------------------------- natural_key
def test_natural_key_orders_numbers_as_numbers():
    names = ["b/e10.csv", "a/e2.csv", "b/e9.csv", "b/E9.csv", "b/e09.csv", "b/e1.csv"]
    assert sorted(names, key=natural_key) == ["a/e2.csv", "b/e1.csv", "b/E9.csv", "b/e09.csv",
                                              "b/e9.csv", "b/e10.csv"]
    # Equal parts (case, leading zeros): the full text decides, whatever the input order.
    for perm in (["e9", "E9", "e09"], ["e09", "e9", "E9"], ["E9", "e09", "e9"]):
        assert sorted(perm, key=natural_key) == ["E9", "e09", "e9"]
    assert natural_key("x") != natural_key("X")


@pytest.mark.parametrize("names, expected", [
    (["ep2", "ep"], ["ep", "ep2"]),                   # one name's text is a prefix
    (["7", "a", "10", ""], ["", "7", "10", "a"]),     # digits first, or no text at all
    (["x1y", "x1", "x"], ["x", "x1", "x1y"]),
    (["2", "2a", "02"], ["02", "2", "2a"]),
])
def test_natural_key_compares_any_two_names(names, expected):
    assert sorted(names, key=natural_key) == expected
    assert sorted(reversed(names), key=natural_key) == expected
