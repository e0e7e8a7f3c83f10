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

* rows not contiguous by query are first grouped (`group_by_query`): a compiled counting
  sort by query code, ``O(n)``, stable (rows of a query keep their input order), whose
  scatter pass moves the relevance and the scores. The codes are ``id - min(id)`` for
  integer ids of a small range, else from ``np.unique``. Every path below then runs on the
  grouped rows, so the row order of the input costs two ``O(n)`` passes, not a sort;
* rows contiguous by query with every query of the same length ``L``: a
  ``(n_q, L)`` reshape and one row-wise ``argsort`` (``lexsort`` when ties are broken);
* rows contiguous by query (any lengths): one ``lexsort`` by (query, score).

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

from ..batch._cgroups import group_rows
from ..batch._kernels import encode_labels, run_starts
from .._validation import as_1d_numeric, check_consistent_length, describe, param_error
from ..exceptions import UndefinedMetricWarning

__all__ = ["DEFAULT_EMPTY", "DEFAULT_GAIN", "EMPTY", "GAINS", "PerQuery", "QueryGroups",
           "RankLayout", "TIES", "check_empty", "check_k", "finish", "group_by_query",
           "query_codes", "rank_layout", "validate"]

TIES = ("average", "pessimistic", "optimistic")
#: The DCG gains: ``rel`` (``"linear"``) or ``2**rel - 1`` (``"exponential"``).
GAINS = ("linear", "exponential")
#: The default gain of every NDCG and DCG of streamrank (the batch functions, `NDCG`,
#: `QueryRanking`, `RankingState`, ``streamrank eval``): scikit-learn's, the relevance
#: itself, so that `ndcg_at_k` and `dcg_at_k` equal scikit-learn's by default.
DEFAULT_GAIN = "linear"
#: What a query with no relevant document counts as (``empty=``): 0 by default, as
#: scikit-learn's ``ndcg_score``, trec_eval and ranx; 1; or ``"skip"`` (left out of the
#: mean, with one `UndefinedMetricWarning` saying how many queries were left out).
EMPTY = ("skip", 0, 1)
DEFAULT_EMPTY = 0

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


def check_empty(empty, func: str):
    """``"skip"``, 0 or 1 (an int or float equal to 0 or 1; not a bool)."""
    if not (isinstance(empty, str) and empty == "skip") and not (
            isinstance(empty, (int, float, np.integer, np.floating))
            and not isinstance(empty, (bool, np.bool_)) and empty in (0, 1)):
        raise param_error("empty", func, "'skip', 0 or 1", describe(empty))
    return empty


def validate(query_ids, y_true, y_score, func: str, *, ties="average",
             empty=DEFAULT_EMPTY, gain=None):
    """Check every input before any computation; returns ``(q, y, s)`` arrays.

    Raises with the project's one message format: NaN or infinite scores or relevance,
    negative relevance, mismatched lengths, non 1-D input, an unknown option.
    """
    check_choice(ties, "ties", func, TIES)
    check_empty(empty, func)
    if gain is not None:
        check_choice(gain, "gain", func, GAINS)
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

    ``query_ids`` are sorted; ``values[i]`` belongs to ``query_ids[i]``. A query with no
    relevant document is 0 by default (``empty=0``), 1 with ``empty=1``, and NaN, left
    out of ``mean``, with ``empty="skip"``.
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

    order: np.ndarray      # (n,) input row of each sorted position (see rank_layout)
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


class QueryGroups(NamedTuple):
    """The rows of each query made contiguous (`group_by_query`).

    ``ids[j]`` and ``lengths[j]`` are the id and the number of rows of the ``j``-th query
    in grouped order. ``perm[i]`` is the input row at grouped position ``i`` when it was
    asked for and the rows had to move; ``None`` when the input rows already were
    contiguous by query (the identity), or when it was not asked for.
    """

    perm: np.ndarray | None
    ids: np.ndarray
    lengths: np.ndarray

    @property
    def width(self) -> int | None:
        """``L`` when every query has ``L`` rows (the grouped rows are then a
        ``(n_q, L)`` matrix), else None."""
        lengths = self.lengths
        if lengths.size == 0 or not (lengths == lengths[0]).all():
            return None
        return int(lengths[0])


