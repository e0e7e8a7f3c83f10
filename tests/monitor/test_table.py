"""The report table: one table for every shape of monitor, whose rows are the models'
reports and whose lines are what the command prints."""

import math
import random

import pytest

from streamrank.monitor import (Monitor, PairedMonitor, ReportTable, SegmentedMonitor,
                                table_of)
from streamrank.monitor.metrics import live_table
from streamrank.monitor.table import CELL, PAIR, line_columns, shape_of, table_columns

SHAPES = [(False, 1), (False, 2), (True, 1), (True, 2)]


def _make(segmented, models, **kw):
    kw = dict(window=40, min_window=4, **kw)
    if segmented:
        if models == 2:
            return SegmentedMonitor(max_segments=3, factory=lambda: PairedMonitor(**kw))
        return SegmentedMonitor(max_segments=3, **kw)
    return PairedMonitor(**kw) if models == 2 else Monitor(**kw)


def _feed(mon, segmented, models, n, seed):
    """Heavy ties (scores on a grid of 5), late labels, a few labels before their
    prediction, five segment values (two pooled)."""
    rng = random.Random(seed)
    seg = {}
    for i in range(seed * 1000, seed * 1000 + n):    # new ids for each seed
        e = {"score": rng.randrange(5) / 4}
        if models == 2:
            e["challenger"] = rng.randrange(5) / 4
        if segmented:
            e["segment"] = seg.setdefault(i, rng.choice("abcde"))
        if rng.random() < 0.7:
            e["label"] = float(rng.random() < 0.3 + 0.1 * e["score"])
        mon.observe(i, **e)
        if "label" not in e and rng.random() < 0.5:
            late = {"label": 1.0}
            if segmented:
                late["segment"] = e["segment"]
            mon.observe(i, **late)


def _same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


@pytest.mark.parametrize("segmented, models", SHAPES)
def test_the_cells_are_the_models_reports(segmented, models):
    mon = _make(segmented, models)
    assert shape_of(mon) == (segmented, models)
    for seed in range(3):
        _feed(mon, segmented, models, 150, seed)
        r = mon.report()
        t = table_of(r)
        assert isinstance(t, ReportTable) and (t.segmented, t.models) == (segmented, models)
        assert (t.events, t.time) == (r.events, r.time)
        units = list(zip(r.segments, r.reports)) if segmented else [(None, r)]
        assert len(t.cells) == models * len(units)
        assert len(t.pairs) == (len(units) if models == 2 else 0)
        for i, (seg, unit) in enumerate(units):
            reports = (unit.champion, unit.challenger) if models == 2 else (unit,)
            for model, rep in enumerate(reports):
                cell = t.cells[i * models + model]
                assert (cell["segment"], cell["model"], cell["total"]) == (seg, model, False)
                want = rep.as_dict()
                if segmented and model == 0:    # the family's correction
                    assert cell["segment_alert"] == want["alert"]
                    assert cell["p_adjusted"] == r.p_adjusted[i] or \
                        math.isnan(r.p_adjusted[i])
                    want["alert"] = r.alerts[i]
                for c in CELL:
                    if c.name in want:
                        assert _same(cell[c.name], want[c.name]), c.name
            if models == 2:
                pair = t.pairs[i]
                assert _same(pair["diff"], unit.difference)
                assert pair["paired_n"] == unit.n
                assert _same(pair["paired_p_value"], unit.p_value)
                if segmented:
                    assert pair["segment_challenger_alert"] == unit.paired_alert
                    assert pair["challenger_alert"] == r.paired_alerts[i]
        if segmented:
            total = t.totals[0]
            assert total["total"] and total["metric"] == "gauc"
            assert _same(total["auc"], r.gauc)
            assert total["n"] == sum(c["n"] for c in t.cells if c["model"] == 0)
            assert total["alert"] == any(r.alerts)


@pytest.mark.parametrize("segmented, models", SHAPES)
def test_a_line_is_one_segments_rows_side_by_side(segmented, models):
    mon = _make(segmented, models)
    _feed(mon, segmented, models, 200, 7)
    t = table_of(mon.report())
    lines = t.lines()
    names = line_columns(models, segmented)
    assert len(set(names)) == len(names)
    assert all(tuple(line) == names for line in lines)
    assert len(lines) == (len(t.pairs) if models == 2 else len(t.cells)) + segmented
    for line, cell in zip(lines, [c for c in t.cells if c["model"] == 0]):
        assert all(_same(line[c.name], cell[c.name]) for c in CELL
                   if segmented or not c.segments)
    if models == 2:
        for line, cell in zip(lines, [c for c in t.cells if c["model"] == 1]):
            assert all(_same(line[c.challenger], cell[c.name]) for c in CELL if c.challenger)
        for line, pair in zip(lines, t.pairs):
            assert all(_same(line[c.name], pair[c.name]) for c in PAIR
                       if segmented or not c.segments)
    if segmented:
        assert lines[-1]["segment"] is None and lines[-1]["metric"] == "gauc"
    # the table of --format table: a subset of the line, in its order
    shown = [name for name, _ in table_columns(models, segmented)]
    assert shown == [n for n in names if n in shown]


@pytest.mark.parametrize("segmented, models", SHAPES)
def test_the_live_table_reads_every_cell_now(segmented, models):
    mon = _make(segmented, models, label_wait=3)
    _feed(mon, segmented, models, 60, 3)
    t, stream = live_table(mon)         # before any report: zeros and nans
    assert all(c["n"] == 0 and math.isnan(c["auc"]) for c in t.cells)
    mon.report()
    _feed(mon, segmented, models, 30, 4)
    t, stream = live_table(mon)
    held = mon.segments if segmented else (None,)
    assert [c["segment"] for c in t.cells] == [s for s in held for _ in range(models)]
    last = table_of(mon.history[-1])
    made = {(c["segment"], c["model"]): c for c in last.cells}
    for c in t.cells:
        unit = mon.unit(c["segment"]) if segmented else mon
        model = (unit.champion, unit.challenger)[c["model"]] if models == 2 else unit
        assert c["stats"] == model.stats and c["waiting"] == model.waiting
        if (c["segment"], c["model"]) in made:      # the latest report's readings
            assert _same(c["auc"], made[c["segment"], c["model"]]["auc"])
    assert stream["events"] == mon.stats["events"]
    if segmented:
        assert stream["segments_held"] == len(held)
        assert stream["waiting"] == mon.waiting_unrouted


def test_every_report_field_of_a_cell_is_a_column():
    """The report's fields reach the output through the one list: each `Report.as_dict`
    key but the head is a cell column."""
    m = Monitor(window=8, min_window=2)
    for i, (s, y) in enumerate([(0.9, 1), (0.2, 0), (0.6, 1), (0.4, 0)]):
        m.observe(i, score=s, label=y)
    keys = set(m.report().as_dict()) - {"events", "time"}
    assert keys == {c.name for c in CELL if not c.segments}


def test_a_report_before_any_segment_keeps_the_monitors_shape():
    """Labels only, no prediction yet: the report holds no segment, and its table is
    still one of two models (a line has the challenger's and the pair's columns)."""
    mon = _make(True, 2)
    for i in range(5):
        mon.observe(f"u{i}", label=1.0)
    r = mon.report()
    t = table_of(r, mon.models)
    assert (t.models, t.cells, t.pairs) == (2, (), ())
    total, = t.lines()
    assert tuple(total) == line_columns(2, True) and total["unmatched"] == 5
    assert live_table(mon)[0].models == 2 and shape_of(mon) == (True, 2)
