"""One interval type for every metric: `streamrank.Interval` names its metric, and the ROC
AUC's intervals are its subclass `streamrank.AUCInterval` (``metric == "auc"``, ``auc`` the
estimate), whichever function computed them: the batch functions, the counters and windows,
the River metrics."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import numpy as np
import pytest

import streamrank as sr
from streamrank import AUCInterval, Interval
from streamrank.batch.bootstrap import METRICS
from streamrank.exceptions import UndefinedMetricWarning
from streamrank.intervals import make_interval

Y = np.array([0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0])
S = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.5, 0.5, 0.9, 0.3, 0.6, 0.65])
ORD = np.array([1, 2, 2, 3, 3, 1, 4, 4, 5, 5, 2, 3])      # ordinal labels
#: The batch function of each metric `bootstrap_ci` takes that has one.
BATCH = {
    "auc": sr.roc_auc_score,
    "tau_a": lambda y, s: sr.kendall_tau(y, s, variant="a"),
    "tau_b": lambda y, s: sr.kendall_tau(y, s, variant="b"),
    "tau_c": lambda y, s: sr.kendall_tau(y, s, variant="c"),
    "somers_d": sr.somers_d,
    "gamma": sr.goodman_kruskal_gamma,
    "c_index": lambda y, s: sr.concordance_ci(y, s).estimate,
}


def check_auc(r):
    assert type(r) is AUCInterval and isinstance(r, Interval)
    assert r.metric == "auc" and r.auc is r.estimate


# --------------------------------------------------------------------------- batch
@pytest.mark.parametrize("method", ["delong", "hanley-mcneil", "bootstrap"])
def test_roc_auc_ci_is_an_auc_interval_of_the_roc_auc(method):
    r = sr.roc_auc_ci(Y, S, method=method, n_resamples=50, random_state=0)
    check_auc(r)
    assert r.estimate == sr.roc_auc_score(Y, S) and r.method == method


@pytest.mark.parametrize("y", [ORD, Y], ids=["ordinal", "binary"])
@pytest.mark.parametrize("method", ["u-statistic", "jackknife"])
def test_concordance_ci_is_the_interval_of_the_c_index(y, method):
    r = sr.concordance_ci(y, S, method=method)
    assert type(r) is Interval and r.metric == "c_index" and r.method == method
    assert r.estimate == sr.pair_counts(y, S).c_index
    assert r.estimate == sr.bootstrap_ci("c_index", y, S, n_resamples=20,
                                         random_state=0).estimate
    assert not hasattr(r, "auc")


def test_concordance_ci_without_two_labels_still_names_its_metric():
    with pytest.warns(UndefinedMetricWarning):
        r = sr.concordance_ci([2, 2, 2], [0.1, 0.2, 0.3])
    assert type(r) is Interval and r.metric == "c_index" and math.isnan(r.estimate)


@pytest.mark.filterwarnings("ignore::streamrank.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("metric", METRICS)
def test_bootstrap_ci_names_every_metric_it_takes(metric):
    for y in ([Y] if metric == "auc" else [Y, ORD]):
        r = sr.bootstrap_ci(metric, y, S, n_resamples=30, method="percentile",
                            random_state=1)
        assert r.metric == metric and r.method == "bootstrap"
        assert type(r) is (AUCInterval if metric == "auc" else Interval)
        assert r.estimate == getattr(sr.pair_counts(y, S), metric)
        if metric in BATCH:
            assert r.estimate == BATCH[metric](y, S)
        assert repr(r) == repr(sr.bootstrap_ci(metric, y, S, n_resamples=30,
                                               method="percentile", random_state=1))
        assert hasattr(r, "auc") == (metric == "auc")


def test_bootstrap_tau_b_estimate_is_kendall_tau_b():
    r = sr.bootstrap_ci("tau_b", ORD, S, n_resamples=50, random_state=0)
    assert r.estimate == sr.kendall_tau(ORD, S, variant="b")
    assert repr(r).startswith(f"Interval(metric='tau_b', estimate={r.estimate:.6g}, ")


def test_bootstrap_ci_names_its_metric_on_every_early_return():
    with pytest.warns(UndefinedMetricWarning):                   # undefined metric
        r = sr.bootstrap_ci("gamma", [1, 1, 1], [1, 2, 3])
    assert type(r) is Interval and r.metric == "gamma" and math.isnan(r.estimate)
    with pytest.warns(UndefinedMetricWarning):                   # undefined resamples
        r = sr.bootstrap_ci("tau_b", [1, 2, 3, 4, 5], [1, 2, 3, 5, 4], random_state=0)
    assert r.metric == "tau_b" and r.estimate == pytest.approx(0.8)
    with pytest.warns(UndefinedMetricWarning):                   # a class of one row
        r = sr.bootstrap_ci("auc", [0, 1], [0.1, 0.2])
    check_auc(r)
    with pytest.warns(UndefinedMetricWarning):
        r = sr.bootstrap_ci("auc", [1, 1], [0.1, 0.2])
    assert type(r) is AUCInterval and math.isnan(r.auc)
    r = sr.bootstrap_ci("somers_d", [0, 1] * 10, [0, 1] * 10, n_resamples=20,
                        random_state=0)                           # no spread: a point
    assert (type(r), r.metric, r.estimate, r.low, r.high) == (Interval, "somers_d", 1, 1, 1)


# --------------------------------------------------------------------------- streams
def test_counters_and_windows_give_the_auc_interval_of_roc_auc_ci():
    pc = sr.PairCounter()
    pc.insert_many(range(len(Y)), Y.tolist(), S.tolist())
    win = sr.SlidingPairCounter(window_size=len(Y))
    timed = sr.TimeSlidingPairCounter(period=100.0)
    for i, (y, s) in enumerate(zip(Y.tolist(), S.tolist())):
        win.push(y, s)
        timed.push(y, s, t=float(i))
    want = sr.roc_auc_ci(Y, S)
    for method in ("delong", "hanley-mcneil"):
        for r in (pc.auc_ci(method=method), win.auc_ci(method=method),
                  timed.auc_ci(method=method)):
            check_auc(r)
            assert r == sr.roc_auc_ci(Y, S, method=method)
    assert pc.auc_ci() == want


def test_river_metrics_get_ci_is_an_auc_interval():
    pytest.importorskip("river")
    from streamrank.metrics import ROCAUC, RollingROCAUC

    full, rolling = ROCAUC(), RollingROCAUC(window_size=len(Y))
    for y, s in zip(Y.tolist(), S.tolist()):
        full.update(y, s)
        rolling.update(y, s)
    for metric in (full, rolling):
        r = metric.get_ci()
        check_auc(r)
        assert r == sr.roc_auc_ci(Y, S)
    check_auc(ROCAUC().get_ci())          # all nan, still the AUC's interval


# --------------------------------------------------------------------------- the type
def test_fields_and_reprs():
    assert [f.name for f in dataclasses.fields(Interval)] == [
        "metric", "estimate", "low", "high", "se", "method", "level"]
    assert [f.name for f in dataclasses.fields(AUCInterval)] == [
        f.name for f in dataclasses.fields(Interval)]
    r = Interval("tau_b", 0.41, 0.2, 0.6, 0.1, "bootstrap", 0.95)
    assert repr(r) == ("Interval(metric='tau_b', estimate=0.41, low=0.2, high=0.6, se=0.1, "
                       "method='bootstrap', level=0.95)")
    a = AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    assert repr(a) == ("AUCInterval(auc=0.8, low=0.7, high=0.88, se=0.045, "
                       "method='delong', level=0.95)")
    assert (a.metric, a.estimate, a.auc) == ("auc", 0.8, 0.8)
    assert dataclasses.astuple(a) == ("auc", 0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    nan = Interval("gamma", math.nan, math.nan, math.nan, math.nan, "bootstrap", 0.9)
    assert repr(nan) == ("Interval(metric='gamma', estimate=nan, low=nan, high=nan, "
                         "se=nan, method='bootstrap', level=0.9)")


def test_one_type_per_metric():
    with pytest.raises(ValueError, match="AUCInterval"):
        Interval("auc", 0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    with pytest.raises(TypeError):
        AUCInterval("tau_b", 0.8, 0.7, 0.88, 0.045, "delong", 0.95)   # metric is fixed
    with pytest.raises(ValueError):
        dataclasses.replace(AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95),
                            metric="tau_b")
    a = make_interval("auc", 0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    assert a == AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    t = make_interval("tau_b", 0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    assert type(t) is Interval and t.metric == "tau_b"
    assert not hasattr(t, "auc")


def test_frozen_hashable_equal_and_picklable():
    a = AUCInterval(0.8, 0.7, 0.88, 0.045, "delong", 0.95)
    t = Interval("c_index", 0.8, 0.7, 0.88, 0.045, "u-statistic", 0.95)
    for r in (a, t):
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.estimate = 0.5
        for proto in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(r, protocol=proto))
            assert back == r and type(back) is type(r) and repr(back) == repr(r)
        assert copy.deepcopy(r) == r and hash(copy.copy(r)) == hash(r)
        assert dataclasses.replace(r, low=0.6) != r
        assert dataclasses.replace(r, low=0.6).low == 0.6
    assert len({a, t, copy.copy(a)}) == 2
    # the same numbers of another metric (or of the AUC as a plain Interval) are not equal
    assert a != Interval("c_index", *dataclasses.astuple(a)[1:])
    assert t != Interval("tau_b", *dataclasses.astuple(t)[1:])
    assert sr.roc_auc_ci(Y, S) == sr.roc_auc_ci(Y, S)


def test_the_public_face():
    assert sr.Interval is sr.batch.Interval is Interval
    assert "Interval" in sr.__all__ and "Interval" in sr.batch.__all__
    assert sr.__all__ == sorted(sr.__all__)
    assert issubclass(sr.AUCInterval, sr.Interval)
