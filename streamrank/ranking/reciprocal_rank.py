"""Mean reciprocal rank (MRR@k) over many queries at once, tie-aware."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Empty, Ties
from ._layout import PerQuery

from ._layout import DEFAULT_EMPTY, check_k, finish, rank_layout, validate

__all__ = ["mrr_score"]


@overload
def mrr_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[False] = ...) -> float: ...
@overload
def mrr_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[True]) -> PerQuery: ...
@overload
def mrr_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: bool = ...) -> float | PerQuery: ...
def mrr_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = None, ties: Ties = "average", empty: Empty = DEFAULT_EMPTY,
              return_per_query: bool = False) -> float | PerQuery:
    """Reciprocal rank of each query's first relevant document, averaged over queries.

    ``RR@k = 1 / rank`` of the first relevant document (``y_true > 0``) when that rank is
    ``<= k``, else 0.

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
        ``"average"``: the expected reciprocal rank over every order of the tied scores.
        The first relevant document lies in the first tie group holding one (``n_g``
        documents, ``r_g`` relevant, ``c`` ranked above); it lands at group position ``p``
        with probability ``C(n_g - p, r_g - 1) / C(n_g, r_g)``, so
        ``E[RR] = sum_p C(n_g - p, r_g - 1) / C(n_g, r_g) / (c + p)`` over ``c + p <= k``.
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
    Runtime complexity: ``O(n log n)`` (one sort), then ``O(n)`` segment reductions.

    Examples
    --------
    >>> import numpy as np
    >>> from streamrank.ranking import mrr_score
    >>> rel = np.isin(np.arange(10), [0, 1, 2])            # ranked last of ten: first hit at rank 8
    >>> mrr_score(np.zeros(10), rel, np.arange(10))
    0.125
    >>> mrr_score([1, 1], [1, 0], [0.3, 0.3])              # rank 1 or 2: (1 + 1/2) / 2
    0.75
    """
    func = "mrr_score"
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, empty=empty)
    k = check_k(k, func)
    lay = rank_layout(q, y, s, ties=ties, input_order=False)
    r_g = lay.group_sum((lay.y > 0).astype(np.int64))
    ng = lay.glen.size
    qfirst_group = np.flatnonzero(np.r_[True, lay.gquery[1:] != lay.gquery[:-1]])
    cand = np.where(r_g > 0, np.arange(ng), ng)
    first = np.minimum.reduceat(cand, qfirst_group)
    has = first < ng
    values = np.zeros(lay.n_queries)
    g = first[has]
    n, r, c = lay.glen[g], r_g[g], lay.gpos[g]
    # Every position p = 1..n of each first relevant group, expanded flat.
    owner = np.repeat(np.arange(g.size), n)
    p = np.arange(owner.size) - np.repeat(np.cumsum(n) - n, n) + 1
    nn, rr, cc = n[owner], r[owner], c[owner]
    ok = nn - p >= rr - 1
    if k is not None:
        ok &= cc + p <= k
    a = np.where(ok, nn - p, 0)
    from scipy.special import gammaln   # (scipy.special loads on first use: 0.2 s)

    logp = (gammaln(a + 1) - gammaln(rr) - gammaln(np.maximum(a - rr + 2, 1))
            - (gammaln(nn + 1) - gammaln(rr + 1) - gammaln(nn - rr + 1)))
    term = np.where(ok, np.exp(logp) / (cc + p), 0.0)
    values[has] = np.bincount(owner, weights=term, minlength=g.size)
    undefined = ~has
    return finish(func, lay, values, undefined, empty, return_per_query)
