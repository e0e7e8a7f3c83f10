"""Per-query ranking metrics on a Dask collection (`ndcg_at_k`, `map_score`):
`streamrank.ranking` per query after the group shuffle of `streamrank.dask._groups`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from .._typing import Empty, Gain, Ties
from .._validation import describe, param_error
from ._groups import _by_group, _concat_group_pieces, _group_shuffle
from ._partition import _check_npartitions, _n_buckets
from ._spec import _compute_kwargs, _is_frame, _parts, _require_columns, _Spec

if TYPE_CHECKING:   # (imported where it is built: ranking loads only with these functions)
    from ..ranking import PerQuery


def _ranking_bucket(pieces, name: str, kwargs: dict):
    """``(query ids, values)`` of `streamrank.ranking`'s ``name`` on one bucket's queries."""
    got = _concat_group_pieces(pieces)
    if got is None:
        return None
    y, s, q, _ = got
    from .. import ranking

    if kwargs.get("empty") != "skip":
        r = getattr(ranking, name)(q, y, s, return_per_query=True, **kwargs)
        return r.query_ids, r.values
    # skipped queries are nan here, without the warning (the client's mean gives one for
    # all buckets; a filter of the warnings module is global, not a bucket's own)
    r = getattr(ranking, name)(q, y, s, return_per_query=True, **{**kwargs, "empty": 0})
    values = r.values.copy()
    values[~np.isin(r.query_ids, q[y > 0])] = np.nan
    return r.query_ids, values


def _ranking_metric(name, data, y_true, y_score, query, label, score, return_per_query,
                    npartitions, scheduler, kwargs):
    """The ranking metric ``name`` per query after the group shuffle, averaged over the
    queries in query order (`PerQuery` with ``return_per_query``). A bucket gives a
    skipped query's value as nan, without a warning: the client's mean gives the one
    `UndefinedMetricWarning` of ``empty="skip"``, with the count over all buckets."""
    from ..ranking import PerQuery
    from ..ranking._layout import query_mean

    func = name
    npartitions = _check_npartitions(npartitions, func)
    if _is_frame(data):
        _require_columns(func, query=query, label=label, score=score)
        spec_g = _Spec(func, "pairs", {"y": label, "s": score, "g": query}, True)
        parts = _parts(data, {}, spec_g)
    else:
        if data is None or y_true is None or y_score is None:
            raise param_error("query_ids", func, "dask arrays query_ids, y_true and y_score",
                              describe(data), TypeError)
        spec_g = _Spec(func, "pairs", {"y": "y_true", "s": "y_score", "g": "query_ids"}, False)
        parts = _parts(None, {"y": y_true, "s": y_score, "g": data}, spec_g)
    nb = _n_buckets(npartitions, len(parts), scheduler)
    res = _group_shuffle(parts, spec_g, nb, _ranking_bucket, (name, kwargs),
                         _compute_kwargs(scheduler))
    ids, values = _by_group(res, (0, 1))
    mean = query_mean(values, func)
    return PerQuery(mean, ids, values) if return_per_query else mean


@overload
def ndcg_at_k(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., gain: Gain | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: Literal[False] = ...,
              npartitions: int | None = ..., scheduler: Any = ...) -> float: ...
@overload
def ndcg_at_k(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., gain: Gain | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: Literal[True],
              npartitions: int | None = ..., scheduler: Any = ...) -> PerQuery: ...
@overload
def ndcg_at_k(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., gain: Gain | None = ..., ties: Ties = ...,
              empty: Empty = ..., return_per_query: bool = ...,
              npartitions: int | None = ..., scheduler: Any = ...) -> float | PerQuery: ...
def ndcg_at_k(data: Any = None, y_true: Any = None, y_score: Any = None, *,
              query: str | None = None, label: str | None = None, score: str | None = None,
              k: int | None = None, gain: Gain | None = None, ties: Ties = "average",
              empty: Empty = 0, return_per_query: bool = False,
              npartitions: int | None = None, scheduler: Any = None) -> float | PerQuery:
    """NDCG@k averaged over queries: `streamrank.ranking.ndcg_at_k` per query after a
    shuffle by a hash of the query id (every query lands whole in one bucket; the mean is
    taken on the client over the per-query values in query order, as numpy does).

    Inputs: a DataFrame with the columns ``query``, ``label``, ``score``, or dask arrays
    ``data`` (query ids), ``y_true``, ``y_score``. ``gain`` (``"exponential"``, ``2**rel -
    1``, or ``"linear"``, ``rel``) defaults to None: the default of
    `streamrank.ranking.ndcg_at_k`, whatever it is, so that both functions give the same
    value with default arguments. ``k=None``: every document of the query. ``empty``: a
    query with no relevant document counts as 0 (the default), 1, or is left out with
    ``"skip"`` and one `UndefinedMetricWarning` giving the number left out. Other
    parameters as the numpy function.

    Runtime complexity: ``O(n log n)`` on the workers; one float per query on the client.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import ndcg_at_k
    >>> q = da.from_array([1, 1, 2, 2], chunks=2)      # query 1: no relevant document
    >>> y = da.from_array([0, 0, 1, 0], chunks=2)
    >>> s = da.from_array([0.2, 0.1, 0.3, 0.3], chunks=2)
    >>> round(ndcg_at_k(q, y, s, scheduler="sync"), 4)
    0.4077
    """
    kwargs = dict(k=k, ties=ties, empty=empty)
    if gain is not None:  # else the ranking function's own default
        kwargs["gain"] = gain
    return _ranking_metric("ndcg_at_k", data, y_true, y_score, query, label, score,
                           return_per_query, npartitions, scheduler, kwargs)


@overload
def map_score(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[False] = ..., npartitions: int | None = ...,
              scheduler: Any = ...) -> float: ...
@overload
def map_score(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[True], npartitions: int | None = ...,
              scheduler: Any = ...) -> PerQuery: ...
@overload
def map_score(data: Any = ..., y_true: Any = ..., y_score: Any = ..., *,
              query: str | None = ..., label: str | None = ..., score: str | None = ...,
              k: int | None = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: bool = ..., npartitions: int | None = ...,
              scheduler: Any = ...) -> float | PerQuery: ...
def map_score(data: Any = None, y_true: Any = None, y_score: Any = None, *,
              query: str | None = None, label: str | None = None, score: str | None = None,
              k: int | None = None, ties: Ties = "average", empty: Empty = 0,
              return_per_query: bool = False, npartitions: int | None = None,
              scheduler: Any = None) -> float | PerQuery:
    """Mean average precision (MAP@k): `streamrank.ranking.map_score` per query after a
    shuffle by a hash of the query id; inputs, ``k`` and ``empty`` as `ndcg_at_k`.

    Runtime complexity: ``O(n log n)`` on the workers; one float per query on the client.
    """
    return _ranking_metric("map_score", data, y_true, y_score, query, label, score,
                           return_per_query, npartitions, scheduler,
                           dict(k=k, ties=ties, empty=empty))
