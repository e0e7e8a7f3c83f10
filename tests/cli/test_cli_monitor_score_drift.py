"""``streamrank monitor --score-drift``: the scores against a frozen reference of them in
the JSON and CSV lines (equal to the library's reports), ``--alert-on score-shift``, the
Prometheus gauges of a real scrape, a ``kill -9`` and ``--resume`` that ends where an
uninterrupted run does (the scores' reference frozen or partly collected in the
checkpoint), and the table within 100 columns."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
import time

import numpy as np
import pytest
from click.testing import CliRunner
from test_cli_monitor import CMD, _env, _wait_for_checkpoint, csv_text, make_events
from test_cli_monitor_metrics import _Lines, _scrape, kill, spawn, stop
from test_cli_table_width import SHAPES, assert_narrow, events_file

from streamrank.cli import main
from streamrank.cli._monitor_metrics import Collector
from streamrank.monitor import Monitor, PairedMonitor
from streamrank.monitor.checkpoint import load_checkpoint

SCORE_FIELDS = ("score_shift", "score_shift_se", "score_shift_p", "ks", "ks_p",
                "score_alert")
GAUGES = {"streamrank_score_shift": "score_shift",
          "streamrank_score_shift_p_value": "score_shift_p",
          "streamrank_score_ks": "ks", "streamrank_score_ks_p_value": "ks_p"}


def write_log(path, n=600, seed=3, shift_at=None, weights=False, labels=True):
    """A log of predictions (scores of 2 decimals: ties) whose labels come 15 rows
    later (every third stays unlabeled); from ``shift_at`` on the scores move up
    (``sqrt``). Returns the events as ``(key, observe's keywords)``."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if shift_at is not None:
        p[shift_at:] = np.sqrt(p[shift_at:])
    p = np.round(p, 2).tolist()
    y = (rng.random(n) < 0.5).astype(int).tolist()
    w = rng.choice([1, 2, 0.5, 3], n).tolist()
    rows, events = [], []
    for i in range(n):
        kw = {"score": p[i]}
        if weights:
            kw["weight"] = w[i]
        rows.append(f"{i},{p[i]!r},,{w[i] if weights else ''}")
        events.append((i, kw))
        j = i - 15
        if labels and j >= 0 and j % 3:
            rows.append(f"{j},,{y[j]},")
            events.append((j, {"label": y[j]}))
    path.write_text("id,score,label,w\n" + "\n".join(rows) + "\n")
    return events


def run(*args):
    return CliRunner().invoke(main, ["monitor", *map(str, args)], catch_exceptions=False)


def library_reports(events, every, **kw):
    """The reports the command makes: every ``every`` events and at the end."""
    m = Monitor(**kw)
    out = []
    for i, (key, ev) in enumerate(events, 1):
        m.observe(key, **ev)
        if i % every == 0:
            out.append(m.report())
    if len(events) % every:
        out.append(m.report())
    return out


def _value(v):
    """A line's value: ``"nan"`` (JSON) / ``nan`` (CSV) as nan, CSV's booleans."""
    if v in ("nan", None):
        return math.nan
    if v in ("true", "false"):
        return v == "true"
    return float(v) if isinstance(v, str) else v


def _equal(got, want) -> bool:
    got = _value(got)
    if isinstance(want, bool):
        return got is want
    return got == want or (got != got and want != want)


@pytest.mark.parametrize("weights", [False, True], ids=["unit", "weighted"])
@pytest.mark.parametrize("n_ref", [None, 250], ids=["first-window", "first-250"])
def test_every_line_equals_the_librarys_report(tmp_path, n_ref, weights):
    path = tmp_path / "log.csv"
    events = write_log(path, n=700, weights=weights, shift_at=450)
    extra = ["--score-reference", n_ref] * (n_ref is not None) + ["--weight", "w"] * weights
    args = [path, "--window", 120, "--every", 100, "--score-drift", *extra]
    want = library_reports(events, 100, window=120, score_drift=True, score_reference=n_ref)
    res = run(*args, "--format", "json")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    rows = list(csv.DictReader(io.StringIO(run(*args, "--format", "csv").stdout)))
    assert len(lines) == len(rows) == len(want)
    for line, row, r in zip(lines, rows, want):
        assert line["events"] == int(row["events"]) == r.events
        for f in SCORE_FIELDS:
            assert _equal(line[f], getattr(r, f)), (r.events, f, line[f], getattr(r, f))
            assert _equal(row[f], getattr(r, f)), (r.events, f, row[f], getattr(r, f))
        assert (line["n"], line["pending"]) == (r.n, r.pending)
    frozen = [line for line in lines if line["score_shift"] != "nan"]
    assert frozen and lines[0]["score_shift"] == "nan"     # nan until it freezes
    assert lines[-1]["score_shift"] > 0.6 and lines[-1]["score_alert"] is True
    # without --score-drift the columns are there, nan
    plain = list(csv.DictReader(io.StringIO(run(path, "--window", 120, "--format",
                                                "csv").stdout)))
    assert plain[-1]["score_shift"] == "nan" and plain[-1]["score_alert"] == "false"


def test_usage_errors_exit_2(tmp_path):
    path = tmp_path / "log.csv"
    write_log(path, n=50)
    res = run(path, "--alert-on", "score-shift")
    assert res.exit_code == 2
    assert "--alert-on score-shift needs --score-drift" in res.output
    res = run(path, "--alert-on", "score-shift", "--fail-on-alert")
    assert res.exit_code == 2 and "needs --score-drift" in res.output
    res = run(path, "--score-reference", 100)
    assert res.exit_code == 2 and "--score-reference needs --score-drift" in res.output
    res = run(path, "--score-drift", "--score-reference", 1)
    assert res.exit_code == 2 and "--score-reference" in res.output
    assert "Traceback" not in res.output
    assert run(path, "--score-drift", "--alert-on", "score-shift").exit_code == 0


def test_alert_on_score_shift_fails_on_a_shifted_log(tmp_path):
    path = tmp_path / "shifted.csv"
    write_log(path, n=600, shift_at=300, labels=False)   # no label: no AUC test
    base = [path, "--window", 150, "--every", 75, "--score-drift", "--format", "json"]
    quiet = run(*base, "--fail-on-alert")
    assert quiet.exit_code == 0, quiet.output
    lines = [json.loads(ln) for ln in quiet.stdout.splitlines()]
    assert any(ln["score_alert"] for ln in lines) and not any(ln["alert"] for ln in lines)
    res = run(*base, "--alert-on", "score-shift", "--fail-on-alert")
    assert res.exit_code == 1, res.output
    lines = [json.loads(ln) for ln in res.stdout.splitlines()]
    assert all(ln["alert"] == ln["score_alert"] for ln in lines)
    assert lines[-1]["alert"] is True and lines[-1]["score_shift_p"] < 0.01
    assert not lines[0]["alert"]                    # before the reference froze
    rows = list(csv.DictReader(io.StringIO(run(
        path, "--window", 150, "--every", 75, "--score-drift", "--alert-on",
        "score-shift", "--format", "csv").stdout)))
    assert rows[-1]["alert"] == rows[-1]["score_alert"] == "true"
    # a log without a shift does not fail
    calm = tmp_path / "calm.csv"
    write_log(calm, n=600, labels=False, seed=8)
    res = run(calm, "--window", 150, "--every", 75, "--score-drift", "--alert-on",
              "score-shift", "--fail-on-alert", "--format", "json")
    assert res.exit_code == 0, res.output
    assert not any(json.loads(ln)["alert"] for ln in res.stdout.splitlines())


def test_alert_on_score_shift_with_segments_fails_on_a_shifted_segment(tmp_path):
    path = tmp_path / "segments.csv"
    rng = np.random.default_rng(3)
    rows = []
    for i in range(400):
        p = rng.random()
        rows.append(f"{i},{round(p ** 0.2 if i >= 200 and i % 2 == 0 else p, 3)},,"
                    f"{'ab'[i % 2]}")
    path.write_text("id,score,label,seg\n" + "\n".join(rows) + "\n")
    res = run(path, "--window", 50, "--segment", "seg", "--score-drift", "--alert-on",
              "score-shift", "--fail-on-alert", "--format", "csv")
    assert res.exit_code in (0, 1), res.output
    rows = {r["segment"]: r for r in csv.DictReader(io.StringIO(res.stdout))}
    assert rows["a"]["score_alert"] == "true" and rows["b"]["score_alert"] == "false"
    assert float(rows["a"]["score_shift_p"]) < 0.01
    assert rows["a"]["alert"] == "true" and rows["b"]["alert"] == "false"
    assert rows[""]["alert"] == "true"              # the total line: any segment
    assert res.exit_code == 1, res.output
    # without --alert-on score-shift: the same score alert, no alert
    res = run(path, "--window", 50, "--segment", "seg", "--score-drift",
              "--fail-on-alert", "--format", "csv")
    assert res.exit_code == 0, res.output
    rows = {r["segment"]: r for r in csv.DictReader(io.StringIO(res.stdout))}
    assert rows["a"]["score_alert"] == "true" and rows["a"]["alert"] == "false"


def test_a_real_scrape_shows_the_four_gauges_of_the_last_report(tmp_path):
    path = tmp_path / "live.csv"
    events = write_log(path, n=400, shift_at=200)
    n_events = len(events) // 50 * 50
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:1 + n_events]))    # a report at the last row
    proc = spawn(path, "--follow", "--poll", 0.02, "--max-idle", 20, "--window", 100,
                 "--every", 50, "--format", "json", "--score-drift", "--metrics-port", 0,
                 "--name", "ranker")
    out, errs = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)/metrics", errs.next()).group(1))
        while (report := json.loads(out.next()))["events"] != n_events:
            pass
        metrics = _scrape(port)
        stop(proc)
    finally:
        kill(proc)
    assert proc.returncode == 0, errs.rest()
    for name, key in GAUGES.items():
        value, labels = metrics[name]
        assert labels == {"model": "ranker"}
        assert value == report[key], (name, value, report[key])
    assert 0.5 < metrics["streamrank_score_shift"][0] < 1
    assert metrics["streamrank_score_shift_p_value"][0] < 0.01
    # the library's report of the same events
    want = library_reports(events[:n_events], 50, window=100, score_drift=True)[-1]
    for name, key in GAUGES.items():
        assert metrics[name][0] == getattr(want, key)
    # the gauges only with --score-drift, for each model of a pair
    assert not set(GAUGES) & {f.name for f in Collector(Monitor(), lambda: 0,
                                                        "a").collect()}
    pm = PairedMonitor(window=20, min_window=2, score_drift=True)
    rng = np.random.default_rng(0)
    for i in range(60):
        pm.observe(i, score=float(rng.random()), challenger=float(rng.random() + i / 60))
    r = pm.report()
    fams = {f.name: f for f in Collector(pm, lambda: 0, "a", "b").collect()}
    for name, key in GAUGES.items():
        got = {s.labels["model"]: s.value for s in fams[name].samples}
        assert got == {"a": getattr(r.champion, key), "b": getattr(r.challenger, key)}


