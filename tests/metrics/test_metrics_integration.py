"""streamrank.metrics inside River's machinery: ``evaluate.progressive_val_score`` on the
bundled Phishing stream, ``utils.Rolling``, ``utils.TimeRolling`` (reverts out of insertion
order), ``metrics.Metrics`` composition, anomaly detectors, and `GroupAUC` with `WithGroup`.
"""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import pytest
from river import anomaly, compose, datasets, evaluate, linear_model, preprocessing, utils
from river import metrics as river_metrics
from sklearn.metrics import roc_auc_score

from _metric_refs import auc_ref, gauc_ref, pair_ref
from streamrank import metrics as sm
from streamrank import somers_d


def _model():
    return compose.Pipeline(preprocessing.StandardScaler(), linear_model.LogisticRegression())


def _phishing_predictions():
    """Labels and predictions of progressive validation on Phishing, the way
    `progressive_val_score` makes them (predict, then learn)."""
    model = _model()
    y_true, y_pred = [], []
    for x, y in datasets.Phishing():
        y_pred.append(model.predict_proba_one(x))
        y_true.append(y)
        model.learn_one(x, y)
    return y_true, y_pred


@pytest.fixture(scope="module")
def phishing():
    return _phishing_predictions()


def test_progressive_val_score_rocauc_equals_sklearn(phishing):
    metric = sm.ROCAUC()
    result = evaluate.progressive_val_score(datasets.Phishing(), _model(), metric)
    assert result is metric
    y_true, y_pred = phishing
    exact = roc_auc_score(y_true, [p.get(True, 0.0) for p in y_pred])
    assert metric.get() == pytest.approx(exact, abs=1e-12)
    # River's own ROCAUC approximates the same value.
    rivers = evaluate.progressive_val_score(datasets.Phishing(), _model(), river_metrics.ROCAUC())
    assert abs(rivers.get() - exact) < 0.02 and rivers.get() != metric.get()


def test_progressive_val_score_checkpoints_equal_sklearn_on_the_prefix(phishing):
    y_true, y_pred = phishing
    steps = evaluate.iter_progressive_val_score(datasets.Phishing(), _model(), sm.ROCAUC(),
                                                step=250)
    for state in steps:
        n = state["Step"]
        assert state["ROCAUC"].get() == pytest.approx(auc_ref(y_true[:n], y_pred[:n]),
                                                      abs=1e-12)


def test_rolling_wrappers_equal_sklearn_on_every_window(phishing):
    y_true, y_pred = phishing
    window = 60
    rolled = utils.Rolling(sm.ROCAUC, window_size=window)
    native = sm.RollingROCAUC(window_size=window)
    for i, (y, p) in enumerate(zip(y_true, y_pred)):
        rolled.update(y, p)
        native.update(y, p)
        if i % 7 == 0 or i == len(y_true) - 1:
            lo = max(0, i + 1 - window)
            want = auc_ref(y_true[lo:i + 1], y_pred[lo:i + 1])
            assert rolled.get() == pytest.approx(want, abs=1e-12)
            assert native.get() == pytest.approx(want, abs=1e-12)


def test_progressive_val_score_with_rolling_metrics():
    window = 100
    native = evaluate.progressive_val_score(datasets.Phishing(), _model(),
                                            sm.RollingROCAUC(window_size=window))
    y_true, y_pred = _phishing_predictions()
    assert native.get() == pytest.approx(auc_ref(y_true[-window:], y_pred[-window:]), abs=1e-12)


