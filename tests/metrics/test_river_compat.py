"""Code written for River's metrics runs unchanged with streamrank's.

* River's constructor arguments: every streamrank metric with a River counterpart takes
  River's arguments by the same names, positions and defaults; ``clone()`` keeps them (it
  rebuilds from ``_get_params``); bad values are refused where River refuses them.
  ``ROCAUC(n_thresholds=...)`` is accepted and changes nothing (the AUC is exact).
* The tau-style metrics (`KendallTau`, `GoodmanKruskalGamma`, `SomersD`,
  `ConcordanceIndex`, `PairwiseAccuracy`, `RightWrongRatio`) take a binary classifier's
  output (the probability of ``pos_val``) and compose with classification metrics:
  ``ROCAUC() + KendallTau()`` is a ``river.metrics.Metrics`` that
  ``progressive_val_score`` runs with a classifier, each metric equal to the batch
  function of the labels and positive-class probabilities seen. Their regression
  behaviour is unchanged.
* ``get()`` never raises (nor warns), whatever the metric has seen.
"""

from __future__ import annotations

import copy
import inspect
import math
import pickle
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from paths import DATA
from river import datasets, evaluate, forest, linear_model, preprocessing, utils
from river import metrics as river_metrics
from sklearn.metrics import roc_auc_score

import streamrank
from streamrank import metrics as sm
from streamrank.metrics._base import RankMetrics

#: the streamrank metrics with a River counterpart of the same name
PAIRS = [(name, getattr(sm, name), getattr(river_metrics, name))
         for name in sm.__all__ if hasattr(river_metrics, name)]

TAU_STYLE = [sm.KendallTau, sm.GoodmanKruskalGamma, sm.SomersD, sm.ConcordanceIndex,
             sm.PairwiseAccuracy, sm.RightWrongRatio]


def _tau_cases():
    """(id, make, batch reference of (y, s, sample_weight)) for every tau-style metric."""

    def counts(prop):
        return lambda y, s, w=None: getattr(streamrank.pair_counts(y, s, sample_weight=w),
                                            prop)

    return [
        ("KendallTau", sm.KendallTau,
         lambda y, s, w=None: streamrank.kendall_tau(y, s, sample_weight=w)),
        ("KendallTau-a", lambda **kw: sm.KendallTau("a", **kw),
         lambda y, s, w=None: streamrank.kendall_tau(y, s, variant="a", sample_weight=w)),
        ("KendallTau-c", lambda **kw: sm.KendallTau(variant="c", **kw),
         lambda y, s, w=None: streamrank.kendall_tau(y, s, variant="c", sample_weight=w)),
        ("GoodmanKruskalGamma", sm.GoodmanKruskalGamma,
         lambda y, s, w=None: streamrank.goodman_kruskal_gamma(y, s, sample_weight=w)),
        ("SomersD", sm.SomersD,
         lambda y, s, w=None: streamrank.somers_d(y, s, sample_weight=w)),
        ("ConcordanceIndex", sm.ConcordanceIndex,
         lambda y, s, w=None: streamrank.concordance_index(y, s, sample_weight=w)),
        ("PairwiseAccuracy", sm.PairwiseAccuracy, counts("pairwise_accuracy")),
        ("RightWrongRatio", sm.RightWrongRatio, counts("right_wrong_ratio")),
    ]


TAU_CASES = _tau_cases()


def _params(metric) -> dict:
    return metric._get_params()


def _tie_heavy(n, seed, weights=False):
    """Labels (40% True), probabilities from eleven values (heavy ties), and integer
    weights (exact counts) or None."""
    rng = random.Random(seed)
    y = [rng.random() < 0.4 for _ in range(n)]
    p = [round(rng.random(), 1) for _ in range(n)]
    w = [rng.choice([1, 2, 3]) for _ in range(n)] if weights else None
    return y, p, w


