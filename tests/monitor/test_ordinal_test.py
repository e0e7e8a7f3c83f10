"""The `Monitor` test of non-binary labels: the concordance of the window against the
reference's, with the U-statistic variance on both sides.

Every report of a stream with late labels, integer weights and a drop is checked
against the formula computed from scratch on the window's and the reference's rows
(rebuilt here from the stream, not read from the monitor): the concordance and its
variance from every pair of rows and the z-test written out (`variance_oracle`); then the mixed case (a
binary reference, a third label in the window), snapshots (a round trip; a snapshot
written before the test existed, ``tests/data/snapshots/monitor_ordinal_v2.npz``, is
refused with the version error).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from streamrank.intervals import logit_interval
from streamrank.exceptions import SnapshotError
from streamrank.monitor import Monitor

import variance_oracle as vo
from paths import DATA

DELAY, WINDOW, REFERENCE, EVERY = 3, 80, 60, 7


def ordinal_stream(n=420, seed=9):
    """Labels 0..4; scores that follow them, then (from row 300) mostly noise; weights
    1..3."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, n).astype(float)
    noise = np.where(np.arange(n) < 300, 1.0, 6.0)
    s = np.round(y + rng.normal(0, 1, n) * noise, 1)
    w = rng.integers(1, 4, n)
    return y, s, w


def expected(y, s, w, i, mon):
    """``(z, p, se, reference_se, low, high, alert)`` after event ``i``, from scratch: the
    window holds rows ``i-79..i``, labeled up to ``i - DELAY``; the reference is the first
    ``REFERENCE`` labeled rows."""
    lo, hi = max(0, i - WINDOW + 1), i - DELAY + 1
    nan = math.nan
    if hi - lo < 2:
        return (nan,) * 6 + (False,)
    c, var = vo.concordance_variance(y[lo:hi], s[lo:hi], w[lo:hi])
    low, high = logit_interval(c, math.sqrt(var), mon.level)
    if hi < REFERENCE:                               # not frozen yet
        return nan, nan, nan, nan, low, high, False
    ref_c, ref_var = vo.concordance_variance(y[:REFERENCE], s[:REFERENCE], w[:REFERENCE])
    if hi - lo < mon.min_window:
        return nan, nan, nan, math.sqrt(ref_var), low, high, False
    se, z, p = vo.drop_test(c, var, ref_c, ref_var)
    return z, p, se, math.sqrt(ref_var), low, high, p < mon.alpha


def feed(mon, y, s, w, start, stop, check=True):
    for i in range(start, stop):
        mon.observe(i, score=s[i], weight=int(w[i]))
        if i >= DELAY:
            mon.observe(i - DELAY, label=y[i - DELAY])
        if i % EVERY == EVERY - 1:
            r = mon.report()
            if check:
                got = (r.z, r.p_value, r.se, r.reference_se, r.low, r.high, r.alert)
                want = expected(y, s, w, i, mon)
                assert r.metric == "concordance"
                assert got == pytest.approx(want, rel=1e-9, nan_ok=True), i


def test_every_report_equals_the_formula_from_scratch():
    y, s, w = ordinal_stream()
    m = Monitor(window=WINDOW, reference=REFERENCE, min_window=20, alpha=0.01)
    feed(m, y, s, w, 0, y.size)
    m._check()
    tested = [r for r in m.history if r.p_value == r.p_value]
    assert len(tested) > 40
    rows = range(EVERY - 1, y.size, EVERY)          # the row of each report
    assert not any(r.alert for i, r in zip(rows, m.history) if i < 300)  # before the drop
    assert all(r.alert for i, r in zip(rows, m.history) if i >= 300 + WINDOW)  # after
    assert m.stats["alerts"] == sum(r.alert or r.drift for r in m.history)


