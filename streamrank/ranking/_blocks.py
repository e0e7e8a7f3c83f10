"""Queries as dense padded blocks, for the pairwise computations (``O(sum n_q^2)``).

Queries are bucketed by their length rounded up to a power of two; each bucket becomes
``(m, b)`` index matrices of sorted positions (``m`` queries padded to ``b`` columns, at
most ``max_cells`` pair cells per chunk), so one vectorized ``(m, b, b)`` pass handles all
pairs of many queries. The Python loop runs over buckets and chunks (``O(log max n_q)``
buckets), never over queries or pairs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["query_blocks"]


def query_blocks(qstart: np.ndarray, qlen: np.ndarray, max_cells: int = 1 << 21):
    """Yield ``(queries, idx, valid)``: query indices ``(m,)``, sorted positions
    ``(m, b)`` (padding points at the query's first row) and the mask of real cells."""
    width = np.ones_like(qlen)
    big = qlen > 1
    width[big] = 1 << np.ceil(np.log2(qlen[big])).astype(np.int64)
    for b in np.unique(width):
        qs = np.flatnonzero(width == b)
        b = int(b)
        step = max(1, max_cells // (b * b))
        cols = np.arange(b)
        for i in range(0, qs.size, step):
            chunk = qs[i:i + step]
            valid = cols[None, :] < qlen[chunk, None]
            idx = np.where(valid, qstart[chunk, None] + cols[None, :], qstart[chunk, None])
            yield chunk, idx, valid