def _exact_auc(y, p, w=None) -> Fraction:
    """The AUC as a fraction, by the O(n^2) pair loop: ties count one half."""
    w = w or [1] * len(y)
    num, den = Fraction(0), Fraction(0)
    for yi, pi, wi in zip(y, p, w):
        if not yi:
            continue
        for yj, pj, wj in zip(y, p, w):
            if yj:
                continue
            den += wi * wj
            num += wi * wj * (1 if pi > pj else Fraction(1, 2) if pi == pj else 0)
    return num / den


# --------------------------------------------------------------------------- constructors
def test_the_pairs_with_a_river_counterpart():
    assert [name for name, *_ in PAIRS] == ["ROCAUC", "RollingROCAUC"]


@pytest.mark.parametrize("name, ours, rivers", PAIRS, ids=[p[0] for p in PAIRS])
def test_river_signature_is_ours_by_name_position_and_default(name, ours, rivers):
    river_params = list(inspect.signature(rivers).parameters.values())
    our_params = list(inspect.signature(ours).parameters.values())
    assert [(p.name, p.kind, p.default) for p in our_params[:len(river_params)]] == \
        [(p.name, p.kind, p.default) for p in river_params]
    # and ours has nothing more than River's
    assert len(our_params) == len(river_params)


VALID_ARGS = {
    "ROCAUC": [((), {}), ((20,), {}), ((20, False), {}), ((2,), {"pos_val": 0}),
               ((), {"n_thresholds": 1000, "pos_val": "yes"}), ((np.int64(50),), {}),
               ((10 ** 9,), {})],
    "RollingROCAUC": [((), {}), ((5,), {}), ((5, False), {}), ((1,), {"pos_val": 1}),
                      ((), {"window_size": 3, "pos_val": 0}), ((np.int64(7),), {})],
}


@pytest.mark.parametrize("name, args, kwargs", [
    (name, args, kwargs) for name, cases in VALID_ARGS.items() for args, kwargs in cases])
def test_river_arguments_accepted_by_name_and_position_and_kept_by_clone(name, args,
                                                                         kwargs):
    ours = getattr(sm, name)(*args, **kwargs)
    if not (name == "ROCAUC" and args and args[0] == 10 ** 9):  # River builds 10^9 bins
        rivers = getattr(river_metrics, name)(*args, **kwargs)
        assert _params(ours) == _params(rivers)
    bound = inspect.signature(type(ours)).bind(*args, **kwargs)
    bound.apply_defaults()
    assert _params(ours) == dict(bound.arguments)
    for key, value in bound.arguments.items():       # stored under their own names
        assert getattr(ours, key) == value
    # clone rebuilds from the stored arguments: same parameters, no events
    pos = ours.pos_val
    ours.update(pos, 0.9)
    ours.update("no" if isinstance(pos, str) else not pos, 0.1)
    fresh = ours.clone()
    assert type(fresh) is type(ours) and _params(fresh) == _params(ours)
    full = getattr(ours, "window_size", 2) >= 2       # a window of 1 holds one class
    assert fresh.get() == 0.0 and ours.get() == (1.0 if full else 0.0)
    # so do deepcopy and pickle
    for twin in (copy.deepcopy(ours), pickle.loads(pickle.dumps(ours))):
        assert _params(twin) == _params(ours) and twin.get() == ours.get()


def test_n_thresholds_is_kept_as_an_int():
    m = sm.ROCAUC(np.int64(20), pos_val=False)
    assert m.n_thresholds == 20 and type(m.n_thresholds) is int
    assert m.clone()._get_params() == {"n_thresholds": 20, "pos_val": False}
    assert sm.ROCAUC().n_thresholds == river_metrics.ROCAUC().n_thresholds == 10


