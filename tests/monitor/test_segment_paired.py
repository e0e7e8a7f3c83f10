"""`SegmentedMonitor` of `PairedMonitor` units (champion against challenger per segment).

The oracle of every report, from the windows' contents: each segment's paired p-value
and difference equal DeLong's paired test written out over the ids labeled in both of
that segment's windows (`test_paired.expected_test`); the corrections are Holm's or
Bonferroni's by the textbook loops (`variance_oracle`) of the champions' drop p-values
and, apart, of the paired p-values; the total's group AUC of each model equals
`streamrank.group_auc_score` of that model's window rows grouped by segment; ``_check``
after every event and the snapshot round trips continue exactly (hypothesis,
derandomized), and the streams compared enough to mean something.
"""

import math
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank import group_auc_score
from streamrank.monitor import PairedMonitor, SegmentedMonitor

import variance_oracle as vo
from test_paired import expected_test

pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")
CORRECTIONS = {"holm": vo.holm, "bonferroni": vo.bonferroni}


def _same(a, b):
    return (a != a and b != b) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _gauc(m, model):
    ys, ss, gs = [], [], []
    for seg in m.segments:
        for _, y, s, _, _ in getattr(m.unit(seg), model).items():
            if y is not None:
                ys.append(y)
                ss.append(s)
                gs.append(str(seg))
    groups = {g for g, y in zip(gs, ys)}
    if len(set(ys)) != 2 or not any(len({y for g2, y in zip(gs, ys) if g2 == g}) == 2
                                    for g in groups):
        return math.nan
    return group_auc_score(ys, ss, gs)


def check(m, r, alert_on, checked):
    """The report ``r`` against the oracles; ``checked`` counts what was compared."""
    for seg, rep in zip(r.segments, r.reports):
        n, t = expected_test(m.unit(seg), alert_on)
        assert rep.n == n
        if t is None:
            assert math.isnan(rep.p_value)
        else:
            assert _same(rep.p_value, t["p_value"]) and _same(rep.difference,
                                                                t["difference"])
            checked["paired"] += 1
    correct = CORRECTIONS[m.correction]
    want = correct([x.champion.p_value for x in r.reports])
    assert len(r.p_adjusted) == len(want)
    assert all(_same(a, b) for a, b in zip(r.p_adjusted, want))
    q = correct([x.p_value for x in r.reports])
    assert len(r.paired_p_adjusted) == len(q)
    assert all(_same(a, b) for a, b in zip(r.paired_p_adjusted, q))
    assert r.paired_alerts == tuple(bool(p < m.alpha) for p in q)
    assert r.alert == (any(r.alerts) or any(r.paired_alerts))
    for model, got in (("champion", r.gauc), ("challenger", r.challenger_gauc)):
        want = _gauc(m, model)
        assert _same(got, want), (model, got, want)
        checked["gauc"] += want == want
    checked["alerts"] += any(r.paired_alerts)
    checked["corrected"] += sum(p == p for p in q) > 1


_SCORES = st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9])
# per prediction: segment, champion score, challenger score, label, how its scores come
# ("both" on one row, "split": the challenger's on a row of its own), the label's delay
_STREAM = st.integers(8, 60).flatmap(lambda n: st.lists(st.tuples(
    st.sampled_from(["fr", "de", "it"]), _SCORES, _SCORES, st.integers(0, 1),
    st.sampled_from(["both", "both", "split"]), st.integers(0, 3), st.booleans()),
    min_size=n, max_size=n))


def _events(stream):
    """The events ``(key, kw)``: predictions in order, each label ``delay`` predictions
    later, with the segment or without it."""
    out, due = [], []
    for i, (seg, a, b, y, how, delay, named) in enumerate(stream):
        if how == "both":
            out.append((i, dict(segment=seg, score=a, challenger=b)))
        else:
            out += [(i, dict(segment=seg, score=a)), (i, dict(challenger=b))]
        due.append([delay, i, dict(label=y, **({"segment": seg} if named else {}))])
        for d in due:
            if d[0] == 0:
                out.append((d[1], d[2]))
            d[0] -= 1
        due = [d for d in due if d[0] >= 0]
    return out + [(d[1], d[2]) for d in due]


