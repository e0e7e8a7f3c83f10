"""Validation and the one sorted layout every batch ranking metric reads.

All metrics of `streamrank.ranking` start from flat arrays ``query_ids, y_true, y_score``
in any row order. `rank_layout` orders the rows once by (query, score descending) and
records the segment boundaries the metrics reduce over::

    rows (sorted)   q0: s=.9 .7 .7 .2 | q1: s=.8 .8 .8 | q2: ...
    query starts    0                   4               7
    tie groups      0    1     3        4               7          (runs of equal score)
    c (position)    0    1     3        0                          (docs ranked above)

Every metric is then a handful of ``np.add.reduceat`` / ``np.bincount`` / ``cumsum``
passes over these runs: no Python loop per query or per row.

How the order is obtained, cheapest first (all exact, all ``O(n log n)`` at worst):

* rows already contiguous by query with every query of the same length ``L``: a
  ``(n_q, L)`` reshape and one row-wise ``argsort`` (``lexsort`` when ties are broken);
* rows contiguous by query (any lengths): one ``lexsort`` by (run, score);
* anything else: query codes by ``np.unique`` then one ``lexsort``.

Ties in score (``ties=``):

* ``"average"``: equal scores form one *tie group*; metrics use the expectation over all
  orders of the group (McSherry & Najork 2008) or, for ERR, the group's mean gain. The
  result does not depend on the input order.
* ``"pessimistic"``: ties are broken with the least relevant document first (the worst
  case), ``"optimistic"``: the most relevant first (the best case). Every row is then its
  own group. Tools that break ties by document id or input order (trec_eval, ranx) give
  one of these when the ids happen to sort that way; the tests pin which.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .._kernels import encode_labels, run_starts
from .._validation import as_1d_numeric, check_consistent_length, describe, param_error
from ..exceptions import UndefinedMetricWarning

__all__ = ["PerQuery", "RankLayout", "TIES", "check_k", "finish", "rank_layout", "validate"]

TIES = ("average", "pessimistic", "optimistic")
_EMPTY = ("skip", 0, 1)

#: Relevance with at most this many distinct values takes the histogram path for the
#: ideal ranking (no second sort).
_MAX_LEVELS = 64


def check_k(k, func: str, name: str = "k"):
    """``None`` or an int >= 1."""
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise param_error(name, func, "an int >= 1 or None", describe(k))
    return int(k)


def check_choice(value, name, func, choices):
    if isinstance(value, (bool, np.bool_)) or value not in choices:
        raise param_error(name, func, "one of " + ", ".join(repr(c) for c in choices),
                          describe(value))
    return value


def validate(query_ids, y_true, y_score, func: str, *, ties="average", empty="skip",
             gain=None):
    """Check every input before any computation; returns ``(q, y, s)`` arrays.

    Raises with the project's one message format: NaN or infinite scores or relevance,
    negative relevance, mismatched lengths, non 1-D input, an unknown option.
    """
    check_choice(ties, "ties", func, TIES)
    if not (isinstance(empty, str) and empty == "skip") and not (
            isinstance(empty, (int, float, np.integer, np.floating))
            and not isinstance(empty, (bool, np.bool_)) and empty in (0, 1)):
        raise param_error("empty", func, "'skip', 0 or 1", describe(empty))
    if gain is not None:
        check_choice(gain, "gain", func, ("exponential", "linear"))
    y = as_1d_numeric(y_true, "y_true", func)
    s = as_1d_numeric(y_score, "y_score", func)
    q = np.asarray(query_ids)
    if q.ndim != 1:
        raise param_error("query_ids", func, "a 1-D array", f"an array of shape {q.shape}")
    if q.dtype.kind == "f":
        bad = ~np.isfinite(q)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise param_error("query_ids", func, "finite or non-numeric ids",
                              f"{q[i]!r} at index {i}")
    check_consistent_length(func, query_ids=q, y_true=y, y_score=s)
    neg = y < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise param_error("y_true", func, "graded relevance >= 0", f"{y[i]!r} at index {i}")
    return q, y, s


class PerQuery(NamedTuple):
    """A metric's mean over queries with its per-query values (``return_per_query=True``).

    ``query_ids`` are sorted; ``values[i]`` belongs to ``query_ids[i]`` and is NaN for a
    query skipped as undefined (``empty="skip"``).
    """

    mean: float
    query_ids: np.ndarray
    values: np.ndarray


@dataclass
class RankLayout:
    """Rows sorted by (query, score descending); see the module docstring.

    ``order[i]`` is the input row at sorted position ``i``. Group arrays have one entry
    per tie group (per row when ties are broken).
    """

    order: np.ndarray      # (n,) input row of each sorted position
    y: np.ndarray          # (n,) float64 relevance in sorted order
    s: np.ndarray          # (n,) scores in sorted order
    query_ids: np.ndarray  # (n_q,) id of each query, in layout order
    qstart: np.ndarray     # (n_q,) first sorted position of each query
    qlen: np.ndarray       # (n_q,) documents per query
    gstart: np.ndarray     # (n_g,) first sorted position of each tie group
    y_raw: np.ndarray      # (n,) relevance in sorted order, input dtype (exact levels)

    @property
    def no_ties(self) -> bool:
        """Every tie group is a single row (distinct scores, or ties broken)."""
        return self.gstart.size == self.y.size

    @cached_property
    def glen(self) -> np.ndarray:
        """(n_g,) documents per group."""
        return np.diff(self.gstart, append=self.y.size)

    @cached_property
    def gquery(self) -> np.ndarray:
        """(n_g,) query index of each group."""
        if self.no_ties:
            return self.qindex()
        qflag = np.zeros(self.y.size, dtype=np.int64)
        qflag[self.qstart] = 1
        return np.cumsum(qflag)[self.gstart] - 1

    @cached_property
    def gpos(self) -> np.ndarray:
        """(n_g,) documents of the query ranked above the group (``c``)."""
        return self.gstart - self.qstart[self.gquery]

    @property
    def n_queries(self) -> int:
        return int(self.qstart.size)

    def qindex(self) -> np.ndarray:
        """Query index of every sorted position."""
        return np.repeat(np.arange(self.n_queries), self.qlen)

    def group_sum(self, x: np.ndarray) -> np.ndarray:
        """Per tie group sums of a per-row array (sorted order)."""
        return np.add.reduceat(x, self.gstart) if x.size else x[:0]

    def query_sum(self, per_group: np.ndarray) -> np.ndarray:
        """Per query sums of a per-group array (float64)."""
        return np.bincount(self.gquery, weights=per_group, minlength=self.n_queries)

    def overlap(self, k):
        """Rows of each group inside the top ``k`` of its query: ``(lo, hi)`` positions,
        ``k`` a scalar, None (whole query) or one value per query."""
        end = self.gpos + self.glen
        if k is None:
            return self.gpos, end
        kk = k[self.gquery] if isinstance(k, np.ndarray) else k
        return np.minimum(self.gpos, kk), np.minimum(end, kk)

    def relevant_count(self) -> np.ndarray:
        """R: relevant documents (``y_true > 0``) per query, int64."""
        rel = (self.y > 0).astype(np.int64)
        return np.add.reduceat(rel, self.qstart)


def _query_runs(q: np.ndarray):
    """``(starts, ids)`` when equal ids are contiguous (each id one run), else None."""
    starts = run_starts(q)
    ids = q[starts]
    if ids.size > 1:
        if ids.dtype.kind in "iuf" or ids.dtype.kind in "USb":
            inc = ids[1:] > ids[:-1]
            if not inc.all() and np.unique(ids).size != ids.size:
                return None
        elif np.unique(ids).size != ids.size:
            return None
    return starts, ids


def dense_shape(q: np.ndarray):
    """``(ids, L)`` when the rows are contiguous by query and every query has ``L`` rows
    (the rows are then a ``(n_q, L)`` matrix), else None. ``O(n)``."""
    runs = _query_runs(q)
    if runs is None:
        return None
    starts, ids = runs
    L = q.size // ids.size
    if ids.size * L != q.size or (ids.size > 1 and not (np.diff(starts) == L).all()):
        return None
    return ids, L


def rank_layout(q, y, s, *, ties="average", stable=False, local=None) -> RankLayout:
    """The sorted layout of validated arrays (see the module docstring).

    ``stable=True`` breaks score ties by input row (LambdaRank's rank positions).
    ``local``: a row-wise ``argsort(-S, axis=1)`` already computed for dense rows
    (``ties="average"`` only), reused instead of sorting again.
    Runtime complexity: ``O(n log n)``, one sort (plus ``np.unique`` of the ids when the
    rows are not grouped by query).
    """
    n = y.size
    y_raw = y
    y = y.astype(np.float64, copy=False)
    runs = _query_runs(q)
    if runs is None:
        ids, code = np.unique(q, return_inverse=True)
        code = code.reshape(-1)
        grouped = None
    else:
        starts, ids = runs
        lengths = np.diff(starts, append=n)
        grouped = lengths
    neg_s = -s
    if ties == "pessimistic":
        secondary = y
    elif ties == "optimistic":
        secondary = -y
    else:
        secondary = None
    if grouped is not None and ids.size * int(grouped[0]) == n and (grouped == grouped[0]).all():
        L = int(grouped[0])
        S = neg_s.reshape(-1, L)
        if local is not None:
            pass
        elif secondary is None:
            local = np.argsort(S, axis=1, kind="stable" if stable else None)
        else:
            local = np.lexsort((secondary.reshape(-1, L), S), axis=1)
        order = (local + (np.arange(ids.size) * L)[:, None]).reshape(-1)
        qlen = grouped
    else:
        if grouped is not None:
            code = np.repeat(np.arange(ids.size), grouped)
        keys = (neg_s, code) if secondary is None else (secondary, neg_s, code)
        order = np.lexsort(keys)
        qlen = np.bincount(code, minlength=ids.size) if grouped is None else grouped
    qlen = qlen.astype(np.int64)
    qstart = np.zeros(ids.size, dtype=np.int64)
    np.cumsum(qlen[:-1], out=qstart[1:])
    ys, ss = y[order], s[order]
    if ties == "average" and not stable:
        flags = np.empty(n, dtype=bool)
        flags[0] = True
        np.not_equal(ss[1:], ss[:-1], out=flags[1:])
        flags[qstart] = True
        gstart = np.flatnonzero(flags)
    else:
        gstart = np.arange(n)
    return RankLayout(order, ys, ss, ids, qstart, qlen, gstart,
                      ys if y_raw is y else y_raw[order])


def discount_cumsum(max_len: int) -> np.ndarray:
    """``D[m] = sum_{r=1..m} 1 / log2(r + 1)`` for ``m = 0..max_len``."""
    d = np.zeros(max_len + 1)
    np.cumsum(1.0 / np.log2(np.arange(2, max_len + 2)), out=d[1:])
    return d


def gains(y: np.ndarray, gain: str) -> np.ndarray:
    """``2**y - 1`` (exponential) or ``y`` (linear), float64. Small non-negative integer
    grades go through a lookup table (one gather instead of an ``exp`` per row)."""
    if gain != "exponential":
        return y.astype(np.float64, copy=False)
    if y.dtype.kind in "iub" and y.size and int(y.max()) < 1024:
        table = np.exp2(np.arange(int(y.max()) + 1, dtype=np.float64)) - 1.0
        return table[y]
    return np.expm1(y * np.log(2.0))


def ideal_dcg(lay: RankLayout, k, gain: str, D: np.ndarray) -> np.ndarray:
    """IDCG@k per query of a layout (see `ideal_dcg_rows`)."""
    return ideal_dcg_rows(lay.qindex(), lay.y_raw, lay.qlen, k, gain, D)


def ideal_dcg_rows(qi: np.ndarray, y: np.ndarray, qlen: np.ndarray, k, gain: str,
                   D: np.ndarray) -> np.ndarray:
    """IDCG@k per query: the DCG of the documents sorted by relevance. ``qi`` is the query
    index (``0..n_q-1``) of each row, rows in any order; ``k`` a scalar, None or one value
    per query; ``D`` from `discount_cumsum`, long enough for every cut-off.

    Few relevance levels (graded 0-4): a (query, level) histogram and cumulative counts,
    ``O(n + n_q L)``, no sort. Otherwise one ``lexsort`` by (query, relevance).
    """
    nq = qlen.size
    enc = encode_labels(y, _MAX_LEVELS) if y.size else None
    kk = None if k is None else (k[:, None] if isinstance(k, np.ndarray) else k)
    if enc is not None:
        codes, levels = enc
        L = len(levels)
        hist = np.bincount(qi * L + codes, minlength=nq * L).reshape(nq, L)[:, ::-1]
        ends = np.cumsum(hist, axis=1)
        starts = ends - hist
        if kk is not None:
            ends, starts = np.minimum(ends, kk), np.minimum(starts, kk)
        g = gains(np.asarray(levels, dtype=np.float64)[::-1], gain)
        return (D[ends] - D[starts]) @ g
    y = y.astype(np.float64, copy=False)
    srt = np.lexsort((-y, qi))
    qstart = np.cumsum(qlen) - qlen
    qs = qi[srt]
    pos = np.arange(y.size) - qstart[qs]
    disc = D[pos + 1] - D[pos]
    if k is not None:
        kq = k[qs] if isinstance(k, np.ndarray) else k
        disc = np.where(pos < kq, disc, 0.0)
    return np.bincount(qs, weights=gains(y[srt], gain) * disc, minlength=nq)


def query_mean(values: np.ndarray, func: str) -> float:
    """The mean of the per-query values that are not NaN (skipped queries); NaN with an
    `UndefinedMetricWarning` when every query was skipped."""
    keep = ~np.isnan(values)
    if keep.any():
        return float(values[keep].mean())
    warnings.warn(f"{func}: no query has a relevant document, the mean is undefined "
                  "(empty='skip'); returning nan.", UndefinedMetricWarning, stacklevel=4)
    return math.nan


def finish(func: str, lay: RankLayout, values: np.ndarray, undefined: np.ndarray | None,
           empty, return_per_query: bool):
    """Mean over queries; undefined queries (no relevant document) per ``empty``.

    Per query values come back sorted by query id: ``(mean, query_ids, values)`` with NaN
    for skipped queries. A mean over no query is NaN with an `UndefinedMetricWarning`.
    """
    values = np.asarray(values, dtype=np.float64)
    if undefined is not None and undefined.any():
        values = values.copy()
        values[undefined] = np.nan if empty == "skip" else float(empty)
    mean = query_mean(values, func)
    if not return_per_query:
        return mean
    ids = lay.query_ids
    srt = np.argsort(ids, kind="stable")
    if (np.diff(srt) == 1).all():
        return PerQuery(mean, ids, values)
    return PerQuery(mean, ids[srt], values[srt])
