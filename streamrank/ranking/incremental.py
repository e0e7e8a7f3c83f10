"""Per-query ranking state that follows score changes, joins and leaves of documents.

`QueryRanking` holds one query: its documents in score order (a `SortedList`, ``O(log n)``
per change) plus the exact pairwise counts ``D``, ``T``, ``P`` (a `PairEngine` over
(relevance, score): ``O(log n_q)`` per change for two relevance levels, ``O(L log n_q)``
for ``L`` levels, instead of recounting the ``O(n_q^2)`` pairs) and the relevance
histogram the ideal DCG needs. Each metric is read by
walking the ranking from the top only as far as it needs: NDCG@k and ERR@k stop at ``k``
(plus the tie group straddling it), MRR at the first relevant group; AP walks the whole
query.

`RankingState` holds many queries and keeps the mean of each metric over queries current:
a change re-reads only the changed query's values and adjusts the running sums, so the
cost of a change does not depend on the number of queries.

Definitions, tie rules and the ``empty`` convention (a query without relevant documents
counts as 0 by default) are those of the batch functions (`ndcg_at_k`, `map_score`,
`mrr_score`, `err_score`, `pairwise_errors`); the tests check the state against them
after every change. ``empty="skip"`` skips silently here (no warning per change):
`RankingState.skipped` counts the queries left out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable
from numbers import Integral
from operator import mul
from typing import Literal

from sortedcontainers import SortedList

from .._snapshot import Pickled
from .._typing import Count, Empty, Gain, Number, Ties
from .._validation import MAX_EXACT_INT, describe, param_error
from ..engine import PairEngine
from ._layout import (DEFAULT_EMPTY, DEFAULT_GAIN, GAINS, TIES, check_choice, check_empty,
                      check_k)

__all__ = ["QueryRanking", "RankingState"]

_CUM = [0.0]   # _CUM[m] = sum_{r=1..m} 1 / log2(r + 1), grown on demand


_DISC = [0.0]  # _DISC[r] = 1 / log2(r + 1)


def _disc_sum(lo: int, hi: int) -> float:
    """``sum_{r=lo+1..hi} 1 / log2(r + 1)`` (discounts of 0-based positions lo..hi-1)."""
    while len(_CUM) <= hi:
        r = len(_CUM)
        _DISC.append(1.0 / math.log2(r + 1))
        _CUM.append(_CUM[-1] + _DISC[-1])
    return _CUM[hi] - _CUM[lo]


def _check_value(x, name, func, *, nonneg=False) -> float:
    """A finite real as a float (bool refused); an int that float64 cannot hold exactly
    is refused, not rounded, as by the incremental counters."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
        raise param_error(name, func, "a finite number", describe(x))
    if isinstance(x, Integral) and abs(x) > MAX_EXACT_INT and float(x) != x:
        raise param_error(name, func, "a finite number that float64 holds exactly "
                          "(integers beyond 2**53 must be float64 values)", describe(x))
    try:
        v = float(x)
    except (OverflowError, TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v):
        raise param_error(name, func, "a finite number", describe(x))
    if nonneg and v < 0:
        raise param_error(name, func, "graded relevance >= 0", describe(x))
    return v


#: The largest relevance whose exponential gain ``2**rel - 1`` float64 holds.
MAX_EXP_REL = 1023.0


def _check_gain(rel: float, func: str) -> None:
    """Refuse a relevance whose gain ``2**rel`` overflows float64 (the exponential gain of
    NDCG, and ERR's stopping probability)."""
    if rel > MAX_EXP_REL:
        raise param_error("rel", func, f"graded relevance <= {MAX_EXP_REL:g} (2**rel, the "
                          "exponential gain, must be a finite float64)", repr(rel))


def _check_doc(doc, func) -> None:
    try:
        hash(doc)
    except TypeError:
        raise param_error("doc", func, "a hashable document id", describe(doc),
                          TypeError) from None


