"""`PairCounter`: keyed, mutable, exact pair counts with O(log n) changes."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from . import _engine_ci, _snapshot
from ._typing import LabelKind
from .counts import PairCounts
from .intervals import AUCInterval
from .engine import PairEngine
from .structures._ccounter import CounterCore

__all__ = ["PairCounter"]

_FORMAT = "streamrank.PairCounter"
_VERSION = 2    # the only version read: keys stored exactly (see _snapshot)


class PairCounter(CounterCore, _snapshot.Pickled):
    """Exact pair counts of keyed (label, score, weight) items under inserts, removals and
    updates.

    Every count of `PairCounts` (and so every metric: ``counter.counts.auc``,
    ``.tau_b``, ...) equals `streamrank.pair_counts` of the items held, after any sequence
    of operations: a change adds or subtracts exactly the pairs of the
    item it touches.

    Runtime complexity: `insert`, `remove` and `update` ``O(log n)`` for binary labels,
    ``O(L log n)`` for ``L`` ordinal levels, ``O(log^2 n)`` amortized for continuous labels;
    `counts` ``O(1)``. The ``*_many`` methods count the change of a batch of ``k`` with
    numpy (vectorized queries against the held items plus the batch kernel for the pairs
    inside the batch) and pick per-item structure updates or a rebuild by size; every path
    gives the same counts. Recounting from scratch costs ``O(n log n)`` per change.

    Ties: equal scores with different labels are ``tied_score`` pairs (AUC counts them
    1/2); equal labels are ``tied_label`` pairs.

    Not thread-safe: give each thread its own counter and bring their items together at the
    end (`insert_many`), or guard every call on a shared one, reads included, with one
    `threading.Lock`.

    Parameters
    ----------
    labels : {"auto", "binary", "ordinal", "continuous"}, default "auto"
        How labels are held (see `PairEngine`). ``"binary"`` rejects a third label.

    Examples
    --------
    >>> from streamrank import PairCounter
    >>> pc = PairCounter()
    >>> pc.insert("a", 0, 0.1); pc.insert("b", 0, 0.4); pc.insert("c", 1, 0.35)
    >>> pc.insert("d", 1, 0.8)
    >>> pc.counts.auc
    0.75
    >>> pc.update("b", score=0.2)       # re-scored: one O(log n) change
    >>> pc.counts.auc
    1.0
    >>> pc.remove("a"); len(pc), "a" in pc
    (3, False)
    """

    def __init__(self, *, labels: LabelKind = "auto") -> None:
        self._bind(PairEngine(labels))  # the keyed rows and the engine's structure: in C

    @property
    def labels(self) -> str:
        return self._engine.labels

    # ------------------------------------------------------------------ container
    # __len__, __contains__, __iter__, get and items are `CounterCore`'s (compiled).
    def __repr__(self) -> str:
        return f"PairCounter(labels={self.labels!r}) holding {len(self)} items"

    def clear(self) -> None:
        """Remove every item. Runtime complexity: O(1)."""
        self._bind(PairEngine(self.labels))

    @property
    def counts(self) -> PairCounts:
        """The counts of the items held: a `PairCounts` with every metric as a property.
        Runtime complexity: O(1) (``O(n log n)`` once after float weights far larger than
        those held came and went: see `PairEngine.stale`)."""
        if self._engine.stale:
            self._engine.rebuild(*self._columns())
            self._sync()
        return self._engine.counts

    def placement_moments(self):
        """What DeLong's variance of the AUC needs, exact ints: a `PlacementMoments` of
        the positive (greater label) and negative weights, ``u = 2 C + T`` and each
        class's sum of squared doubled placements; ``None`` with more than two labels, a
        class without weight, or fractional weights. Runtime complexity: ``O(n)`` at the
        first call (it turns them on), then ``O(1)``, every change keeping them at
        ``O(log n)`` (`PairEngine.placement_moments`).

        >>> pc = PairCounter()
        >>> pc.insert_many(["a", "b", "c", "d"], [0, 1, 0, 1], [0.1, 0.4, 0.4, 0.8])
        >>> pc.placement_moments()
        PlacementMoments(w1=2, w0=2, u=7, q1=25, q0=25)
        """
        return self._engine.placement_moments()

    def auc_ci(self, level: float = 0.95, method: str = "delong") -> AUCInterval:
        """The ROC AUC of the items held with its standard error and interval: the same
        `AUCInterval` as `streamrank.roc_auc_ci` of their labels, scores and weights (bit
        for bit while its placement moments fit int64; past class weights of about
        ``2**30`` it takes a scaled domain, and the two agree to rounding, an exact 0 on
        both).

        ``method="delong"`` reads DeLong's variance from the `placement_moments`;
        ``"hanley-mcneil"`` uses the AUC and the class weights (`streamrank.intervals`).
        The greater label is the positive class. Runtime complexity: ``O(1)`` (``O(n)``
        at the first call, which turns the moments on; every change then keeps them at
        ``O(log n)``).

        Raises `ValueError` for a ``level`` outside ``(0, 1)``, another ``method`` (the
        bootstrap needs the items: `streamrank.roc_auc_ci`), and for items that have no
        such interval, naming the method and why: more than two labels, fractional
        weights held (the variances take frequency weights; the counts stay floats until
        `clear`), or ``labels="continuous"``. While one class has no weight: the
        interval with ``nan`` fields and an `UndefinedMetricWarning`, as
        `streamrank.roc_auc_ci`.

        >>> pc = PairCounter()
        >>> pc.insert_many(range(6), [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7])
        >>> pc.auc_ci()
        AUCInterval(auc=0.888889, low=0.261373, high=0.994501, se=0.157135, method='delong', level=0.95)
        """
        return _engine_ci.auc_ci(self._engine, level, method,
                                 "PairCounter.auc_ci")

    # ------------------------------------------------------------------ persistence
    def to_bytes(self) -> bytes:
        """A compact, versioned snapshot: numpy arrays of keys, labels, scores, weights
        (``np.savez``; no pickled Python objects). `from_bytes` restores it in
        ``O(n log n)``.

        Keys must be all ints or all strings (`TypeError` otherwise; pickle the counter
        for other keys) and come back equal and of the same type: ints of any size,
        strings with any characters (NUL included). Runtime complexity: ``O(n)``.
        """
        keys = self._keys()
        y, s, w = self._columns()
        return _snapshot.dump(_FORMAT, _VERSION, labels=np.array(self.labels),
                              **_snapshot.key_arrays(keys, "keys", "PairCounter.to_bytes"),
                              y=y, s=s, w=w)

    @classmethod
    def from_bytes(cls, data: bytes) -> PairCounter:
        """Restore a counter written by `to_bytes` (snapshot version `_VERSION` only), in
        ``O(n log n)``.

        Raises `streamrank.exceptions.SnapshotError` (a `ValueError`) for anything it
        cannot load: bytes that are not a snapshot, another structure's snapshot, a
        truncated or damaged one, an unsupported version (see `SnapshotError`).
        """
        snap = _snapshot.load(data, _FORMAT, _VERSION, "PairCounter.from_bytes", _VERSION)
        labels = snap.text("labels")
        keys = snap.keys("keys")
        n = len(keys)
        y, s = snap.floats("y", n), snap.floats("s", n)
        w = snap.floats("w", n, nonnegative=True)
        snap.finish()
        with snap.rebuild():
            counter = cls(labels=cast(LabelKind, labels))   # (PairEngine checks it)
            counter.insert_many(keys, y, s, None if np.all(w == 1) else w)
        return counter

    def _state(self) -> dict[str, object]:
        """What a pickle keeps (`streamrank._snapshot.Pickled` adds the format version): the
        labels and the items, any hashable keys."""
        y, s, w = self._columns()
        return {"labels": self.labels, "keys": self._keys(), "y": y, "s": s, "w": w}

    def _restore(self, state: dict[str, Any]) -> None:
        self.__init__(labels=state["labels"])
        w = state["w"]
        self.insert_many(state["keys"], state["y"], state["s"],
                         None if np.all(w == 1) else w)

    # ------------------------------------------------------------------ internals
    def _check(self) -> None:
        """Invariants: the engine's counts equal a batch recount of the items held."""
        self.counts  # noqa: B018 - the read recounts a stale engine, as a user's would
        self._check_core()
        assert len(self) == len(self._engine)
        y, s, w = self._columns()
        assert not self._unit or bool(np.all(w == 1))
        self._engine._check(y, s, None if self._unit else w)
