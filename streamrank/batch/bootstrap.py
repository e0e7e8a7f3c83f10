"""`bootstrap_ci`: a bootstrap interval of any metric of `PairCounts`, through scipy."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ._kernels import count_pairs, scale_weights
from .._validation import (as_1d_numeric, as_score_column, check_binary_labels,
                           check_consistent_length, check_int, check_level, check_option,
                           check_weights, describe, param_error)
from ..counts import PairCounts
from ..exceptions import UndefinedMetricWarning
from ..intervals import Interval, make_interval

__all__ = ["METRICS", "bootstrap_arrays", "bootstrap_ci"]

#: The counts among `PairCounts`' properties; every other property is a metric.
_COUNTS = ("comparable", "total", "tied_score_all", "right", "wrong", "weighted")
#: The metrics `bootstrap_ci` takes: `PairCounts`' metric properties, by name.
METRICS = tuple(sorted(name for name, v in vars(PairCounts).items()
                       if isinstance(v, property) and name not in _COUNTS))
BOOTSTRAP_METHODS = ("BCa", "percentile", "basic")
#: Elements of the index arrays scipy builds per batch of resamples (memory bound).
_BATCH_ELEMENTS = 1 << 22


def bootstrap_ci(metric, y_true, y_score, *, sample_weight=None, level=0.95,
                 n_resamples=1000, method="BCa", random_state=None,
                 stratify=True) -> Interval:
    """A bootstrap confidence interval of any rank metric of `PairCounts`.

    Resamples the rows with replacement ``n_resamples`` times, computes the metric (its
    exact pair counts, ties as `pair_counts` counts them) on each resample, and reads the
    interval from that distribution with ``scipy.stats.bootstrap``: ``"BCa"`` (bias
    corrected and accelerated, scipy's default), ``"percentile"`` or ``"basic"``. With
    binary labels and ``stratify=True`` each class is resampled on its own (its size kept,
    so every resample has both classes), as for an AUC with fixed class sizes; other
    labels resample all rows together.

    Runtime complexity: ``O(B n log n)`` for ``B = n_resamples`` (one vectorized pair
    count per resample, the row indices drawn by scipy in batches); ``"BCa"`` adds a
    jackknife, ``n`` more pair counts of ``n - 1`` rows, ``O(n^2 log n)`` in all: above
    some ten thousand rows prefer ``"percentile"``.

    Parameters
    ----------
    metric : str
        A metric property of `PairCounts`: ``"auc"``, ``"c_index"``, ``"gamma"``,
        ``"somers_d"``, ``"tau_a"``, ``"tau_b"``, ``"tau_c"``, ``"pairwise_accuracy"``,
        ``"pairwise_error"`` or ``"right_wrong_ratio"``.
    y_true : array-like of shape (n,)
        Labels: binary labels of any type for ``"auc"`` (the greater label positive, as
        in `roc_auc_score`); numbers (binary, ordinal or continuous) otherwise.
    y_score : array-like of shape (n,)
        Finite scores.
    sample_weight : array-like of shape (n,), optional
        Nonnegative weights, resampled with their rows: a row of weight ``k`` is drawn
        as one unit (not as ``k`` copies), so weights make clusters of rows.
    level : float in (0, 1)
    n_resamples : int
    method : {"BCa", "percentile", "basic"}
    random_state : None, int or numpy Generator
        An int (or a Generator in a given state) repeats the interval exactly.
    stratify : bool
        Resample each class separately (binary labels only).

    Returns
    -------
    Interval
        ``metric`` the name asked for (an `AUCInterval` for ``"auc"``), ``estimate`` the
        metric of the whole data (the batch function's value: `kendall_tau` with
        ``variant="b"`` for ``"tau_b"``, ...), ``se`` the bootstrap standard error,
        ``method`` ``"bootstrap"``. A metric that does not vary over the resamples gives
        the single point ``(value, value)``; an undefined metric (one class only) all
        ``nan`` with an `UndefinedMetricWarning`.

    Examples
    --------
    >>> from streamrank import bootstrap_ci
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.5, 0.5, 0.9, 0.3, 0.6, 0.65]
    >>> r = bootstrap_ci("auc", y, s, n_resamples=200, random_state=0)
    >>> round(r.auc, 4), r.low < r.auc < r.high, r.method
    (0.8472, True, 'bootstrap')
    >>> r == bootstrap_ci("auc", y, s, n_resamples=200, random_state=0)  # repeatable
    True
    >>> t = bootstrap_ci("tau_b", y, s, n_resamples=200, random_state=0)
    >>> t.metric, round(t.estimate, 4), t.low < t.estimate < t.high
    ('tau_b', 0.5168, True)
    """
    func = "bootstrap_ci"
    if not isinstance(metric, str) or metric not in METRICS:
        raise param_error("metric", func, f"the name of a metric of PairCounts, one of "
                          f"{METRICS}", describe(metric))
    level = check_level(level, func)
    n_resamples = check_int(n_resamples, "n_resamples", func, minimum=2)
    method = check_option(method, "method", func, BOOTSTRAP_METHODS)
    if not isinstance(stratify, (bool, np.bool_)):
        raise param_error("stratify", func, "a bool", describe(stratify), TypeError)
    if metric == "auc":
        y = check_binary_labels(y_true, None, func)
        s = as_score_column(y_score, "y_score", func)
    else:
        y = as_1d_numeric(y_true, "y_true", func)
        s = as_1d_numeric(y_score, "y_score", func)
    n = check_consistent_length(func, y_true=y, y_score=s)
    w = check_weights(sample_weight, n, func)
    return bootstrap_arrays(metric, y, s, w, level, n_resamples, method, random_state,
                            bool(stratify), func)


def _rng(random_state, func):
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return np.random.default_rng(int(random_state))
    raise param_error("random_state", func, "None, a nonnegative int or a numpy Generator",
                      describe(random_state))


def bootstrap_arrays(metric, y, s, w, level, n_resamples, method, random_state, stratify,
                     func) -> Interval:
    """`bootstrap_ci` of validated arrays (``w`` None or float64 weights)."""
    rng = _rng(random_state, func)
    from scipy import stats   # scipy loads on first use only

    if w is not None:
        keep = w > 0
        if not keep.all():
            y, s, w = y[keep], s[keep], w[keep]
        w = scale_weights(w)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        value = getattr(count_pairs(y, s, w), metric) if y.size else math.nan
    if math.isnan(value):
        warnings.warn(f"The {metric} is undefined for these samples (no comparable "
                      f"pairs) in {func}; returning nan.", UndefinedMetricWarning,
                      stacklevel=3)
        return make_interval(metric, math.nan, math.nan, math.nan, math.nan, "bootstrap",
                             level)
    levels = np.unique(y)
    if stratify and levels.size == 2:
        data = tuple(np.flatnonzero(y == v) for v in levels)
    else:
        data = (np.arange(y.size),)
    if min(d.size for d in data) < 2:        # one row cannot be resampled into a spread
        warnings.warn(f"A {'class' if len(data) == 2 else 'sample'} of one row has no "
                      f"bootstrap distribution in {func}; returning nan bounds.",
                      UndefinedMetricWarning, stacklevel=3)
        return make_interval(metric, float(value), math.nan, math.nan, math.nan,
                             "bootstrap", level)

    def statistic(*idx, axis=-1):
        lead = idx[0].shape[:-1]
        rows = [i.reshape(-1, i.shape[-1]) for i in idx]
        out = np.empty(rows[0].shape[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for b in range(out.size):
                ix = rows[0][b] if len(rows) == 1 else np.concatenate([r[b] for r in rows])
                out[b] = getattr(count_pairs(y[ix], s[ix], None if w is None else w[ix]),
                                 metric)
        return out.reshape(lead)

    batch = max(1, _BATCH_ELEMENTS // max(1, y.size))
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)   # handled below
        res = stats.bootstrap(data, statistic, n_resamples=n_resamples, batch=batch,
                              vectorized=True, paired=False, confidence_level=level,
                              method=method, rng=rng)
    dist = res.bootstrap_distribution
    se = float(res.standard_error)
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    finite = dist[np.isfinite(dist)]
    if finite.size < dist.size:
        warnings.warn(f"The {metric} is undefined in {dist.size - finite.size} of "
                      f"{dist.size} resamples in {func} (a resample without comparable "
                      "pairs); returning nan bounds. Stratify by class, or give more "
                      "samples.", UndefinedMetricWarning, stacklevel=3)
        return make_interval(metric, float(value), math.nan, math.nan, math.nan,
                             "bootstrap", level)
    if finite.min() == finite.max():      # no spread: the point, and the estimate
        low, high = min(float(value), float(finite[0])), max(float(value), float(finite[0]))
        se = 0.0
    return make_interval(metric, float(value), low, high, se, "bootstrap", level)