class _Recorder:
    """What `utils.TimeRolling` holds: a multiset fed by its update and revert calls."""

    def __init__(self):
        self.held = []

    def update(self, y_true, y_pred, w=1.0):
        self.held.append((y_true, y_pred, w))

    def revert(self, y_true, y_pred, w=1.0):
        self.held.remove((y_true, y_pred, w))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("make, reference", [
    (sm.ROCAUC, auc_ref),
    (sm.KendallTau, pair_ref("tau_b")),
    (lambda: sm.GroupAUC(weighting="pairs"), gauc_ref("pairs")),
], ids=["ROCAUC", "KendallTau", "GroupAUC"])
def test_time_rolling_with_out_of_order_events(make, reference):
    """TimeRolling reverts in time order, which is not the order of the updates when
    events arrive late: the metric must equal the reference on what is held."""
    rng = random.Random(21)
    period = dt.timedelta(seconds=30)
    metric = utils.TimeRolling(make(), period=period)
    recorder = utils.TimeRolling(_Recorder(), period=period)
    start = dt.datetime(2024, 1, 1)
    regression = isinstance(metric.obj, river_metrics.base.RegressionMetric)
    for i in range(400):
        t = start + dt.timedelta(seconds=i + rng.choice([0, 0, 0, -20, -45, 5]))
        y = float(rng.randint(0, 3)) if regression else rng.random() < 0.4
        p = round(rng.random(), 1)
        if isinstance(metric.obj, sm.GroupAUC):
            p = (p, rng.choice("abc"))
        w = float(rng.randint(1, 3))
        metric.update(y, p, w, t=t)
        recorder.update(y, p, w, t=t)
        if i % 5 == 0:
            held = recorder.obj.held
            ys, ps, ws = zip(*held)
            assert metric.get() == pytest.approx(reference(ys, ps, ws), abs=1e-12), i
    assert len(recorder.obj.held) < 400  # reverts happened


def test_metrics_composition():
    rocauc, acc = sm.ROCAUC(), river_metrics.Accuracy()
    combo = rocauc + acc + river_metrics.LogLoss() + sm.RollingROCAUC(window_size=50)
    assert isinstance(combo, river_metrics.base.Metrics)
    evaluate.progressive_val_score(datasets.Phishing(), _model(), combo)
    y_true, y_pred = _phishing_predictions()
    assert combo[0] is rocauc and rocauc.get() == pytest.approx(auc_ref(y_true, y_pred))
    assert acc.get() > 0.8
    assert "ROCAUC:" in repr(combo) and "Accuracy:" in repr(combo)
    for regression in (sm.KendallTau() + river_metrics.MAE() + sm.SomersD(),
                       river_metrics.MAE() + sm.KendallTau()):
        for y, p in [(1.0, 1.5), (2.0, 1.0), (3.0, 3.5)]:
            regression.update(y, p)
        regression.revert(2.0, 1.0)
        assert [round(v, 12) for v in regression.get()][:2] in ([1.0, 0.5], [0.5, 1.0])
    with pytest.raises(ValueError, match="not compatible"):
        _ = sm.ROCAUC() + river_metrics.MAE()


def test_group_auc_in_progressive_val_score_through_with_group():
    """The documented route: the group is a feature of x, WithGroup tags predictions."""

    def with_group_feature(stream):
        for x, y in stream:
            x = dict(x)
            x["site"] = f"s{int(x['empty_server_form_handler'] * 2)}{int(x['https'] > 0.5)}"
            yield x, y

    metric = sm.GroupAUC() + river_metrics.Accuracy()
    model = sm.WithGroup(_model(), key="site")
    evaluate.progressive_val_score(with_group_feature(datasets.Phishing()), model, metric)
    # The reference, from the same predictions made by hand.
    model, ys, ps = sm.WithGroup(_model(), key="site"), [], []
    for x, y in with_group_feature(datasets.Phishing()):
        p = model.predict_proba_one(x)
        assert isinstance(p, sm.GroupedProba)
        assert "site" not in model.classifier["StandardScaler"].means  # dropped from x
        ys.append(y), ps.append(p)
        model.learn_one(x, y)
    assert metric[0].get() == pytest.approx(gauc_ref()(ys, ps), abs=1e-12)
    assert metric[0].n_groups >= 2 and 0.5 < metric[0].get() < 1