#: (argument, value, River's exception, ours): every value River refuses at construction.
BAD_ARGS = {
    "ROCAUC": [
        ("n_thresholds", 1, ZeroDivisionError, ValueError),
        ("n_thresholds", 0, IndexError, ValueError),
        ("n_thresholds", -3, IndexError, ValueError),
        ("n_thresholds", 2.0, TypeError, TypeError),
        ("n_thresholds", 2.5, TypeError, TypeError),
        ("n_thresholds", "10", TypeError, TypeError),
        ("n_thresholds", None, TypeError, TypeError),
        ("n_thresholds", True, ZeroDivisionError, TypeError),
        ("n_thresholds", False, IndexError, TypeError),
    ],
    "RollingROCAUC": [
        ("window_size", -1, OverflowError, ValueError),
        ("window_size", 2.0, TypeError, TypeError),
        ("window_size", 2.5, TypeError, TypeError),
        ("window_size", "10", TypeError, TypeError),
        ("window_size", None, TypeError, TypeError),
        ("window_size", 2 ** 70, OverflowError, OverflowError),
    ],
}


@pytest.mark.parametrize("name, arg, value, river_exc, our_exc", [
    (name, *case) for name, cases in BAD_ARGS.items() for case in cases])
def test_bad_arguments_are_refused_where_river_refuses_them(name, arg, value, river_exc,
                                                            our_exc):
    with pytest.raises(river_exc):
        getattr(river_metrics, name)(**{arg: value})
    with pytest.raises(our_exc) as info:
        getattr(sm, name)(**{arg: value})
    if our_exc is not OverflowError:
        assert f"The '{arg}' parameter of {name} must be" in str(info.value)
        assert repr(value) in str(info.value)
    with pytest.raises(our_exc):                    # by position too
        getattr(sm, name)(value)


@pytest.mark.parametrize("value, match", [
    (1, "must be an int >= 2. Got 1 instead"),
    (2.0, "must be an int >= 2. Got 2.0 instead"),
])
def test_n_thresholds_message(value, match):
    with pytest.raises((TypeError, ValueError), match=match):
        sm.ROCAUC(value)


def test_the_stricter_window_sizes():
    """River takes ``window_size=0`` (and panics at the first update) and a bool (as 1
    or 0); ours refuses both at construction."""
    with pytest.raises(ValueError, match="must be a positive int. Got 0"):
        sm.RollingROCAUC(0)
    with pytest.raises(TypeError, match="must be a positive int. Got True"):
        sm.RollingROCAUC(True)


@pytest.mark.parametrize("make, params", [
    (lambda: sm.KendallTau("c", "spam"), {"variant": "c", "pos_val": "spam"}),
    (lambda: sm.SomersD(pos_val=False), {"pos_val": False}),
    (lambda: sm.ConcordanceIndex(True, 0), {"censoring": True, "pos_val": 0}),
    (sm.GoodmanKruskalGamma, {"pos_val": True}),
    (sm.PairwiseAccuracy, {"pos_val": True}),
    (lambda: sm.RightWrongRatio(1), {"pos_val": 1}),
])
def test_tau_style_arguments_kept_by_clone_and_pickle(make, params):
    m = make()
    assert _params(m) == params
    for twin in (m.clone(), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(twin) is type(m) and _params(twin) == params


def test_metrics_pickled_before_the_new_arguments_read_the_defaults():
    """The committed v1 fixtures predate ``n_thresholds`` and the tau metrics'
    ``pos_val``: they load with River's defaults, and clone."""
    roc = pickle.loads((DATA / "formats" / "rocauc_v1.pkl").read_bytes())
    tau = pickle.loads((DATA / "formats" / "kendalltau_v1.pkl").read_bytes())
    assert roc.n_thresholds == 10 and _params(roc.clone()) == {"n_thresholds": 10,
                                                                "pos_val": True}
    assert tau.pos_val is True and _params(tau.clone()) == {"variant": "b", "pos_val": True}


# --------------------------------------------------------------------------- n_thresholds
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [False, True], ids=["unweighted", "weighted"])
def test_n_thresholds_changes_nothing(seed, weights):
    """Heavy ties (eleven distinct scores): the AUC is the exact one, equal to sklearn's,
    for any ``n_thresholds``, fed as numbers or as River's dicts."""
    y, p, w = _tie_heavy(400, seed, weights)
    exact = _exact_auc(y, p, w)
    ref = roc_auc_score(y, p, sample_weight=w)
    values = []
    for n_thresholds in (2, 3, 10, 20, 1000):
        for as_dict in (False, True):
            m = sm.ROCAUC(n_thresholds)
            for i, (yi, pi) in enumerate(zip(y, p)):
                yp = {False: 1 - pi, True: pi} if as_dict else pi
                m.update(yi, yp, 1 if w is None else w[i])
            values.append(m.get())
    assert values == [float(exact)] * len(values)            # exact, every time
    assert values[0] == pytest.approx(ref, rel=0, abs=1e-15)  # sklearn, to rounding
    # River's binned ROCAUC does depend on it
    rivers = set()
    for n_thresholds in (3, 10):
        r = river_metrics.ROCAUC(n_thresholds)
        for yi, pi in zip(y, p):
            r.update(yi, pi)
        rivers.add(round(r.get(), 12))
    assert len(rivers) == 2


