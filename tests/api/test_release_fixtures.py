"""The fixtures of streamrank 0.1.0 (``tests/data/release/``) that are still a supported
format load, hold what they held, and keep working.

``make_release_fixtures.py`` wrote, with the 0.1.0 code, `PairCounter.to_bytes` snapshots
(version 2, the current one), a pickle of a `PairCounter` (an earlier development
format: refused), and a ``streamrank monitor``
checkpoint, and stored the samples and operations behind each in ``samples.json`` (and
the monitor's input in ``events.csv``); its pickles of the windows, River metrics and
`EpochTracker` were of earlier development formats, which are refused (and were
removed). Each test loads one fixture with today's code and checks it against a fresh
recount of those samples -- the O(n^2) oracle for counts, a replay of the monitor's
rules for the checkpoint -- never against numbers copied from the old object; then makes
one more change and checks again. Like ``tests/data/snapshots/``, these files are never
rewritten: their point is to be old.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import subprocess
import sys
from collections import Counter, OrderedDict

import numpy as np
import pytest

from _exact_checks import assert_counts, exact_weights_only
from oracle import pair_counts_matrix
from streamrank import PairCounter, SnapshotError
from streamrank.cli.monitor import read_checkpoint
from streamrank.monitor import Monitor
from paths import DATA, ROOT

DATA = DATA / "release"
SAMPLES = json.loads((DATA / "samples.json").read_text())
FIXTURES = sorted(k for k in SAMPLES if "." in k)
OTHER_FILES = {"samples.json", "events.csv", "make_release_fixtures.py"}


def json_key(k):
    """A key as stored in JSON back to Python (lists were tuples)."""
    return tuple(json_key(x) for x in k) if isinstance(k, list) else k


def _load(name):
    with open(DATA / name, "rb") as f:
        return pickle.load(f)


def test_the_release_folder_holds_the_fixtures_and_nothing_else():
    names = {p.name for p in DATA.iterdir() if p.name != "__pycache__"}
    assert names == set(FIXTURES) | OTHER_FILES
    assert SAMPLES["written_by"] == "streamrank 0.1.0"
    for name in names:
        assert (DATA / name).stat().st_size < 32 * 1024, name     # small: KBs


# --------------------------------------------------------------------------- counters
def _check_counter(pc, spec):
    items = [(json_key(k), (y, s, w)) for k, y, s, w in spec["items"]]
    assert pc.labels == spec["labels"]
    assert [(type(k), k) for k, _ in pc.items()] == [(type(k), k) for k, _ in items]
    assert dict(pc.items()) == dict(items)
    rows = [v for _, v in items]
    exact = exact_weights_only([r[2] for r in rows])
    assert_counts(pc.counts, rows, exact)
    pc._check()
    # one more insert, update and removal: each the oracle's answer
    key, (y, s, w) = items[0]
    pc.insert("new" if isinstance(key, str) else 10**30, y, 0.55, 2)
    rows.append((y, 0.55, 2))
    assert_counts(pc.counts, rows, exact)
    pc.update(key, score=0.05)
    rows[0] = (y, 0.05, w)
    assert_counts(pc.counts, rows, exact)
    pc.remove(items[1][0])
    del rows[1]
    assert_counts(pc.counts, rows, exact)
    pc._check()
    return pc


@pytest.mark.parametrize("name", ["pair_counter_int.npz", "pair_counter_float.npz"])
def test_pair_counter_snapshots_load(name):
    data = (DATA / name).read_bytes()
    with np.load(io.BytesIO(data)) as z:            # the committed file is version 2
        assert str(z["format"]) == "streamrank.PairCounter" and int(z["version"]) == 2
    pc = _check_counter(PairCounter.from_bytes(data), SAMPLES[name])
    again = PairCounter.from_bytes(pc.to_bytes())   # and rewritten in today's format
    assert list(again.items()) == list(pc.items())
    rows = [v for _, v in pc.items()]
    assert_counts(again.counts, rows, exact_weights_only([r[2] for r in rows]))


def test_the_0_1_pair_counter_pickle_is_refused_with_the_version_error():
    """An earlier development format (no version): refused, not converted."""
    with pytest.raises(SnapshotError, match=r"^PairCounter: pickle version none not "
                       r"supported \(this streamrank reads version 1\)\.$"):
        _load("pair_counter.pkl")


# --------------------------------------------------------------------------- monitor
class _Replay:
    """The count window of `Monitor` (its module docstring), replayed row by row: a new id
    with a score is a prediction (the oldest leaves once ``window`` are held); a label,
    score or weight for a held id changes it; one for an id not held is dropped."""

    def __init__(self, window):
        self.window = window
        self.items: OrderedDict = OrderedDict()     # id -> [label, score, weight]
        self.stats = Counter()
        self.reference = None                       # the first full window, frozen
        self.at: dict = {}                          # events -> (rows, n, pending)

    def labeled(self):
        return [(v[0], v[1], v[2]) for v in self.items.values() if v[0] is not None]

    def observe(self, key, score, label, weight):
        st = self.stats
        item = self.items.get(key)
        st["events"] += 1
        if item is None:
            if score is None:
                st["dropped"] += 1
            else:
                if len(self.items) >= self.window:
                    if self.reference is None:
                        self.reference = self.labeled()
                    self.items.popitem(last=False)
                self.items[key] = [label, score, 1 if weight is None else weight]
                st["predictions"] += 1
                st["labeled"] += label is not None
        else:
            if score is not None and score != item[1]:
                item[1] = score
                st["rescored"] += 1
            if weight is not None:
                item[2] = weight
            if label is not None:
                st["labeled"] += item[0] is None
                st["late"] += item[0] is None
                item[0] = label
        rows = self.labeled()
        self.at[st["events"]] = (rows, len(rows), len(self.items) - len(rows))


def _events(text):
    """The rows of events.csv as ``(id, score, label, weight)``, None where empty."""
    def num(x, integral=False):
        if x == "":
            return None
        v = float(x)
        return int(v) if integral and v.is_integer() else v

    lines = text.splitlines()
    assert lines[0] == "id,score,label,weight"
    out = []
    for line in lines[1:]:
        key, score, label, weight = line.split(",")
        out.append((key, num(score), num(label), num(weight, integral=True)))
    return out


def _replay(rows, window):
    r = _Replay(window)
    for row in rows:
        r.observe(*row)
    return r


def _window_arg(args):
    return int(args[args.index("--window") + 1])


def test_monitor_checkpoint_loads():
    spec = SAMPLES["monitor.ckpt"]
    text = (DATA / spec["input"]).read_text()
    rows = _events(text)
    meta, data = read_checkpoint(DATA / "monitor.ckpt")
    assert meta["version"] == 2 and meta["rows"] == len(rows)
    assert meta["source"]["identity"] == "<stdin>"
    m = Monitor.from_bytes(data)
    replay = _replay(rows, _window_arg(spec["args"]))
    assert m.window == replay.window and m.period is None
    assert [(k, y, s, w) for k, y, s, w, _ in m.items()] == [
        (k, v[0], v[1], v[2]) for k, v in replay.items.items()]
    assert_counts(m.counts, replay.labeled(), exact=True)
    # (the reference is a batch count: float sums once weights are given)
    assert_counts(m.reference_counts, replay.reference, exact=False)
    for key in ("events", "predictions", "labeled", "late", "rescored", "dropped"):
        assert m.stats[key] == replay.stats[key], key
    assert len(m.history) == len(rows) // 10
    for report in m.history:                          # every report of the old run
        held, n, pending = replay.at[report.events]
        assert (report.n, report.pending) == (n, pending)
        assert_counts(report.counts, held, exact=True)
    m._check()
    m.observe("one-more", score=0.45, label=1, weight=2)
    replay.observe("one-more", 0.45, 1, 2)
    assert_counts(m.counts, replay.labeled(), exact=True)
    assert_counts(m.report().counts, replay.labeled(), exact=True)


def test_monitor_checkpoint_resumes_in_the_cli(tmp_path):
    """``streamrank monitor --resume`` continues the old checkpoint on the replayed input
    with one more row: its last report is the replay's window."""
    spec = SAMPLES["monitor.ckpt"]
    text = (DATA / spec["input"]).read_text()
    ckpt = tmp_path / "monitor.ckpt"
    ckpt.write_bytes((DATA / "monitor.ckpt").read_bytes())
    extra = "extra,0.45,1,2\n"
    res = subprocess.run(
        [sys.executable, "-m", "streamrank.cli", "monitor", "-", *spec["args"],
         "--checkpoint", str(ckpt), "--resume"], input=text + extra, capture_output=True,
        text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert res.returncode == 0, res.stderr
    last = json.loads(res.stdout.strip().splitlines()[-1])
    rows = _events(text + extra)
    replay = _replay(rows, _window_arg(spec["args"]))
    assert last["events"] == len(rows)
    held = replay.labeled()
    assert (last["n"], last["pending"]) == (len(held), len(replay.items) - len(held))
    ref = pair_counts_matrix([r[0] for r in held], [r[1] for r in held],
                             [r[2] for r in held])
    assert [last[f] for f in ("concordant", "discordant", "tied_score", "tied_label",
                              "tied_both")] == list(ref.as_tuple())
    assert read_checkpoint(ckpt)[0]["rows"] == len(rows)
