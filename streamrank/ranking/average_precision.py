"""Mean average precision (`map_score`) over many queries at once, tie-aware."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Empty, Ties
from ._layout import PerQuery
from ..batch._kernels import exclusive_cumsum_in_groups
from types import SimpleNamespace

from ._layout import DEFAULT_EMPTY, check_k, finish, group_by_query, rank_layout, validate

__all__ = ["map_score"]


def _harmonic(n: int) -> np.ndarray:
    """``H[m] = sum_{i=1..m} 1/i`` for ``m = 0..n``."""
    h = np.zeros(n + 1)
    np.cumsum(1.0 / np.arange(1, n + 1), out=h[1:])
    return h


def _ap_dense_no_ties(groups, y, s, k):
    """AP per row of a dense ``(n_q, L)`` matrix (``y``, ``s`` in the order of ``groups``)
    when no row has tied scores: a row-wise argsort and a row-wise running count of hits,
    ``O(n log L)``. Returns None when the rows are not dense, and the row-wise order (to
    reuse) when they have ties."""
    L = groups.width
    if L is None:
        return None
    ids = groups.ids
    S = s.reshape(ids.size, L)
    order = np.argsort(-S, axis=1)
    ss = np.take_along_axis(S, order, axis=1)
    if L > 1 and (ss[:, 1:] == ss[:, :-1]).any():
        return order
    rel = np.take_along_axis(y.reshape(ids.size, L) > 0, order, axis=1)
    if k is not None:
        rel = rel[:, :k]
    hits = np.cumsum(rel, axis=1, dtype=np.float64)
    hits *= rel
    hits /= np.arange(1, rel.shape[1] + 1)
    R = np.count_nonzero(y.reshape(ids.size, L) > 0, axis=1)
    return ids, hits.sum(axis=1) / np.maximum(R, 1), R


@overload
def map_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[False] = ...) -> float: ...
@overload
def map_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[True]) -> PerQuery: ...
@overload
def map_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: bool = ...) -> float | PerQuery: ...
def map_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = None, ties: Ties = "average", empty: Empty = DEFAULT_EMPTY,
              return_per_query: bool = False) -> float | PerQuery:
    """Mean average precision (MAP, MAP@k): average precision per query, averaged over
    queries, as trec_eval's ``map`` and ranx's ``map``.

    ``AP@k = (1/R) * sum over relevant documents at rank r <= k of precision@r``, with
    ``R`` the query's relevant documents (``y_true > 0``), as trec_eval's ``map`` and
    ``map_cut_k`` (ranx divides AP@k by ``R`` too). scikit-learn's
    ``average_precision_score`` is another function, of one set of binary labels and
    scores without queries: `streamrank.average_precision_score`.

    Parameters
    ----------
    query_ids : array-like of shape (n,)
        The query of each row; rows in any order, queries of any length.
    y_true : array-like of shape (n,)
        Graded relevance ``>= 0``; relevant means ``> 0``.
    y_score : array-like of shape (n,)
        Finite scores; higher ranks first.
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        ``"average"``: the expected AP over every order of tied scores (McSherry & Najork
        2008). For a tie group of ``n_g`` documents, ``r_g`` relevant, ``c`` documents and
        ``R_b`` relevant documents ranked above it, a relevant member at group position
        ``p`` (uniform on ``1..n_g``) has expected precision
        ``(R_b + 1 + (p - 1)(r_g - 1)/(n_g - 1)) / (c + p)``; summed over ``p <= k - c``
        this is ``(r_g/n_g) [(R_b + 1) S + (r_g - 1)/(n_g - 1) (m - (c + 1) S)]`` with
        ``m = clip(k - c, 0, n_g)`` and ``S = H(c + m) - H(c)`` (harmonic numbers).
        ``"pessimistic"`` / ``"optimistic"``: ties broken least / most relevant first.
    empty : {0, 1, "skip"}, default=0
        What a query with no relevant document counts as: ``0`` (the default, as trec_eval
        and ranx) or ``1``; ``"skip"`` leaves it out of the mean (NaN per query) with one
        `UndefinedMetricWarning` saying how many queries of how many were left out.
    return_per_query : bool, default=False
        Return a `PerQuery` ``(mean, query_ids, values)`` instead of the mean.

    Returns
    -------
    float or PerQuery

    Notes
    -----
    Runtime complexity: ``O(n log n)`` (one sort), then ``O(n)`` segment sums. Rows that
    form a dense ``(n_q, L)`` matrix without tied scores take a row-wise path
    (``argsort`` per row, running hit counts), the same sums with fewer passes.

    Examples
    --------
    Relevant documents at ranks 8, 9, 10 of ten:
    ``(1/8 + 2/9 + 3/10) / 3``.

    >>> import numpy as np
    >>> from streamrank.ranking import map_score
    >>> rel = np.isin(np.arange(10), [0, 1, 2])
    >>> round(map_score(np.zeros(10), rel, np.arange(10)), 6)
    0.215741
    >>> map_score([7, 7], [1, 0], [0.5, 0.5])   # (1 + 1/2) / 2
    0.75
    >>> map_score([7, 7, 8], [1, 0, 0], [0.5, 0.5, 0.1])   # query 8: no relevant doc, 0
    0.375
    """
    func = "map_score"
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, empty=empty)
    k = check_k(k, func)
    groups, y, s = group_by_query(q, y, s)
    local = None
    if ties == "average":
        fast = _ap_dense_no_ties(groups, y, s, k)
        if isinstance(fast, tuple):
            ids, values, R = fast
            return finish(func, SimpleNamespace(query_ids=ids), values, R == 0, empty,
                          return_per_query)
        local = fast
    lay = rank_layout(q, y, s, ties=ties, local=local, groups=groups)
    R = lay.relevant_count()
    if lay.no_ties:
        # No tie groups (distinct scores, or ties broken): the textbook sum over the
        # relevant rows of (relevant so far) / rank, in O(n) with one running count.
        rel = lay.y > 0
        hits = np.cumsum(rel)
        hits -= np.repeat(hits[lay.qstart] - rel[lay.qstart], lay.qlen)   # restart per query
        rank = np.flatnonzero(rel)
        qi = lay.qindex()[rank]
        within = rank - lay.qstart[qi]                                    # 0-based rank
        term = hits[rank] / (within + 1.0)
        if k is not None:
            term[within >= k] = 0.0
        values = np.bincount(qi, weights=term, minlength=lay.n_queries)
        values = values / np.maximum(R, 1)
        return finish(func, lay, values, R == 0, empty, return_per_query)
    rel = (lay.y > 0).astype(np.float64)
    r_g = lay.group_sum(rel)
    n_g = lay.glen.astype(np.float64)
    c = lay.gpos
    # Relevant documents of the query ranked above each group: an exclusive cumsum of the
    # group counts restarted at each query's first group.
    qfirst_group = np.flatnonzero(np.r_[True, lay.gquery[1:] != lay.gquery[:-1]])
    R_b = exclusive_cumsum_in_groups(r_g, qfirst_group)
    m = lay.glen if k is None else np.clip(k - c, 0, lay.glen)
    H = _harmonic(int(lay.qlen.max()))
    S = H[c + m] - H[c]
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(lay.glen > 1, (r_g - 1) / np.maximum(n_g - 1, 1), 0.0)
    contrib = (r_g / n_g) * ((R_b + 1) * S + within * (m - (c + 1) * S))
    undefined = R == 0
    values = lay.query_sum(contrib) / np.maximum(R, 1)
    return finish(func, lay, values, undefined, empty, return_per_query)
