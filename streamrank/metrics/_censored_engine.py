"""`CensoredPairEngine`: running Harrell's C counts with right-censored times.

A pair is *comparable* when the one that leaves first is an observed event: order every
sample by its exit key ``(t, 0 if event else 1)`` (at equal times an event leaves before
a censored case, which is known to outlive it); a pair with different keys is comparable
when the smaller key is an event. Equal keys (equal times, both events or both censored)
are not comparable. These are the rules of ``lifelines.utils.concordance_index``
(higher score = longer survival): a comparable pair is concordant when the first to leave
has the lower score, discordant when it has the higher one, tied when the scores are equal.

The held samples sit in two 2-D dominance counters over (time, score), one for events
``E`` and one for censored cases ``K``. A sample ``x = (t, e, s, w)`` has these comparable
pairs with the held ones (rows of `DominanceCounter.query`: time ``<``, ``==``, ``>``
``t``; columns: score ``<``, ``==``, ``>`` ``s``)::

    x leaves later:  the events of E with time < t, and with time == t if x is censored
                     concordant = their score < s, discordant = score > s
    x leaves first:  (only if x is an event) everything with time > t, and the censored
                     cases with time == t; concordant = score > s, discordant = score < s

so an insert or a removal is two queries and one update: ``O(log^2 n)`` amortized.
"""

from __future__ import annotations

from .._snapshot import Pickled
from ..counts import half_ties
from ..structures import DominanceCounter
from ..structures._csums import Sums

__all__ = ["CensoredPairEngine"]


class CensoredPairEngine(Pickled):
    """Concordant, discordant and tied comparable pair weight of censored samples.

    Examples
    --------
    >>> e = CensoredPairEngine()
    >>> for t, event, s in [(1, True, 1.0), (2, False, 3.0), (3, True, 2.0), (4, True, 4.0)]:
    ...     e.add(t, event, s, 1)
    >>> e.counts                        # the discordant (2, 3) pair is not comparable
    (4, 0, 0)
    """

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self._dtype = int
        self._sets = (DominanceCounter(), DominanceCounter())  # censored, events
        self._sums = Sums(False)     # C, D, T: exact 128-bit, or compensated floats
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @property
    def counts(self) -> tuple:
        """``(C, D, T)`` (float counts clipped at 0). Runtime complexity: O(1)."""
        return tuple(self._sums.values()[:3])

    @property
    def c_index(self) -> float:
        """``(C + T / 2) / (C + D + T)``; ``nan`` with no comparable pair."""
        c, d, t = self.counts
        p = c + d + t
        if not p > 0:
            return float("nan")
        return half_ties(c, t, p, "concordance index")

    def add(self, t: float, event: bool, s: float, w) -> None:
        """Add one sample. Runtime complexity: O(log^2 n) amortized."""
        if isinstance(w, float) and self._dtype is int:
            self._to_float()
        terms = self._terms(t, event, s)
        self._sets[event].add(t, s, w)
        self._accumulate(terms, w)
        self._n += 1

    def remove(self, t: float, event: bool, s: float, w) -> None:
        """Remove one sample added with these values (`ValueError`, nothing changes, if
        none is held). Runtime complexity: O(log^2 n) amortized."""
        if isinstance(w, float) and self._dtype is int and not w.is_integer():
            raise ValueError(f"No sample (time {t!r}, event {event!r}, score {s!r}, "
                             f"weight {w!r}) is held.")
        w = int(w) if self._dtype is int else float(w)
        self._sets[event].remove(t, s, w)
        self._accumulate(self._terms(t, event, s), -w)
        self._n -= 1
        if not self._n:
            self.clear()

    def _terms(self, t, event, s):
        (el, ee, eg) = self._sets[1].query(t, s)
        (_, ke, kg) = self._sets[0].query(t, s)
        c, d, tie = el[0], el[2], el[1]  # x leaves later than the earlier events
        if not event:
            c, d, tie = c + ee[0], d + ee[2], tie + ee[1]
        else:  # x leaves first: later times, and censored cases at the same time
            for row in (eg, kg, ke):
                c, d, tie = c + row[2], d + row[0], tie + row[1]
        return c, d, tie

    def _accumulate(self, terms, w) -> None:
        self._sums.add((*terms, 0, 0), w, 0)

    def _to_float(self) -> None:
        """Rebuild both counters with float weights (one O(n log^2 n) pass)."""
        self._dtype = float
        sets = []
        for old in self._sets:
            rows = list(old.items())
            new = DominanceCounter(dtype=float)
            if rows:
                t, s, c, w = zip(*rows)
                new.load(t, s, c, [float(x) for x in w])
            sets.append(new)
        self._sets = tuple(sets)
        self._sums.to_float()