@pytest.mark.parametrize("n_ref", [None, 1200], ids=["frozen", "partly-collected"])
def test_kill_9_then_resume_prints_the_uninterrupted_lines(tmp_path, n_ref):
    rows, _ = make_events(1600, 41, window=200, collapse_at=900)
    data = csv_text(rows).encode()
    args = ["--window", 200, "--every", 150, "--time", "ts", "--format", "json",
            "--score-drift", *(["--score-reference", n_ref] if n_ref else []),
            "--estimate", "--detect-drop", 0.05]     # (every field before the labels)
    full, want_out = tmp_path / "full.csv", tmp_path / "want.json"
    full.write_bytes(data)
    # the run that is not killed writes its checkpoints where the killed one does: a run
    # goes on from each checkpoint as a resumed one does (`continue_from`), so the
    # float sums of the estimates agree to the last bit
    with open(want_out, "wb") as f:
        subprocess.run(CMD + [str(a) for a in [full, *args, "--checkpoint",
                                               tmp_path / "want.ckpt",
                                               "--checkpoint-every", 500]],
                       stdout=f, env=_env(), timeout=120, check=False)
    want = want_out.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    live, ckpt, out = tmp_path / "live.csv", tmp_path / "m.ckpt", tmp_path / "out.json"
    live.write_bytes(data[:cut])
    n_rows = data[:cut].count(b"\n") - 1
    shown = b"".join(want.splitlines(keepends=True)[:n_rows // 150])
    run_args = [live, *args, "--checkpoint", ckpt, "--checkpoint-every", 500]
    with open(out, "ab") as f:
        proc = subprocess.Popen(CMD + [str(a) for a in [*run_args, "--follow", "--poll",
                                                         0.02]],
                                stdout=f, stderr=subprocess.PIPE, env=_env())
    try:
        _wait_for_checkpoint(ckpt, 500, proc)
        deadline = time.monotonic() + 60
        while out.read_bytes() != shown and time.monotonic() < deadline:
            assert proc.poll() is None
            time.sleep(0.05)
        proc.kill()                                   # SIGKILL, mid-run
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert out.read_bytes() == shown
    meta, mon = load_checkpoint(ckpt)
    if n_ref is None:
        assert mon.score_reference_frozen and len(mon._sref) == 200
    else:   # the checkpoint holds the scores evicted so far towards the first 1200
        assert not mon.score_reference_frozen and 0 < len(mon._sref_left) < n_ref
        assert mon.stats["predictions"] < n_ref
    with open(live, "ab") as f:
        f.write(data[cut:])
    with open(out, "ab") as f:
        res = subprocess.run(CMD + [str(a) for a in [*run_args, "--resume"]], stdout=f,
                             stderr=subprocess.PIPE, env=_env(), timeout=120)
    assert res.returncode == 0, res.stderr.decode()
    assert out.read_bytes() == want
    lines = [json.loads(ln) for ln in want.splitlines()]
    before = [ln for ln in lines if ln["events"] <= meta["rows"]]
    assert before and any(ln["score_shift"] != "nan" for ln in lines[len(before):])
    # frozen at the first eviction, or not yet when the checkpoint was written
    assert all((ln["score_shift"] == "nan") == (n_ref is not None or ln["events"] <= 200)
               for ln in before)
    assert lines[-1]["score_alert"] is True and lines[-1]["ks_p"] < 0.01
    # a resumed run keeps its checkpoint's scores' reference, and says so when told
    # otherwise
    res = CliRunner().invoke(main, ["monitor", *map(str, [
        live, "--window", 200, "--every", 150, "--time", "ts", "--score-drift",
        "--score-reference", 300, "--checkpoint", ckpt, "--resume"])])
    assert res.exit_code == 2 and "--score-reference" in res.output


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """test_cli_table_width's wide events: ISO times, 12 long segment names, a
    challenger (scores in [0, 1], for --estimate)."""
    return events_file(tmp_path_factory.mktemp("wide") / "events.csv")


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("extra", [[], ["--time", "ts", "--detector", "adwin"]],
                         ids=["bare", "time+detector"])
def test_the_table_stays_within_100_columns(wide, shape, extra):
    events = wide
    base = ["monitor", events, "--window", 300, "--every", 400, *SHAPES[shape], *extra,
            "--score-drift", "--estimate"]
    res = CliRunner().invoke(main, [str(a) for a in base])
    assert res.exit_code in (0, 1), res.output
    assert_narrow(res.stdout)
    head = res.stdout.splitlines()[0].split()
    js = [json.loads(ln) for ln in CliRunner().invoke(
        main, [str(a) for a in base + ["--format", "json"]]).stdout.splitlines()]
    assert all(set(SCORE_FIELDS) <= set(ln) for ln in js)
    assert any(ln["score_shift"] != "nan" for ln in js)
    if shape == "plain" and not extra:      # room for all three: the JSON's values
        assert head[-3:] == ["est_auc", "shift", "ks"], head
        body = [ln.split() for ln in res.stdout.splitlines()[1:]]
        assert len(body) == len(js)
        for cells, rec in zip(body, js):      # (the last three: a blank alert cell)
            assert cells[-3:] == ["nan" if rec[k] == "nan" else f"{rec[k]:.4f}"
                                  for k in ("estimated_auc", "score_shift", "ks")]
