"""`PairEngine`: a multiset of (label, score, weight) samples with running pair counts.

Every insert or removal changes each count of `PairCounts` by exactly the pairs that
involve the sample. For a sample ``(y, s, w)`` against the held set::

    C  += w * [W(y' < y, s' < s) + W(y' > y, s' > s)]      concordant
    D  += w * [W(y' < y, s' > s) + W(y' > y, s' < s)]      discordant
    T  += w * W(y' != y, s' == s)                          tied in score only
    Ty += w * W(y' == y),  Tyy += w * W(y' == y, s' == s)  tied in label (and both)

``W(...)`` is the weight held in a region of the (label, score) plane; a removal subtracts
the same terms, computed after the sample left. Three compiled structures hold the
samples, each running a whole change in C (validation of plain numbers, the terms, the
update, the running counts in the compiled `Sums`, the level counts behind the
structural zeros):

* at most two label levels (binary labels; ``"auto"`` and ``"ordinal"`` until a third
  comes): a `BinaryDominanceCounter`, one B+ tree over the scores carrying both levels'
  weights, ``O(log n)`` a change;
* more levels: a `LevelDominanceCounter`, two levels to a B+ tree, its ``ceil(L / 2)``
  trees walked together, ``O(L log n)`` (it adopts the two-level tree: ``O(1)``);
* continuous labels (past `MAX_LEVELS` with ``"auto"``, or ``labels="continuous"``): a
  `DominanceCounter`, a weight-balanced tree over (label, score) keys whose nodes hold B+
  trees of scores, ``O(log^2 n)`` amortized (the move: one ``O(n log n)`` rebuild).

The moves go one way, at the first change that needs them. What the compiled path does
not take (a float weight into exact counts, a level a structure cannot hold, a value that
is not a plain number) goes through the checked Python path: it validates, moves the
structure if needed and calls the structure's fused ``add_pairs`` / ``remove_pairs``.

Batches of ``k`` changes smaller than what is held run as single changes in one C loop, in
score order (``O(k log n)``); a batch as large as what is held is counted at once: the
pairs inside it (the batch kernel, ``O(k log k)``), against the held samples
(``pairs_with_many``), then one ``O((n + k) log(n + k))`` rebuild. Every path gives the
same counts: exactly with integer weights, to rounding with float weights.

Exactness: while every weight is an integer up to ``2**53`` (the default ``w=1``) and
their total stays below ``2**62``, counts are exact Python ints. The first fractional (or
larger) weight turns the engine to floats for good (an ``O(n)`` rebuild): compensated
sums, each change rounding a count by up to `PAIR_ROUNDING` of the weight of its pairs
(``1e20`` inserted and removed among unit weights leaves ``~1e4`` in every count it
crossed). `stale` says when that could pass `PAIR_BOUND` of the pairs each count belongs
to; the owners that hold their samples (`PairCounter`, the windows, `Monitor`,
`RollingROCAUC`) then recount (`rebuild`, ``O(n log n)``): docs/engine.md, the bounds.

Counts that are zero by structure are exactly zero whatever came and went: with one label
level held (with weight), ``C = D = T = 0``; with one score level, ``C = D = 0``; with every
label held once, ``Ty = Tyy = 0``; with every score held once, ``T = Tyy = 0``. A metric of
a one-class or all-tied state is therefore ``nan`` (with the warning), never a leftover.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ._engine_batch import _FIELDS, BatchPath
from ._snapshot import Pickled
from ._typing import Count, LabelKind, Number
from .batch._kernels import count_pairs
from ._validation import INT_TOTAL_MAX, check_scalar, check_weight, describe, param_error
from .counts import PairCounts, structural_zero
from .structures import (BinaryDominanceCounter, DominanceCounter, LevelDominanceCounter,
                         PlacementMoments)
from .structures._csums import Sums

__all__ = ["LABEL_KINDS", "PairEngine", "PlacementMoments"]

LABEL_KINDS = ("auto", "binary", "ordinal", "continuous")

#: With ``labels="auto"``, the engine keeps the label levels in the level counter up to
#: this many levels (a change walks ``ceil(L / 2)`` B+ trees), then moves to the 2-D
#: dominance counter, whose cost does not grow with the number of levels.
MAX_LEVELS = 16

#: Float mode: once the weight that passed through the engine since its last recount is
#: more than this many times the weight it holds (a large weight inserted and removed
#: again, or a long stream through a window), ``stale`` turns true and the owner recounts.
REBUILD_RATIO = 64.0

#: Float mode: a change rounds a count by at most `PAIR_ROUNDING` times the weight of its
#: pairs; `stale` keeps the rounding since the last recount within `PAIR_BOUND` of the
#: pairs each count belongs to (``P`` or ``N0``: docs/engine.md, "The float bound").
PAIR_ROUNDING = 2.0 ** -40
PAIR_BOUND = 2.0 ** -32

# Running counts, in this order.
_C, _D, _T, _TY, _TYY = range(5)


class PairEngine(BatchPath, Pickled):
    """Running pair counts of a multiset of ``(label, score, weight)`` samples.

    The value-based core under `PairCounter` (keyed), the windows and the River metrics:
    ``add`` and ``remove`` take the sample's values; removing one not held is an error
    that changes nothing.

    Parameters
    ----------
    labels : {"auto", "binary", "ordinal", "continuous"}
        ``"binary"`` rejects a third label value (a label held only with weight 0 still
        counts as held); ``"ordinal"`` keeps the levels two to a tree (any number of
        levels, ``O(L log n)`` per change) once a third level is held; ``"continuous"``
        uses the dominance counter from the start; ``"auto"`` moves on to it past
        ``MAX_LEVELS`` levels. All others start in the two-level tree (module docstring).

    Examples
    --------
    >>> e = PairEngine()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     e.add(y, s)
    >>> e.counts.auc
    0.75
    >>> e.remove(0, 0.4); e.counts.auc
    1.0
    """

    _dom: LevelDominanceCounter | DominanceCounter
    _cached: PairCounts | None
    _dtype: type[int] | type[float]
    _kind: str
    _moments: bool
    _cached_at = -1     # `Sums.changes` when `_cached` was made

    def __init__(self, labels: LabelKind = "auto") -> None:
        if labels not in LABEL_KINDS:
            raise param_error("labels", "PairEngine", f"one of {LABEL_KINDS}", describe(labels))
        self.labels = labels
        self._moments = False   # placement moments asked for (kept from then on)
        self.clear()

    # ------------------------------------------------------------------ state
    def clear(self) -> None:
        """Drop every sample. Runtime complexity: O(1)."""
        self._dtype = int
        self._sums = Sums(False)  # C, D, T, Ty, Tyy and the weight held (compiled)
        self._set_structure(int, "continuous" if self.labels == "continuous" else "binary")
        self._reset_counts()

    def _reset_counts(self) -> None:
        self._sums.reset(self._dtype is float)
        self._cached = None

    def __len__(self) -> int:
        return len(self._dom)

    def _restore(self, state: dict) -> None:
        """Unpickle (`Pickled`): the compiled structure's link to the sums is not
        pickled."""
        self.__dict__.update(state)
        self._dom.sums = self._sums
        if self._kind != "continuous":
            self._dom.engine_max_levels = MAX_LEVELS if self.labels == "auto" else 0

    @property
    def weighted(self) -> bool:
        """True once a fractional weight was seen (counts are floats from then on)."""
        return self._dtype is float

    @property
    def weight(self) -> Count:
        """The weight held (an int while the counts are exact). O(1)."""
        return self._sums.weight()

    @property
    def kind(self) -> str:
        """The structure holding the samples: ``"binary"`` (the two-level tree), ``"levels"``
        (two levels to a tree; both change in C) or ``"continuous"`` (module docstring)."""
        return self._kind

    @property
    def continuous(self) -> bool:
        """True when the samples are held in the 2-D dominance counter."""
        return isinstance(self._dom, DominanceCounter)

    @property
    def stale(self) -> bool:
        """True when the float rounding of what came and went may pass `PAIR_BOUND` of the
        counts held, or the weight that passed `REBUILD_RATIO` times the weight held: the
        owner should `rebuild`. Never with exact integer counts. O(1)."""
        return self._sums.stale(REBUILD_RATIO, PAIR_BOUND / PAIR_ROUNDING,
                                self._kind == "continuous")

    @property
    def counts(self) -> PairCounts:
        """The current `PairCounts`. Runtime complexity: O(1) (cached until a change)."""
        if self._cached is None or self._cached_at != self._sums.changes:
            c = self._sums.values()
            zero = self._dtype(0)
            n_levels, n_scores, n_pos = self._dom.stats()
            if n_levels <= 1:                  # structural zeros (module docstring)
                c[_C] = c[_D] = c[_T] = zero
            if n_scores <= 1:
                c[_C] = c[_D] = zero
            if n_levels == n_pos:
                c[_TY] = c[_TYY] = zero
            if n_scores == n_pos:
                c[_T] = c[_TYY] = zero
            self._cached = PairCounts(c[_C], c[_D], c[_T], c[_TY], c[_TYY], len(self._dom),
                                      c[_W] if n_pos else zero, n_levels, n_scores)
            self._cached_at = self._sums.changes   # (a change in C bumps it: `Sums`)
        return self._cached

    # ------------------------------------------------------------------ single changes
    def add(self, y: Number, s: Number, w: Number = 1, *,
            caller: str = "PairEngine.add") -> None:
        """Add one sample; errors name ``caller`` (the owner's public method). ``O(log
        n)`` for at most two label levels, ``O(L log n)`` for ``L``, ``O(log^2 n)``
        amortized with the dominance counter: in C for plain Python numbers."""
        if self._dom.engine_add(y, s, w):  # the whole change in C
            self._cached = None
            return
        self._add(check_scalar(y, "y", caller), check_scalar(s, "s", caller),
                  check_weight(w, caller), caller)

    def _add(self, y: float, s: float, w: Count, func: str) -> None:
        """`add` of validated values (``w`` an int or a float from `check_weight`)."""
        self.check_label(y, func)
        self._make_room((y,))
        if self._dtype is int:
            if type(w) is float or self._sums.weight() + w > INT_TOTAL_MAX:
                self._to_float()
                w = float(w)
        else:
            w = float(w)
        terms = self._dom.add_pairs(y, s, w)  # one walk: the terms, and the insert
        self._accumulate(terms, w)

    def remove(self, y: Number, s: Number, w: Number = 1, *,
               caller: str = "PairEngine.remove") -> None:
        """Remove one sample added with these values (`ValueError`, and nothing changes,
        if none is held; errors name ``caller``). Runtime complexity: as `add`."""
        if self._dom.engine_remove(y, s, w):  # the whole change in C
            self._cached = None
            return
        y, s, w = check_scalar(y, "y", caller), check_scalar(s, "s", caller), \
            check_weight(w, caller)
        if not self._dom.count(y, s):
            raise param_error("s", caller, f"the score of a sample held with label {y!r}",
                              repr(s))
        try:
            self._remove(y, s, w)
        except ValueError as exc:   # held, but not with this weight (nothing changed)
            raise param_error("w", caller, "the weight of a sample held at "
                              f"({y!r}, {s!r})", repr(w)) from exc

    def _remove(self, y: float, s: float, w: Count) -> None:
        """`remove` of validated values (`ValueError`, nothing changed, for a weight no
        sample can hold: a fractional one while the counts are exact integers)."""
        if self._dtype is float:
            w = float(w)
        elif type(w) is float:
            raise ValueError("exact counts hold integer weights only")
        terms = self._dom.remove_pairs(y, s, w)  # one walk: validates, removes, terms after
        self._accumulate(terms, -w)
        if not len(self._dom):
            self._reset_counts()  # an emptied engine holds exact zeros, not float residue

    def auc_or(self, default: float) -> float:
        """``counts.auc`` without building `counts`, or ``default`` (no warning) while no
        pair of different labels is held. O(1) (O(L) for ``L`` levels), in C unless the
        dominance counter holds the samples."""
        auc = self._dom.engine_auc()
        return default if auc is None else auc

    def placement_moments(self) -> PlacementMoments | None:
        """The `PlacementMoments` of the samples held; ``None`` with more than two label
        levels (or the dominance counter), a class without weight, or float weights
        (DeLong reads integer weights as frequencies; fractions have no such reading).
        The first call turns them on, ``O(n)``; every change then keeps them at ``O(log
        n)`` and a read is ``O(1)`` (128-bit sums, to a weight held of ``2**40``; past
        it, or after a third label came and went, a recount: ``O(n log n)``).

        >>> e = PairEngine()
        >>> for y, s in [(0, 0.1), (1, 0.4), (0, 0.4), (1, 0.8)]:
        ...     e.add(y, s)
        >>> e.placement_moments()
        PlacementMoments(w1=2, w0=2, u=7, q1=25, q0=25)
        """
        self._moments = True
        if self._kind == "continuous" or self._dtype is float:
            return None
        moments = self._dom.placement_moments()
        return None if moments is None else PlacementMoments(*moments)

    def apply(self, removes: Sequence[tuple[float, float, Count]],
              adds: Mapping[tuple[float, float, Count], int],
              caller: str = "PairEngine.apply") -> None:
        """Remove the held samples ``removes`` (a list of ``(y, s, w)``), then add
        ``adds`` (a dict ``{(y, s, w): copies}``): the River metrics' buffered changes.
        Items are validated as by `remove` / `add`; unless the dominance counter holds
        the samples, the whole loop runs in C. Runtime complexity: ``O(k log n)`` (``O(k L log n)``)."""
        done_r, done_a = self._dom.engine_apply(removes, adds)
        self._cached = None
        if done_r == len(removes) and done_a == sum(adds.values()):
            return
        for y, s, w in removes[done_r:]:
            self.remove(y, s, w, caller=caller)
        seen = 0
        for (y, s, w), copies in adds.items():
            for _ in range(copies):
                if seen >= done_a:
                    self.add(y, s, w, caller=caller)
                seen += 1

    def check_label(self, y: float, func: str, name: str = "y") -> None:
        """Raise, changing nothing, if label ``y`` cannot be added (``labels="binary"``
        already holding two other labels)."""
        self.check_labels_after((), (y,), func, name)

    def check_labels_after(self, removed: Iterable[float], added: Iterable[float], func: str,
                           name: str = "y") -> None:
        """Raise, changing nothing, if removing samples labelled ``removed`` and adding
        samples labelled ``added`` would hold more than two labels with
        ``labels="binary"``. Every copy held counts, zero weights included (a label held
        with weight 0 still takes one of the structure's two levels).
        Runtime complexity: O(len(removed) + len(added))."""
        if self.labels != "binary":
            return
        after = self._dom.level_copies()
        for y in removed:
            if y in after:
                _bump_copies(after, y, -1)
        labels = set(after) | set(added)
        if len(labels) > 2:
            raise param_error(name, func, "one of at most two labels in all "
                              "(labels='binary')",
                              f"{sorted(set(added) - set(after))} with "
                              f"{sorted(after)} held")

    # ------------------------------------------------------------------ internals
    def _set_structure(self, dtype, kind: str) -> None:
        """An empty structure of ``kind``: "binary", "levels" or "continuous"."""
        self._kind = kind
        self._dom = _STRUCTURES[kind](dtype=dtype)
        self._dom.sums = self._sums
        if kind != "continuous":
            if self._moments:
                self._dom.enable_moments()   # kept by every change from here on
            # past MAX_LEVELS, "auto" leaves the level counter: engine_add lets the
            # checked path (`_make_room`) take such a level
            self._dom.engine_max_levels = MAX_LEVELS if self.labels == "auto" else 0

    def _make_room(self, new_labels) -> None:
        """Before labels ``new_labels`` come (those held already count once): leave the
        two-level tree for a third level, and the level counter for the dominance
        counter when ``labels="auto"`` passes `MAX_LEVELS`. O(L + len(new_labels))."""
        if self._kind == "continuous":
            return
        levels = len(set(self._dom.levels).union(new_labels))
        if self._kind == "binary" and levels > 2:
            if self.labels == "auto" and levels > MAX_LEVELS:
                self._reload("continuous")
            else:   # the level counter takes the two-level tree as it is: O(1)
                two = self._dom
                self._set_structure(self._dtype, "levels")
                self._dom.adopt(two)
        elif self._kind == "levels" and self.labels == "auto" and levels > MAX_LEVELS:
            self._reload("continuous")

    def _accumulate(self, terms, w, wsum=None) -> None:
        """Add ``w * terms`` to the running counts and ``wsum`` (default ``w``) to the
        weight held (exact ints, or compensated floats: `Sums`)."""
        self._sums.add(terms, w, w if wsum is None else wsum)
        self._cached = None

    def _items(self):
        """Aggregated held samples: arrays of (label, score, copies, weight, copies of
        weight > 0)."""
        return self._dom.columns()

    def _reload(self, kind=None, dtype=None) -> None:
        """Rebuild the structure (not the counts) from its own aggregated contents, into
        another kind of structure and/or float weights: one O(n log n) rebuild."""
        y, s, c, w, p = self._items()
        self._dtype = dtype or self._dtype
        self._set_structure(self._dtype, kind or self._kind)
        self._dom.load(y, s, c, w.astype(np.float64) if self._dtype is float else w, p)

    def _to_float(self) -> None:
        """Switch the structure and the counts to float weights (one O(n) rebuild)."""
        self._reload(dtype=float)
        self._sums.to_float()
        self._cached = None

    def _check(self, y=None, s=None, w=None) -> None:
        """Invariants: the structure's own checks; with the held samples given as arrays,
        the counts equal a batch recount of them (exactly for integer weights)."""
        self._dom._check()
        assert self._sums.floats == (self._dtype is float)
        assert self._dom.sums is self._sums
        if y is None:
            return
        assert len(y) == len(self._dom)
        got = self.counts
        fresh = count_pairs(np.asarray(y, float), np.asarray(s, float),
                            None if w is None else np.asarray(w, float)) if len(self._dom) else None
        # W**2 scales the bounds; while not stale, twice the documented one (a recount rounds)
        scale = 0.0 if fresh is None else float(fresh.weight_sum) ** 2
        pairs = None if fresh is None or self.stale else (fresh.comparable, fresh.total)
        for f in _FIELDS:
            a = getattr(got, f)
            b = 0 if fresh is None else getattr(fresh, f)
            if self._dtype is int:   # (the float recount is exact below 2**53)
                assert isinstance(a, int), (f, a)
                assert a == round(b) if scale < 2 ** 53 else abs(a - b) <= 1e-12 * scale, \
                    (f, a, b)
            elif pairs is not None:
                own = pairs[1] if f in _FIELDS[3:] or self._kind == "continuous" else pairs[0]
                assert abs(a - b) <= 4 * PAIR_BOUND * own, (f, a, b, own)
            else:
                assert abs(a - b) <= 1e-9 * max(scale, abs(b)), (f, a, b)
            if b == 0 and fresh is not None and structural_zero(fresh, f):
                assert a == 0, (f, a)
        if fresh is not None:
            assert got.n_label_levels == fresh.n_label_levels, (got, fresh)
            assert got.n_score_levels == fresh.n_score_levels, (got, fresh)


_W = 5  # the weight held, kept beside the counts

_STRUCTURES = {"binary": BinaryDominanceCounter, "levels": LevelDominanceCounter,
               "continuous": DominanceCounter}


def _bump_copies(table, key, n) -> None:
    table[key] = table.get(key, 0) + n
    if not table[key]:
        del table[key]