class QueryRanking(Pickled):
    """The documents of one query, ranked by score, with exact pair counts.

    Parameters
    ----------
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        As in the batch functions.
    gain : {"linear", "exponential"}, default="linear"
        DCG gain: ``rel`` (scikit-learn's, the default: ``DEFAULT_GAIN``) or
        ``2**rel - 1``.

    Examples
    --------
    >>> from streamrank.ranking import QueryRanking
    >>> qr = QueryRanking()
    >>> for doc, rel, score in [("a", 2, 0.9), ("b", 0, 0.5), ("c", 1, 0.1)]:
    ...     qr.set(doc, rel, score)
    >>> qr.pair_counts(), round(qr.ndcg(), 4)     # linear gain, as scikit-learn
    ((1, 0, 3), 0.9502)
    >>> qr.set("c", 1, 0.7)          # c moves above b
    >>> qr.pair_counts(), qr.ndcg()
    ((0, 0, 3), 1.0)
    >>> qr.remove("a"); qr.mrr()
    1.0
    """

    def __init__(self, *, ties: Ties = "average", gain: Gain = DEFAULT_GAIN) -> None:
        check_choice(ties, "ties", "QueryRanking", TIES)
        check_choice(gain, "gain", "QueryRanking", GAINS)
        self.ties = ties
        self.gain = gain
        self._docs: dict = {}            # doc -> (rel, score, seq)
        self._ranked = SortedList()      # keys (-score, tie key, seq)
        self._levels: Counter = Counter()
        self._pairs = PairEngine()       # (relevance, score): the pair counts
        self._seq = 0
        self._relevant = 0

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc: object) -> bool:
        return doc in self._docs

    def _key(self, rel, score, seq):
        # seq is unique, so rel (last) is carried along and never compared
        if self.ties == "average":
            return (-score, 0.0, seq, rel)
        return (-score, rel if self.ties == "pessimistic" else -rel, seq, rel)

    def set(self, doc: Hashable, rel: Number, score: Number) -> None:
        """Add ``doc`` or change its relevance and score.

        Runtime complexity: ``O(log n)`` for the ranking (a `SortedList`), and for the pair
        counts one change of the query's `PairEngine` removing the old and one adding the
        new (relevance, score): ``O(log n)`` with two relevance levels, ``O(L log n)``
        with ``L`` levels. Bad input raises before anything changes.
        """
        func = "QueryRanking.set"
        rel = _check_value(rel, "rel", func, nonneg=True)
        score = _check_value(score, "score", func)
        _check_doc(doc, func)
        self._set(doc, rel, score)

    def _set(self, doc, rel: float, score: float) -> None:
        """`set` of validated values."""
        if doc in self._docs:
            self.remove(doc)
        self._pairs.add(rel, score, caller="QueryRanking.set")
        seq = self._seq
        self._seq += 1
        self._docs[doc] = (rel, score, seq)
        self._ranked.add(self._key(rel, score, seq))
        self._levels[rel] += 1
        self._relevant += rel > 0

    def remove(self, doc: Hashable) -> None:
        """Remove ``doc`` (``KeyError`` if absent). Runtime complexity: as `set`."""
        rel, score, seq = self._docs.pop(doc)
        self._pairs.remove(rel, score, caller="QueryRanking.remove")
        self._ranked.remove(self._key(rel, score, seq))
        self._levels[rel] -= 1
        if not self._levels[rel]:
            del self._levels[rel]
        self._relevant -= rel > 0

    # ------------------------------------------------------------------ reading
    def _groups(self):
        """Yield ``(c, [rels])`` tie groups from the top; ``c`` documents rank above."""
        c, cur, group = 0, None, []
        for key in self._ranked:
            gk = key[0] if self.ties == "average" else key[2]
            if group and gk != cur:
                yield c, group
                c += len(group)
                group = []
            cur = gk
            group.append(key[3])
        if group:
            yield c, group

    def _g(self, r):
        return 2.0 ** r - 1.0 if self.gain == "exponential" else r

    def pair_counts(self) -> tuple[Count, Count, Count]:
        """``(D, T, P)``: discordant, score-tied and comparable pairs among documents of
        different relevance (the engine's ``discordant``, ``tied_score`` and
        ``comparable``; the same whatever ``ties``), exact ints. O(1)."""
        c = self._pairs.counts
        return c.discordant, c.tied_score, c.comparable

    def dcg(self, k: int | None = None) -> float:
        """Tie-averaged DCG@k. Runtime complexity: ``O(log n + k + t)`` (``t``: the tie
        group straddling the cut-off), ``O(n)`` with ``k=None``."""
        n = len(self._ranked)
        k = n if k is None else min(k, n)
        if k == 0:
            return 0.0
        ranked = self._ranked
        keys = list(ranked.islice(0, k))
        # Extend the last tie group past the cut-off (it shares the discounts inside).
        last = keys[-1][0] if self.ties == "average" else None
        j = k
        while last is not None and j < n:
            nxt = ranked[j]
            if nxt[0] != last:
                break
            keys.append(nxt)
            j += 1
        g = [2.0 ** key[3] - 1.0 for key in keys] if self.gain == "exponential" \
            else [key[3] for key in keys]
        _disc_sum(0, len(keys))
        disc = _DISC[1:len(keys) + 1]
        if self.ties != "average" or (len(keys) == k and not any(
                a[0] == b[0] for a, b in zip(keys, keys[1:]))):
            return sum(map(mul, g, disc))          # no ties inside the top k
        total, start = 0.0, 0
        m = len(keys)
        for i in range(1, m + 1):
            if i == m or keys[i][0] != keys[start][0]:
                if start >= k:
                    break
                total += sum(g[start:i]) / (i - start) * _disc_sum(start, min(i, k))
                start = i
        return total

    def idcg(self, k: int | None = None) -> float:
        """Ideal DCG@k from the relevance histogram. ``O(L log L + k)``."""
        k = len(self) if k is None else k
        total, pos = 0.0, 0
        for rel in sorted(self._levels, reverse=True):
            cnt = self._levels[rel]
            hi = min(pos + cnt, k)
            total += self._g(rel) * _disc_sum(pos, hi)
            pos += cnt
            if pos >= k:
                break
        return total

    def ndcg(self, k: int | None = None) -> float | None:
        """NDCG@k, or None when the query has no relevant document."""
        ideal = self.idcg(k)
        return None if ideal <= 0 else self.dcg(k) / ideal

    def average_precision(self, k: int | None = None) -> float | None:
        """Tie-averaged AP@k (see `map_score`), None without relevant docs.
        ``O(n)``."""
        R = self._relevant
        if R == 0:
            return None
        k = len(self) if k is None else k
        total, above = 0.0, 0
        for c, group in self._groups():
            if c >= k:
                break
            n = len(group)
            r = sum(1 for x in group if x > 0)
            if r:
                m = min(n, k - c)
                S = sum(1.0 / (c + p) for p in range(1, m + 1))
                within = (r - 1) / (n - 1) if n > 1 else 0.0
                total += r / n * ((above + 1) * S + within * (m - (c + 1) * S))
            above += r
        return total / R

    def mrr(self, k: int | None = None) -> float | None:
        """Tie-averaged reciprocal rank of the first relevant document, None without
        relevant documents. ``O(position of the first relevant group)``."""
        if self._relevant == 0:
            return None
        k = len(self) if k is None else k
        for c, group in self._groups():
            r = sum(1 for x in group if x > 0)
            if not r:
                continue
            n = len(group)
            total = 0.0
            for p in range(1, n - r + 2):
                if c + p > k:
                    break
                total += math.comb(n - p, r - 1) / math.comb(n, r) / (c + p)
            return total
        return 0.0  # pragma: no cover

    def err(self, k: int | None = None, max_grade: float = 4.0) -> float | None:
        """ERR@k with tie-averaged stopping probabilities (see `err_score`), None without
        relevant documents. ``O(k + t)``."""
        if self._relevant == 0:
            return None
        k = len(self) if k is None else k
        total, keep = 0.0, 1.0
        for c, group in self._groups():
            if c >= k:
                break
            R = sum((2.0 ** x - 1.0) / 2.0 ** max_grade for x in group) / len(group)
            for r in range(c + 1, min(c + len(group), k) + 1):
                total += keep * R / r
                keep *= 1.0 - R
        return total


