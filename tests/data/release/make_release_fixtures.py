"""Write the release fixtures of this folder: what streamrank 0.1.0 stores.

Run once, from the repository root, with the release's code::

    python tests/data/release/make_release_fixtures.py

It writes, beside itself:

* ``samples.json`` -- every sample and operation the fixtures were built from (and the
  ``streamrank monitor`` options), so that the tests recount them from scratch;
* ``events.csv`` -- the input of the ``streamrank monitor`` checkpoint;
* ``pair_counter_int.npz`` / ``pair_counter_float.npz`` -- `PairCounter.to_bytes` with
  integer weights (int keys beyond int64) and with float weights (string keys);
* ``*.pkl`` -- pickles (protocol 4) of a `PairCounter` (keys of mixed types), a
  `SlidingPairCounter`, a `TimeSlidingPairCounter`, every River metric class of
  `streamrank.metrics` (with updates still buffered) and an `EpochTracker`;
* ``monitor.ckpt`` -- the checkpoint of ``streamrank monitor - --checkpoint`` on
  ``events.csv`` read from standard input.

`tests/api/test_release_fixtures.py` loads the files of a format that is still supported
and checks them against a fresh recount of ``samples.json``; the pickles of earlier
development formats (the windows', the River metrics', the tracker's) were removed, and
the `PairCounter` one is kept to show it is refused. Never rewrite these files with a
newer streamrank: their point is to be the 0.1.0 bytes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

import streamrank  # noqa: E402
from streamrank import (EpochTracker, PairCounter, SlidingPairCounter,  # noqa: E402
                        TimeSlidingPairCounter)
from streamrank import metrics as sm  # noqa: E402

PROTOCOL = 4

#: file -> the metric it pickles: (class name, constructor keyword arguments)
METRICS = {
    "metric_roc_auc.pkl": ("ROCAUC", {}),
    "metric_rolling_roc_auc.pkl": ("RollingROCAUC", {"window_size": 7}),
    "metric_group_auc.pkl": ("GroupAUC", {"weighting": "pairs"}),
    "metric_kendall_tau.pkl": ("KendallTau", {"variant": "c"}),
    "metric_goodman_kruskal_gamma.pkl": ("GoodmanKruskalGamma", {}),
    "metric_somers_d.pkl": ("SomersD", {}),
    "metric_concordance_index.pkl": ("ConcordanceIndex", {}),
    "metric_concordance_index_censored.pkl": ("ConcordanceIndex", {"censoring": True}),
    "metric_pairwise_accuracy.pkl": ("PairwiseAccuracy", {}),
    "metric_right_wrong_ratio.pkl": ("RightWrongRatio", {}),
}

MONITOR_ARGS = ["--window", "12", "--every", "10", "--min-window", "5", "--weight", "weight",
                "--format", "json"]


def _dump(name, obj) -> None:
    (HERE / name).write_bytes(pickle.dumps(obj, protocol=PROTOCOL))


def _items(pc) -> list:
    return [[k, y, s, w] for k, (y, s, w) in pc.items()]


# --------------------------------------------------------------------------- counters
def counter_int(rng) -> list:
    """Ordinal labels, int keys beyond int64, integer weights (exact counts)."""
    pc = PairCounter()
    keys = [-(2**70), -3, 0, 5, 2**64 + 1] + list(range(100, 118))
    y = rng.integers(0, 4, len(keys))
    s = np.round(rng.random(len(keys)), 1)
    w = rng.integers(0, 4, len(keys))
    w[3] = 2**40
    pc.insert_many(keys, y, s, w)
    pc.remove(101)
    pc.remove_many([102, 0])
    pc.update(103, score=0.5, weight=2)
    pc.update_many([104, 105], labels=[1, 3])
    pc.insert(7, 2, 0.5, 3)
    (HERE / "pair_counter_int.npz").write_bytes(pc.to_bytes())
    return _items(pc)


def counter_float(rng) -> list:
    """Binary labels, string keys (non-ASCII, NUL, empty), float weights."""
    pc = PairCounter(labels="binary")
    keys = ["", "a\x00", "é", "ключ", "\U0001F642"] + [f"item-{i}" for i in range(15)]
    y = rng.integers(0, 2, len(keys))
    s = np.round(rng.random(len(keys)), 1)
    w = rng.choice([0.25, 0.5, 1.0, 1.75, 0.0, 1e-3], len(keys))
    pc.insert_many(keys, y, s, w)
    pc.remove("item-3")
    pc.update("item-4", score=0.35, weight=2.5)
    pc.update_many(["item-5", "é"], scores=[0.1, 0.1])
    pc.insert("late", 1, 0.35, 0.125)
    (HERE / "pair_counter_float.npz").write_bytes(pc.to_bytes())
    return _items(pc)


def counter_pickle(rng) -> list:
    """Continuous labels (past MAX_LEVELS), keys of any type: what only pickle keeps."""
    pc = PairCounter()
    n = 24
    keys = [("user", i) if i % 3 == 0 else (f"k{i}" if i % 3 == 1 else i) for i in range(n)]
    y = np.round(rng.normal(0.0, 2.0, n), 1)
    s = np.round(rng.random(n), 1)
    w = rng.choice([1.0, 2.0, 0.5, 3.0], n)
    pc.insert_many(keys, y, s, w)
    pc.remove(("user", 3))
    pc.update("k4", label=9.5)
    _dump("pair_counter.pkl", pc)
    return [[list(k) if isinstance(k, tuple) else k, yy, ss, ww] for k, yy, ss, ww in _items(pc)]


def sliding(rng) -> dict:
    """Three label levels (per-level multisets), mixed weights; the window is full."""
    spec = {"window_size": 6, "labels": "auto", "events": []}
    win = SlidingPairCounter(spec["window_size"], labels=spec["labels"])
    for _ in range(15):
        event = [int(rng.integers(0, 3)), round(float(rng.random()), 1),
                 [1, 2, 0.5][int(rng.integers(0, 3))]]
        win.push(*event)
        spec["events"].append(event)
    _dump("sliding_pair_counter.pkl", win)
    return spec


def time_sliding(rng) -> dict:
    """Binary labels (the two-level tree), float weights, evictions by time."""
    spec = {"period": 3.0, "labels": "binary", "events": []}
    win = TimeSlidingPairCounter(spec["period"], labels=spec["labels"])
    t = 0.0
    for _ in range(16):
        t += [0.0, 0.5, 1.0][int(rng.integers(0, 3))]
        event = [t, int(rng.integers(0, 2)), round(float(rng.random()), 1),
                 [1.0, 0.25, 1.5][int(rng.integers(0, 3))]]
        win.push(event[1], event[2], event[3], t=event[0])
        spec["events"].append(event)
    _dump("time_sliding_pair_counter.pkl", win)
    return spec


# --------------------------------------------------------------------------- River
def _metric_event(name, kwargs, rng):
    w = [1, 2, 0.5, 1.0][int(rng.integers(0, 4))]
    p = round(float(rng.random()), 1)
    if name in ("ROCAUC", "RollingROCAUC"):
        return [bool(rng.random() < 0.5), p, w]
    if name == "GroupAUC":
        return [int(rng.random() < 0.5), [p, f"g{int(rng.integers(0, 3))}"], w]
    if name == "ConcordanceIndex" and kwargs.get("censoring"):
        return [[float(rng.integers(1, 9)), bool(rng.random() < 0.7)], p, w]
    if name in ("KendallTau", "ConcordanceIndex"):        # continuous: the 2-D counter
        return [round(float(rng.normal(0.0, 3.0)), 2), p, w]
    if name == "GoodmanKruskalGamma":                      # ordinal: per-level multisets
        return [int(rng.integers(0, 4)), p, w]
    return [int(rng.integers(0, 2)), p, w]                 # binary: the two-level tree


def _args(event):
    """A stored event as call arguments (JSON lists back to River's tuples)."""
    y, p, w = event
    return (tuple(y) if isinstance(y, list) else y), (tuple(p) if isinstance(p, list)
                                                      else p), w


def metric(name, kwargs, rng) -> dict:
    """Updates applied, reverts of applied and of buffered updates, and updates left
    buffered when pickled."""
    m = getattr(sm, name)(**kwargs)
    ops = []

    def do(op, event=None):
        ops.append([op] if event is None else [op, event])
        if op == "get":
            m.get()
        else:
            getattr(m, op)(*_args(event))

    events = [_metric_event(name, kwargs, rng) for _ in range(28)]
    for e in events[:18]:
        do("update", e)
    do("get")
    rolling = name == "RollingROCAUC"
    if not rolling:
        do("revert", events[2])
        do("revert", events[9])
    for e in events[18:24]:
        do("update", e)
    if not rolling:
        do("revert", events[20])           # still buffered
    for e in events[24:]:
        do("update", e)                    # left buffered in the pickle
    return {"class": name, "params": kwargs, "ops": ops, "metric": m}


# --------------------------------------------------------------------------- epochs
def tracker(rng) -> dict:
    n = 14
    spec = {"y_true": [int(v) for v in rng.integers(0, 3, n)],
            "sample_weight": [[1.0, 2.0, 0.5][int(v)] for v in rng.integers(0, 3, n)],
            "epochs": []}
    t = EpochTracker(spec["y_true"], sample_weight=spec["sample_weight"])
    scores = [round(float(v), 1) for v in rng.random(n)]
    t.step(scores)
    spec["epochs"].append({"step": scores})
    idx = [1, 4, 9]
    new = [round(float(v), 1) for v in rng.random(3)]
    t.step_partial(idx, new)
    spec["epochs"].append({"step_partial": [idx, new]})
    groups = [int(v) for v in rng.integers(0, 3, n)]
    delta = [0.25, -0.5, 0.0]
    t.step_additive(delta, groups)
    spec["epochs"].append({"step_additive": [delta, groups]})
    t.step_partial([0], [0.5])
    spec["epochs"].append({"step_partial": [[0], [0.5]]})
    _dump("epoch_tracker.pkl", t)
    return spec


# --------------------------------------------------------------------------- monitor
def events_csv(rng) -> None:
    """Predictions with labels, late labels, pending ones, re-scores and a label for a
    prediction that has left the window."""
    rows = []
    pending = []
    for i in range(56):
        key = f"p{i}"
        score = round(float(rng.random()), 1)
        if i % 5 == 2:
            rows.append([key, score, "", ""])             # labelled later (or never)
            pending.append(key)
        else:
            rows.append([key, score, int(rng.random() < 0.5), [1, 2][i % 2]])
        if i % 7 == 6 and pending:
            rows.append([pending.pop(0), "", int(rng.random() < 0.5), ""])   # late label
        if i % 11 == 10:
            rows.append([f"p{i - 1}", round(float(rng.random()), 1), "", ""])  # re-score
    rows.append(["p0", "", 1, ""])                         # p0 left the window long ago
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["id", "score", "label", "weight"])
    writer.writerows(rows)
    (HERE / "events.csv").write_text(buf.getvalue())


