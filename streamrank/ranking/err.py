"""Expected reciprocal rank (ERR@k, Chapelle et al. 2009) over many queries at once."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Empty, Ties
from ._layout import PerQuery
from ..batch._kernels import exclusive_cumsum_in_groups
from .._validation import describe, param_error
from ._layout import DEFAULT_EMPTY, check_k, finish, rank_layout, validate

__all__ = ["err_score"]


@overload
def err_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., max_grade: float | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: Literal[False] = ...) -> float: ...
@overload
def err_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., max_grade: float | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: Literal[True]) -> PerQuery: ...
@overload
def err_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., max_grade: float | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: bool = ...) -> float | PerQuery: ...
def err_score(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = None, max_grade: float | None = None, ties: Ties = "average",
              empty: Empty = DEFAULT_EMPTY,
              return_per_query: bool = False) -> float | PerQuery:
    """Expected reciprocal rank, averaged over queries.

    ``R_i = (2**g_i - 1) / 2**g_max`` is the probability that the user stops at a document
    of grade ``g_i``; ``ERR@k = sum_{r <= k} (1/r) R_r prod_{i < r} (1 - R_i)``.

    Parameters
    ----------
    query_ids : array-like of shape (n,)
        The query of each row; rows in any order, queries of any length.
    y_true : array-like of shape (n,)
        Graded relevance ``>= 0``.
    y_score : array-like of shape (n,)
        Finite scores; higher ranks first.
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    max_grade : float or None, default=None
        ``g_max`` of the grading scale; None takes the largest ``y_true`` of the input (all
        queries). Must be ``>= max(y_true)``.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        ``"average"``: every document of a tie group gets the group's mean stopping
        probability ``R`` (the tie-averaged-gain rule of McSherry & Najork applied to
        ``R``); order-independent, and equal to ERR whenever there are no ties, but *not*
        the expectation over every order of the ties (ERR is not linear in the gains).
        ``"pessimistic"`` / ``"optimistic"``: ties broken least / most relevant first.
    empty : {0, 1, "skip"}, default=0
        What a query with no relevant document (all grades 0) counts as: ``0`` (the
        default, as trec_eval and ranx count queries without relevant documents) or
        ``1``; ``"skip"`` leaves it out of the mean (NaN per query) with one
        `UndefinedMetricWarning` saying how many queries of how many were left out.
    return_per_query : bool, default=False
        Return a `PerQuery` ``(mean, query_ids, values)`` instead of the mean.

    Returns
    -------
    float or PerQuery

    Notes
    -----
    Runtime complexity: ``O(n log n)`` (one sort); the products
    ``prod_{i<r} (1 - R_i)`` are ``exp`` of within-query exclusive cumulative sums of
    ``log(1 - R_i)`` (``1 - R_i >= 2**-g_max > 0``, so the logs are finite).

    Examples
    --------
    >>> from streamrank.ranking import err_score
    >>> # grades 2, 0, 1 with g_max = 2: R = 3/4, 0, 1/4
    >>> err_score([1, 1, 1], [2, 0, 1], [0.9, 0.5, 0.1])   # 3/4 + (1/3)(1/4)(1/4)
    0.7708333333333334
    """
    func = "err_score"
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, empty=empty)
    k = check_k(k, func)
    top = float(y.max())
    if max_grade is None:
        gmax = top
    else:
        if isinstance(max_grade, (bool, np.bool_)) or not isinstance(
                max_grade, (int, float, np.integer, np.floating)) or not (max_grade >= top):
            raise param_error("max_grade", func, f"a number >= max(y_true) = {top:g}",
                              describe(max_grade))
        gmax = float(max_grade)
    lay = rank_layout(q, y, s, ties=ties, input_order=False)
    R = np.expm1(lay.y * np.log(2.0)) / 2.0 ** gmax
    if ties == "average":
        R = np.repeat(lay.group_sum(R) / lay.glen, lay.glen)
    log_keep = np.log1p(-R)
    before = np.exp(exclusive_cumsum_in_groups(log_keep, lay.qstart))
    rank = np.arange(lay.y.size) - np.repeat(lay.qstart, lay.qlen) + 1
    term = R * before / rank
    if k is not None:
        term = np.where(rank <= k, term, 0.0)
    values = np.add.reduceat(term, lay.qstart)
    undefined = lay.relevant_count() == 0
    return finish(func, lay, values, undefined, empty, return_per_query)
