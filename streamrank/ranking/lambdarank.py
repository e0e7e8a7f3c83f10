"""LambdaRank gradients (RankNet pair gradients weighted by |delta NDCG|) for all queries."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import describe, param_error
from ._blocks import query_blocks
from ._layout import check_k, discount_cumsum, gains, ideal_dcg, rank_layout, validate

__all__ = ["lambdarank_gradients"]


def lambdarank_gradients(query_ids: ArrayLike, y_true: ArrayLike, y_score: ArrayLike, *,
                         sigma: float = 1.0, k: int | None = None
                         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-document LambdaRank gradients and hessians, for a custom boosting objective.

    For every pair ``(i, j)`` of one query with ``y_i > y_j``, RankNet's cost
    ``C_ij = log(1 + exp(-sigma (s_i - s_j)))`` has
    ``dC/ds_i = -sigma rho_ij = -dC/ds_j`` with ``rho_ij = 1 / (1 + exp(sigma (s_i - s_j)))``
    and second derivative ``sigma^2 rho_ij (1 - rho_ij)``. LambdaRank multiplies both by
    ``|delta NDCG_ij| = |g_i - g_j| |d(r_i) - d(r_j)| / IDCG@k``, the change of NDCG@k
    when ``i`` and ``j`` swap ranks (``g = 2**y - 1``, ``d(r) = 1/log2(r + 1)`` for
    ``r <= k`` else 0). Each document sums its pairs:
    ``grad_i = sum_j dC_ij/ds_i * |delta NDCG_ij|`` and likewise ``hess_i``.

    Parameters
    ----------
    query_ids : array-like of shape (n,)
        The query of each row; rows in any order, queries of any length.
    y_true : array-like of shape (n,)
        Graded relevance ``>= 0``.
    y_score : array-like of shape (n,)
        Current model scores.
    sigma : float, default=1.0
        RankNet's sigmoid steepness, ``> 0``.
    k : int or None, default=None
        NDCG truncation: pairs whose both ranks exceed ``k`` get zero weight.

    Returns
    -------
    grad, hess : ndarray of shape (n,)
        Aligned with the input rows: the ``(grad, hess)`` a LightGBM / XGBoost custom
        objective returns (gradient of the cost to minimize, so relevant documents ranked
        too low get negative gradients). Queries whose relevance is all equal get zeros.

    Notes
    -----
    Ranks ``r`` are the positions by score descending, ties broken by input row (as
    LightGBM's stable sort). No ``log2(1 + sum lambda)`` normalization is applied.

    Runtime complexity: ``O(n log n + sum_q n_q min(k, n_q))``: one sort, then the pairs
    of each query in vectorized ``(m, min(k, b), b)`` blocks (only pairs with a rank
    ``<= k`` have a nonzero weight), queries bucketed by length rounded up to a power of
    two (at most 2x padding per side). ``k=None`` costs ``O(sum n_q^2)``. Memory is
    bounded by the block size, not by the number of pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from streamrank.ranking import lambdarank_gradients
    >>> grad, hess = lambdarank_gradients([1, 1], [1, 0], [0.0, 0.0])
    >>> grad.round(4).tolist(), hess.round(4).tolist()   # |dNDCG| = 1 - 1/log2(3)
    ([-0.1845, 0.1845], [0.0923, 0.0923])
    """
    func = "lambdarank_gradients"
    q, y, s = validate(query_ids, y_true, y_score, func)
    k = check_k(k, func)
    if isinstance(sigma, (bool, np.bool_)) or not isinstance(
            sigma, (int, float, np.integer, np.floating)) or not (0 < sigma < np.inf):
        raise param_error("sigma", func, "a finite number > 0", describe(sigma))
    s = s.astype(np.float64, copy=False)
    lay = rank_layout(q, y, s, stable=True)
    top = int(lay.qlen.max())
    kk = None if k is None else min(k, top)
    D = discount_cumsum(top)
    idcg = ideal_dcg(lay, kk, "exponential", D[: (top if kk is None else kk) + 1])
    with np.errstate(divide="ignore"):
        inv = np.where(idcg > 0, 1.0 / np.where(idcg > 0, idcg, 1.0), 0.0)
    g = gains(lay.y, "exponential")
    pos = np.arange(lay.y.size) - np.repeat(lay.qstart, lay.qlen)
    disc = D[pos + 1] - D[pos]
    if kk is not None:
        disc = np.where(pos < kk, disc, 0.0)
    grad_sorted = np.zeros(lay.y.size)
    hess_sorted = np.zeros(lay.y.size)
    # Each unordered pair once: row i among the first r positions of its query (r = k:
    # a pair with both ranks beyond k has |delta NDCG| = 0), column j after i or beyond r.
    for qs, idx, valid in query_blocks(lay.qstart, lay.qlen):
        b = idx.shape[1]
        r = b if kk is None else min(kk, b)
        ri = idx[:, :r]
        Yi, Si, Gi, Di = lay.y[ri], lay.s[ri], g[ri], disc[ri]
        Yj, Sj, Gj, Dj = lay.y[idx], lay.s[idx], g[idx], disc[idx]
        cols = np.arange(b)
        order_ok = (cols[None, :] > cols[:r, None]) | (cols[None, :] >= r)
        pair = (order_ok[None] & valid[:, :r, None] & valid[:, None, :]
                & (Yi[:, :, None] != Yj[:, None, :]))
        sgn = np.sign(Yi[:, :, None] - Yj[:, None, :])          # +1: i is the better one
        delta = (np.abs(Gi[:, :, None] - Gj[:, None, :]) * np.abs(Di[:, :, None] - Dj[:, None, :])
                 * inv[qs][:, None, None])
        w = np.where(pair, delta, 0.0)
        # rho = 1 / (1 + exp(sigma (s_better - s_worse))), via tanh (no overflow)
        rho = 0.5 * (1.0 - np.tanh(0.5 * sigma * sgn * (Si[:, :, None] - Sj[:, None, :])))
        lam = sigma * rho * w                    # -dC/ds of the better document
        h = sigma * sigma * rho * (1.0 - rho) * w
        slam = sgn * lam
        np.add.at(grad_sorted, ri, -slam.sum(axis=2))
        np.add.at(grad_sorted, idx, slam.sum(axis=1))
        hs = h.sum(axis=2)
        np.add.at(hess_sorted, ri, hs)
        np.add.at(hess_sorted, idx, h.sum(axis=1))
    grad = np.empty_like(grad_sorted)
    hess = np.empty_like(hess_sorted)
    grad[lay.order] = grad_sorted
    hess[lay.order] = hess_sorted
    return grad, hess
