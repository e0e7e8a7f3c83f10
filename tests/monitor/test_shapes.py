"""One stream through the four shapes of monitor: a `Monitor` (1 x 1), a `PairedMonitor`
(1 x 2), a `SegmentedMonitor` of monitors (S x 1) and of paired monitors (S x 2).

A hypothesis state machine drives the same random events (new predictions with a champion
and a challenger score, late labels, relabels, re-scores, labels for ids never predicted
or evicted lately) through all four, with checkpoint round trips (`to_bytes` /
`from_bytes`) mid-stream and `observe_many` blocks beside single events, and checks
every cell of each report's table (`streamrank.monitor.table.table_of`) against an
independent oracle of the documented rules: plain lists of rows, one window per segment
(or one in all), the pair counts of a cell from `streamrank.pair_counts` of its labeled
rows, the join's counters (dropped, unmatched, early) by linear scans.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from streamrank import pair_counts
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor.table import table_of

# (one-class windows: their AUC is nan, compared as such)
pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")

W = 4                                   # each window (a segment's window with segments)
KEYS = st.integers(0, 11)
SCORES = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
LABELS = st.sampled_from([0.0, 1.0])


def segment_of(key) -> str:
    """Each id belongs to one segment (a prediction of it always carries that one)."""
    return "ab"[key % 2]


class Oracle:
    """The documented rules of one shape's windows, with lists: rows ``[key, label,
    score, challenger]`` per window (one window, or one per segment), oldest first; the
    keys each window evicted, in order; the ids of unmatched labels (for ``early``)."""

    def __init__(self, segmented: bool):
        self.segmented = segmented
        self.wins: dict = {} if segmented else {None: []}   # (a segment: once routed)
        self.evicted: dict = {}
        self.orphans: dict = {}
        self.events = self.dropped = self.unmatched = self.early = self.lead = 0

    def _unit(self, key):
        return segment_of(key) if self.segmented else None

    def _held(self, key):
        return next((r for r in self.wins.get(self._unit(key), []) if r[0] == key), None)

    def predict(self, key, s, c, y):
        self.events += 1
        row = self._held(key)
        if row is not None:                 # a re-score (and a label, if one is given)
            row[2], row[3] = s, c
            if y is not None:
                row[1] = y
            return
        if key in self.orphans:             # its label came first
            self.early += 1
            self.lead = max(self.lead, self.events - self.orphans.pop(key))
        rows = self.wins.setdefault(self._unit(key), [])
        rows.append([key, y, s, c])
        if len(rows) > W:
            self.evicted.setdefault(self._unit(key), []).append(rows.pop(0)[0])

    def label(self, key, y):
        self.events += 1
        row = self._held(key)
        if row is not None:                 # late, or a relabel
            row[1] = y
        elif key in self.evicted.get(self._unit(key), [])[-W:]:
            self.dropped += 1
        else:
            self.unmatched += 1
            self.orphans.setdefault(key, self.events)

    def cells(self, models):
        """(segment, model) -> (labeled labels, their scores, pending)."""
        out = {}
        for unit, rows in self.wins.items():
            lab = [r for r in rows if r[1] is not None]
            for model in range(models):
                out[unit, model] = ([r[1] for r in lab], [r[2 + model] for r in lab],
                                    len(rows) - len(lab))
        return out


SHAPES = {
    "1x1": (lambda: Monitor(window=W, min_window=2), False, 1),
    "1x2": (lambda: PairedMonitor(window=W, min_window=2), False, 2),
    "Sx1": (lambda: SegmentedMonitor(max_segments=2, window=W, min_window=2), True, 1),
    "Sx2": (lambda: SegmentedMonitor(max_segments=2, factory=lambda: PairedMonitor(
        window=W, min_window=2)), True, 2),
}


def _event_kw(name, key, s, c, y):
    kw = {"score": s} if s is not None else {}
    if y is not None:
        kw["label"] = y
    if s is not None and SHAPES[name][2] == 2:
        kw["challenger"] = c
    if s is not None and SHAPES[name][1]:
        kw["segment"] = segment_of(key)
    return kw


class Shapes(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.mons = {name: make() for name, (make, _, _) in SHAPES.items()}
        self.oracles = {False: Oracle(False), True: Oracle(True)}

    def _all(self, key, s, c, y):
        for name, mon in self.mons.items():
            mon.observe(key, **_event_kw(name, key, s, c, y))

    @rule(key=KEYS, s=SCORES, c=SCORES, y=st.one_of(st.none(), LABELS))
    def predict(self, key, s, c, y):
        self._all(key, s, c, y)
        for o in self.oracles.values():
            o.predict(key, s, c, y)

    @rule(key=KEYS, y=LABELS)
    def label(self, key, y):
        self._all(key, None, None, y)
        for o in self.oracles.values():
            o.label(key, y)

    @rule(events=st.lists(st.tuples(KEYS, st.one_of(st.none(), SCORES), SCORES,
                                    st.one_of(st.none(), LABELS)), min_size=1,
                          max_size=8))
    def block(self, events):
        """The same events as one `observe_many` block (float columns, NaN: missing)."""
        events = [(k, s, c, y if s is not None or y is not None else 1.0)
                  for k, s, c, y in events]
        keys = [k for k, _, _, _ in events]

        def col(values):
            return np.array([math.nan if v is None else v for v in values])

        for name, mon in self.mons.items():
            _, segmented, models = SHAPES[name]
            cols = {"score": col([s for _, s, _, _ in events]),
                    "label": col([y for _, _, _, y in events])}
            if models == 2:
                cols["challenger"] = col([c if s is not None else None
                                          for _, s, c, _ in events])
            if segmented:
                cols["segment"] = [segment_of(k) if s is not None else None
                                   for k, s, _, _ in events]
            mon.observe_many(keys, **cols)
        for k, s, c, y in events:
            for o in self.oracles.values():
                if s is None:
                    o.label(k, y)
                else:
                    o.predict(k, s, c, y)

    @rule()
    def checkpoint(self):
        """A checkpoint round trip mid-stream: the restored monitor is the same."""
        for name, mon in self.mons.items():
            data = mon.to_bytes()
            back = type(mon).from_bytes(data)
            assert back.to_bytes() == data, name
            self.mons[name] = back

    @invariant()
    def every_cell_equals_the_oracle(self):
        for name, mon in self.mons.items():
            _, segmented, models = SHAPES[name]
            mon._check()
            oracle = self.oracles[segmented]
            want = oracle.cells(models)
            table = table_of(mon.report())
            got = {(r["segment"] if segmented else None, r["model"]): r
                   for r in table.cells if not r["total"]}
            assert set(got) == set(want), name
            for cell, (y, s, pending) in want.items():
                row = got[cell]
                assert (row["n"], row["pending"]) == (len(y), pending), (name, cell)
                c = pair_counts(y, s) if y else None
                if c is None:
                    assert math.isnan(row["auc"])
                    continue
                assert (row["concordant"], row["discordant"], row["tied_score"]) == (
                    c.concordant, c.discordant, c.tied_score), (name, cell)
                assert row["auc"] == c.auc or math.isnan(row["auc"]) and math.isnan(c.auc)
            st_ = mon.stats
            assert (st_["dropped"], st_["unmatched"], st_["early"], st_["early_lead"]) == (
                oracle.dropped, oracle.unmatched, oracle.early, oracle.lead), name


Shapes.TestCase.settings = settings(max_examples=50, stateful_step_count=40,
                                    deadline=None)
TestShapes = Shapes.TestCase