def test_n_thresholds_with_pos_val_and_revert():
    y, p, _ = _tie_heavy(200, 7)
    a, b = sm.ROCAUC(2, False), sm.ROCAUC(pos_val=False)
    for yi, pi in zip(y, p):
        a.update(yi, {False: 1 - pi, True: pi})
        b.update(yi, {False: 1 - pi, True: pi})
    for yi, pi in list(zip(y, p))[:50]:
        a.revert(yi, {False: 1 - pi, True: pi})
        b.revert(yi, {False: 1 - pi, True: pi})
    want = roc_auc_score([not v for v in y[50:]], [1 - v for v in p[50:]])
    assert a.get() == b.get() == pytest.approx(want, abs=1e-15)


# --------------------------------------------------------------------------- classifier output
@pytest.fixture(scope="module")
def phishing_run():
    """progressive_val_score's loop with ROCAUC() + KendallTau() and a logistic
    regression on Phishing, and the predictions it made, read in the same loop
    (``iter_progressive_val_score(yield_predictions=True)``, one step per event)."""
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    metric = sm.ROCAUC() + sm.KendallTau()
    labels = [y for _, y in datasets.Phishing()]
    preds = [state["Prediction"] for state in evaluate.iter_progressive_val_score(
        datasets.Phishing(), model, metric, step=1, yield_predictions=True)]
    return metric, labels, preds


def test_rocauc_plus_kendall_tau_is_a_river_metrics():
    metric = sm.ROCAUC() + sm.KendallTau()
    assert type(metric) is river_metrics.base.Metrics
    assert [type(m) for m in metric] == [sm.ROCAUC, sm.KendallTau]
    model = linear_model.LogisticRegression()
    assert metric.works_with(model) and metric.requires_labels is False
    assert type(metric.clone()) is river_metrics.base.Metrics


def test_progressive_val_score_rocauc_plus_kendall_tau(phishing_run):
    metric, labels, preds = phishing_run
    assert len(preds) == len(labels) == 1250
    assert all(isinstance(p, dict) and set(p) == {False, True} for p in preds)
    probas = [p[True] for p in preds]
    roc, tau = metric
    assert tau.get() == streamrank.kendall_tau(labels, probas)          # exactly
    assert tau.get() == pytest.approx(scipy.stats.kendalltau(labels, probas).statistic,
                                      abs=1e-12)
    assert roc.get() == streamrank.roc_auc_score(labels, probas)
    assert 0.5 < tau.get() < 1
    # the plain progressive_val_score on a fresh model reports the same
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    again = sm.ROCAUC() + sm.KendallTau()
    evaluate.progressive_val_score(datasets.Phishing(), model, again)
    assert again.get() == metric.get()
    assert repr(again).splitlines()[1].startswith("KendallTau: 0.")


