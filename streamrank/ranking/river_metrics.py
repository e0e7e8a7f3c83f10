"""River-style ranking metrics: one query per ``update``, exact ``revert``, mean ``get``.

Each ``update(y_true, y_pred)`` takes one query as two aligned lists (or two dicts with
the same keys, document -> relevance and document -> score), computes the query's value
with the tie rules of the batch functions, and adds it to a running mean; ``revert`` with
the same arguments removes it, so `river.utils.Rolling` can window any of them. ``get()``
returns River's 0.0 before any counted query, and never raises.

A query without relevant documents counts as 0 by default (``empty=0``: the batch
functions', scikit-learn's and trec_eval's convention), as 1 with ``empty=1``. With
``empty="skip"`` it is left out of the mean *silently* -- a warning per ``update`` would be
noise in a stream -- and the attribute ``skipped`` counts the queries left out (an
``update`` adds one, a ``revert`` of the same query removes it); ``get()`` is then the
mean over the other queries, 0.0 while there is none.

These subclass `river.metrics.base.Metric` (``bigger_is_better``, ``works_with``) and
store each constructor argument under its own name, so ``clone()`` works.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._extras import require

_rm = require("river.metrics", "river", "streamrank.ranking's River metrics")

from .._snapshot import Pickled
from .._typing import Empty, Gain, Number, Ties

from .._validation import describe, param_error
from ._layout import DEFAULT_EMPTY, DEFAULT_GAIN, GAINS, TIES, check_choice, check_empty, \
    check_k
from .incremental import QueryRanking

__all__ = ["ERR", "MAP", "MRR", "NDCG", "PairwiseErrorRate"]


def _query(y_true, y_pred, ties, gain, func):
    if isinstance(y_true, dict) or isinstance(y_pred, dict):
        if not (isinstance(y_true, dict) and isinstance(y_pred, dict)) or y_true.keys() != y_pred.keys():
            raise param_error("y_pred", func, "the same documents as y_true",
                              describe(y_pred))
        pairs = [(y_true[d], y_pred[d]) for d in y_true]
    else:
        y_true, y_pred = list(y_true), list(y_pred)
        if len(y_true) != len(y_pred):
            raise param_error("y_pred", func, "the same length as 'y_true'",
                              f"len(y_true)={len(y_true)}, len(y_pred)={len(y_pred)}")
        pairs = list(zip(y_true, y_pred))
    qr = QueryRanking(ties=ties, gain=gain)
    for i, (r, s) in enumerate(pairs):
        qr.set(i, r, s)
    return qr


class _QueryMean(Pickled, _rm.base.Metric):
    """Mean over queries of a per-query value (None = undefined: no relevant document)."""

    _fmt = ",.6f"

    def __init__(self, ties: Ties = "average", empty: Empty = DEFAULT_EMPTY) -> None:
        name = type(self).__name__
        check_choice(ties, "ties", name, TIES)
        check_empty(empty, name)
        self.ties = ties
        self.empty = empty
        self._sum = 0.0
        self._n = 0
        #: Queries left out of the mean (no relevant document, ``empty="skip"``).
        self.skipped = 0

    def _value(self, qr):  # pragma: no cover - abstract
        raise NotImplementedError

    def _gain(self):
        return DEFAULT_GAIN    # (MAP, MRR, ERR read no gain)

    def _one(self, y_true, y_pred):
        qr = _query(y_true, y_pred, self.ties, self._gain(), f"{type(self).__name__}.update")
        v = self._value(qr)
        if v is None and self.empty != "skip":
            v = float(self.empty)
        return v

    def update(self, y_true: Iterable[Number], y_pred: Iterable[Number]) -> None:
        """Add one query. Runtime complexity: ``O(n_q log n_q)``."""
        v = self._one(y_true, y_pred)
        if v is not None:
            self._sum += v
            self._n += 1
        else:
            self.skipped += 1

    def revert(self, y_true: Iterable[Number], y_pred: Iterable[Number]) -> None:
        """Remove one query added before (the same arguments)."""
        v = self._one(y_true, y_pred)
        if v is not None:
            self._sum -= v
            self._n -= 1
            if self._n == 0:
                self._sum = 0.0   # no rounding residue once empty
        else:
            self.skipped -= 1

    def get(self) -> float:
        """Mean over the queries counted; 0.0 before any (River's convention). Never
        raises, never warns (queries skipped by ``empty="skip"``: ``skipped``)."""
        return self._sum / self._n if self._n else 0.0

    @property
    def bigger_is_better(self) -> bool:
        return True

    def works_with(self, model: object) -> bool:
        return True


class NDCG(_QueryMean):
    """Mean NDCG@k over queries, River-style.

    Parameters
    ----------
    k : int or None, default=10
        Cut-off. ``k=None``: every document of the query.
    gain : {"linear", "exponential"}, default="linear"
        ``rel`` (scikit-learn's, `streamrank.ranking.DEFAULT_GAIN`) or ``2**rel - 1``.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
    empty : {0, 1, "skip"}, default=0
        What a query without relevant documents counts as: ``0`` (as `ndcg_at_k` and
        scikit-learn) or ``1``; ``"skip"`` leaves it out of the mean silently and counts
        it in ``skipped``.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Examples
    --------
    >>> from streamrank.ranking import NDCG
    >>> m = NDCG(k=10)
    >>> m.update([2, 0, 1], [0.9, 0.5, 0.1])
    >>> m.update([0, 1], [0.3, 0.3])             # tied: averaged
    >>> round(m.get(), 4)
    0.8828
    >>> m.revert([0, 1], [0.3, 0.3]); round(m.get(), 4)
    0.9502
    >>> e = NDCG(gain="exponential")                # 2**rel - 1
    >>> e.update([2, 0, 1], [0.9, 0.5, 0.1]); round(e.get(), 4)
    0.9639

    A query without relevant documents counts as 0, or is skipped (and counted):

    >>> m.update([0, 0], [0.4, 0.2]); round(m.get(), 4)
    0.4751
    >>> s = NDCG(empty="skip")
    >>> s.update([2, 0, 1], [0.9, 0.5, 0.1]); s.update([0, 0], [0.4, 0.2])
    >>> round(s.get(), 4), s.skipped
    (0.9502, 1)
    """

    def __init__(self, k: int | None = 10, gain: Gain = DEFAULT_GAIN, ties: Ties = "average",
                 empty: Empty = DEFAULT_EMPTY) -> None:
        super().__init__(ties, empty)
        self.k = check_k(k, "NDCG")
        self.gain = check_choice(gain, "gain", "NDCG", GAINS)

    def _gain(self):
        return self.gain

    def _value(self, qr):
        return qr.ndcg(self.k)


class MAP(_QueryMean):
    """Mean average precision over queries, River-style.

    Parameters
    ----------
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
    empty : {0, 1, "skip"}, default=0
        What a query without relevant documents counts as: ``0`` (as `map_score`, trec_eval
        and ranx) or ``1``; ``"skip"`` leaves it out of the mean silently and counts it in
        ``skipped``.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Examples
    --------
    >>> from streamrank.ranking import MAP
    >>> m = MAP()
    >>> m.update([0, 1, 1], [0.9, 0.5, 0.1])     # (1/2 + 2/3) / 2
    >>> round(m.get(), 4)
    0.5833
    """

    def __init__(self, k: int | None = None, ties: Ties = "average",
                 empty: Empty = DEFAULT_EMPTY) -> None:
        super().__init__(ties, empty)
        self.k = check_k(k, "MAP")

    def _value(self, qr):
        return qr.average_precision(self.k)


class MRR(_QueryMean):
    """Mean reciprocal rank over queries, River-style.

    Parameters
    ----------
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
    empty : {0, 1, "skip"}, default=0
        What a query without relevant documents counts as: ``0`` (as `mrr_score`, trec_eval
        and ranx) or ``1``; ``"skip"`` leaves it out of the mean silently and counts it in
        ``skipped``.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Examples
    --------
    >>> from streamrank.ranking import MRR
    >>> m = MRR()
    >>> m.update([0, 0, 1], [0.9, 0.5, 0.1]); m.update([1, 0], [0.2, 0.1])
    >>> round(m.get(), 4)
    0.6667
    """

    def __init__(self, k: int | None = None, ties: Ties = "average",
                 empty: Empty = DEFAULT_EMPTY) -> None:
        super().__init__(ties, empty)
        self.k = check_k(k, "MRR")

    def _value(self, qr):
        return qr.mrr(self.k)


class ERR(_QueryMean):
    """Mean expected reciprocal rank over queries, River-style.

    Parameters
    ----------
    k : int or None, default=None
        Cut-off. ``k=None``: every document of the query.
    max_grade : float, default=4
        ``g_max`` of the grading scale (fixed: a stream has no "largest grade").
    ties : {"average", "pessimistic", "optimistic"}, default="average"
    empty : {0, 1, "skip"}, default=0
        What a query without relevant documents counts as: ``0`` (as `err_score`) or
        ``1``; ``"skip"`` leaves it out of the mean silently and counts it in
        ``skipped``.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Examples
    --------
    >>> from streamrank.ranking import ERR
    >>> m = ERR(max_grade=2)
    >>> m.update([2, 0, 1], [0.9, 0.5, 0.1])
    >>> round(m.get(), 4)
    0.7708
    """

    def __init__(self, k: int | None = None, max_grade: float = 4, ties: Ties = "average",
                 empty: Empty = DEFAULT_EMPTY) -> None:
        super().__init__(ties, empty)
        self.k = check_k(k, "ERR")
        self.max_grade = max_grade

    def _value(self, qr):
        return qr.err(self.k, float(self.max_grade))


class PairwiseErrorRate(Pickled, _rm.base.Metric):
    """RankNet's pair error rate over queries: ``sum D / sum P`` (``ties_as_errors``:
    ``sum (D + T) / sum P``), exact integer counts inside; River-style.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Examples
    --------
    >>> from streamrank.ranking import PairwiseErrorRate
    >>> m = PairwiseErrorRate()
    >>> m.update([2, 1, 0], [0.5, 0.5, 0.9])    # D = 2, T = 1 of P = 3
    >>> m.get(), m.discordant, m.tied, m.comparable
    (0.6666666666666666, 2, 1, 3)
    """

    _fmt = ",.6f"

    def __init__(self, ties_as_errors: bool = False) -> None:
        self.ties_as_errors = ties_as_errors
        self.discordant = self.tied = self.comparable = 0

    def _counts(self, y_true, y_pred):
        return _query(y_true, y_pred, "average", DEFAULT_GAIN,
                      "PairwiseErrorRate.update").pair_counts()

    def update(self, y_true: Iterable[Number], y_pred: Iterable[Number]) -> None:
        D, T, P = self._counts(y_true, y_pred)
        self.discordant += D
        self.tied += T
        self.comparable += P

    def revert(self, y_true: Iterable[Number], y_pred: Iterable[Number]) -> None:
        D, T, P = self._counts(y_true, y_pred)
        self.discordant -= D
        self.tied -= T
        self.comparable -= P

    def get(self) -> float:
        if not self.comparable:
            return 0.0
        wrong = self.discordant + (self.tied if self.ties_as_errors else 0)
        return wrong / self.comparable

    @property
    def bigger_is_better(self) -> bool:
        return False

    def works_with(self, model: object) -> bool:
        return True
