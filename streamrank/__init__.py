"""streamrank: exact rank metrics that stay exact while the data moves.

Batch functions count every concordant, discordant and tied pair in O(n log n) with numpy;
the incremental structures update the same counts in O(log n) per change.
"""

from .batch import (AUCInterval, GroupAUCResult, Interval, PairedAUCMatrix, PairedAUCTest,
                    average_precision_score, bootstrap_ci, concordance_ci, concordance_index,
                    concordance_variance, delong_test,
                    goodman_kruskal_gamma, group_auc_score, kendall_tau, pair_counts,
                    precision_recall_curve, roc_auc_ci, roc_auc_score, roc_curve, somers_d)
from .counter import PairCounter
from .counts import PairCounts
from .epochs import EpochTracker
from .exceptions import MissingExtraError, SnapshotError, UndefinedMetricWarning
from .windows import SlidingPairCounter, TimeSlidingPairCounter

__version__ = "0.1.0"

# Modules with heavier imports (River, scipy.optimize, dask, pyarrow) load on first use:
# ``streamrank.metrics.ROCAUC()`` works after a plain ``import streamrank``.
_LAZY = ("compare", "dask", "io", "metrics", "monitor", "plot", "ranking", "structures")


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'streamrank' has no attribute {name!r}")

__all__ = [
    "AUCInterval",
    "EpochTracker",
    "GroupAUCResult",
    "Interval",
    "MissingExtraError",
    "PairCounter",
    "PairCounts",
    "PairedAUCMatrix",
    "PairedAUCTest",
    "SlidingPairCounter",
    "SnapshotError",
    "TimeSlidingPairCounter",
    "UndefinedMetricWarning",
    "average_precision_score",
    "bootstrap_ci",
    "concordance_ci",
    "concordance_index",
    "concordance_variance",
    "delong_test",
    "goodman_kruskal_gamma",
    "group_auc_score",
    "kendall_tau",
    "pair_counts",
    "precision_recall_curve",
    "roc_auc_ci",
    "roc_auc_score",
    "roc_curve",
    "somers_d",
]
