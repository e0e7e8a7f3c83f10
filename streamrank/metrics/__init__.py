"""Exact rank metrics for River: drop-in ``update`` / ``revert`` / ``get`` metrics.

Every metric here is exact (ties count one half, weights are honoured), reverts any
earlier update in any order, returns ``0.0`` from ``get()`` when undefined (River's
convention) and composes with River's ``evaluate.progressive_val_score``,
``utils.Rolling``, ``utils.TimeRolling`` and ``metrics.Metrics``.

=======================  ==============================================  ================
metric                   value                                           River base
=======================  ==============================================  ================
`ROCAUC`                 AUC of every event, ties 1/2                    BinaryMetric
`RollingROCAUC`          AUC of the last ``window_size`` events          BinaryMetric
`GroupAUC`               mean per-group AUC (group on ``y_pred``)        BinaryMetric
`KendallTau`             tau a / b / c                                   RegressionMetric
`GoodmanKruskalGamma`    ``(C - D) / (C + D)``                           RegressionMetric
`SomersD`                ``(C - D) / P``                                 RegressionMetric
`ConcordanceIndex`       Harrell's C, optionally censored                RegressionMetric
`PairwiseAccuracy`       ``C / P``                                       RegressionMetric
`RightWrongRatio`        ``(C + T) / (D + T)``                           RegressionMetric
=======================  ==============================================  ================

`ROCAUC` and `RollingROCAUC` take the arguments of their River namesakes, by the same
names and positions (``ROCAUC(n_thresholds=10, pos_val=True)``: ``n_thresholds`` is
accepted and has no effect, the AUC being exact). The tau-style metrics (River base
``RegressionMetric``) also take a binary classifier's output, the probability of their
``pos_val`` (``True`` by default), as `ROCAUC` does: their ``works_with`` takes
regressors and classifiers, and ``ROCAUC() + KendallTau()`` forms a
``river.metrics.Metrics``.

`WithGroup` wraps a classifier so that its predictions (`GroupedProba`) carry the group
`GroupAUC` needs inside River's evaluation helpers.

River comes with the ``river`` extra (``pip install "streamrank[river]"``); without it,
importing this module raises `streamrank.MissingExtraError` naming that extra.
"""

from .._extras import require

require("river", "river", "streamrank.metrics")

from .concordance import ConcordanceIndex
from .correlation import GoodmanKruskalGamma, KendallTau, SomersD
from .group_auc import GroupAUC, GroupedProba, WithGroup
from .pairwise import PairwiseAccuracy, RightWrongRatio
from .roc_auc import ROCAUC
from .rolling_roc_auc import RollingROCAUC

__all__ = [
    "ConcordanceIndex",
    "GoodmanKruskalGamma",
    "GroupAUC",
    "GroupedProba",
    "KendallTau",
    "PairwiseAccuracy",
    "ROCAUC",
    "RightWrongRatio",
    "RollingROCAUC",
    "SomersD",
    "WithGroup",
]