def test_binary_reference_and_a_third_label_in_the_window():
    """A binary reference (its concordance is its AUC): once the window holds a third
    label, the concordance test runs with the U-statistic variance on both sides."""
    rng = np.random.default_rng(1)
    m = Monitor(window=50, min_window=10)
    y = np.r_[rng.integers(0, 2, 80), rng.integers(0, 3, 60)].astype(float)
    s = np.round(y + rng.normal(0, 1, y.size), 1)
    for i in range(y.size):
        m.observe(i, score=s[i], label=y[i])
    r = m.report()
    assert r.metric == "concordance" and m._ref.labels == [0.0, 1.0]
    ref = vo.concordance_variance(y[:50], s[:50])
    se, z, p = vo.drop_test(*vo.concordance_variance(y[-50:], s[-50:]), *ref)
    assert (r.z, r.p_value, r.reference_se, r.se) == pytest.approx(
        (z, p, math.sqrt(ref[1]), se), rel=1e-9)


def test_snapshot_round_trip_keeps_the_test():
    y, s, w = ordinal_stream(seed=4)
    a = Monitor(window=WINDOW, reference=REFERENCE, min_window=20)
    feed(a, y, s, w, 0, 200)
    b = Monitor.from_bytes(a.to_bytes())
    assert b._ref.conc_var == a._ref.conc_var
    feed(a, y, s, w, 200, 300)
    feed(b, y, s, w, 200, 300)
    assert _same(a.history, b.history)
    assert sum(r.p_value == r.p_value for r in b.history) > 20


def _same(ha, hb):
    def norm(d):
        return {k: ("nan" if isinstance(v, float) and v != v else v) for k, v in d.items()}
    return [norm(r.as_dict()) for r in ha] == [norm(r.as_dict()) for r in hb]


def old_ordinal_monitor() -> Monitor:
    """The monitor whose snapshot ``monitor_ordinal_v2.npz`` was written by ``to_bytes``
    (format version 2) before non-binary labels had a test: ``feed`` up to row 250."""
    y, s, w = ordinal_stream(seed=6)
    m = Monitor(window=WINDOW, reference=REFERENCE, min_window=20)
    feed(m, y, s, w, 0, 250, check=False)
    return m


def test_a_snapshot_from_before_the_test_is_refused():
    """``monitor_ordinal_v2.npz`` (version 2, a development format) is refused with the
    version error; the monitor it held, snapshotted now, reloads and tests."""
    with pytest.raises(SnapshotError, match="snapshot version 2 not supported"):
        Monitor.from_bytes((DATA / "snapshots" / "monitor_ordinal_v2.npz").read_bytes())
    now = old_ordinal_monitor()
    back = Monitor.from_bytes(now.to_bytes())
    assert list(back.items()) == list(now.items())
    assert back._ref.conc_var == now._ref.conc_var    # the reference's variance, rebuilt
    y, s, w = ordinal_stream(seed=6)
    feed(back, y, s, w, 250, 320)                     # its reports test
    assert any(r.p_value == r.p_value for r in back.history)


def test_reference_levels_tell_the_reference_metric():
    """`Monitor.reference_levels`: None until the reference freezes, then its label
    values (the summary's "AUC" up to two, "concordance" beyond)."""
    y, s, w = ordinal_stream(seed=6)
    m = Monitor(window=WINDOW, reference=REFERENCE, min_window=20)
    assert m.reference_levels is None
    feed(m, y, s, w, 0, 250, check=False)
    assert m.reference_frozen and m.reference_levels == len(set(m._ref.labels)) > 2
    binary = Monitor(window=4, reference=2, min_window=2)
    for i, (label, score) in enumerate([(0, 0.2), (1, 0.7), (0, 0.4)]):
        binary.observe(i, score=score, label=label)
    assert binary.reference_levels == 2
    from streamrank.monitor import PairedMonitor

    pair = PairedMonitor(window=4, reference=2, min_window=2)
    assert pair.reference_levels is None
    for i, (label, score) in enumerate([(0, 0.2), (1, 0.7), (0, 0.4)]):
        pair.observe(i, score=score, challenger=1 - score, label=label)
    assert pair.reference_levels == pair.champion.reference_levels == 2
