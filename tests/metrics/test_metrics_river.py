"""streamrank.metrics through River's own tests and checks.

* River's ``test_metric`` (every prefix against a reference, with weights) and
  ``test_rolling_metric`` (every window of ``utils.Rolling``, sizes 1, 2, 5, 10), read
  from the source distribution of the installed River (see ``_river_sdist.py``) and called
  on our metrics with our references (scikit-learn, SciPy, lifelines, ``group_auc_score``).
* The same two tests again with River's data generator swapped for a tie-heavy one
  (scores rounded to one decimal, labels from few values, weights from a small set),
  which River's own generator never produces.
* River's generic checks (``river.checks.common``) on every metric, fresh and mid-stream.

River's generator draws from the global ``random`` and ``numpy.random`` states: every test
seeds both first.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import random

import numpy as np
import pytest
from river import metrics as river_metrics
from river.checks import common as river_checks

from _metric_refs import REFERENCES, auc_ref, cindex_ref, gauc_ref, pair_ref
from _river_sdist import river_test_metrics
from streamrank import metrics as sm

RIVER_WARNINGS = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # Rolling(instance)
    pytest.mark.filterwarnings("ignore::UserWarning"),  # scipy / sklearn undefined values
]


def _group_of(y_pred):
    """A group derived from River's ungrouped prediction, so that the reference can
    derive the same one: three groups, by the first decimal of p(True)."""
    return int(float(y_pred[True]) * 10) % 3


class DerivedGroupAUC(sm.GroupAUC):
    """`GroupAUC` fed River's test data, whose predictions carry no group: the group is
    derived from ``y_pred`` (``_group_of``) on the way in."""

    def update(self, y_true, y_pred, w=1.0):
        super().update(y_true, (y_pred, _group_of(y_pred)), w)

    def revert(self, y_true, y_pred, w=1.0):
        super().revert(y_true, (y_pred, _group_of(y_pred)), w)


def derived_gauc_ref(weighting):
    ref = gauc_ref(weighting)

    def wrapped(y_true, y_pred, sample_weight=None):
        return ref(y_true, [(p, _group_of(p)) for p in y_pred], sample_weight)

    return wrapped


# (id, metric, reference) for River's harness. RightWrongRatio is left out: it is inf
# when no pair is ordered wrongly, and River's |get() - reference| < tol is then nan;
# test_metrics_oracles.py checks it on every prefix with inf handled.
CASES = [
    (name, getattr(sm, name.split("-")[0])(**kwargs), ref)
    for name, (kwargs, ref) in REFERENCES.items() if name != "RightWrongRatio"
] + [
    ("GroupAUC", DerivedGroupAUC(), derived_gauc_ref("impressions")),
    ("GroupAUC-pairs", DerivedGroupAUC(weighting="pairs"), derived_gauc_ref("pairs")),
    ("GroupAUC-uniform", DerivedGroupAUC(weighting="uniform"), derived_gauc_ref("uniform")),
    ("RollingROCAUC-w3", sm.RollingROCAUC(window_size=3), None),  # windowed: own reference
]


def _window_ref(n):
    def ref(y_true, y_pred, sample_weight=None):
        w = None if sample_weight is None else list(sample_weight)[-n:]
        return auc_ref(list(y_true)[-n:], list(y_pred)[-n:], w)
    return ref


CASES = [(i, m, r if r is not None else _window_ref(3)) for i, m, r in CASES]


@pytest.fixture(scope="module")
def river_tests():
    return river_test_metrics()


def _seed(seed):
    random.seed(seed)
    np.random.seed(seed)


@pytest.mark.parametrize("metric, reference", [pytest.param(m, r, id=i) for i, m, r in CASES])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_river_test_metric(river_tests, metric, reference, seed):
    _seed(seed)
    river_tests.test_metric(metric, reference)


@pytest.mark.parametrize("metric, reference", [pytest.param(m, r, id=i) for i, m, r in CASES
                                               if not i.startswith("RollingROCAUC-w")])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_river_test_rolling_metric(river_tests, metric, reference):
    _seed(2)
    river_tests.test_rolling_metric(metric, reference)


@pytest.mark.parametrize("metric", [pytest.param(m, id=i) for i, m, _ in CASES])
def test_river_test_pickling_and_repr(river_tests, metric):
    _seed(3)
    river_tests.test_pickling(metric)
    river_tests.test_repr(metric)


# --------------------------------------------------------------------------- tie-heavy data
def tie_heavy_cases(metric, n):
    """Replaces River's ``generate_test_cases``: scores rounded to one decimal, labels from
    few values, weights from {0.5, 1, 2, 3} (River's: continuous scores, uniform weights)."""
    rng = random.Random(random.random())  # seeded through the test's global seed
    weights = [rng.choice([0.5, 1.0, 2.0, 3.0]) for _ in range(n)]
    if isinstance(metric, river_metrics.base.ClassificationMetric):
        y_true = [rng.random() < 0.4 for _ in range(n)]
        y_pred = []
        for _ in range(n):
            p = round(rng.random(), 1)
            y_pred.append({False: 1.0 - p, True: p})
        yield y_true, y_pred, weights
    if isinstance(metric, river_metrics.base.RegressionMetric):
        yield ([rng.choice([0.0, 1.0, 2.0, 2.5]) for _ in range(n)],
               [round(rng.random(), 1) for _ in range(n)], weights)


@pytest.mark.parametrize("metric, reference", [pytest.param(m, r, id=i) for i, m, r in CASES])
@pytest.mark.parametrize("seed", [10, 11, 12])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_river_test_metric_tie_heavy(river_tests, monkeypatch, metric, reference, seed):
    _seed(seed)
    monkeypatch.setattr(river_tests, "generate_test_cases", tie_heavy_cases)
    river_tests.test_metric(metric, reference)


@pytest.mark.parametrize("metric, reference", [pytest.param(m, r, id=i) for i, m, r in CASES
                                               if not i.startswith("RollingROCAUC-w")])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_river_test_rolling_metric_tie_heavy(river_tests, monkeypatch, metric, reference):
    _seed(13)
    monkeypatch.setattr(river_tests, "generate_test_cases", tie_heavy_cases)
    river_tests.test_rolling_metric(metric, reference)


def test_tie_heavy_generator_makes_ties():
    """The swapped-in generator does what it is for: ties in score across classes."""
    _seed(10)
    y, p, w = next(tie_heavy_cases(sm.ROCAUC(), 30))
    scores = [q[True] for q in p]
    tied_across = {s for s, t in zip(scores, y) if t} & {s for s, t in zip(scores, y) if not t}
    assert tied_across and len(set(w)) > 1


def test_censored_cindex_through_river_harness(river_tests, monkeypatch):
    """River's prefix and window tests with (time, event) labels and censoring."""

    def censored_cases(metric, n):
        rng = random.Random(7)
        yield ([(rng.choice([1.0, 2.0, 3.0, 4.0]), rng.random() < 0.6) for _ in range(n)],
               [round(rng.random(), 1) for _ in range(n)],
               [rng.choice([1.0, 2.0, 0.5]) for _ in range(n)])

    monkeypatch.setattr(river_tests, "generate_test_cases", censored_cases)
    river_tests.test_metric(sm.ConcordanceIndex(censoring=True), cindex_ref)
    with pytest.warns(DeprecationWarning):
        river_tests.test_rolling_metric(sm.ConcordanceIndex(censoring=True), cindex_ref)


def test_right_wrong_ratio_through_river_harness_when_finite(river_tests, monkeypatch):
    """RightWrongRatio in River's harness on data where the ratio stays finite (a
    discordant pair first), since River compares by subtraction."""

    def cases(metric, n):
        rng = random.Random(5)
        y = [1.0, 2.0] + [rng.choice([0.0, 1.0, 2.0]) for _ in range(n - 2)]
        s = [0.9, 0.1] + [round(rng.random(), 1) for _ in range(n - 2)]
        yield y, s, [rng.choice([1.0, 2.0]) for _ in range(n)]

    monkeypatch.setattr(river_tests, "generate_test_cases", cases)
    river_tests.test_metric(sm.RightWrongRatio(), pair_ref("right_wrong_ratio"))


# --------------------------------------------------------------------------- river.checks
ALL_METRICS = [sm.ROCAUC, sm.RollingROCAUC, sm.GroupAUC, sm.KendallTau, sm.GoodmanKruskalGamma,
               sm.SomersD, sm.ConcordanceIndex, sm.PairwiseAccuracy, sm.RightWrongRatio]

#: Checks of river.checks.common that take an estimator alone. Left out, with the reason:
#: check_tags / check_has_tag use ``_tags``, which only `river.base.Estimator` has (River's
#: own metrics fail them too); check_wrapper_accepts_kwargs is for model wrappers.
_NOT_FOR_METRICS = {"check_tags", "check_has_tag", "check_wrapper_accepts_kwargs"}
SINGLE_CHECKS = sorted(
    name for name, f in inspect.getmembers(river_checks, inspect.isfunction)
    if name.startswith("check_") and list(inspect.signature(f).parameters) == ["model"]
    and name not in _NOT_FOR_METRICS)


def test_the_checks_found_are_the_expected_ones():
    expected = {"check_repr", "check_str", "check_clone_same_class",
                "check_clone_is_idempotent", "check_pickling_supports_roundtrip",
                "check_init_default_params_are_not_mutable",
                "check_get_params_matches_signature", "check_doc",
                "check_clone_changes_memory_addresses", "check_repr_roundtrips_clone",
                "check_clone_with_new_params_applies", "check_mutate_can_be_idempotent",
                "check_init_has_default_params_for_tests"}
    assert expected <= set(SINGLE_CHECKS), set(SINGLE_CHECKS) ^ expected
    # River's own metrics fail the checks left out: they are not Estimators.
    with pytest.raises(AttributeError):
        river_checks.check_tags(river_metrics.ROCAUC())


def _instances():
    for cls in ALL_METRICS:
        for params in cls._unit_test_params():
            yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


def _feed(metric, n=25, seed=0):
    rng = random.Random(seed)
    for _ in range(n):
        y, p = rng.random() < 0.5, round(rng.random(), 1)
        if isinstance(metric, sm.GroupAUC):
            metric.update(y, (p, rng.choice("ab")))
        elif isinstance(metric, sm.ConcordanceIndex) and metric.censoring:
            metric.update((rng.randint(1, 4), y), p)
        elif isinstance(metric, river_metrics.base.RegressionMetric):
            metric.update(float(rng.randint(0, 3)), p)
        else:
            metric.update(y, p)


@pytest.mark.parametrize("check", SINGLE_CHECKS)
@pytest.mark.parametrize("cls, params", list(_instances()))
def test_river_checks(check, cls, params):
    getattr(river_checks, check)(cls(**params))


@pytest.mark.parametrize("cls, params", list(_instances()))
def test_river_checks_mid_stream(cls, params):
    """The checks that make sense on a used metric, plus deep copies that carry on."""
    metric = cls(**params)
    _feed(metric)
    for check in ("check_repr", "check_str", "check_pickling_supports_roundtrip",
                  "check_clone_same_class", "check_clone_is_idempotent"):
        getattr(river_checks, check)(metric)
    clone = metric.clone()
    assert clone.get() == 0.0 and repr(clone) == repr(cls(**params))
    for duplicate in (lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy):
        other = duplicate(metric)
        assert other.get() == metric.get()
        _feed(other, seed=1)
        _feed(metric, seed=1)
        assert other.get() == metric.get()


def group_by_size(x):
    """A group key for River's check datasets, which have no group feature."""
    return len(x) % 3


def test_with_group_passes_river_estimator_checks():
    """`WithGroup` is a River classifier: River's estimator checks, every one of them."""
    from river import checks, linear_model

    model = sm.WithGroup(linear_model.LogisticRegression(), key=group_by_size)
    ran = []
    for check in checks.yield_checks(model):
        check(copy.deepcopy(model))
        ran.append(check.__name__)
    assert "check_learn_one" in ran and "check_pickling" in ran


# --------------------------------------------------------------------------- the fetch
def test_river_tests_skip_cleanly_without_network(monkeypatch, tmp_path):
    """No index reachable and nothing cached: a skip naming the reason (which
    `ci_skips` turns into an error under CI, tests/test_ci_skips.py)."""
    import sys

    import _river_sdist

    monkeypatch.setattr(_river_sdist, "INDEX", "http://127.0.0.1:9/simple/river/")
    monkeypatch.setattr(_river_sdist, "TIMEOUT_S", 5)
    monkeypatch.setenv("STREAMRANK_TEST_CACHE", str(tmp_path))
    for name in [k for k in sys.modules if k.startswith("_river_") and "test_metrics" in k]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(pytest.skip.Exception, match="could not be fetched"):
        _river_sdist.river_test_metrics()


def test_river_tests_come_from_the_cache_once_fetched(river_tests, monkeypatch):
    """After the first fetch the index is not needed: the cached module imports."""
    import sys

    import _river_sdist

    monkeypatch.setattr(_river_sdist, "INDEX", "http://127.0.0.1:9/simple/river/")
    for name in [k for k in sys.modules if k.startswith("_river_") and "test_metrics" in k]:
        monkeypatch.delitem(sys.modules, name)
    module = _river_sdist.river_test_metrics()
    assert callable(module.test_metric) and callable(module.test_rolling_metric)
    assert "roc_auc_score" in module.__dict__  # River's own reference wrapper, not ours
