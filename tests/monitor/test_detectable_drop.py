"""`Report.detectable_drop`: the smallest drop of the window's AUC below the reference's
that the monitor's test detects at its ``alpha`` with power 0.8.

The formula solves the power equation (checked in closed form), and a simulation holds
it to what it says: windows of binormal scores whose AUC is the reference's minus the
reported drop alert in 0.75 to 0.85 of 500 seeded runs.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from streamrank.intervals import hanley_mcneil_variance as hm
from streamrank.monitor import Monitor
from streamrank.monitor.drift import detectable_drop

N = NormalDist()


def test_the_drop_solves_the_power_equation():
    for ref, n1, n0, alpha in [(0.8, 150, 350, 0.01), (0.65, 40, 60, 0.05),
                               (0.95, 500, 4500, 0.001)]:
        vref = hm(ref, n1, n0)
        d = detectable_drop(ref, vref, ref, hm(ref, n1, n0), n1, n0, alpha)
        sd = math.sqrt(hm(ref - d, n1, n0) + vref)    # the test's standard error there
        power = N.cdf((d - N.inv_cdf(1 - alpha) * sd) / sd)
        assert power == pytest.approx(0.8, abs=1e-9)
    assert math.isnan(detectable_drop(0.8, 0.001, math.nan, 0.001, 10, 10, 0.01))


def binormal(rng, n, auc, positives=0.3):
    """Labels and scores whose AUC is ``auc`` in expectation (unit-variance normals)."""
    y = (rng.random(n) < positives).astype(float)
    return y, rng.normal(math.sqrt(2) * N.inv_cdf(auc) * y, 1.0)


def run(seed, W, ref_auc, auc, alpha):
    rng = np.random.default_rng(seed)
    y0, s0 = binormal(rng, W, ref_auc)
    y1, s1 = binormal(rng, W, auc)
    m = Monitor(window=W, alpha=alpha)
    m.observe_many(list(range(2 * W)), score=np.r_[s0, s1], label=np.r_[y0, y1])
    return m.report()


def test_a_drop_of_the_reported_size_is_detected_with_power_0_8():
    W, A, alpha = 500, 0.8, 0.01
    drops = [run(s, W, A, A, alpha).detectable_drop for s in range(20)]
    d = float(np.median(drops))                     # what the monitor reports, no drop
    assert 0.05 < d < 0.2 and all(x == x for x in drops)
    hits = sum(run(1000 + s, W, A, A - d, alpha).alert for s in range(500))
    assert 0.75 <= hits / 500 <= 0.85, hits / 500


def test_no_test_no_drop():
    m = Monitor(window=10, min_window=5)
    for i in range(4):
        m.observe(i, score=i / 4, label=i % 2)
    assert math.isnan(m.report().detectable_drop)


def test_labels_to_detect_is_the_fewest_labels_that_bring_the_drop_within_reach():
    from streamrank.monitor.drift import labels_to_detect

    v, r = hm(0.8, 150, 350), hm(0.8, 1500, 3500)
    need = labels_to_detect(0.05, 0.8, r, 0.8, v, 150, 350, 0.01)

    def drop_with(extra):
        k = (500 + extra) / 500
        return detectable_drop(0.8, r, 0.8, hm(0.8, 150 * k, 350 * k), 150 * k, 350 * k,
                               0.01)

    assert isinstance(need, int) and drop_with(need) <= 0.05 < drop_with(need - 1)
    assert labels_to_detect(0.2, 0.8, r, 0.8, v, 150, 350, 0.01) == 0
    assert labels_to_detect(0.001, 0.8, r, 0.8, v, 150, 350, 0.01) == math.inf
    assert math.isnan(labels_to_detect(0.05, 0.8, r, math.nan, v, 150, 350, 0.01))


def test_a_monitor_asked_for_a_drop_reports_the_labels_it_needs():
    from streamrank.monitor.drift import labels_to_detect

    r0 = run(3, 500, 0.8, 0.8, 0.01)
    rng = np.random.default_rng(3)
    y0, s0 = binormal(rng, 500, 0.8)
    y1, s1 = binormal(rng, 500, 0.8)
    m = Monitor(window=500, alpha=0.01, detect_drop=0.05)
    m.observe_many(list(range(1000)), score=np.r_[s0, s1], label=np.r_[y0, y1])
    r = m.report()
    assert r.auc == r0.auc and r.detectable_drop == r0.detectable_drop
    w1, w0 = float(y1.sum()), float(500 - y1.sum())
    assert r.labels_to_detect == labels_to_detect(0.05, r.reference_auc,
                                                  r.reference_se ** 2, r.auc,
                                                  r.se ** 2 - r.reference_se ** 2, w1, w0,
                                                  0.01) > 0
    assert math.isnan(r0.labels_to_detect)
    back = Monitor.from_bytes(m.to_bytes())
    assert back.detect_drop == 0.05 and back.history[-1] == r
    with pytest.raises(ValueError, match="detect_drop"):
        Monitor(detect_drop=1.5)