_METRICS = ("ndcg", "ap", "mrr", "err")
RankingMetric = Literal["ndcg", "ap", "mrr", "err"]


class RankingState(Pickled):
    """Many queries; the mean of NDCG@k, AP, MRR, ERR and the pair-error totals stay current.

    Parameters
    ----------
    k : int or None, default=10
        Cut-off of NDCG and ERR (AP and MRR use the whole query). ``k=None``: every
        document of the query.
    ties, gain : as in `QueryRanking`.
    empty : {0, 1, "skip"}, default=0
        What a query without relevant documents counts as in the means: ``0`` (the
        default, as the batch functions, scikit-learn and trec_eval) or ``1``; ``"skip"``
        leaves it out of the means, silently (a state changes at every call: no warning);
        `per_query` gives None for such a query, and `skipped` counts them.
    max_grade : float, default=4
        ERR's ``g_max`` (fixed here: a stream has no "largest grade of the input").
    metrics : tuple, default=("ndcg", "ap", "mrr", "err")
        The metrics kept current (each costs its read per change).

    Examples
    --------
    >>> from streamrank.ranking import RankingState
    >>> st = RankingState(k=10)
    >>> st.set("q1", "a", 1, 0.2); st.set("q1", "b", 0, 0.9)
    >>> st.set("q2", "c", 1, 0.5)
    >>> st.mean("mrr"), st.pair_errors()
    (0.75, (1, 0, 1))
    >>> st.set("q1", "a", 1, 0.95)   # a moves to the top
    >>> st.mean("mrr"), st.pair_errors()
    (1.0, (0, 0, 1))
    """

    def __init__(self, *, k: int | None = 10, ties: Ties = "average",
                 gain: Gain = DEFAULT_GAIN, empty: Empty = DEFAULT_EMPTY,
                 max_grade: float = 4.0,
                 metrics: Iterable[str] = _METRICS) -> None:
        func = "RankingState"
        self.k = check_k(k, func)
        check_choice(ties, "ties", func, TIES)
        check_choice(gain, "gain", func, GAINS)
        check_empty(empty, func)
        for m in metrics:
            check_choice(m, "metrics", func, _METRICS)
        self.ties, self.gain, self.empty = ties, gain, empty
        self.max_grade = float(max_grade)
        self.metrics = tuple(metrics)
        self._queries: dict = {}
        self._values: dict = {}          # query -> {metric: value or None}
        self._sum = {m: 0.0 for m in self.metrics}
        self._count = {m: 0 for m in self.metrics}
        self._pairs = [0, 0, 0]

    def _read(self, qr):
        out = {}
        for m in self.metrics:
            if m == "ndcg":
                v = qr.ndcg(self.k)
            elif m == "ap":
                v = qr.average_precision()
            elif m == "mrr":
                v = qr.mrr()
            else:
                v = qr.err(self.k, self.max_grade)
            if v is None and self.empty != "skip":
                v = float(self.empty)
            out[m] = v
        return out

    def _account(self, values, sign):
        for m, v in values.items():
            if v is not None:
                self._sum[m] += sign * v
                self._count[m] += sign

    def _change(self, query, method, *args):
        qr = self._queries.get(query)
        if qr is None:
            qr = self._queries[query] = QueryRanking(ties=self.ties, gain=self.gain)
        else:
            self._account(self._values[query], -1)
            for i, x in enumerate(qr.pair_counts()):
                self._pairs[i] -= x
        method(qr, *args)
        if len(qr) == 0:
            del self._queries[query]
            self._values.pop(query, None)
            return
        self._values[query] = vals = self._read(qr)
        self._account(vals, +1)
        for i, x in enumerate(qr.pair_counts()):
            self._pairs[i] += x

    def set(self, query: Hashable, doc: Hashable, rel: Number, score: Number) -> None:
        """A document joins ``query`` or changes its relevance / score. Runtime complexity:
        ``O(L log n_q)`` for the changed query's ranking and pair counts, plus each kept
        metric's read (``O(k)`` for NDCG@k and ERR@k, ``O(n_q)`` for AP); independent of
        the number of queries."""
        func = "RankingState.set"
        rel = _check_value(rel, "rel", func, nonneg=True)
        score = _check_value(score, "score", func)
        _check_doc(doc, func)
        if "err" in self.metrics or self.gain == "exponential" and "ndcg" in self.metrics:
            _check_gain(rel, func)      # (read right after the change)
        self._change(query, QueryRanking._set, doc, rel, score)

    def remove(self, query: Hashable, doc: Hashable) -> None:
        """A document leaves ``query`` (an emptied query is dropped)."""
        if query not in self._queries or doc not in self._queries[query]:
            raise KeyError((query, doc))
        self._change(query, QueryRanking.remove, doc)

    def query(self, query: Hashable) -> QueryRanking:
        """The state of one query."""
        return self._queries[query]

    def mean(self, metric: RankingMetric = "ndcg") -> float:
        """The current mean over the queries counted (NaN when none is)."""
        c = self._count[metric]
        return self._sum[metric] / c if c else float("nan")

    def skipped(self, metric: RankingMetric = "ndcg") -> int:
        """Queries left out of ``metric``'s mean (no relevant document, ``empty="skip"``);
        0 with ``empty=0`` or ``1``. ``O(1)``."""
        return len(self._values) - self._count[metric]

    def per_query(self, metric: RankingMetric = "ndcg") -> dict[Hashable, float | None]:
        """``{query: value}`` (None for a skipped query)."""
        return {q: v[metric] for q, v in self._values.items()}

    def pair_errors(self) -> tuple[int, ...]:
        """Total ``(D, T, P)`` over queries, exact ints."""
        return tuple(self._pairs)
