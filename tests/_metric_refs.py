"""Reference values for the River metrics tests: scikit-learn, SciPy, lifelines, the batch
`group_auc_score`, and the O(n^2) oracle where no peer takes weights.

Every reference follows the metrics' convention for an undefined value: ``0.0`` (River's),
where the peers raise or return ``nan``.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import scipy.stats
from lifelines.utils import concordance_index as lifelines_cindex
from sklearn.metrics import roc_auc_score

from oracle import concordance_brute, pair_counts_brute
from streamrank import group_auc_score

__all__ = ["REFERENCES", "auc_ref", "cindex_ref", "gauc_ref", "pair_ref"]


def _zero(x) -> float:
    return 0.0 if x is None or x != x else float(x)


def _proba(p, pos_val=True):
    return p.get(pos_val, 0.0) if isinstance(p, dict) else float(p)


def auc_ref(y_true, y_pred, sample_weight=None, pos_val=True) -> float:
    """``sklearn.metrics.roc_auc_score`` on the positive-class scores; 0 for one class."""
    y = np.array([yt == pos_val for yt in y_true], bool)
    w = None if sample_weight is None else np.asarray(list(sample_weight), float)
    pos_w = y.sum() if w is None else w[y].sum()
    neg_w = (~y).sum() if w is None else w[~y].sum()
    if not (pos_w > 0 and neg_w > 0):
        return 0.0
    return float(roc_auc_score(y, [_proba(p, pos_val) for p in y_pred], sample_weight=w))


def _scipy(name, y, s, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "somers_d":
            if len(set(y)) < 2 or len(y) < 2:
                return 0.0
            return _zero(scipy.stats.somersd(y, s).statistic)
        return _zero(scipy.stats.kendalltau(y, s, **kwargs).statistic)


def pair_ref(prop: str):
    """A reference for the `PairCounts` property ``prop``: SciPy where it has one and
    the data are unweighted, else the exact O(n^2) oracle."""

    def ref(y_true, y_pred, sample_weight=None):
        y, s = [float(v) for v in y_true], [float(v) for v in y_pred]
        if len(y) < 2:
            return 0.0
        if sample_weight is None and prop in ("tau_b", "tau_c", "somers_d"):
            if prop == "somers_d":
                return _scipy("somers_d", y, s)
            return _scipy("tau", y, s, variant=prop[-1])
        c = pair_counts_brute(y, s, sample_weight=None if sample_weight is None
                              else [float(v) for v in sample_weight])
        if prop == "right_wrong_ratio":
            right, wrong = c.C + c.T, c.D + c.T
            if c.P == 0:
                return 0.0
            return math.inf if wrong == 0 else float(Fraction(right) / Fraction(wrong))
        return _zero(getattr(c, prop))

    ref.__name__ = f"pair_ref_{prop}"
    return ref


def cindex_ref(y_true, y_pred, sample_weight=None):
    """``lifelines.utils.concordance_index``; ``y_true`` numbers or (time, event) pairs;
    the exact oracle with weights (lifelines has none)."""
    t = [yt[0] if isinstance(yt, tuple) else yt for yt in y_true]
    e = [bool(yt[1]) if isinstance(yt, tuple) else True for yt in y_true]
    s = [float(v) for v in y_pred]
    if sample_weight is not None:
        c = concordance_brute(t, s, e, sample_weight=[float(v) for v in sample_weight])
        p = c.concordant + c.discordant + c.tied_score
        return 0.0 if p == 0 else float((c.concordant + c.tied_score / 2) / p)
    try:
        return float(lifelines_cindex(t, s, e))
    except ZeroDivisionError:  # no comparable pair
        return 0.0


def gauc_ref(weighting="impressions"):
    """`streamrank.group_auc_score` on (score, group) predictions; 0 when undefined."""

    def ref(y_true, y_pred, sample_weight=None):
        if not len(y_true):
            return 0.0
        scores = [_proba(p[0]) if isinstance(p, tuple) else _proba(p) for p in y_pred]
        groups = [p[1] if isinstance(p, tuple) else p.group for p in y_pred]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = group_auc_score([bool(v) for v in y_true], scores, groups,
                                weighting=weighting, sample_weight=sample_weight)
        return _zero(r)

    ref.__name__ = f"gauc_ref_{weighting}"
    return ref


#: metric class name -> (constructor kwargs, reference)
REFERENCES = {
    "ROCAUC": ({}, auc_ref),
    "RollingROCAUC": ({}, auc_ref),
    "KendallTau": ({}, pair_ref("tau_b")),
    "KendallTau-a": ({"variant": "a"}, pair_ref("tau_a")),
    "KendallTau-c": ({"variant": "c"}, pair_ref("tau_c")),
    "GoodmanKruskalGamma": ({}, pair_ref("gamma")),
    "SomersD": ({}, pair_ref("somers_d")),
    "ConcordanceIndex": ({}, cindex_ref),
    "PairwiseAccuracy": ({}, pair_ref("pairwise_accuracy")),
    "RightWrongRatio": ({}, pair_ref("right_wrong_ratio")),
}
