"""DCG@k and NDCG@k over many queries at once (`dcg_at_k`, `ndcg_at_k`), with tie-averaged
DCG by default."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Empty, Gain, Ties
from ._layout import PerQuery
from types import SimpleNamespace

from ..batch._cgroups import code_counts, query_topk
from ._layout import (
    DEFAULT_EMPTY, DEFAULT_GAIN, check_k, discount_cumsum, finish, gains, ideal_dcg,
    ideal_dcg_rows, group_by_query, query_codes, rank_layout, validate,
)

__all__ = ["dcg_at_k", "ndcg_at_k"]


def _dcg(lay, k, gain, D):
    """DCG@k per query. With tie groups, each group contributes its *mean* gain times the
    discounts of the positions it occupies inside the top k (McSherry & Najork 2008): the
    expectation over every order of the tied documents."""
    g = gains(lay.y, gain)
    lo, hi = lay.overlap(k)
    mean_gain = lay.group_sum(g) / lay.glen
    return lay.query_sum(mean_gain * (D[hi] - D[lo]))


def _topk_dense(neg: np.ndarray, G: np.ndarray, k: int):
    """``(top, gtop, n_eq, g_eq)`` of a dense ``(n_q, L)`` matrix, ``k < L`` (as
    `streamrank.batch._cgroups.query_topk` gives them for rows in any order): each row's
    ``k`` smallest negated scores ``neg``, ascending, by ``np.argpartition`` and a sort of
    the ``k``, with their gains ``G``; the number of the row's documents scoring the
    ``k``-th and their gains' sum (one ``O(n)`` comparison pass). ``O(n + n_q k log k)``."""
    part = np.argpartition(neg, k - 1, axis=1)[:, :k]
    top = np.take_along_axis(neg, part, axis=1)
    o = np.argsort(top, axis=1)
    top = np.take_along_axis(top, o, axis=1)
    gtop = np.take_along_axis(np.take_along_axis(G, part, axis=1), o, axis=1)
    eq = neg == top[:, k - 1:k]
    return top, gtop, eq.sum(axis=1), np.where(eq, G, 0.0).sum(axis=1)


def _dcg_topk(top, gtop, n_eq, g_eq, k: int, D: np.ndarray) -> np.ndarray:
    """Tie-averaged DCG@k of every query from its ``k`` best documents (`_topk_dense`).

    With ``v`` the ``k``-th best score of a query, every document better than ``v`` is
    inside the top ``k``; the tie group of ``v`` straddles the cut-off and contributes the
    mean gain of *all* the query's documents scoring ``v`` times the discounts of the
    positions it occupies below ``k``::

        row sorted:  a  b  b  | v  v  v  v  ...   k = 4: positions 0..3
                     groups <v fully inside      group v: positions 3..(k-1) inside
    """
    nq = top.shape[0]
    v = top[:, k - 1:k]
    above = top < v
    c_v = above.sum(axis=1)
    out = g_eq / n_eq * (D[k] - D[c_v])
    # Tie groups strictly above v, all inside the top k: flat runs of the (n_q, k) matrix.
    flat = top.ravel()
    flags = np.empty(flat.size, dtype=bool)
    flags[0] = True
    np.not_equal(flat[1:], flat[:-1], out=flags[1:])
    flags[::k] = True
    gs = np.flatnonzero(flags & above.ravel())
    if gs.size:
        ge = np.flatnonzero(np.r_[flags[1:], True] & above.ravel()) + 1
        row = gs // k
        csum = np.cumsum(np.r_[0.0, gtop.ravel()])
        mean = (csum[ge] - csum[gs]) / (ge - gs)
        out += np.bincount(row, weights=mean * (D[ge - row * k] - D[gs - row * k]),
                           minlength=nq)
    return out


