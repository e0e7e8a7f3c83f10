"""A window's calibration estimates follow every change: `RowWindow(every_row=True)` and
`sync(..., estimates=...)` against scikit-learn on the rows duplicated with weights.

Each prediction ``(s, w)`` of the window (labeled or pending, for the estimate of every
row; labeled, for the labeled one) counts as a positive of weight ``w s`` and a negative
of weight ``w (1 - s)`` at its score; the estimate is the AUC of those rows, which equals
`sklearn.metrics.roc_auc_score` of the rows duplicated with those weights. A hypothesis
state machine drives new predictions (with or without a label), late labels, re-scores,
re-weights and evictions, syncs at random moments, and after each sync checks both
estimates (and the window's invariants, `_check`), and the score drift's bins fed from
the same log (`ScoreBins`) against a recount of every row's score.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sklearn.metrics import roc_auc_score

from streamrank.engine import PairEngine
from streamrank.structures._cpairwindow import estimate_rows, sync
from streamrank.structures._cscorebins import ScoreBins
from streamrank.structures._cwindow import RowWindow

pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")

PROBS = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]) | st.floats(0, 1)
WEIGHTS = st.sampled_from([1.0, 1.0, 2.0, 0.5, 3.0])
NAN = math.nan


def expected_auc(rows) -> float:
    """scikit-learn's AUC of predictions ``(s, w)`` duplicated with their weights (a row
    of weight below 2**-400, which no engine holds, left out as the estimate leaves it)."""
    if not rows:
        return NAN
    s = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    y2, s2, w2 = np.r_[np.ones(s.size), np.zeros(s.size)], np.r_[s, s], np.r_[w * s,
                                                                              w * (1 - s)]
    keep = w2 >= 2.0 ** -400
    if len(set(y2[keep])) < 2:
        return NAN
    return float(roc_auc_score(y2[keep], s2[keep], sample_weight=w2[keep]))


def auc_of(engine) -> float:
    return engine.auc_or(NAN)


class WindowEstimates(RuleBasedStateMachine):
    """An oracle of plain dicts: key -> [label (NaN: pending), score, weight]."""

    @initialize(limit=st.sampled_from([3, 64]))
    def start(self, limit):
        self.win = RowWindow(limit, tally=True, every_row=True)
        self.engine = PairEngine()
        self.every, self.labeled = PairEngine(), PairEngine()
        self.bins = ScoreBins(np.array([0.0, 0.25, 0.5, 1.0]))
        self.held: dict = {}            # key -> [y, s, w], oldest first
        self.next_key = 0

    def _sync(self):
        sync(self.win, self.engine, "test", True, (self.every, self.labeled, self.bins))

    @rule(s=PROBS, w=WEIGHTS, labeled=st.booleans(), y=st.sampled_from([0.0, 1.0]))
    def predict(self, s, w, labeled, y):
        key = self.next_key
        self.next_key += 1
        y = y if labeled else NAN
        if self.win.push(NAN, y, s, w, key):
            self._sync()
        self.held[key] = [y, s, w]

    @rule(data=st.data(), y=st.sampled_from([0.0, 1.0]))
    def label(self, data, y):
        pending = [k for k, r in self.held.items() if r[0] != r[0]]
        if pending:
            key = data.draw(st.sampled_from(pending))
            assert self.win.label_pending(key, y)
            self.held[key][0] = y

    @rule(data=st.data(), s=PROBS, w=WEIGHTS)
    def change(self, data, s, w):
        if self.held:
            key = data.draw(st.sampled_from(list(self.held)))
            row = self.win.store.row_of(key)
            y = self.held[key][0]
            if self.win.change(row, y, s, w):
                self._sync()
            self.held[key] = [y, s, w]

    @rule(k=st.integers(1, 3))
    def evict(self, k):
        for key, *_ in self.win.evict(k, True):
            del self.held[key]

    @rule()
    def read(self):
        self._sync()
        rows = [(s, w) for _, s, w in self.held.values()]
        labeled = [(s, w) for y, s, w in self.held.values() if y == y]
        for engine, oracle in ((self.every, rows), (self.labeled, labeled)):
            got, want = auc_of(engine), expected_auc(oracle)
            assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= 1e-9, (
                got, want)
        self.bins._check([s for s, _ in rows], [w for _, w in rows])

    @rule()
    def round_trip(self):
        self.win = pickle.loads(pickle.dumps(self.win))

    @invariant()
    def consistent(self):
        self.win._check()
        assert [k for k, *_ in self.win.items()] == list(self.held)


TestWindowEstimates = WindowEstimates.TestCase
TestWindowEstimates.settings = settings(max_examples=150, stateful_step_count=40,
                                        deadline=None)


def test_estimate_rows_are_the_duplicated_rows():
    y, s, w = estimate_rows(None, np.array([0.0, 0.3, 1.0]), np.array([1.0, 2.0, 1.0]))
    assert y.tolist() == [1, 1, 0, 0]           # the zero weights are left out
    assert s.tolist() == [0.3, 1.0, 0.0, 0.3]
    assert w.tolist() == [0.6, 1.0, 1.0, 2.0 * (1 - 0.3)]


def test_a_window_without_every_row_logs_no_pending_rows():
    win = RowWindow(every_row=False)
    win.push(NAN, NAN, 0.4, 1.0, "a")
    sync(win, PairEngine(), "test")
    win.change(win.store.row_of("a"), NAN, 0.6, 1.0)
    win.evict(1)
    assert win.waiting == 0 and win.every_row_changes() == ([], [], [])
