"""`PairEngine` and `PairCounter` across every engine mode switch, against the oracle.

The engine holds its samples in the two-level tree while at most two labels are held, in
per-level multisets from a third level on, and in the 2-D dominance counter past
`MAX_LEVELS` levels (``labels="auto"``) or from the start (``"continuous"``); its counts
are exact ints until a fractional weight, a weight beyond ``2**53`` or a total beyond
``2**62`` turns them to floats. The state machines here walk through all of it, for each
``labels`` kind: labels widen from two levels to a third and past `MAX_LEVELS`, and
narrow again when every sample of a level leaves; weights are unit, integer, huge
(``2**53`` up to ``2**400``), fractional or mostly zero; changes come one at a time and in
batches. After every step the structure's own ``_check()`` passes and the counts equal the
O(n^2) oracle of the samples held (`_exact_checks.assert_counts`: exact ints while exact
counts are promised, ``1e-9 * W**2`` with floats, structural zeros exactly 0).
`test_every_mode_switch_in_order` takes each switch once, in order, deterministically.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from _exact_checks import assert_counts, exact_weights_only
from streamrank import PairCounter
from streamrank.engine import MAX_LEVELS, PairEngine

#: Label values in the order they come: two levels, a third, then past MAX_LEVELS.
POOL = (0.0, 1.0, -1.0) + tuple(k / 4 + 2.0 for k in range(MAX_LEVELS + 1))
#: How many of POOL's labels a step may draw: one level, binary, three, more than MAX_LEVELS.
STAGES = (1, 2, 3, len(POOL))
SCORES = (-1.0, -0.0, 0.0, 0.5, 1.0, 2.0)
WEIGHTS = {
    "unit": (1,),
    "int": (0, 1, 2, 3, 7, 2**31 + 1),
    # >= 2**53: exact ints up to 2**53, then floats (Python ints and floats); the float
    # sums of these stay exact, so the structures' own sums are checkable to 1e-9
    "huge": (2**53, 3 * 2**53, 2**60, 2**80, float(2**90), 5 * 2**88),
    "extreme": (2.0**400, 2.0**380, 3 * 2.0**390),            # the top of the domain
    "tiny": (2.0**-400, 2.0**-380, 3 * 2.0**-390),            # and its bottom
    "fractional": (0.0, 0.25, 0.5, 1.0, 2.75, 1e-3, 1, 3),
    "zero": (0, 0, 0, 1, 2),
    # 2**400 next to 1 and 2**-400: a sum of the structures loses the small weights (the
    # rounding the README's float bound allows), which their internal per-entry checks
    # (``_check()``) do not allow for; the counts are held to the documented bound only
    "mixed": (1, 0.5, 0, 2.0**400, 2.0**-400),
}
#: Weight kinds whose structures' ``_check()`` holds after every step.
CHECKED = frozenset(WEIGHTS) - {"mixed"}
MACHINE_SETTINGS = settings(max_examples=60, stateful_step_count=40, derandomize=True,
                            deadline=None, database=None)


def _arrays(rows):
    """Validated batch arrays of ``rows``: float64 labels, scores and weights (the form
    the owners pass to `PairEngine.add_many` and `remove_many`)."""
    y = np.array([r[0] for r in rows], dtype=np.float64)
    s = np.array([r[1] for r in rows], dtype=np.float64)
    w = np.array([float(r[2]) for r in rows], dtype=np.float64)
    return y, s, w


class _Modes(RuleBasedStateMachine):
    """What both machines share: the label stage, the draws and the checks."""

    LABELS = "auto"

    def _setup(self, weights):
        self.kind = weights
        self.width = 2
        self.exact = True            # every weight so far kept the counts exact ints
        self.peak_levels = 0         # the most label levels held at once

    # -- draws
    def _y(self, data):
        return data.draw(st.sampled_from(POOL[:self.width]))

    def _maybe_widen(self, data) -> None:
        """One add in four opens the next label stage first (not with "binary"), so that
        a run of a few dozen steps passes every switch."""
        if (self.LABELS != "binary" and self.width < len(POOL)
                and data.draw(st.integers(0, 3)) == 0):
            self._widen()

    def _s(self, data):
        return data.draw(st.sampled_from(SCORES))

    def _w(self, data):
        return data.draw(st.sampled_from(WEIGHTS[self.kind]))

    def _held(self) -> list:      # pragma: no cover - overridden
        raise NotImplementedError

    def _changed(self) -> None:
        rows = self._held()
        self.exact = self.exact and exact_weights_only([r[2] for r in rows])
        self.peak_levels = max(self.peak_levels, len({r[0] for r in rows}))

    def _widen(self):
        self.width = STAGES[STAGES.index(self.width) + 1]

    def _check_mode(self, engine) -> None:
        """``continuous``: from the start with "continuous", never with "binary" or
        "ordinal", and with "auto" once more than MAX_LEVELS levels are held (not before
        that ever happened)."""
        levels = len({r[0] for r in self._held()})
        if self.LABELS == "continuous":
            assert engine.continuous
        elif self.LABELS in ("binary", "ordinal"):
            assert not engine.continuous
        else:
            if levels > MAX_LEVELS:
                assert engine.continuous
            if self.peak_levels <= MAX_LEVELS:
                assert not engine.continuous


# ---------------------------------------------------------------------- the engine
class EngineModes(_Modes):
    """A `PairEngine` next to the list of samples it holds."""

    @initialize(weights=st.sampled_from(sorted(WEIGHTS)))
    def setup(self, weights):
        self._setup(weights)
        self.engine = PairEngine(self.LABELS)
        self.rows: list = []

    def _held(self):
        return self.rows

    @rule(data=st.data())
    def add(self, data):
        self._maybe_widen(data)
        row = (self._y(data), self._s(data), self._w(data))
        self.engine.add(*row)
        self.rows.append(row)
        self._changed()

    @rule(data=st.data(), k=st.integers(1, 8))
    def add_many(self, data, k):
        self._maybe_widen(data)
        rows = [(self._y(data), self._s(data), self._w(data)) for _ in range(k)]
        y, s, w = _arrays(rows)
        self.engine.add_many(y, s, None if self.kind == "unit" else w)
        self.rows += rows
        self._changed()

    @precondition(lambda self: self.width == len(POOL))
    @rule(data=st.data())
    def add_every_level(self, data):
        """One batch holding every label of the pool: past MAX_LEVELS in one change."""
        rows = [(y, self._s(data), self._w(data)) for y in POOL]
        y, s, w = _arrays(rows)
        self.engine.add_many(y, s, None if self.kind == "unit" else w)
        self.rows += rows
        self._changed()

    @precondition(lambda self: self.rows)
    @rule(data=st.data())
    def remove(self, data):
        i = data.draw(st.integers(0, len(self.rows) - 1))
        self.engine.remove(*self.rows.pop(i))

    @precondition(lambda self: self.rows)
    @rule(data=st.data())
    def remove_many(self, data):
        idx = data.draw(st.lists(st.integers(0, len(self.rows) - 1), unique=True,
                                 max_size=10))
        rows = [self.rows[i] for i in idx]
        y, s, w = _arrays(rows)
        self.engine.remove_many(y, s, None if self.kind == "unit" else w)
        for i in sorted(idx, reverse=True):
            del self.rows[i]

    @precondition(lambda self: self.width < len(POOL) and self.LABELS != "binary")
    @rule()
    def widen(self):
        self._widen()

    @rule(k=st.sampled_from(STAGES[:2]), batch=st.booleans())
    def narrow(self, k, batch):
        """Every sample of the labels past the first ``k`` leaves: levels close again."""
        gone = [r for r in self.rows if r[0] not in POOL[:k]]
        self.rows = [r for r in self.rows if r[0] in POOL[:k]]
        if batch:
            y, s, w = _arrays(gone)
            self.engine.remove_many(y, s, None if self.kind == "unit" else w)
        else:
            for r in gone:
                self.engine.remove(*r)
        self.width = k

    @precondition(lambda self: self.LABELS == "binary")
    @rule(data=st.data(), batch=st.booleans())
    def third_label(self, data, batch):
        """With "binary", a third label is refused (zero-weight labels count as held)."""
        held = {r[0] for r in self.rows}
        y = POOL[2]
        if len(held | {y}) <= 2:
            return
        before = (self.engine.counts, len(self.engine))
        with pytest.raises(ValueError, match="at most two labels"):
            if batch:
                self.engine.add_many(np.array([POOL[0], y]), np.array([0.5, 0.5]), None)
            else:
                self.engine.add(y, self._s(data), self._w(data))
        assert (self.engine.counts, len(self.engine)) == before

    @invariant()
    def matches_oracle(self):
        engine = self.engine
        y, s, w = _arrays(self.rows)
        if engine.stale:      # what an owner does when the engine asks (PairEngine.stale)
            engine.rebuild(y, s, w)
        if self.kind in CHECKED:
            engine._check(y, s, w)
        assert len(engine) == len(self.rows)
        assert_counts(engine.counts, self.rows, self.exact)
        assert engine.weighted == (not self.exact)
        self._check_mode(engine)


class EngineModesAuto(EngineModes):
    LABELS = "auto"


class EngineModesOrdinal(EngineModes):
    LABELS = "ordinal"


class EngineModesBinary(EngineModes):
    LABELS = "binary"


class EngineModesContinuous(EngineModes):
    LABELS = "continuous"


TestEngineModesAuto = EngineModesAuto.TestCase
TestEngineModesOrdinal = EngineModesOrdinal.TestCase
TestEngineModesBinary = EngineModesBinary.TestCase
TestEngineModesContinuous = EngineModesContinuous.TestCase


# ---------------------------------------------------------------------- the keyed counter
class CounterModes(_Modes):
    """A `PairCounter` next to a dict of what it holds."""

    @initialize(weights=st.sampled_from(sorted(WEIGHTS)))
    def setup(self, weights):
        self._setup(weights)
        self.counter = PairCounter(labels=self.LABELS)
        self.model: dict = {}
        self.next_key = 0

    def _held(self):
        return list(self.model.values())

    def _keys(self, data, max_size=10):
        return data.draw(st.lists(st.sampled_from(sorted(self.model)), unique=True,
                                  max_size=max_size))

    @rule(data=st.data())
    def insert(self, data):
        self._maybe_widen(data)
        row = (self._y(data), self._s(data), self._w(data))
        self.counter.insert(self.next_key, *row)
        self.model[self.next_key] = row
        self.next_key += 1
        self._changed()

    @rule(data=st.data(), k=st.integers(0, 8), every_level=st.booleans())
    def insert_many(self, data, k, every_level):
        self._maybe_widen(data)
        if every_level and self.width == len(POOL):
            ys = list(POOL)
        else:
            ys = [self._y(data) for _ in range(k)]
        rows = [(y, self._s(data), self._w(data)) for y in ys]
        keys = list(range(self.next_key, self.next_key + len(rows)))
        self.next_key += len(rows)
        self.counter.insert_many(keys, [r[0] for r in rows], [r[1] for r in rows],
                                 None if self.kind == "unit" else [r[2] for r in rows])
        self.model.update(zip(keys, rows))
        self._changed()

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove(self, data):
        key = data.draw(st.sampled_from(sorted(self.model)))
        self.counter.remove(key)
        del self.model[key]

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove_many(self, data):
        keys = self._keys(data)
        self.counter.remove_many(keys)
        for key in keys:
            del self.model[key]

    @precondition(lambda self: self.model)
    @rule(data=st.data(), what=st.sampled_from(["score", "label", "weight", "all"]))
    def update(self, data, what):
        key = data.draw(st.sampled_from(sorted(self.model)))
        y, s, w = self.model[key]
        kw = {}
        if what in ("score", "all"):
            kw["score"] = s = self._s(data)
        if what in ("label", "all"):
            kw["label"] = y = self._y(data)
        if what in ("weight", "all"):
            kw["weight"] = w = self._w(data)
        if self.LABELS == "binary" and len({r[0] for k, r in self.model.items()
                                            if k != key} | {y}) > 2:
            return          # a third label: the atomicity tests cover the refusal
        self.counter.update(key, **kw)
        self.model[key] = (y, s, w)
        self._changed()

    @precondition(lambda self: self.model)
    @rule(data=st.data(), scores=st.booleans(), labels=st.booleans(),
          weights=st.booleans())
    def update_many(self, data, scores, labels, weights):
        keys = self._keys(data)
        rows = [self.model[k] for k in keys]
        new_s = [self._s(data) for _ in keys] if scores else None
        new_y = [self._y(data) for _ in keys] if labels else None
        new_w = [self._w(data) for _ in keys] if weights else None
        new = [(new_y[i] if labels else r[0], new_s[i] if scores else r[1],
                new_w[i] if weights else r[2]) for i, r in enumerate(rows)]
        if self.LABELS == "binary":
            rest = {r[0] for k, r in self.model.items() if k not in set(keys)}
            if len(rest | {r[0] for r in new}) > 2:
                return
        self.counter.update_many(keys, scores=new_s, labels=new_y, weights=new_w)
        self.model.update(zip(keys, new))
        self._changed()

    @precondition(lambda self: self.width < len(POOL) and self.LABELS != "binary")
    @rule()
    def widen(self):
        self._widen()

    @rule(k=st.sampled_from(STAGES[:2]), batch=st.booleans())
    def narrow(self, k, batch):
        gone = [key for key, r in self.model.items() if r[0] not in POOL[:k]]
        if batch:
            self.counter.remove_many(gone)
        else:
            for key in gone:
                self.counter.remove(key)
        for key in gone:
            del self.model[key]
        self.width = k

    @rule(how=st.sampled_from(["pickle", "bytes"]))
    def round_trip(self, how):
        """A restored counter holds the same items; it recounts them, so its counts are
        exact again when every weight held is an exact integer."""
        if how == "pickle":
            self.counter = pickle.loads(pickle.dumps(self.counter))
        else:
            self.counter = PairCounter.from_bytes(self.counter.to_bytes())
        assert self.counter.labels == self.LABELS
        self.exact = exact_weights_only([r[2] for r in self.model.values()])

    @invariant()
    def matches_oracle(self):
        counter = self.counter
        assert len(counter) == len(self.model) and set(counter) == set(self.model)
        if self.kind in CHECKED:
            counter._check()
        assert_counts(counter.counts, list(self.model.values()), self.exact)
        self._check_mode(counter._engine)


class CounterModesAuto(CounterModes):
    LABELS = "auto"


class CounterModesOrdinal(CounterModes):
    LABELS = "ordinal"


class CounterModesBinary(CounterModes):
    LABELS = "binary"


class CounterModesContinuous(CounterModes):
    LABELS = "continuous"


TestCounterModesAuto = CounterModesAuto.TestCase
TestCounterModesOrdinal = CounterModesOrdinal.TestCase
TestCounterModesBinary = CounterModesBinary.TestCase
TestCounterModesContinuous = CounterModesContinuous.TestCase

for _case in (TestEngineModesAuto, TestEngineModesOrdinal, TestEngineModesBinary,
              TestEngineModesContinuous, TestCounterModesAuto, TestCounterModesOrdinal,
              TestCounterModesBinary, TestCounterModesContinuous):
    _case.settings = MACHINE_SETTINGS
del _case


# ---------------------------------------------------------------------- every switch once
@pytest.mark.parametrize("labels", ["auto", "ordinal", "continuous"])
@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_every_mode_switch_in_order(labels, weights, batch):
    """Two levels, a third, more than MAX_LEVELS, then back to two and to one, each step
    checked against the oracle: the engine directly and through a `PairCounter`."""
    rng = np.random.default_rng(len(weights) * 7 + len(labels) + batch)
    choices = WEIGHTS[weights]
    engine, counter, rows = PairEngine(labels), PairCounter(labels=labels), []
    exact = True

    def grow(levels, n):
        nonlocal exact
        new = [(POOL[i % levels], SCORES[int(rng.integers(len(SCORES)))],
                choices[int(rng.integers(len(choices)))]) for i in range(n)]
        keys = list(range(len(rows), len(rows) + n))
        if batch:
            y, s, w = _arrays(new)
            engine.add_many(y, s, None if weights == "unit" else w)
            counter.insert_many(keys, y, s, None if weights == "unit" else w)
        else:
            for key, r in zip(keys, new):
                engine.add(*r)
                counter.insert(key, *r)
        rows.extend(zip(keys, new))
        exact = exact and exact_weights_only([r[2] for _, r in rows])

    def shrink(levels):
        gone = [(k, r) for k, r in rows if r[0] not in POOL[:levels]]
        if batch:
            y, s, w = _arrays([r for _, r in gone])
            engine.remove_many(y, s, None if weights == "unit" else w)
            counter.remove_many([k for k, _ in gone])
        else:
            for k, r in gone:
                engine.remove(*r)
                counter.remove(k)
        rows[:] = [(k, r) for k, r in rows if r[0] in POOL[:levels]]

    def check():
        held = [r for _, r in rows]
        y, s, w = _arrays(held)
        if engine.stale:
            engine.rebuild(y, s, w)
        if weights in CHECKED:
            engine._check(y, s, w)
            counter._check()
        assert_counts(engine.counts, held, exact)
        assert_counts(counter.counts, held, exact)
        assert engine.weighted == (not exact)
        levels = len({r[0] for r in held})
        peak[0] = max(peak[0], levels)
        if labels == "continuous" or (labels == "auto" and levels > MAX_LEVELS):
            assert engine.continuous
        if labels == "ordinal" or (labels == "auto" and peak[0] <= MAX_LEVELS):
            assert not engine.continuous

    peak = [0]

    grow(2, 12)
    check()
    grow(3, 6)
    check()
    grow(len(POOL), 2 * len(POOL))
    check()
    shrink(2)
    check()
    grow(2, 5)
    check()
    shrink(1)
    check()
    for _, r in list(rows):      # and empty again: exact zeros
        engine.remove(*r)
    counter.clear()
    rows.clear()
    check()


# ---------------------------------------------------------------------- pairs_with_many
@pytest.mark.parametrize("labels, held_labels", [
    ("binary", [0.0, 1.0]), ("ordinal", [0.0, 1.0, 2.0, 3.0]),
    ("continuous", [0.0, 0.5, 1.5, 2.5])])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weights"])
def test_pairs_with_many_reads_the_terms_of_each_sample_and_changes_nothing(
        labels, held_labels, weighted):
    rng = np.random.default_rng(11)
    y = rng.choice(held_labels, 40)
    s = rng.integers(0, 6, 40).astype(float)            # heavy ties
    w = rng.integers(1, 4, 40).astype(float) if weighted else None
    e = PairEngine(labels)
    e.add_many(y, s, w)
    # needles on held labels, between them, and above / below every held one
    qy = np.array([0.0, 1.0, 9.0, -1.0, 0.5, 1.0, 9.0])
    qs = np.array([2.0, 2.0, 2.0, 3.0, 0.0, 7.0, -1.0])
    qw = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 1.0, 1.0]) if weighted else None
    before = e.counts, len(e), e.kind
    got = e.pairs_with_many(qy, qs, qw)      # (the per-level sets may fill read caches)
    assert (e.counts, len(e), e.kind) == before
    e._check(y, s, w)
    want = [0] * 5
    for i, (a, b) in enumerate(zip(qy.tolist(), qs.tolist())):
        wi = 1 if qw is None else int(qw[i])
        for j in range(40):
            wj = 1 if w is None else int(w[j])
            if y[j] != a:
                lower, higher = y[j] < a, y[j] > a
                want[0] += wi * wj * ((lower and s[j] < b) or (higher and s[j] > b))
                want[1] += wi * wj * ((lower and s[j] > b) or (higher and s[j] < b))
                want[2] += wi * wj * (s[j] == b)
            else:
                want[3] += wi * wj
                want[4] += wi * wj * (s[j] == b)
    assert list(got) == want and all(isinstance(x, int) for x in got)
    assert e.pairs_with_many(np.zeros(0), np.zeros(0)) == (0, 0, 0, 0, 0)


def test_pairs_with_many_needs_integer_weights_while_counts_are_exact():
    e = PairEngine()
    e.add(0, 0.5)
    with pytest.raises(ValueError, match="'w' parameter of PairEngine.pairs_with_many"):
        e.pairs_with_many(np.array([1.0]), np.array([1.0]), np.array([0.5]))


@pytest.mark.parametrize("labels", ["auto", "binary", "continuous"])
def test_removing_a_fractional_weight_from_exact_counts_names_w_and_changes_nothing(labels):
    e = PairEngine(labels)
    e.add(0.0, 0.5)
    e.add(1.0, -1.0, 0)          # a zero-weight copy: the only copy at (1, -1)
    before = e.counts
    with pytest.raises(ValueError, match="'w' parameter of PairEngine.remove"):
        e.remove(1.0, -1.0, 0.75)
    assert e.counts == before and len(e) == 2 and not e.weighted
    e._check([0.0, 1.0], [0.5, -1.0], [1, 0])