def _ndcg_topk(q, y, s, k, gain, ties):
    """``(fast, groups, y, s)``. ``fast``: ``(ids, dcg, idcg)`` by top-``k`` selection
    (`_dcg_topk`) when every query holds the same number ``L > k`` of rows (``ties=
    "average"``), else None with the rows grouped by query (`group_by_query`) for
    `rank_layout`. Rows not contiguous by query are not moved for it: one compiled pass
    keeps each query's ``k`` best in a heap (`query_topk`) and the ideal DCG is a
    histogram of the rows in any order, ``O(n log k)``; grouped rows are selected from
    as a ``(n_q, L)`` matrix (`_topk_dense`). The same numbers either way."""
    if ties != "average" or k is None:
        return (None, *group_by_query(q, y, s))
    codes = query_codes(q)
    if codes is not None:
        code, offset, n_codes, ids_of = codes
        counts, contiguous = code_counts(code, offset, n_codes)
        present = np.flatnonzero(counts)
        L = int(counts[present[0]])
        if not contiguous and k < L and (counts[present] == L).all():
            D = discount_cumsum(k)
            G = gains(y.astype(np.float64, copy=False), gain)
            top, gtop, n_eq, g_eq = query_topk(code, offset, n_codes, -s, G, k)
            qi = code - offset
            if present.size < n_codes:              # ids missing inside the span
                qi = np.cumsum(counts > 0)[qi] - 1
                top, gtop, n_eq, g_eq = top[present], gtop[present], n_eq[present], \
                    g_eq[present]
            nq = present.size
            return ((ids_of(present), _dcg_topk(top, gtop, n_eq, g_eq, k, D),
                     ideal_dcg_rows(qi, y, np.full(nq, L), k, gain, D)), None, y, s)
    groups, y, s = group_by_query(q, y, s, codes=codes)
    L = groups.width
    if L is None or k >= L:
        return None, groups, y, s
    ids = groups.ids
    nq = ids.size
    D = discount_cumsum(k)
    G = gains(y.astype(np.float64, copy=False), gain).reshape(nq, L)
    dcg = _dcg_topk(*_topk_dense(-s.reshape(nq, L), G, k), k, D)
    qi = np.repeat(np.arange(nq), L)
    idcg = ideal_dcg_rows(qi, y, np.full(nq, L), k, gain, D)
    return (ids, dcg, idcg), groups, y, s


@overload
def dcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
             k: int | None = ..., gain: Gain = ..., ties: Ties = ...,
             return_per_query: Literal[False] = ...) -> float: ...
@overload
def dcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
             k: int | None = ..., gain: Gain = ..., ties: Ties = ...,
             return_per_query: Literal[True]) -> PerQuery: ...
@overload
def dcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
             k: int | None = ..., gain: Gain = ..., ties: Ties = ...,
             return_per_query: bool = ...) -> float | PerQuery: ...
def dcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
             k: int | None = None, gain: Gain = DEFAULT_GAIN, ties: Ties = "average",
             return_per_query: bool = False) -> float | PerQuery:
    """Discounted cumulative gain at ``k`` (DCG@k), averaged over queries.

    ``DCG@k = sum_{r <= k} gain(rel_r) / log2(r + 1)`` with documents ranked by
    ``y_score`` descending inside each query; ``gain`` is ``rel`` (``"linear"``, the
    default, as scikit-learn) or ``2**rel - 1`` (``"exponential"``, as trec_eval's
    ``ndcg_cut`` with graded relevance, LightGBM and most learning-to-rank tools). With
    the defaults it equals ``sklearn.metrics.dcg_score(Y, S, k=k)`` of the queries as the
    rows of ``(n_queries, n_documents)`` matrices ``Y``, ``S`` (scikit-learn takes those
    2-D arrays; this takes flat rows with their query ids). A query with no relevant
    document has DCG 0 and is always counted.

    Parameters
    ----------
    query_ids : array-like of shape (n,)
        The query of each row (any sortable ids). Rows may come in any order and queries
        may have any number of documents.
    y_true : array-like of shape (n,)
        Graded relevance, ``>= 0``.
    y_score : array-like of shape (n,)
        Predicted scores, finite; higher ranks first.
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    gain : {"linear", "exponential"}, default="linear"
        ``rel`` or ``2**rel - 1``; the default is `streamrank.ranking.DEFAULT_GAIN`, the
        default of every NDCG and DCG of streamrank.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        ``"average"``: tied scores share their positions' discounts equally (each tie group
        contributes its mean gain times the discounts of the positions it spans inside the
        top ``k``), the expected DCG over every order of the ties, independent of the input
        order; what ``sklearn.metrics.dcg_score(ignore_ties=False)`` computes.
        ``"pessimistic"`` / ``"optimistic"``: ties broken least / most relevant first.
    return_per_query : bool, default=False
        Also return the per-query values, as a `PerQuery` ``(mean, query_ids, values)``.

    Returns
    -------
    float or PerQuery
        The mean DCG over queries.

    Notes
    -----
    Runtime complexity: ``O(n log n)`` for one sort by (query, score), then ``O(n)``
    segment sums, vectorized across queries (a per-query Python loop costs ``O(n_q)``
    interpreter round trips on top).

    Examples
    --------
    >>> from streamrank.ranking import dcg_at_k
    >>> q = [1, 1, 1, 2, 2]
    >>> rel = [3, 0, 1, 0, 2]
    >>> s = [0.9, 0.8, 0.1, 0.5, 0.5]
    >>> round(dcg_at_k(q, rel, s), 4)                     # linear gain: rel
    2.5655
    >>> r = dcg_at_k(q, rel, s, return_per_query=True)
    >>> r.query_ids.tolist(), r.values.round(4).tolist()   # query 2: ties averaged
    ([1, 2], [3.5, 1.6309])
    >>> round(dcg_at_k(q, rel, s, gain="exponential"), 4)  # 2**rel - 1
    4.9732
    """
    func = "dcg_at_k"
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, gain=gain)
    k = check_k(k, func)
    fast, groups, y, s = _ndcg_topk(q, y, s, k, gain, ties)
    if fast is not None:
        return finish(func, SimpleNamespace(query_ids=fast[0]), fast[1], None, 0,
                      return_per_query)
    lay = rank_layout(q, y, s, ties=ties, groups=groups)
    D = discount_cumsum(int(lay.qlen.max()) if k is None else min(k, int(lay.qlen.max())))
    kk = None if k is None else min(k, D.size - 1)
    return finish(func, lay, _dcg(lay, kk, gain, D), None, 0, return_per_query)


