"""The fixtures of streamrank 0.1.0 (``tests/data/release/``) that are still a supported
format load, hold what they held, and keep working.

``make_release_fixtures.py`` wrote, with the 0.1.0 code, `PairCounter.to_bytes` snapshots
(version 2, the current one), a pickle of a `PairCounter` and a ``streamrank monitor``
checkpoint (version 2), both earlier development formats, refused with the version
error, and stored the samples and operations behind each in ``samples.json`` (and the
monitor's input in ``events.csv``); its pickles of the windows, River metrics and
`EpochTracker` were of earlier development formats, which are refused (and were
removed). Each test of a supported format loads one fixture with today's code and checks
it against a fresh recount of those samples (the O(n^2) oracle), never against numbers
copied from the old object; then makes one more change and checks again. Like ``tests/data/snapshots/``, these files are never
rewritten: their point is to be old.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from _exact_checks import assert_counts, exact_weights_only
from streamrank import PairCounter, SnapshotError
from streamrank.cli.monitor import read_checkpoint
from streamrank.monitor.checkpoint import CheckpointError
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
def test_the_0_1_monitor_checkpoint_is_refused_with_the_version_error(tmp_path):
    """Its checkpoint (version 2, of a development version) is refused, by the reader and
    by ``streamrank monitor --resume`` (exit 2, the file left as it was), not loaded."""
    with pytest.raises(CheckpointError, match=r"monitor.ckpt: a checkpoint of version 2, "
                       r"written by another streamrank \(this one reads version 6\)"):
        read_checkpoint(DATA / "monitor.ckpt")
    spec = SAMPLES["monitor.ckpt"]
    ckpt = tmp_path / "monitor.ckpt"
    ckpt.write_bytes((DATA / "monitor.ckpt").read_bytes())
    res = subprocess.run(
        [sys.executable, "-m", "streamrank.cli", "monitor", "-", *spec["args"],
         "--checkpoint", str(ckpt), "--resume"], input=(DATA / spec["input"]).read_text(),
        capture_output=True, text=True, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert res.returncode == 2, res.stderr
    assert "a checkpoint of version 2" in res.stderr and "Traceback" not in res.stderr
    assert ckpt.read_bytes() == (DATA / "monitor.ckpt").read_bytes()