def test_every_report_matches_delong_and_group_auc():
    """Every report of 60 streams against the oracles; then that they compared enough
    (paired tests, group AUCs, alerts, corrections of two or more tests) to mean
    something."""
    checked = Counter()

    @settings(derandomize=True, max_examples=60, deadline=None)
    @given(_STREAM, st.integers(1, 3), st.sampled_from(["worse", "better", "both"]),
           st.sampled_from(["holm", "bonferroni"]), st.integers(4, 12))
    def run(stream, max_segments, alert_on, correction, window):
        m = SegmentedMonitor(max_segments=max_segments, correction=correction,
                             factory=lambda: PairedMonitor(window=window, min_window=3,
                                                           alert_on=alert_on, alpha=0.2))
        events = _events(stream)
        for j, (key, kw) in enumerate(events, 1):
            m.observe(key, **kw)
            m._check()
            if j % 5 == 0 or j == len(events):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    check(m, m.report(), alert_on, checked)
            if j == len(events) // 2:
                back = SegmentedMonitor.from_bytes(m.to_bytes())
                back._check()
                assert repr(back.history) == repr(m.history) and back.stats == m.stats
                m = back

    run()
    assert (checked["paired"] > 100 and checked["gauc"] > 100 and checked["alerts"] > 5
            and checked["corrected"] > 20), checked


def test_paired_units_by_hand():
    m = SegmentedMonitor(factory=lambda: PairedMonitor(window=10, min_window=2,
                                                       alert_on="worse"))
    rows = [("a", "fr", 0.9, 0.2, 1), ("b", "fr", 0.1, 0.8, 0), ("c", "fr", 0.8, 0.3, 1),
            ("d", "fr", 0.2, 0.7, 0), ("e", "de", 0.6, 0.6, 1), ("f", "de", 0.4, 0.4, 0)]
    for key, seg, a, b, _ in rows:
        m.observe(key, segment=seg, score=a)
        m.observe(key, challenger=b)        # the challenger's score on its own row
    for key, *_, y in rows:
        m.observe(key, label=y)             # the labels, without the segment
    r = m.report()
    assert (r["fr"].champion.auc, r["fr"].challenger.auc, r["fr"].difference) == (1.0, 0.0,
                                                                                 -1.0)
    assert (r["de"].champion.auc, r["de"].challenger.auc) == (1.0, 1.0)
    assert r.gauc == 1.0 and r.challenger_gauc == (4 * 0.0 + 2 * 1.0) / 6
    d = m.metrics()
    assert d["challenger_window_gauc"] == r.challenger_gauc
    assert d["segments"]["fr"]["paired_p_adjusted"] == r.paired_p_adjusted[0]
    total = r.rows()[-1]
    assert (total["auc"], total["challenger_auc"], total["paired_n"]) == (1.0, 2 / 6, 6)
    assert m.totals()["predictions"] == 6
    with pytest.raises(TypeError):          # a Monitor unit takes no challenger score
        SegmentedMonitor(window=4).observe("x", segment="fr", score=0.1, challenger=0.2)


def test_paired_units_with_a_label_wait():
    """A label without a segment, before its prediction, reaches both models of the
    prediction's segment; a label for an id that either model evicted lately is a late
    drop."""
    m = SegmentedMonitor(factory=lambda: PairedMonitor(window=2, min_window=2,
                                                       label_wait=3))
    m.observe("x", label=1)
    m.observe("x", segment="fr", score=0.9, challenger=0.4)
    unit = m.unit("fr")
    assert m.stats["joined"] == 1 and unit.champion.n == unit.challenger.n == 1
    m.observe("y", segment="fr", score=0.2, challenger=0.6, label=0)
    m.observe("z", segment="fr", score=0.5, challenger=0.5)     # "x" leaves both
    m.observe("x", label=0)
    assert (m.stats["dropped"], m.stats["unmatched"], m.waiting) == (1, 0, 0)
    m._check()
    back = SegmentedMonitor.from_bytes(m.to_bytes())
    back._check()
    assert back.totals() == m.totals()