@overload
def ndcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., gain: Gain = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[False] = ...) -> float: ...
@overload
def ndcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., gain: Gain = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: Literal[True]) -> PerQuery: ...
@overload
def ndcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = ..., gain: Gain = ..., ties: Ties = ..., empty: Empty = ...,
              return_per_query: bool = ...) -> float | PerQuery: ...
def ndcg_at_k(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
              k: int | None = None, gain: Gain = DEFAULT_GAIN, ties: Ties = "average",
              empty: Empty = DEFAULT_EMPTY,
              return_per_query: bool = False) -> float | PerQuery:
    """Normalized DCG at ``k`` (NDCG@k), averaged over queries.

    ``NDCG@k = DCG@k / IDCG@k`` per query, IDCG@k being the DCG@k of the documents sorted
    by relevance. See `dcg_at_k` for ``gain`` and ``ties``.

    Parameters
    ----------
    query_ids, y_true, y_score, gain, ties, return_per_query
        As in `dcg_at_k`.
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    empty : {0, 1, "skip"}, default=0
        What a query with no relevant document (IDCG = 0) counts as: ``0`` (the default,
        as scikit-learn's ``ndcg_score``, trec_eval and ranx) or ``1``; ``"skip"`` leaves
        it out of the mean (its per-query value is NaN) and emits one
        `UndefinedMetricWarning` saying how many queries of how many were left out.

    Returns
    -------
    float or PerQuery
        Mean NDCG over the queries; with ``empty="skip"``, over the queries kept (NaN,
        with the warning, when none is).

    Notes
    -----
    Runtime complexity: ``O(n log n)``: one sort by (query, score); the ideal DCG needs no
    second sort when the relevance has at most 64 levels (a per-query histogram of the
    levels, ``O(n + n_q L)``), else one more ``lexsort``. With a cut-off ``k`` below the
    common length of every query (``ties="average"``): ``O(n log k)``, each query's ``k``
    best selected without sorting, and rows in any order are not grouped first.
    With the default gain, ties and ``empty`` it equals ``sklearn.metrics.ndcg_score(Y, S,
    k=k)`` (whose ``ignore_ties=False`` averages ties) of the queries as the rows of
    ``(n_queries, n_documents)`` matrices ``Y``, ``S``, queries without a relevant
    document included (scikit-learn counts them as 0).

    Examples
    --------
    Relevant documents {0, 1, 2} ranked last of ten:

    >>> import numpy as np
    >>> from streamrank.ranking import ndcg_at_k
    >>> docs = np.arange(10)
    >>> rel = np.isin(docs, [0, 1, 2]).astype(int)
    >>> score = docs.astype(float)                 # doc 9 ranked first, doc 0 last
    >>> round(ndcg_at_k(np.zeros(10), rel, score), 4)
    0.425

    Query 1 has no relevant document: it counts as 0 (scikit-learn's and trec_eval's
    convention), or is left out with ``empty="skip"`` and a warning:

    >>> round(ndcg_at_k([1, 1, 2, 2], [0, 0, 1, 0], [0.2, 0.1, 0.3, 0.3]), 4)
    0.4077
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     v = ndcg_at_k([1, 1, 2, 2], [0, 0, 1, 0], [0.2, 0.1, 0.3, 0.3], empty="skip")
    >>> round(v, 4), str(caught[0].message).split(" (")[0]
    (0.8155, 'ndcg_at_k: 1 of 2 queries have no relevant document and were skipped')
    """
    func = "ndcg_at_k"
    q, y, s = validate(query_ids, y_true, y_score, func, ties=ties, empty=empty, gain=gain)
    k = check_k(k, func)
    fast, groups, y, s = _ndcg_topk(q, y, s, k, gain, ties)
    if fast is not None:
        ids, dcg, idcg = fast
        lay = SimpleNamespace(query_ids=ids)
    else:
        lay = rank_layout(q, y, s, ties=ties, groups=groups)
        top = int(lay.qlen.max())
        kk = None if k is None else min(k, top)
        D = discount_cumsum(top if kk is None else kk)
        dcg = _dcg(lay, kk, gain, D)
        idcg = ideal_dcg(lay, kk, gain, D)
    undefined = idcg <= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(undefined, 0.0, dcg / np.where(undefined, 1.0, idcg))
    return finish(func, lay, values, undefined, empty, return_per_query)