def test_anomaly_detector_scores_any_scale():
    """ROCAUC works with anomaly detectors (unbounded scores) and anomaly filters (bool
    predictions), and equals sklearn on the scores progressive validation sees."""
    dataset = list(datasets.Phishing())[:600]
    detector = compose.Pipeline(preprocessing.MinMaxScaler(), anomaly.HalfSpaceTrees(seed=42))
    metric = sm.ROCAUC()
    assert metric.works_with(detector) and not river_metrics.Accuracy().works_with(detector)
    evaluate.progressive_val_score(dataset, detector, metric)
    detector = compose.Pipeline(preprocessing.MinMaxScaler(), anomaly.HalfSpaceTrees(seed=42))
    ys, scores = [], []
    for x, y in dataset:
        scores.append(detector.score_one(x))
        ys.append(y)
        detector.learn_one(x)
    assert metric.get() == pytest.approx(roc_auc_score(ys, scores), abs=1e-12)
    shifted = sm.ROCAUC()
    for y, s in zip(ys, scores):
        shifted.update(y, 1e6 * s - 3e5)  # out of [0, 1]: River's ROCAUC gives -0.0 here
    assert shifted.get() == pytest.approx(metric.get(), abs=1e-12)
    threshold = anomaly.ThresholdFilter(anomaly.HalfSpaceTrees(seed=42), threshold=0.8)
    assert sm.ROCAUC().works_with(threshold) and sm.RollingROCAUC().works_with(threshold)


def test_works_with_and_traits():
    clf = linear_model.LogisticRegression()
    reg = linear_model.LinearRegression()
    for m in (sm.ROCAUC(), sm.RollingROCAUC(), sm.GroupAUC()):
        assert m.works_with(clf) and not m.works_with(reg)
        assert m.requires_labels is False and m.works_with_weights and m.bigger_is_better
        assert m._fmt == ".2%"
    for m in (sm.KendallTau(), sm.GoodmanKruskalGamma(), sm.SomersD(), sm.ConcordanceIndex(),
              sm.PairwiseAccuracy(), sm.RightWrongRatio()):
        # regression metrics that also read a classifier's probabilities (see _base)
        assert m.works_with(reg) and m.works_with(clf)
        assert m.requires_labels is False
        assert isinstance(m, river_metrics.base.RegressionMetric)
        assert not isinstance(m, river_metrics.base.ClassificationMetric)
        assert m.works_with_weights and m.bigger_is_better
        assert m._fmt == ",.6f"
    better, worse = sm.ROCAUC(), sm.ROCAUC()
    for y, s in [(1, 0.9), (0, 0.1), (1, 0.4), (0, 0.6)]:
        better.update(y, s)
        worse.update(y, 1 - s)
    assert better > worse


def test_progressive_val_score_regression_rank_metrics():
    """Rank metrics of a regressor on a bundled regression stream, against SciPy."""
    import scipy.stats

    model = compose.Pipeline(preprocessing.StandardScaler(), linear_model.LinearRegression())
    stream = list(datasets.TrumpApproval())
    metric = sm.KendallTau() + sm.SomersD() + sm.ConcordanceIndex()
    evaluate.progressive_val_score(stream, model, metric)
    model = compose.Pipeline(preprocessing.StandardScaler(), linear_model.LinearRegression())
    ys, ps = [], []
    for x, y in stream:
        ps.append(model.predict_one(x))
        ys.append(y)
        model.learn_one(x, y)
    assert metric[0].get() == pytest.approx(scipy.stats.kendalltau(ys, ps).statistic, abs=1e-12)
    # scipy.stats.somersd builds an n x n table for 1001 distinct labels: the batch
    # function (tested against it on small inputs) stands in.
    assert metric[1].get() == pytest.approx(somers_d(ys, ps), abs=1e-12)
    from lifelines.utils import concordance_index

    assert metric[2].get() == pytest.approx(concordance_index(ys, ps), abs=1e-12)
    assert np.isfinite(metric[0].get())
