"""``streamrank monitor --estimate``: the calibration estimate of the window's AUC in the
JSON and CSV lines, the Prometheus gauges and the checkpoint, equal to the library's."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
from click.testing import CliRunner

from streamrank.cli import main
from streamrank.monitor import Monitor, PairedMonitor


def write_log(path, n=600, seed=3, bad_at=None):
    """A log of predictions (probabilities) whose labels come 20 rows later."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), 2).tolist()
    y = (rng.random(n) < np.array(p)).astype(int).tolist()
    rows, expected = [], []
    for i in range(n):
        score = 1.5 if i == bad_at else p[i]
        rows.append(f"{i},{score!r},")
        expected.append((i, {"score": p[i]}))
        if i >= 20:
            rows.append(f"{i - 20},,{y[i - 20]}")
            expected.append((i - 20, {"label": y[i - 20]}))
    path.write_text("id,score,label\n" + "\n".join(rows) + "\n")
    return expected


def run(*args):
    return CliRunner().invoke(main, ["monitor", *map(str, args)], catch_exceptions=False)


def test_the_estimate_in_every_line_equals_the_librarys(tmp_path):
    path = tmp_path / "log.csv"
    events = write_log(path)
    res = run(path, "--window", 200, "--every", 150, "--estimate", "--format", "json")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    m = Monitor(window=200, estimate=True)
    reports = []
    for i, (key, kw) in enumerate(events, 1):
        m.observe(key, **kw)
        if i % 150 == 0:
            reports.append(m.report())
    if len(events) % 150:               # the command's last report, at the end of input
        reports.append(m.report())
    assert len(lines) == len(reports)
    for line, r in zip(lines, reports):
        assert line["estimated_auc"] == r.estimated_auc
        assert line["estimated_auc_labeled"] == r.estimated_auc_labeled
    assert not math.isnan(lines[-1]["estimated_auc"])
    plain = run(path, "--window", 200, "--every", 150, "--format", "csv")
    row = list(csv.DictReader(io.StringIO(plain.stdout)))[-1]
    assert row["estimated_auc"] == "nan"


def test_a_score_that_is_not_a_probability_is_an_input_error(tmp_path):
    path = tmp_path / "log.csv"
    write_log(path, n=50, bad_at=30)
    res = run(path, "--window", 20, "--estimate")
    assert res.exit_code == 2
    assert "probability in [0, 1]" in res.output and "line" in res.output
    assert run(path, "--window", 20).exit_code == 0


def test_gauges_and_the_option_against_a_checkpoint(tmp_path):
    from streamrank.cli._monitor_metrics import Collector

    m = PairedMonitor(window=50, min_window=5, estimate=True)
    rng = np.random.default_rng(0)
    for i in range(80):
        m.observe(i, score=float(rng.random()), challenger=float(rng.random()),
                  label=int(rng.random() < 0.5))
    r = m.report()
    fams = {f.name: f for f in Collector(m, lambda: 0, "a", "b").collect()}
    got = {s.labels["model"]: s.value for s in fams["streamrank_estimated_auc"].samples}
    assert got == {"a": r.champion.estimated_auc, "b": r.challenger.estimated_auc}
    assert "streamrank_estimated_auc" not in {
        f.name for f in Collector(Monitor(), lambda: 0, "a").collect()}
    # a resumed run keeps its checkpoint's setting, and says so when told otherwise
    path, ckpt = tmp_path / "log.csv", tmp_path / "run.ckpt"
    write_log(path, n=100)
    assert run(path, "--window", 50, "--estimate", "--checkpoint", ckpt).exit_code == 0
    res = run(path, "--window", 50, "--checkpoint", ckpt, "--resume")
    assert res.exit_code == 0, res.output
    res = run(path, "--window", 50, "--checkpoint", ckpt, "--resume", "--estimate")
    assert res.exit_code == 0, res.output
    other = tmp_path / "plain.ckpt"
    assert run(path, "--window", 50, "--checkpoint", other).exit_code == 0
    res = run(path, "--window", 50, "--checkpoint", other, "--resume", "--estimate")
    assert res.exit_code == 2
    assert "--estimate: the checkpoint's run has no --estimate" in res.output


def test_detect_drop_says_how_many_labels_the_window_needs(tmp_path):
    path = tmp_path / "log.csv"
    events = write_log(path, n=900)
    res = run(path, "--window", 200, "--every", 150, "--detect-drop", 0.1, "--format",
              "json")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    m = Monitor(window=200, detect_drop=0.1)
    for key, kw in events:
        m.observe(key, **kw)
    last = m.report()
    assert lines[-1]["labels_to_detect"] == last.labels_to_detect >= 0
    assert lines[-1]["detectable_drop"] == last.detectable_drop
    assert run(path, "--window", 200, "--detect-drop", 1.5).exit_code == 2
