"""Deterministic objects whose version-1 snapshots are committed under
``tests/data/snapshots/`` (tests only).

The ``*_v1.npz`` files were written by ``to_bytes`` of snapshot format version 1, before
the key layout changed: `tests/incremental/test_snapshot.py` checks that they (earlier
development formats) are refused with the version error, and that the objects these
functions build now round-trip in the current version. Never rewrite those files
with a newer ``to_bytes``: their point is to be old.
"""

from __future__ import annotations

import numpy as np

from streamrank import PairCounter
from streamrank.monitor import Monitor

__all__ = ["FIXTURES", "counter_int_keys", "counter_str_keys", "monitor_count_window",
           "monitor_period_window"]


def counter_str_keys() -> PairCounter:
    """Binary labels, string keys, weights, then removals and updates."""
    rng = np.random.default_rng(20240601)
    pc = PairCounter()
    n = 40
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)           # rounded: ties in score
    w = rng.choice([1.0, 1.0, 2.0, 0.5], n)
    pc.insert_many([f"item-{i}" for i in range(n)], y, s, w)
    for i in range(0, n, 7):
        pc.remove(f"item-{i}")
    for i in range(2, n, 9):
        pc.update(f"item-{i}", score=0.5)
    pc.insert("é-ключ-🙂", 1, 0.25)           # non-ASCII and non-BMP characters
    return pc


def counter_int_keys() -> PairCounter:
    """Ordinal labels, int keys (negative and large), unit weights."""
    rng = np.random.default_rng(7)
    pc = PairCounter(labels="ordinal")
    keys = [-5, 0, 2**62, -(2**62)] + list(range(100, 130))
    y = rng.integers(0, 4, len(keys))
    s = rng.integers(0, 10, len(keys)).astype(float)
    pc.insert_many(keys, y, s)
    pc.remove(101)
    pc.update(102, label=3, score=9.5)
    return pc


def monitor_count_window() -> Monitor:
    """A count window with ADWIN, pending predictions, late labels, a frozen reference,
    reports, alerts and a trimmed history."""
    rng = np.random.default_rng(11)
    m = Monitor(window=60, detector="adwin", min_window=10, max_history=25)
    for i in range(300):
        y = int(rng.random() < 0.4)
        s = float(rng.normal(y * (1.0 if i < 200 else 0.0), 1.0))
        if i % 4 == 0:
            m.observe(f"p{i}", score=s)                     # pending, labeled later
        else:
            m.observe(f"p{i}", score=s, label=y, weight=1 + (i % 3 == 0))
        if i % 4 == 0 and i >= 8:
            m.observe(f"p{i - 8}", label=int(rng.random() < 0.5))
        if i % 5 == 1:
            m.observe(f"p{i - 1}", score=round(s, 1))        # a re-score
        if (i + 1) % 10 == 0:
            m.report()
    return m


def monitor_period_window() -> Monitor:
    """A time window with ``reference=N`` not yet reached: the store is in the snapshot."""
    rng = np.random.default_rng(12)
    m = Monitor(period=20.0, reference=500, test="delong", min_window=5)
    for i in range(120):
        y = int(rng.random() < 0.5)
        m.observe(1000 + i, score=float(rng.random() + 0.3 * y), label=y, time=i * 0.5)
        if i % 15 == 14:
            m.report()
    return m


#: file name -> (builder, class)
FIXTURES = {
    "pair_counter_str_keys_v1.npz": (counter_str_keys, PairCounter),
    "pair_counter_int_keys_v1.npz": (counter_int_keys, PairCounter),
    "monitor_count_window_v1.npz": (monitor_count_window, Monitor),
    "monitor_period_window_v1.npz": (monitor_period_window, Monitor),
}