#: Integer ids spanning at most ``max(_SPAN_PER_ROW * n, _SPAN_MIN)`` values are grouped by
#: ``id - min(id)`` directly (a counting sort over the span); wider ones get codes first.
_SPAN_PER_ROW = 2
_SPAN_MIN = 1 << 16


def _compact_relevance(y: np.ndarray) -> np.ndarray:
    """Validated relevance (``>= 0``) to move: integer grades below 256 as uint8 (the same
    values, an eighth of the memory traffic); anything else as it is."""
    if y.dtype.kind in "biu" and y.itemsize > 1 and y.size and int(y.max()) < 256:
        return y.astype(np.uint8)
    return y


#: `group_by_query`'s ``codes`` when the caller has none: code the ids there.
_CODE = object()


def group_by_query(q: np.ndarray, y: np.ndarray, s: np.ndarray, *, with_perm=False,
                   codes=_CODE):
    """``(groups, y, s)``: the rows grouped by query id, stably, with the relevance and
    the scores in grouped order (`QueryGroups`; ``with_perm`` keeps the input row of
    each grouped position, for results given per row). ``codes``: `query_codes` of ``q``
    when the caller has it already (default: computed here).

    Rows already contiguous by query (each id one run of rows) are left as they are, in
    their query order, at the cost of ``O(n)`` passes. Otherwise the rows are put in
    ascending id order by a compiled counting sort (`streamrank.batch._cgroups.group_rows`,
    which moves ``y`` and ``s`` in its scatter pass) of the codes of `query_codes`,
    ``O(n + span)``. Integer relevance below 256 comes
    back as uint8 when the rows moved (the same values).

    >>> import numpy as np
    >>> g, y, s = group_by_query(np.array([7, 5, 7, 5, 9]), np.array([1, 0, 2, 0, 1]),
    ...                          np.array([.1, .2, .3, .4, .5]), with_perm=True)
    >>> g.perm.tolist(), g.ids.tolist(), g.lengths.tolist(), y.tolist(), s.tolist()
    ([1, 3, 0, 2, 4], [5, 7, 9], [2, 2, 1], [0, 0, 1, 2, 1], [0.2, 0.4, 0.1, 0.3, 0.5])
    >>> group_by_query(np.array([3, 3, 1]), y[:3], s[:3])[0].perm is None  # contiguous
    True
    """
    n = q.size

    def as_runs():
        starts = run_starts(q)
        return QueryGroups(None, q[starts], np.diff(starts, append=n).astype(np.int64)), y, s

    if codes is _CODE:
        codes = query_codes(q)
    if codes is None:
        return as_runs()
    code, offset, n_codes, ids_of = codes
    perm, counts, grouped = group_rows(code, offset, n_codes, (_compact_relevance(y), s),
                                       with_perm)
    if grouped is None:                             # contiguous, in another id order
        return as_runs()
    present = np.flatnonzero(counts)
    return (QueryGroups(perm, ids_of(present), counts[present].astype(np.int64)),) + grouped


def query_codes(q: np.ndarray):
    """``(codes, offset, n_codes, ids_of)``: each row's query as an int ``codes - offset``
    in ``[0, n_codes)`` in ascending id order, ``ids_of`` mapping codes back to ids; None
    when the rows are found contiguous by query without coding them (sorted by id; or,
    ids that are not their own codes, few runs of distinct ids). Integer ids of a span up to ``max(2 n, 65536)`` are
    their own codes (``O(n)``); other ids are coded by ``np.unique`` (``O(n log n)``).

    >>> import numpy as np
    >>> codes, offset, n_codes, ids_of = query_codes(np.array([7, 5, 7]))
    >>> codes.tolist(), offset, n_codes, ids_of(np.array([0, 2])).tolist()
    ([7, 5, 7], 5, 3, [5, 7])
    >>> query_codes(np.array([1, 3, 3])) is None
    True
    """
    n = q.size
    kind = q.dtype.kind
    if n <= 1:
        return None
    if kind in "iufUSb":
        head = q[:4096]
        if not (head[1:] < head[:-1]).any() and not (q[1:] < q[:-1]).any():
            return None                             # sorted by id: each id one run
    if kind in "biu":
        lo, hi = int(q.min()), int(q.max())
        if hi <= np.iinfo(np.int64).max and hi - lo < max(_SPAN_PER_ROW * n, _SPAN_MIN):
            return q, lo, hi - lo + 1, lambda codes: (codes + lo).astype(q.dtype)
    starts = run_starts(q)
    if 2 * starts.size <= n and np.unique(q[starts]).size == starts.size:
        return None                                 # contiguous (a cheap test on few runs)
    uniq, code = np.unique(q, return_inverse=True)
    return code.reshape(-1), 0, uniq.size, lambda codes: uniq[codes]


