"""Learning-to-rank metrics over many queries at once.

Batch functions take flat arrays ``query_ids, y_true, y_score`` in any row order, sort
them once by (query, score descending) and reduce over segments: no Python loop per query.
Tied scores are averaged by default (order-independent); ``ties="pessimistic"`` /
``"optimistic"`` break them least / most relevant first.

Names follow the IR "@k" convention (`ndcg_at_k`, `dcg_at_k`, `precision_at_k`,
`recall_at_k`; `map_score`, `mrr_score`, `err_score` take ``k`` too), never a
scikit-learn name with another signature: scikit-learn's ``ndcg_score`` takes 2-D
``(n_queries, n_documents)`` arrays, these take flat ``query_ids, y_true, y_score``.
``k=None`` is every document of the query. A query with no relevant document counts as 0
by default (``empty=0``, as scikit-learn's ``ndcg_score`` and trec_eval); ``empty=1``
counts it as 1 and ``empty="skip"`` leaves it out of the mean with one
`streamrank.exceptions.UndefinedMetricWarning` giving the number left out.

The River metrics (`ERR`, `MAP`, `MRR`, `NDCG`, `PairwiseErrorRate`) load on first use
and need the ``river`` extra; the rest needs numpy and scipy only.
"""

from typing import TYPE_CHECKING

from ._layout import DEFAULT_GAIN, PerQuery
from .average_precision import map_score
from .dcg import dcg_at_k, ndcg_at_k
from .err import err_score
from .incremental import QueryRanking, RankingState
from .lambdarank import lambdarank_gradients
from .pairwise import PairwiseErrors, pairwise_errors
from .precision import precision_at_k, r_precision, recall_at_k
from .reciprocal_rank import mrr_score

if TYPE_CHECKING:                   # (type checkers see the River metrics' own types)
    from .river_metrics import ERR, MAP, MRR, NDCG, PairwiseErrorRate

_RIVER = ("ERR", "MAP", "MRR", "NDCG", "PairwiseErrorRate")


def __getattr__(name):
    if name in _RIVER:              # (River loads with them, on first use)
        from . import river_metrics

        return getattr(river_metrics, name)
    raise AttributeError(f"module 'streamrank.ranking' has no attribute {name!r}")


__all__ = [
    "DEFAULT_GAIN", "ERR", "MAP", "MRR", "NDCG", "PairwiseErrorRate", "PairwiseErrors",
    "PerQuery", "QueryRanking", "RankingState", "dcg_at_k", "err_score",
    "lambdarank_gradients", "map_score", "mrr_score", "ndcg_at_k", "pairwise_errors",
    "precision_at_k", "r_precision", "recall_at_k",
]