@pytest.mark.parametrize("name, make, ref", TAU_CASES, ids=[c[0] for c in TAU_CASES])
def test_each_tau_style_metric_on_classifier_output(phishing_run, name, make, ref):
    """In progressive_val_score next to ROCAUC, and alone (``requires_labels`` is False,
    so River asks the classifier for probabilities): the batch function of the labels
    and the positive-class probabilities."""
    _, labels, preds = phishing_run
    probas = [p[True] for p in preds]
    want = ref(labels, probas)
    both = sm.ROCAUC() + make()
    evaluate.progressive_val_score(
        datasets.Phishing(), preprocessing.StandardScaler() | linear_model.LogisticRegression(),
        both)
    alone = make()
    evaluate.progressive_val_score(
        datasets.Phishing(), preprocessing.StandardScaler() | linear_model.LogisticRegression(),
        alone)
    assert both[1].get() == alone.get() == want
    assert math.isfinite(want) and want != 0.0


@pytest.mark.parametrize("name, make, ref", TAU_CASES, ids=[c[0] for c in TAU_CASES])
@pytest.mark.parametrize("seed", range(3))
def test_tau_style_metric_on_tie_heavy_probabilities(name, make, ref, seed):
    """Probability dicts with heavy ties and integer weights, updated and reverted:
    the batch function of (labels, p(pos_val)) on the events held; the same with
    ``pos_val=False`` (class and probability of False) and with string classes."""
    y, p, w = _tie_heavy(300, seed, weights=True)
    m = make()
    for yi, pi, wi in zip(y, p, w):
        m.update(yi, {False: 1 - pi, True: pi}, wi)
    for yi, pi, wi in list(zip(y, p, w))[::7]:
        m.revert(yi, {True: pi, False: 1 - pi}, wi)
    keep = [i for i in range(len(y)) if i % 7]
    ys, ps, ws = [y[i] for i in keep], [p[i] for i in keep], [w[i] for i in keep]
    assert m.get() == ref(ys, ps, ws)          # integer weights: the same exact counts

    neg = make(pos_val=False)
    for yi, pi, wi in zip(ys, ps, ws):
        neg.update(yi, {False: 1 - pi, True: pi}, wi)
    want = ref([not v for v in ys], [1 - v for v in ps], ws)
    assert neg.get() == pytest.approx(want, rel=1e-12, abs=1e-12)

    words = make(pos_val="spam")
    for yi, pi, wi in zip(ys, ps, ws):
        words.update("spam" if yi else "ham", {"ham": 1 - pi, "spam": pi}, wi)
    assert words.get() == pytest.approx(ref(ys, ps, ws), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name, make, ref", TAU_CASES, ids=[c[0] for c in TAU_CASES])
def test_tau_style_metric_on_predicted_labels(name, make, ref):
    """A classifier's predicted class (``predict_one``): bools read as 0 / 1, string
    classes as 1 for ``pos_val``; the batch function of (labels, predicted labels)."""
    rng = random.Random(5)
    y = [rng.random() < 0.5 for _ in range(200)]
    yhat = [v if rng.random() < 0.8 else not v for v in y]
    want = ref(y, yhat)
    flags, words = make(), make(pos_val="spam")
    for a, b in zip(y, yhat):
        flags.update(a, b)
        words.update("spam" if a else "ham", "spam" if b else "ham")
    assert flags.get() == pytest.approx(want, abs=1e-12)
    assert words.get() == pytest.approx(want, abs=1e-12)


def test_missing_positive_class_scores_zero_as_rocauc():
    tau, roc = sm.KendallTau(), sm.ROCAUC()
    for y, p in [(True, {True: 0.9}), (False, {False: 1.0}), (True, {False: 0.4, True: 0.6})]:
        tau.update(y, p)
        roc.update(y, p)
    assert roc.get() == 1.0 and tau.get() == pytest.approx(
        streamrank.kendall_tau([1, 0, 1], [0.9, 0.0, 0.6]))
    assert tau._held == {(1, 0.9, 1): 1, (0, 0.0, 1): 1, (1, 0.6, 1): 1}


def test_censored_concordance_index_reads_the_probability():
    m = sm.ConcordanceIndex(censoring=True)
    for t, e, p in [(1, True, 0.1), (2, False, 0.3), (3, True, 0.2), (4, True, 0.4)]:
        m.update((t, e), {False: 1 - p, True: p})
    ref = sm.ConcordanceIndex(censoring=True)
    for t, e, p in [(1, True, 0.1), (2, False, 0.3), (3, True, 0.2), (4, True, 0.4)]:
        ref.update((t, e), p)
    assert m.get() == ref.get() == 1.0


# --------------------------------------------------------------------------- composition
def test_composition_rules():
    tau = sm.KendallTau()
    for combo in (tau + sm.ROCAUC(), sm.ROCAUC() + tau, sm.RollingROCAUC() + tau,
                  sm.GroupAUC() + tau, tau + river_metrics.Accuracy(),
                  tau + river_metrics.MAE(), river_metrics.MAE() + tau,
                  sm.ROCAUC() + tau + river_metrics.Accuracy() + sm.SomersD(),
                  tau + sm.ROCAUC() + river_metrics.Accuracy()):
        assert isinstance(combo, river_metrics.base.Metrics)
    assert isinstance(tau + river_metrics.MAE(), RankMetrics)
    refused = [
        lambda: sm.ROCAUC() + river_metrics.MAE(),
        lambda: sm.ROCAUC() + sm.KendallTau() + river_metrics.MAE(),
        lambda: sm.KendallTau() + river_metrics.MAE() + sm.ROCAUC(),
        lambda: sm.KendallTau() + sm.ROCAUC() + river_metrics.MAE(),
        lambda: sm.KendallTau() + utils.Rolling(river_metrics.MAE, window_size=3),
        lambda: sm.KendallTau() + 1,
        # River's own classification metrics take only their kind on their right
        lambda: river_metrics.Accuracy() + sm.KendallTau(),
    ]
    for make in refused:
        with pytest.raises(ValueError, match="not compatible"):
            make()


def test_tau_plus_classification_metric_with_a_classifier():
    """KendallTau() + Accuracy(): River's evaluation asks for probabilities (one member
    does not require labels); Accuracy gets the most probable class, as in River's
    Metrics."""
    stream = list(datasets.Phishing())[:400]
    combo = sm.KendallTau() + river_metrics.Accuracy()
    evaluate.progressive_val_score(stream, linear_model.LogisticRegression(), combo)
    acc = river_metrics.Accuracy()
    evaluate.progressive_val_score(stream, linear_model.LogisticRegression(), acc)
    model, labels, probas = linear_model.LogisticRegression(), [], []
    for x, y in stream:
        probas.append(model.predict_proba_one(x)[True])
        labels.append(y)
        model.learn_one(x, y)
    assert combo[1].get() == acc.get()
    assert combo[0].get() == streamrank.kendall_tau(labels, probas)
    combo.revert(labels[-1], {False: 1 - probas[-1], True: probas[-1]})
    assert combo[0].get() == streamrank.kendall_tau(labels[:-1], probas[:-1])


def test_regression_behaviour_unchanged():
    """With a regressor: numbers read as they are (``pos_val`` unused), next to River's
    regression metrics in either order, and inside River's ARFRegressor (which asks a
    ClassificationMetric for probabilities: the tau metrics are not one)."""
    stream = list(datasets.TrumpApproval())[:300]
    model = preprocessing.StandardScaler() | linear_model.LinearRegression()
    ys, ps = [], []
    for x, y in stream:
        ps.append(model.predict_one(x))
        ys.append(y)
        model.learn_one(x, y)
    tau, d = streamrank.kendall_tau(ys, ps), streamrank.somers_d(ys, ps)
    first = sm.KendallTau() + river_metrics.MAE() + sm.SomersD()
    last = river_metrics.MAE() + sm.KendallTau(pos_val="x")
    assert isinstance(first, RankMetrics) and type(last) is river_metrics.base.Metrics
    for combo in (first, last):
        model = preprocessing.StandardScaler() | linear_model.LinearRegression()
        evaluate.progressive_val_score(stream, model, combo)
    assert first[0].get() == last[1].get() == tau and first[2].get() == d
    assert first[1].get() == last[0].get() > 0
    arf = forest.ARFRegressor(n_models=2, metric=sm.KendallTau(), seed=1)
    evaluate.progressive_val_score(stream[:100], arf, river_metrics.MAE())
    # a float label is a number, not a class: 2.5 stays 2.5
    m = sm.KendallTau()
    for y, p in [(2.5, 1.0), (1.0, 2.0), (0.0, 0.5)]:
        m.update(y, p)
    assert m.get() == streamrank.kendall_tau([2.5, 1.0, 0.0], [1.0, 2.0, 0.5])


def test_rolling_wrappers_with_classifier_output():
    y, p, _ = _tie_heavy(120, 3)
    rolling = utils.Rolling(sm.SomersD, window_size=25)
    for yi, pi in zip(y, p):
        rolling.update(yi, {False: 1 - pi, True: pi})
    assert rolling.get() == pytest.approx(streamrank.somers_d(y[-25:], p[-25:]), abs=1e-12)
    assert rolling.requires_labels is False


# --------------------------------------------------------------------------- get never raises
def _all_metrics():
    made = [sm.ROCAUC(), sm.ROCAUC(2), sm.RollingROCAUC(3), sm.GroupAUC()]
    made += [make() for make in TAU_STYLE] + [sm.KendallTau("a"), sm.KendallTau("c"),
                                               sm.ConcordanceIndex(censoring=True)]
    return made


def _feed(metric, y, p):
    if isinstance(metric, sm.GroupAUC):
        p = (p, "g")
    elif isinstance(metric, sm.ConcordanceIndex) and metric.censoring:
        y = (float(y), bool(y))
    metric.update(y, p)


SITUATIONS = {
    "fresh": [],
    "one event": [(True, {False: 0.3, True: 0.7})],
    "one class": [(True, {False: 0.3, True: 0.7}), (True, {False: 0.8, True: 0.2})],
    "every score tied": [(True, {False: 0.5, True: 0.5}), (False, {False: 0.5, True: 0.5})],
    "no positive probability": [(True, {False: 1.0}), (False, {False: 1.0})],
    "perfect": [(True, {False: 0.1, True: 0.9}), (False, {False: 0.9, True: 0.1})],
    "numbers": [(True, 0.2), (False, 0.8), (True, 0.2)],
}


@pytest.mark.parametrize("situation", SITUATIONS)
def test_get_never_raises(situation):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for metric in _all_metrics():
            for y, p in SITUATIONS[situation]:
                _feed(metric, y, p)
            value = metric.get()
            assert isinstance(value, float) and not math.isnan(value)
            repr(metric)
        combo = sm.ROCAUC(20) + sm.KendallTau() + sm.SomersD()
        for y, p in SITUATIONS[situation]:
            combo.update(y, p)
        assert all(isinstance(v, float) for v in combo.get())
        repr(combo)


def test_get_after_reverting_everything():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for make in TAU_STYLE:
            m = make()
            m.update(True, {False: 0.4, True: 0.6})
            m.update(False, {False: 0.6, True: 0.4})
            assert m.get() != 0.0
            m.revert(False, {False: 0.6, True: 0.4})
            m.revert(True, {True: 0.6, False: 0.4})
            assert m.get() == 0.0