def monitor_checkpoint() -> None:
    ckpt = HERE / "monitor.ckpt"
    if ckpt.exists():
        ckpt.unlink()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with open(HERE / "events.csv", "rb") as f:
        subprocess.run([sys.executable, "-m", "streamrank.cli", "monitor", "-", *MONITOR_ARGS,
                        "--checkpoint", str(ckpt)], stdin=f, cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)


def main() -> None:
    rng = np.random.default_rng(20250101)
    samples = {"written_by": f"streamrank {streamrank.__version__}",
               "pickle_protocol": PROTOCOL}
    samples["pair_counter_int.npz"] = {"labels": "auto", "items": counter_int(rng)}
    samples["pair_counter_float.npz"] = {"labels": "binary", "items": counter_float(rng)}
    samples["pair_counter.pkl"] = {"labels": "auto", "items": counter_pickle(rng)}
    samples["sliding_pair_counter.pkl"] = sliding(rng)
    samples["time_sliding_pair_counter.pkl"] = time_sliding(rng)
    for name, (cls, kwargs) in METRICS.items():
        spec = metric(cls, kwargs, rng)
        _dump(name, spec.pop("metric"))
        samples[name] = spec
    samples["epoch_tracker.pkl"] = tracker(rng)
    events_csv(rng)
    samples["monitor.ckpt"] = {"input": "events.csv", "args": MONITOR_ARGS}
    monitor_checkpoint()
    # one fixture a line: small, and a diff shows which fixture changed
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in samples.items()]
    (HERE / "samples.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
