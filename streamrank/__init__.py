"""streamrank: exact rank metrics that stay exact while the data moves.

Batch functions count every concordant, discordant and tied pair in O(n log n) with numpy;
the incremental structures update the same counts in O(log n) per change.
"""

from .auc import GroupAUCResult, group_auc_score, roc_auc_score
from .counter import PairCounter
from .correlation import goodman_kruskal_gamma, kendall_tau, somers_d
from .counts import PairCounts
from .epochs import EpochTracker
from .exceptions import SnapshotError, UndefinedMetricWarning
from .pairs import pair_counts
from .survival import concordance_index
from .windows import SlidingPairCounter, TimeSlidingPairCounter

__version__ = "0.1.0"

# Modules with heavier imports (River, scipy.optimize, dask, pyarrow) load on first use:
# ``streamrank.metrics.ROCAUC()`` works after a plain ``import streamrank``.
_LAZY = ("compare", "dask", "drift", "events", "metrics", "monitor", "ranking", "structures",
         "tables")


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'streamrank' has no attribute {name!r}")

__all__ = [
    "EpochTracker",
    "GroupAUCResult",
    "PairCounter",
    "PairCounts",
    "SlidingPairCounter",
    "SnapshotError",
    "TimeSlidingPairCounter",
    "UndefinedMetricWarning",
    "concordance_index",
    "goodman_kruskal_gamma",
    "group_auc_score",
    "kendall_tau",
    "pair_counts",
    "roc_auc_score",
    "somers_d",
]
