"""``streamrank monitor --challenger-score``: champion against challenger from the command
line. Every report of every format equals a `PairedMonitor` fed the same rows, whose
paired test is `delong_test` of the window (checked directly on the last ``W`` rows of a
stream whose labels come on their prediction rows); resume equals one run; bad challenger
scores are located; the metrics endpoint carries both models and the paired gauges."""

import csv
import io
import json
import math
import re

import numpy as np
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from test_cli_monitor import PNG, last_json, run
from test_cli_monitor_metrics import _Lines, _scrape, kill, spawn, stop

from streamrank import delong_test
from streamrank.cli._monitor_metrics import Collector
from streamrank.monitor.table import line_columns
from streamrank.monitor import PairedMonitor

FIELDS = ("id", "score", "challenger", "label")


def make_rows(n, seed, *, noise=1.0, split=False, late=3):
    """Prediction rows with both scores (or, ``split``, the challenger's on a row of its
    own right after), labels ``late`` predictions later on rows of their own."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    a = np.round(1 / (1 + np.exp(-rng.normal(1.5 * y, 1.0))), 2)
    b = np.round(1 / (1 + np.exp(-rng.normal(1.5 * y, noise))), 2)
    rows = []
    for i in range(n):
        if split:
            rows.append({"id": f"u{i}", "score": a[i]})
            rows.append({"id": f"u{i}", "challenger": b[i]})
        else:
            rows.append({"id": f"u{i}", "score": a[i], "challenger": b[i]})
        if i >= late:
            rows.append({"id": f"u{i - late}", "label": y[i - late]})
    return rows, y, a, b


def write(path, rows, fields=FIELDS):
    with open(path, "w") as f:
        f.write(",".join(fields) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(k) is None else str(r[k]) for k in fields) + "\n")
    return path


def library_reports(rows, every, **kw):
    pm = PairedMonitor(**kw)
    out = []
    for r in rows:
        pm.observe(r["id"], score=r.get("score"), challenger=r.get("challenger"),
                   label=r.get("label"))
        if pm.stats["events"] % every == 0:
            out.append(pm.report().as_dict())
    if not out or out[-1]["events"] != pm.stats["events"]:
        out.append(pm.report().as_dict())
    return out


def _plain(v):
    """A value as a report line writes it, normalized: a non-finite float (written
    ``null`` or as the string ``"nan"``) is None."""
    if v in ("nan", "inf", "-inf") or isinstance(v, float) and not math.isfinite(v):
        return None
    return v


ARGS = ["--window", 200, "--every", 150, "--challenger-score", "challenger",
        "--min-window", 20]


@pytest.mark.parametrize("split", [False, True])
def test_json_reports_equal_the_library(tmp_path, split):
    rows, *_ = make_rows(700, 1, noise=2.5, split=split)
    path = write(tmp_path / "e.csv", rows)
    res = run([path, *ARGS, "--format", "json", "--alert-on", "worse"])
    assert res.exit_code == 0, res.output
    got = [json.loads(ln) for ln in res.stdout.splitlines()]
    want = library_reports(rows, 150, window=200, min_window=20, alert_on="worse",
                           max_history=10000)
    assert len(got) == len(want) > 5
    for g, w in zip(got, want):
        assert list(g) == list(line_columns(2, False))
        assert {k: _plain(g[k]) for k in w} == {k: _plain(w[k]) for k in w}
    assert any(g["challenger_alert"] for g in got)
    assert "paired (worse): challenger AUC - champion AUC" in res.stderr
    assert "challenger: 700 predictions, " in res.stderr


def test_the_paired_test_is_delong_test_of_the_window(tmp_path):
    # labels on the prediction rows: the window is the last W rows
    rng = np.random.default_rng(4)
    n, W = 500, 120
    y = (rng.random(n) < 0.5).astype(int)
    a = np.round(y + rng.normal(size=n), 1)
    b = np.round(y + 2 * rng.normal(size=n), 1)
    rows = [{"id": i, "score": a[i], "challenger": b[i], "label": y[i]} for i in range(n)]
    path = write(tmp_path / "e.csv", rows)
    for alert_on, alt in (("worse", "less"), ("better", "greater"), ("both", "two-sided")):
        res = run([path, "--window", W, "--every", 100, "--challenger-score",
                   "challenger", "--format", "json", "--alert-on", alert_on])
        assert res.exit_code == 0, res.output
        for rec in map(json.loads, res.stdout.splitlines()):
            e = rec["events"]
            lo = max(0, e - W)
            t = delong_test(y[lo:e], b[lo:e], a[lo:e], alternative=alt)
            assert rec["paired_p_value"] == t.p_value and rec["diff"] == t.difference
            assert rec["paired_n"] == e - lo


def test_csv_and_table_formats(tmp_path):
    rows, *_ = make_rows(400, 2, noise=3.0)
    path = write(tmp_path / "e.csv", rows)
    res = run([path, *ARGS, "--format", "csv"])
    assert res.exit_code == 0, res.output
    recs = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(recs[0]) == list(line_columns(2, False))
    want = library_reports(rows, 150, window=200, min_window=20)
    assert [float(r["paired_p_value"]) for r in recs] == pytest.approx(
        [w["paired_p_value"] for w in want], rel=1e-15)
    assert [r["challenger_alert"] for r in recs] == [
        "true" if w["challenger_alert"] else "false" for w in want]
    res = run([path, *ARGS])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    # a line of the champion's, then the challenger's under it, in the same columns: its
    # window, then the paired test (diff under ref/diff, its z, p-value and alert)
    assert lines[0].split() == ["events", "n", "pending", "auc", "ref/diff", "z",
                                "p_value", "alert"]
    w = want[-1]
    champion, challenger = lines[-2].split(), lines[-1].split()
    assert champion[:6] == [str(w["events"]), str(w["n"]), str(w["pending"]),
                            f"{w['auc']:.4f}", f"{w['reference_auc']:.4f}", f"{w['z']:.2f}"]
    assert challenger[:7] == ["challenger", str(w["challenger_n"]),
                              str(w["challenger_pending"]), f"{w['challenger_auc']:.4f}",
                              f"{w['diff']:+.4f}", f"{w['paired_z']:.2f}",
                              f"{w['paired_p_value']:.3g}"]
    assert (challenger[7:] == ["ALERT"]) == w["challenger_alert"]
    assert len(lines) == 2 * len(want) + 1
    assert max(map(len, lines)) <= 100


def test_plot_and_fail_on_alert(tmp_path):
    rows, *_ = make_rows(600, 3, noise=3.0)
    path = write(tmp_path / "e.csv", rows)
    png = tmp_path / "p.png"
    res = run([path, *ARGS, "--alert-on", "worse", "--plot", png, "--fail-on-alert"])
    assert res.exit_code == 1, res.output
    assert png.read_bytes().startswith(PNG)
    # a challenger that is worse never alerts as "better" (nor does anything else here)
    res = run([path, *ARGS, "--alert-on", "better", "--fail-on-alert", "--alpha", 1e-4])
    assert res.exit_code == 0, res.output
    assert "0 paired alerts" in res.stderr


def test_bad_challenger_scores(tmp_path):
    rows, *_ = make_rows(50, 4)
    rows[2] = {**rows[2], "challenger": "abc"}
    path = write(tmp_path / "e.csv", rows)
    res = run([path, *ARGS])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    line = 2 + 2   # the header is line 1
    assert re.search(rf"e\.csv, line {line} \(row 3\), column 'challenger': 'abc'",
                     res.stderr), res.stderr
    res = run([path, *ARGS, "--on-error", "skip"])
    assert res.exit_code == 0, res.output
    assert "1 row skipped" in res.stderr
    rows[2] = {**rows[2], "challenger": "inf"}
    res = run([write(tmp_path / "f.csv", rows), *ARGS])
    assert res.exit_code == 2 and "column 'challenger'" in res.stderr
    # the column must exist; the paired options need it
    res = run([path, "--challenger-score", "other"])
    assert res.exit_code == 2 and "no column 'other'" in res.stderr
    for opt in (["--alert-on", "worse"], ["--challenger-name", "b"]):
        res = run([path, *opt])
        assert res.exit_code == 2 and "needs --challenger-score" in res.output
    res = run([path, "--challenger-score", "score"])
    assert res.exit_code == 2


def test_resume_equals_one_run(tmp_path):
    rows, *_ = make_rows(900, 5, noise=2.0, split=True)
    full = write(tmp_path / "full.csv", rows)
    args = [*ARGS, "--format", "json", "--detector", "adwin", "--alert-on", "worse"]
    res = run([full, *args])
    assert res.exit_code == 0, res.output
    want, want_summary = last_json(res.stdout), res.stderr.splitlines()
    data = full.read_bytes()
    cut = data.index(b"\n", len(data) // 3) + 1
    grow = tmp_path / "grow.csv"
    grow.write_bytes(data[:cut])
    ckpt = tmp_path / "c.ckpt"
    res = run([grow, *args, "--checkpoint", ckpt, "--checkpoint-every", 100])
    assert res.exit_code == 0, res.output
    grow.write_bytes(data)
    res = run([grow, *args, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    assert res.stderr.splitlines() == want_summary
    # a paired checkpoint needs the challenger; its --alert-on is kept
    res = run([grow, *ARGS[:-4], "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 2 and "needs --challenger-score" in res.output
    res = run([grow, *ARGS, "--alert-on", "both", "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 2 and "--alert-on both" in res.output
    res = run([grow, *ARGS, "--checkpoint", tmp_path / "plain.ckpt"])
    assert res.exit_code == 0
    res = run([grow, "--window", 200, "--every", 150, "--min-window", 20, "--checkpoint",
               tmp_path / "plain2.ckpt", "--score", "challenger", "--on-error", "skip"])
    assert res.exit_code == 0, res.output
    res = run([grow, "--window", 200, "--every", 150, "--min-window", 20, "--checkpoint",
               tmp_path / "plain2.ckpt", "--score", "challenger", "--challenger-score",
               "score", "--resume", "--on-error", "skip"])
    assert res.exit_code == 2 and "has no challenger" in res.output


def _families(text):
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = \
                sample.value
    return out


def test_the_collector_carries_both_models_and_the_paired_gauges():
    rows, *_ = make_rows(300, 6, noise=2.0)
    pm = PairedMonitor(window=100, min_window=20)
    for r in rows:
        pm.observe(r["id"], score=r.get("score"), challenger=r.get("challenger"),
                   label=r.get("label"))
    rep = pm.report()
    reg = CollectorRegistry(auto_describe=False)
    reg.register(Collector(pm, lambda: 3, "champ", "chall"))
    got = _families(generate_latest(reg).decode())
    champ, chall = (("model", "champ"),), (("model", "chall"),)
    assert got["streamrank_window_auc"] == {champ: rep.champion.auc,
                                            chall: rep.challenger.auc}
    assert got["streamrank_events_total"] == {champ: pm.champion.stats["events"],
                                              chall: pm.challenger.stats["events"]}
    assert got["streamrank_skipped_rows_total"] == {champ: 3}
    pair = (("champion", "champ"), ("model", "chall"))
    assert got["streamrank_paired_auc_difference"] == {pair: rep.difference}
    assert got["streamrank_paired_p_value"] == {pair: rep.p_value}
    assert got["streamrank_paired_labeled"] == {pair: rep.n}
    assert got["streamrank_paired_alerts_total"] == {pair: pm.stats["paired_alerts"]}


def test_a_real_scrape_of_a_paired_run(tmp_path):
    rows, *_ = make_rows(300, 7, noise=2.0)
    path = write(tmp_path / "live.csv", rows)
    proc = spawn(path, "--follow", "--poll", 0.02, "--max-idle", 20, "--window", 100,
                 "--every", 100, "--format", "json", "--challenger-score", "challenger",
                 "--metrics-port", 0, "--name", "champ", "--challenger-name", "chall")
    out, errs = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)/metrics", errs.next()).group(1))
        events = len(rows) // 100 * 100
        while (report := json.loads(out.next()))["events"] != events:
            pass
        metrics = _scrape(port)
        stop(proc)
    finally:
        kill(proc)
    assert proc.returncode == 0, errs.rest()
    # _scrape keeps one sample per name: the paired gauges have one
    value, labels = metrics["streamrank_paired_p_value"]
    assert labels == {"model": "chall", "champion": "champ"}
    assert value == pytest.approx(report["paired_p_value"], rel=1e-12)
    assert metrics["streamrank_paired_auc_difference"][0] == pytest.approx(
        report["diff"], rel=1e-12)


def test_the_two_models_need_two_names(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("id,score,challenger,label\n1,0.2,0.3,0\n2,0.8,0.7,1\n")
    res = run([path, "--challenger-score", "challenger", "--challenger-name", "model"])
    assert res.exit_code == 2 and "--name and --challenger-name are both 'model'" \
        in res.output
