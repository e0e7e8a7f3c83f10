"""Learning-to-rank metrics over many queries at once.

Batch functions take flat arrays ``query_ids, y_true, y_score`` in any row order, sort
them once by (query, score descending) and reduce over segments: no Python loop per query.
Tied scores are averaged by default (order-independent); ``ties="pessimistic"`` /
``"optimistic"`` break them least / most relevant first.

The River metrics (`ERR`, `MAP`, `MRR`, `NDCG`, `PairwiseErrorRate`) load on first use
and need the ``river`` extra; the rest needs numpy and scipy only.
"""

from ._layout import DEFAULT_GAIN, PerQuery
from .average_precision import average_precision_score
from .dcg import dcg_score, ndcg_score
from .err import err_score
from .incremental import QueryRanking, RankingState
from .lambdarank import lambdarank_gradients
from .pairwise import PairwiseErrors, pairwise_errors
from .precision import precision_at_k, r_precision, recall_at_k
from .reciprocal_rank import mrr_score

_RIVER = ("ERR", "MAP", "MRR", "NDCG", "PairwiseErrorRate")


def __getattr__(name):
    if name in _RIVER:              # (River loads with them, on first use)
        from . import river_metrics

        return getattr(river_metrics, name)
    raise AttributeError(f"module 'streamrank.ranking' has no attribute {name!r}")


__all__ = [
    "DEFAULT_GAIN", "ERR", "MAP", "MRR", "NDCG", "PairwiseErrorRate", "PairwiseErrors",
    "PerQuery", "QueryRanking", "RankingState", "average_precision_score", "dcg_score",
    "err_score", "lambdarank_gradients", "mrr_score", "ndcg_score", "pairwise_errors",
    "precision_at_k", "r_precision", "recall_at_k",
]