def rank_layout(q, y, s, *, ties="average", stable=False, local=None,
                groups: QueryGroups | None = None, input_order=True) -> RankLayout:
    """The sorted layout of validated arrays (see the module docstring).

    ``stable=True`` breaks score ties by input row (LambdaRank's rank positions).
    ``local``: a row-wise ``argsort(-S, axis=1)`` already computed for dense rows
    (``ties="average"`` only), reused instead of sorting again.
    ``groups``: from `group_by_query` when the caller has grouped the rows already;
    ``y`` and ``s`` are then the grouped ones and ``q`` is not read, and ``order``
    indexes the input rows only if ``groups.perm`` was kept (else the grouped rows).
    ``input_order=False``: ``order`` may index the grouped rows (for metrics that do not
    read it; grouping then keeps no permutation array).
    Runtime complexity: ``O(n log n)``, one sort (after an ``O(n)`` grouping of the rows
    when they are not contiguous by query).
    """
    if groups is None:
        groups, y, s = group_by_query(q, y, s, with_perm=input_order)
    n = y.size
    y_raw = y
    y = y.astype(np.float64, copy=False)
    ids, qlen = groups.ids, groups.lengths
    neg_s = -s
    if ties == "pessimistic":
        secondary = y
    elif ties == "optimistic":
        secondary = -y
    else:
        secondary = None
    L = groups.width
    if L is not None:
        S = neg_s.reshape(-1, L)
        if local is not None:
            pass
        elif secondary is None:
            local = np.argsort(S, axis=1, kind="stable" if stable else None)
        else:
            local = np.lexsort((secondary.reshape(-1, L), S), axis=1)
        order = (local + (np.arange(ids.size) * L)[:, None]).reshape(-1)
    else:
        code = np.repeat(np.arange(ids.size), qlen)
        keys = (neg_s, code) if secondary is None else (secondary, neg_s, code)
        order = np.lexsort(keys)
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
    y_sorted = ys if y_raw is y else y_raw[order]
    if groups.perm is not None:
        order = groups.perm[order]                  # back to input rows
    return RankLayout(order, ys, ss, ids, qstart, qlen, gstart, y_sorted)


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
    """The mean of the per-query values that are not NaN (queries skipped by
    ``empty="skip"``). When any query was skipped, one `UndefinedMetricWarning` says how
    many of how many; when every query was, the mean is NaN."""
    skip = np.isnan(values)
    n_skip = int(np.count_nonzero(skip))
    if not n_skip:
        return float(values.mean())
    n = int(values.size)
    if n_skip < n:
        warnings.warn(f"{func}: {n_skip} of {n} queries have no relevant document and were "
                      f"skipped (empty='skip'); the mean is over the other {n - n_skip}. "
                      "Pass empty=0 (the default) to count them as 0.",
                      UndefinedMetricWarning, stacklevel=4)
        return float(values[~skip].mean())
    warnings.warn(f"{func}: {n_skip} of {n} queries have no relevant document and were "
                  "skipped (empty='skip'): the mean is undefined, returning nan.",
                  UndefinedMetricWarning, stacklevel=4)
    return math.nan


def finish(func: str, lay: RankLayout, values: np.ndarray, undefined: np.ndarray | None,
           empty, return_per_query: bool):
    """Mean over queries; undefined queries (no relevant document) per ``empty``: that
    value (0 or 1), or NaN and left out of the mean (``"skip"``, with one
    `UndefinedMetricWarning` giving their count, `query_mean`).

    Per query values come back sorted by query id: ``(mean, query_ids, values)``.
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
