"""Precision@k, recall@k and R-precision over many queries at once."""

from __future__ import annotations

from typing import Any, Callable, Literal, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Empty, Ties
from ._layout import PerQuery
from ._layout import DEFAULT_EMPTY, check_k, finish, rank_layout, validate

__all__ = ["precision_at_k", "r_precision", "recall_at_k"]


def _expected_hits(lay, k):
    """Expected relevant documents in the top ``k`` of each query: each tie group
    contributes ``r_g * |group inside top k| / n_g`` (every order of the ties equally
    likely; exact counts when ties are broken)."""
    rel = (lay.y > 0).astype(np.float64)
    lo, hi = lay.overlap(k)
    return lay.query_sum(lay.group_sum(rel) * (hi - lo) / lay.glen)


def _prepare(func, query_ids, y_true, y_score, k, ties, empty):
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, empty=empty)
    k = check_k(k, func)
    return rank_layout(q, y, s, ties=ties, input_order=False), k


_PARAMETERS = """    Parameters
    ----------
    query_ids : array-like of shape (n,)
        The query of each row; rows in any order, queries of any length.
    y_true : array-like of shape (n,)
        Graded relevance ``>= 0``; a document is relevant when ``y_true > 0``.
    y_score : array-like of shape (n,)
        Finite scores; higher ranks first.
    k : int or None
        Cut-off. ``k=None``: every document of the query.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        ``"average"``: the expectation over every order of tied scores (a tie group
        straddling the cut-off contributes the fraction of its relevant documents equal to
        the fraction of its positions inside the top k). ``"pessimistic"`` /
        ``"optimistic"``: ties broken least / most relevant first.
    empty : {0, 1, "skip"}, default=0
        What a query with no relevant document counts as: ``0`` (the default, as trec_eval
        and ranx) or ``1``; ``"skip"`` leaves it out of the mean (NaN per query) with one
        `UndefinedMetricWarning` saying how many queries of how many were left out.
    return_per_query : bool, default=False
        Return a `PerQuery` ``(mean, query_ids, values)`` instead of the mean.
"""
_K = """    k : int or None
        Cut-off. ``k=None``: every document of the query.
"""


_F = TypeVar("_F", bound=Callable[..., Any])


def _with_parameters(*, k: bool = True) -> Callable[[_F], _F]:
    """Put the shared parameter section where a docstring says ``{parameters}`` (without
    ``k`` for `r_precision`), so that `help` and the doctests see the whole text."""
    text = _PARAMETERS if k else _PARAMETERS.replace(_K, "")

    def wrap(func: Any) -> Any:
        func.__doc__ = func.__doc__.replace("    {parameters}\n", text)
        return func
    return wrap


@overload
def precision_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                   k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                   return_per_query: Literal[False] = ...) -> float: ...
@overload
def precision_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                   k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                   return_per_query: Literal[True]) -> PerQuery: ...
@overload
def precision_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                   k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                   return_per_query: bool = ...) -> float | PerQuery: ...
@_with_parameters()
def precision_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                   k: int | None = 10, ties: Ties = "average",
                   empty: Empty = DEFAULT_EMPTY,
                   return_per_query: bool = False) -> float | PerQuery:
    """Precision@k: relevant documents in the top ``k``, divided by ``k``, averaged over
    queries (``k`` even when the query has fewer documents, as trec_eval and ranx).
    ``k=None`` divides by the query's length.

    {parameters}
    Notes
    -----
    Runtime complexity: ``O(n log n)`` (one sort), then ``O(n)`` segment sums.

    Examples
    --------
    >>> from streamrank.ranking import precision_at_k
    >>> precision_at_k([1, 1, 1, 1], [1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1], k=2)
    0.75
    >>> precision_at_k([1, 1, 1, 1], [1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1], k=2,
    ...                ties="optimistic")
    1.0
    """
    lay, k = _prepare("precision_at_k", query_ids, y_true, y_score, k, ties, empty)
    hits = _expected_hits(lay, k)
    denom = lay.qlen if k is None else k
    undefined = lay.relevant_count() == 0
    return finish("precision_at_k", lay, hits / denom, undefined, empty, return_per_query)


@overload
def recall_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                return_per_query: Literal[False] = ...) -> float: ...
@overload
def recall_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                return_per_query: Literal[True]) -> PerQuery: ...
@overload
def recall_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
                return_per_query: bool = ...) -> float | PerQuery: ...
@_with_parameters()
def recall_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                k: int | None = 10, ties: Ties = "average",
                empty: Empty = DEFAULT_EMPTY,
                return_per_query: bool = False) -> float | PerQuery:
    """Recall@k: relevant documents in the top ``k`` divided by the query's relevant
    documents ``R``, averaged over queries.

    {parameters}
    Notes
    -----
    Runtime complexity: ``O(n log n)`` (one sort), then ``O(n)`` segment sums.

    Examples
    --------
    >>> from streamrank.ranking import recall_at_k
    >>> recall_at_k([1, 1, 1, 2, 2], [1, 0, 1, 0, 1], [0.9, 0.8, 0.1, 0.5, 0.7], k=1)
    0.75
    """
    lay, k = _prepare("recall_at_k", query_ids, y_true, y_score, k, ties, empty)
    R = lay.relevant_count()
    undefined = R == 0
    values = _expected_hits(lay, k) / np.maximum(R, 1)
    return finish("recall_at_k", lay, values, undefined, empty, return_per_query)


@overload
def r_precision(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                ties: Ties = ..., empty: Empty = ...,
                return_per_query: Literal[False] = ...) -> float: ...
@overload
def r_precision(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                ties: Ties = ..., empty: Empty = ...,
                return_per_query: Literal[True]) -> PerQuery: ...
@overload
def r_precision(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                ties: Ties = ..., empty: Empty = ...,
                return_per_query: bool = ...) -> float | PerQuery: ...
@_with_parameters(k=False)
def r_precision(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                ties: Ties = "average", empty: Empty = DEFAULT_EMPTY,
                return_per_query: bool = False) -> float | PerQuery:
    """R-precision: precision at ``R``, the query's number of relevant documents
    (equivalently recall at ``R``), averaged over queries.

    {parameters}
    Notes
    -----
    Runtime complexity: ``O(n log n)`` (one sort), then ``O(n)`` segment sums.

    Examples
    --------
    Relevant documents {0, 1, 2}, ranked 9, 8, ..., 0: none of them in the top 3.

    >>> import numpy as np
    >>> from streamrank.ranking import r_precision
    >>> r_precision(np.zeros(10), np.isin(np.arange(10), [0, 1, 2]), np.arange(10))
    0.0
    """
    lay, _ = _prepare("r_precision", query_ids, y_true, y_score, None, ties, empty)
    R = lay.relevant_count()
    undefined = R == 0
    values = _expected_hits(lay, R) / np.maximum(R, 1)
    return finish("r_precision", lay, values, undefined, empty, return_per_query)
