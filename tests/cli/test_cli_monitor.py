"""``streamrank monitor`` through click's CliRunner and as a real subprocess.

Event files are generated here: predictions, late labels (some too late: dropped), some
never labeled, re-scores. The oracle for the final counts is a batch `pair_counts` of
the last ``W`` predictions with their final scores and labels (the generator keeps every
late row within ``W`` predictions of its own, so the final window is easy to state).
Kill-and-resume runs the command as a subprocess, SIGKILLs it mid-stream and checks the
resumed run ends exactly where an uninterrupted one does.
"""

import csv
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import roc_auc_score

from streamrank import concordance_variance, pair_counts
from streamrank.cli import main
from streamrank.monitor.checkpoint import VERSION, read_checkpoint, write_checkpoint
from streamrank.monitor import Monitor
from streamrank.monitor.drift import auc_drop_test
from paths import ROOT
import variance_oracle as vo

PNG = b"\x89PNG\r\n\x1a\n"
FIELDS = ("id", "score", "label", "ts")
COUNT_KEYS = ("concordant", "discordant", "tied_score", "comparable", "tied_label",
              "tied_both")


# --------------------------------------------------------------------------- data
def make_events(n, seed, *, window=300, collapse_at=None, late=0.3, unlabeled=0.05,
                rescore=0.05, too_late=10, decimals=3, weights=False):
    """Rows (dicts, None = empty cell) in stream order, and the oracle of the last
    ``window`` predictions: ``{id: [label or None, score, weight]}``.

    Late labels and re-scores come within ``window // 3`` predictions of their own;
    ``too_late`` early predictions get a label ``1.5 * window`` later (dropped)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    s = rng.normal(1.3 * y, 1.0)
    if collapse_at is not None:
        s[collapse_at:] = rng.normal(0.0, 1.0, n - collapse_at)
    s = np.round(1 / (1 + np.exp(-s)), decimals)
    w = rng.choice([1, 2, 0.5], n) if weights else np.ones(n, int)
    rows = []          # (position, order, row)
    final = {}
    d_max = max(2, window // 3)
    for i in range(n):
        key = f"u{i}"
        kind = rng.random()
        label = int(y[i])
        score = float(s[i])
        wi = w[i].item()
        if kind < unlabeled:
            rows.append((i, 0, dict(id=key, score=score, label=None, ts=i, w=wi)))
            final[key] = [None, score, wi]
        elif kind < unlabeled + late:
            d = int(rng.integers(1, d_max))
            rows.append((i, 0, dict(id=key, score=score, label=None, ts=i, w=wi)))
            rows.append((i + d + 0.5, 1, dict(id=key, score=None, label=label, ts=i + d,
                                             w=None)))
            final[key] = [label, score, wi]
        else:
            rows.append((i, 0, dict(id=key, score=score, label=label, ts=i, w=wi)))
            final[key] = [label, score, wi]
        if rng.random() < rescore:
            d = int(rng.integers(1, d_max))
            new = float(np.round(rng.random(), decimals))
            rows.append((i + d + 0.25, 2, dict(id=key, score=new, label=None, ts=i + d,
                                              w=None, kind="rescore")))
            final[key][1] = new
    never = [i for i in range(max(0, n - 3 * window)) if final[f"u{i}"][0] is None]
    for i in never[:too_late]:
        key = f"u{i}"
        if True:
            pos = i + int(1.5 * window) + 0.75
            rows.append((pos, 3, dict(id=key, score=None, label=1, ts=int(pos), w=None,
                                      kind="too late")))
    rows.sort(key=lambda r: (r[0], r[1]))
    rows = [r[2] for r in rows]
    last = {f"u{i}": final[f"u{i}"] for i in range(max(0, n - window), n)}
    return rows, last


def oracle_counts(last):
    lab = [v for v in last.values() if v[0] is not None]
    ws = [v[2] for v in lab]
    return pair_counts([v[0] for v in lab], [v[1] for v in lab],
                       sample_weight=None if all(x == 1 for x in ws) else ws)


def _cell(v):
    return "" if v is None else str(v)


def write_csv(path, rows, fields=FIELDS):
    with open(path, "w", newline="") as f:
        f.write(",".join(fields) + "\n")
        for r in rows:
            f.write(",".join(_cell(r.get(k)) for k in fields) + "\n")
    return path


def csv_text(rows, fields=FIELDS):
    return "".join([",".join(fields) + "\n"] +
                   [",".join(_cell(r.get(k)) for k in fields) + "\n" for r in rows])


def write_jsonl(path, rows, fields=FIELDS):
    with open(path, "w") as f:
        for i, r in enumerate(rows):
            # omit empty fields on even rows, null on odd rows: both mean "no value"
            obj = {k: r.get(k) for k in fields if r.get(k) is not None or i % 2}
            f.write(json.dumps(obj) + "\n")
    return path


def run(args, input=None):
    return CliRunner().invoke(main, ["monitor", *map(str, args)], input=input)


def last_json(stdout):
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    return json.loads(lines[-1])


def assert_counts(record, expect):
    for k in COUNT_KEYS:
        assert record[k] == pytest.approx(getattr(expect, k), rel=1e-12), k


@pytest.fixture(scope="module")
def stream():
    return make_events(3000, 1, window=300)


# --------------------------------------------------------------------------- outputs
def test_json_lines_output_and_final_counts(tmp_path, stream):
    rows, last = stream
    path = write_csv(tmp_path / "ev.csv", rows)
    res = run([path, "--window", 300, "--every", 500, "--format", "json", "--time", "ts"])
    assert res.exit_code == 0, res.output
    recs = [json.loads(ln) for ln in res.stdout.splitlines()]
    n_events = len(rows) - 0  # every row is an event
    assert [r["events"] for r in recs] == list(range(500, n_events + 1, 500)) + (
        [n_events] if n_events % 500 else [])
    final = recs[-1]
    expect = oracle_counts(last)
    assert_counts(final, expect)
    assert final["auc"] == pytest.approx(expect.auc)
    assert final["n"] == expect.n and final["n"] + final["pending"] == 300
    assert final["time"] == max(r["ts"] for r in rows)
    assert set(final) >= {"reference_auc", "z", "p_value", "alert", "drift", "metric"}
    # the summary on stderr
    assert f"{n_events} events, 3000 predictions" in res.stderr
    assert "late dropped" in res.stderr and "0 rows skipped" in res.stderr


def test_csv_and_table_output(tmp_path, stream):
    rows, last = stream
    path = write_csv(tmp_path / "ev.csv", rows)
    res = run([path, "--window", 300, "--every", 1000, "--format", "csv"])
    assert res.exit_code == 0, res.output
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(table) == len(rows) // 1000 + (1 if len(rows) % 1000 else 0)
    final = {k: int(table[-1][k]) for k in COUNT_KEYS}
    assert_counts(final, oracle_counts(last))
    assert table[-1]["alert"] in ("true", "false") and table[-1]["time"] == ""
    # the window's interval (Hanley-McNeil, the default test, at 0.95)
    low, auc, high = (float(table[-1][k]) for k in ("auc_low", "auc", "auc_high"))
    assert 0 <= low < auc < high <= 1
    res = run([path, "--window", 300, "--every", 1000])
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    # the table's columns (short headers; drift only with a detector): JSON/CSV have all
    assert lines[0].split() == ["events", "n", "pending", "auc", "ref_auc", "z",
                                "p_value", "alert"]
    assert len(lines) == 1 + len(table)
    assert lines[-1].split()[0] == str(len(rows))
    # with a time column the table shows it (ISO timestamps as ISO)
    res = run([path, "--window", 300, "--every", 1000, "--time", "ts"])
    assert res.stdout.splitlines()[0].split()[1] == "time"


def test_jsonl_parquet_and_stdin_give_the_same_counts(tmp_path, stream):
    rows, last = stream
    expect = oracle_counts(last)
    args = ["--window", 300, "--every", 10_000, "--format", "json"]
    jl = write_jsonl(tmp_path / "ev.jsonl", rows)
    res = run([jl, *args])
    assert res.exit_code == 0, res.output
    assert_counts(last_json(res.stdout), expect)
    # a JSON-lines file without a telling extension: sniffed from its first line
    other = tmp_path / "events.log"
    other.write_bytes(jl.read_bytes())
    assert_counts(last_json(run([other, *args]).stdout), expect)
    # parquet replay
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({k: [r.get(k) for r in rows] for k in FIELDS})
    pq.write_table(table, tmp_path / "ev.parquet", row_group_size=700)
    res = run([tmp_path / "ev.parquet", *args])
    assert res.exit_code == 0, res.output
    assert_counts(last_json(res.stdout), expect)
    # stdin: CSV and JSON lines, sniffed
    res = run(["-", *args], input=csv_text(rows))
    assert res.exit_code == 0, res.output
    assert_counts(last_json(res.stdout), expect)
    res = run(["-", *args], input=jl.read_text())
    assert_counts(last_json(res.stdout), expect)


def test_weights_and_options(tmp_path):
    rows, last = make_events(1500, 2, window=200, weights=True)
    path = write_csv(tmp_path / "w.csv", rows, FIELDS + ("w",))
    res = run([path, "--window", 200, "--weight", "w", "--every", 250, "--format", "json",
               "--test", "delong", "--detector", "page-hinkley", "--reference", 150,
               "--alpha", 0.05, "--min-window", 10])
    assert res.exit_code == 0, res.output
    final = last_json(res.stdout)
    assert_counts(final, oracle_counts(last))
    # the reference: the first 150 predictions labeled, as they stood at that event
    ref = np.array(first_labeled(rows, 150))
    ref_auc, ref_var = vo.delong_variance(ref[:, 0], ref[:, 1], ref[:, 2])
    assert final["reference_auc"] == pytest.approx(
        roc_auc_score(ref[:, 0], ref[:, 1], sample_weight=ref[:, 2]), rel=1e-12)
    cur = np.array([v for v in last.values() if v[0] is not None])
    auc, var = vo.delong_variance(cur[:, 0], cur[:, 1], cur[:, 2])
    se, z, p = vo.drop_test(auc, var, ref_auc, ref_var)
    assert (final["auc"], final["se"], final["z"], final["p_value"]) == pytest.approx(
        (auc, se, z, p), rel=1e-9)


def first_labeled(rows, n):
    """``[label, score, weight]`` of the first ``n`` predictions to get a label, as they
    stood when the ``n``-th got it (no prediction leaves the window before then)."""
    held, order = {}, []
    for r in rows:
        if r["score"] is not None and r["id"] not in held:
            held[r["id"]] = [None, r["score"], r["w"]]
        elif r["id"] not in held:
            continue                                # a label too late: dropped
        row = held[r["id"]]
        if r["score"] is not None:
            row[1] = r["score"]
        if r["label"] is not None and row[0] is None:
            row[0] = r["label"]
            order.append(r["id"])
            if len(order) == n:
                return [held[k] for k in order]
    raise AssertionError("fewer labeled predictions than the reference")


def test_late_labels_rescores_and_drops_are_counted(tmp_path):
    rows, last = make_events(2000, 3, window=200, too_late=10)
    path = write_csv(tmp_path / "ev.csv", rows)
    res = run([path, "--window", 200, "--every", 5000, "--format", "json"])
    assert res.exit_code == 0
    n_late = sum(1 for r in rows if r["score"] is None)
    n_too_late = sum(1 for r in rows if r.get("kind") == "too late")
    n_rescore = sum(1 for r in rows if r.get("kind") == "rescore")
    m = Monitor(window=200)
    for r in rows:
        m.observe(r["id"], score=r["score"], label=r["label"])
    st = m.stats
    assert st["dropped"] > 0 and st["late"] > 0 and st["rescored"] > 0
    assert st["late"] + st["dropped"] == n_late and st["dropped"] == n_too_late == 10
    assert 0.9 * n_rescore <= st["rescored"] <= n_rescore  # a few draw the same score
    assert (f"{st['labeled']} labeled ({st['late']} late), {st['rescored']} re-scored, "
            f"{st['dropped']} late dropped") in res.stderr
    assert_counts(last_json(res.stdout), m.counts)


def test_iso_timestamps_and_period_window(tmp_path):
    rng = np.random.default_rng(4)
    t0 = 1_700_000_000
    rows = []
    t = t0
    for i in range(1200):
        t += int(rng.integers(0, 30))
        ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
        y = int(rng.random() < 0.4)
        rows.append(dict(id=i, score=round(float(rng.normal(y, 1)), 2), label=y, ts=ts))
    path = write_csv(tmp_path / "t.csv", rows)
    res = run([path, "--time", "ts", "--period", "1h", "--every", 200, "--format", "json"])
    assert res.exit_code == 0, res.output
    final = last_json(res.stdout)
    m = Monitor(period=3600.0)
    for r in rows:
        sec = time.mktime(time.strptime(r["ts"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
        m.observe(str(r["id"]), score=r["score"], label=r["label"], time=sec)
    # one time format: ISO 8601 in every format, the POSIX seconds as time_epoch
    assert final["time_epoch"] == m.clock
    assert final["time"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(m.clock))
    assert_counts(final, m.counts)
    assert final["n"] < 1200  # the hour window has slid
    table = run([path, "--time", "ts", "--period", "1h", "--every", 600]).stdout
    iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert re.match(rf"\s+600  {iso} ", table.splitlines()[1])
    csv_out = run([path, "--time", "ts", "--period", "1h", "--every", 600,
                   "--format", "csv"]).stdout.splitlines()
    header = csv_out[0].split(",")
    assert header[:3] == ["events", "time", "time_epoch"]
    first = dict(zip(header, csv_out[1].split(",")))
    assert re.fullmatch(iso, first["time"]) and first["events"] == "600"
    assert time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(first["time_epoch"]))) \
        == first["time"]


def test_non_finite_values_are_strings_in_json_and_text_in_csv(tmp_path):
    """JSON has no literal for nan or inf: they are the strings "nan" / "inf"; CSV writes
    the same text; numeric times stay numbers (no time_epoch)."""
    path = write_csv(tmp_path / "one.csv", [dict(id=i, score=0.1 * i, label=1, ts=i)
                                          for i in range(40)])
    res = run([path, "--time", "ts", "--every", 20, "--format", "json"])
    assert res.exit_code == 0, res.output
    first = json.loads(res.stdout.splitlines()[0])
    assert first["auc"] == first["z"] == first["p_value"] == "nan"   # one class only
    assert first["time"] == 19 and "time_epoch" not in first
    csv_out = run([path, "--time", "ts", "--every", 20, "--format", "csv"]).stdout.splitlines()
    rec = dict(zip(csv_out[0].split(","), csv_out[1].split(",")))
    assert rec["auc"] == rec["p_value"] == "nan" and float(rec["time"]) == 19
    assert "time_epoch" not in rec


def test_no_id_column_uses_row_numbers_and_ordinal_labels(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 500)
    s = np.round(y + rng.normal(0, 1, 500), 1)
    path = tmp_path / "o.csv"
    path.write_text("label,score\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s)))
    res = run([path, "--window", 100, "--every", 100, "--format", "json"])
    assert res.exit_code == 0, res.output
    final = last_json(res.stdout)
    assert final["metric"] == "concordance"
    # the concordance test: window (the last 100 rows) against the first full window
    comp = auc_drop_test(*concordance_variance(y[-100:], s[-100:]),
                         *concordance_variance(y[:100], s[:100]))
    assert final["p_value"] == pytest.approx(comp.p_value, rel=1e-9)
    assert_counts(final, pair_counts(y[-100:], s[-100:]))
    # an explicit --id that is not there is an error
    res = run([path, "--id", "id"])
    assert res.exit_code == 2 and "no column 'id'" in res.stderr


# --------------------------------------------------------------------------- alerts, plot
def test_fail_on_alert_exit_codes_and_plot(tmp_path):
    rows, _ = make_events(4000, 6, window=400, collapse_at=2500)
    bad = write_csv(tmp_path / "collapse.csv", rows)
    png = tmp_path / "out.png"
    res = run([bad, "--window", 400, "--every", 100, "--fail-on-alert", "--plot", png])
    assert res.exit_code == 1, res.output
    assert "ALERT" in res.stdout and "alerts, first at event" in res.stderr
    data = png.read_bytes()
    assert data.startswith(PNG) and len(data) > 10_000
    import matplotlib.image as mpimg

    h, w = mpimg.imread(png).shape[:2]
    assert (h, w) == (600, 1000)
    # without --fail-on-alert the same stream exits 0
    assert run([bad, "--window", 400, "--every", 100]).exit_code == 0
    rows, _ = make_events(4000, 7, window=400)
    good = write_csv(tmp_path / "stationary.csv", rows)
    res = run([good, "--window", 400, "--every", 100, "--fail-on-alert", "--alpha", 0.001])
    assert res.exit_code == 0, res.output
    assert " 0 alerts" in res.stderr


# --------------------------------------------------------------------------- errors
GOOD = "id,score,label,ts\na,0.5,1,1\nb,0.25,0,2\n"


@pytest.mark.parametrize("text,args,where", [
    ("id,score,label\na,0.5,1\nb,nan,0\n", [], "line 3 (row 2), column 'score': 'nan': not a finite"),
    ("id,score,label\na,0.5,1\nb,abc,0\n", [], "line 3 (row 2), column 'score': 'abc': not a score"),
    ("id,score,label\na,0.5,yes\n", [], "line 2 (row 1), column 'label': 'yes': not a label"),
    ("id,score,label\na,0.5,1\nb,0.5\n", [], "line 3 (row 2): 'b,0.5': expected 3 fields, got 2"),
    ("id,score,label,w\na,0.5,1,-2\n", ["--weight", "w"], "line 2 (row 1), column 'w': '-2': a negative"),
    ("id,score,label,ts\na,0.5,1,x\n", ["--time", "ts"], "line 2 (row 1), column 'ts': 'x': not a number"),
    ("id,score,label,ts\na,0.5,1,5\nb,0.5,1,3\n", ["--time", "ts", "--period", "10"],
     "line 3 (row 2), column 'ts': must be at least the clock 5.0 for a new prediction "
     "(predictions arrive in time order). Got 3.0 instead."),
    ("id,score,label\na,0.5,1\nb,0.5,0\nc,0.5,2\n", ["--labels", "binary"],
     "line 4 (row 3), column 'label': must be one of at most two labels in all (labels='binary'). "
     "Got 2.0 with [0.0, 1.0] held instead."),
    ("id,score,label\n,0.5,1\n", [], "line 2 (row 1), column 'id': '': an empty id"),
])
def test_bad_rows_fail_with_their_location(tmp_path, text, args, where):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    res = run([path, *args])
    assert res.exit_code == 2, res.output
    assert f"Error: {path}, {where}" in res.stderr
    assert "--on-error skip" in res.stderr


@pytest.mark.parametrize("text,where", [
    ('{"id": "a", "score": 0.5, "label": 1}\n{"id": "b", "score": \n', "line 2: '{\"id\": \"b\""),
    ('{"id": "a", "score": 0.5, "label": 1}\n[1, 2]\n', "line 2: '[1, 2]': not a JSON object"),
    ('{"id": "a", "scor": 0.5, "label": 1}\n', "line 1: no field 'score' in the first object"),
    ('{"id": "a", "score": "x", "label": 1}\n', "line 1, column 'score': 'x': not a score"),
    ('{"id": "a", "score": 0.5, "label": [1]}\n', "line 1, column 'label': [1]: not a label"),
])
def test_bad_json_lines(tmp_path, text, where):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    res = run([path])
    assert res.exit_code == 2, res.output
    assert f"{path}, {where}" in res.stderr


@pytest.mark.parametrize("args,message", [
    (["--window", 10, "--period", "1h", "--time", "ts"], "--window and --period are exclusive"),
    (["--period", "1h"], "--period needs --time"),
    (["--period", "1x", "--time", "ts"], "a period must be a positive number"),
    (["--resume"], "--resume needs --checkpoint"),
    (["--window", 1], "Invalid value for '--window'"),
    (["--test", "wilcoxon"], "Invalid value for '--test'"),
    (["--score", "s"], "no column 's' (columns: id, score, label, ts)"),
    (["--format", "xml"], "Invalid value for '--format'"),
])
def test_usage_and_column_errors(tmp_path, args, message):
    path = tmp_path / "ok.csv"
    path.write_text(GOOD)
    res = run([path, *args])
    assert res.exit_code == 2, res.output
    assert message in res.stderr


def test_input_errors(tmp_path):
    res = run([tmp_path / "missing.csv"])
    assert res.exit_code == 2 and "missing.csv: no such file" in res.stderr
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    res = run([empty])
    assert res.exit_code == 2 and "no header line" in res.stderr
    res = run(["-", "--follow"], input=GOOD)
    assert res.exit_code == 2 and "--follow is for files" in res.stderr
    (tmp_path / "x.parquet").write_bytes(b"")
    res = run([tmp_path / "x.parquet", "--follow"])
    assert res.exit_code == 2 and "cannot follow a Parquet" in res.stderr
    ok = tmp_path / "ok.csv"
    ok.write_text(GOOD)
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"not a checkpoint")
    res = run([ok, "--checkpoint", junk, "--resume"])
    assert res.exit_code == 2 and "not a streamrank monitor checkpoint" in res.stderr


def test_bytes_that_are_not_utf8_are_a_bad_row(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"id,score,label\na,0.5,1\nb,0.25,\xe9\nc,0.75,0\n")
    res = run([path])
    assert res.exit_code == 2, res.output
    assert (f"{path}, line 3 (row 2): 'b,0.25,\ufffd': not UTF-8 text (invalid continuation byte "
            "at byte 7 of the line)") in res.stderr
    res = run([path, "--on-error", "skip", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "1 row skipped" in res.stderr and last_json(res.stdout)["n"] == 2
    path.write_bytes(b"id,sc\xf6re,label\na,0.5,1\n")
    res = run([path])
    assert res.exit_code == 2 and "the header line is not UTF-8 text" in res.stderr


def test_on_error_skip_counts_and_keeps_the_rest(tmp_path, stream):
    rows, last = stream
    text = csv_text(rows).splitlines(keepends=True)
    dirty = text[:11] + ["x1,nan,1,5\n"] + text[11:40] + ["x2,0.5,maybe,6\n", "x3,1\n"] \
        + text[40:]
    path = tmp_path / "dirty.csv"
    path.write_text("".join(dirty))
    res = run([path, "--window", 300, "--every", 100_000, "--format", "json",
               "--on-error", "skip"])
    assert res.exit_code == 0, res.output
    assert_counts(last_json(res.stdout), oracle_counts(last))
    assert "3 rows skipped" in res.stderr
    assert f"skipped {path}, line 12 (row 11), column 'score': 'nan'" in res.stderr
    assert f"skipped {path}, line 43 (row 42): 'x3,1': expected 4 fields" in res.stderr


def test_failure_keeps_what_was_counted_and_resumes_after_a_fix(tmp_path, stream):
    rows, last = stream
    text = csv_text(rows).splitlines(keepends=True)
    bad_line = text[1000].replace(",", ",nan#", 1)  # row 1000's score becomes bad
    path = tmp_path / "ev.csv"
    ckpt = tmp_path / "c.ckpt"
    path.write_text("".join(text[:1000] + [bad_line] + text[1001:]))
    res = run([path, "--window", 300, "--every", 100_000, "--format", "json",
               "--checkpoint", ckpt])
    assert res.exit_code == 2 and "line 1001 (row 1000), column 'score'" in res.stderr
    assert last_json(res.stdout)["events"] == 999  # the rows before it: reported
    meta, _ = read_checkpoint(ckpt)
    assert meta["rows"] == 999
    path.write_text("".join(text))  # the fix
    res = run([path, "--window", 300, "--every", 100_000, "--format", "json",
               "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output
    assert_counts(last_json(res.stdout), oracle_counts(last))
    assert last_json(res.stdout)["events"] == len(rows)


# --------------------------------------------------------------------------- checkpoints
def _full_run_record(path, args):
    res = run([path, *args])
    assert res.exit_code == 0, res.output
    return last_json(res.stdout), res.stderr.splitlines()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_resume_after_the_file_grew(tmp_path, stream, fmt):
    rows, last = stream
    writer = write_csv if fmt == "csv" else write_jsonl
    full = writer(tmp_path / f"full.{fmt}", rows)
    args = ["--window", 300, "--every", 400, "--format", "json", "--detector", "adwin"]
    want, want_summary = _full_run_record(full, args)
    # the first part, then the file grows and the run resumes
    data = full.read_bytes()
    cut = data.index(b"\n", len(data) // 3) + 1
    grow = tmp_path / f"grow.{fmt}"
    grow.write_bytes(data[:cut])
    ckpt = tmp_path / "c.ckpt"
    res = run([grow, *args, "--checkpoint", ckpt, "--checkpoint-every", 100])
    assert res.exit_code == 0, res.output
    first_part = last_json(res.stdout)["events"]
    assert first_part % 400, "the cut should fall between two --every reports"
    meta, _ = read_checkpoint(ckpt)
    assert meta["offset"] == cut
    grow.write_bytes(data)
    res = run([grow, *args, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output
    got = last_json(res.stdout)
    assert got == want
    # the first part's final, off-schedule report is not in the state resumed from: the
    # same reports (count, alerts) and the same detector input as one uninterrupted run
    assert res.stderr.splitlines() == want_summary
    assert_counts(got, oracle_counts(last))


def test_resume_on_stdin_skips_the_consumed_rows(tmp_path, stream):
    rows, _ = stream
    text = csv_text(rows)
    args = ["-", "--window", 300, "--every", 500, "--format", "json"]
    want = last_json(run(args, input=text).stdout)
    ckpt = tmp_path / "s.ckpt"
    part = "".join(text.splitlines(keepends=True)[:1235])
    res = run([*args, "--checkpoint", ckpt], input=part)
    assert res.exit_code == 0
    assert read_checkpoint(ckpt)[0]["rows"] == 1234
    res = run([*args, "--checkpoint", ckpt, "--resume"], input=text)
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    # a different header is refused
    res = run([*args, "--checkpoint", ckpt, "--resume"],
              input=text.replace("id,score,label,ts", "id,score,label,t2", 1))
    assert res.exit_code == 2 and "differs from the checkpoint" in res.stderr


def test_resume_without_a_checkpoint_starts_fresh_and_settings_come_from_it(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text(GOOD)
    ckpt = tmp_path / "none.ckpt"
    res = run([path, "--checkpoint", ckpt, "--resume", "--window", 50])
    assert res.exit_code == 0 and "starting from the beginning" in res.stderr
    assert ckpt.exists()
    # an option left out comes from the checkpoint; one that differs is an error ...
    assert run([path, "--checkpoint", ckpt, "--resume"]).exit_code == 0
    res = run([path, "--checkpoint", ckpt, "--resume", "--window", 70])
    assert res.exit_code == 2
    assert "--window 70: the checkpoint's run has --window 50" in res.stderr
    # ... unless forced: the checkpoint's monitor settings still win
    res = run([path, "--checkpoint", ckpt, "--force-resume", "--window", 70])
    assert res.exit_code == 0
    assert "--force-resume: --window 70: the checkpoint's run has --window 50" in \
        res.stderr
    # the file shrank under the checkpoint
    path.write_text("id,score,label,ts\n")
    res = run([path, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 2 and "truncated or replaced" in res.stderr


def test_checkpoint_writes_are_atomic(tmp_path, monkeypatch):
    target = tmp_path / "a.ckpt"
    write_checkpoint(target, b"first", {"rows": 1})
    assert read_checkpoint(target) == ({"rows": 1, "format": "streamrank.monitor.checkpoint",
                                        "version": VERSION, "state_bytes": 5, "state_sha256":
                                        hashlib.sha256(b"first").hexdigest()}, b"first")

    def boom(f, **arrays):
        f.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(OSError, match="disk full"):
        write_checkpoint(target, b"second", {"rows": 2})
    monkeypatch.undo()
    assert read_checkpoint(target)[1] == b"first"            # the old one, intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ckpt"]  # no temp file left


# --------------------------------------------------------------------------- subprocesses
CMD = [sys.executable, "-m", "streamrank.cli", "monitor"]


def _env():
    env = dict(os.environ)
    root = str(ROOT)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cli(*args, **kwargs):
    """``streamrank monitor ARGS`` as a subprocess, to completion."""
    return subprocess.run(CMD + [str(a) for a in args], capture_output=True, env=_env(),
                          timeout=120, **kwargs)


def spawn(*args, **kwargs):
    """``streamrank monitor ARGS`` as a running subprocess."""
    return subprocess.Popen(CMD + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(), **kwargs)


def _wait_for_checkpoint(ckpt, rows_at_least, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ckpt.exists():
            meta, _ = read_checkpoint(ckpt)   # atomic: never a half-written file
            if meta["rows"] >= rows_at_least:
                return meta
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no checkpoint in time")


def test_kill_and_resume_a_followed_file(tmp_path):
    rows, last = make_events(6000, 8, window=500)
    full = write_csv(tmp_path / "full.csv", rows)
    args = ["--window", 500, "--every", 700, "--format", "json", "--time", "ts"]
    want = last_json(cli(full, *args, text=True, check=True).stdout)
    data = full.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    live = tmp_path / "live.csv"
    live.write_bytes(data[:cut - 7])    # the last line is half written
    ckpt = tmp_path / "live.ckpt"
    proc = spawn(live, *args, "--follow", "--poll", 0.02, "--checkpoint", ckpt,
                 "--checkpoint-every", 250)
    try:
        with open(live, "ab") as f:     # the producer goes on a little, then we crash
            f.write(data[cut - 7:cut + 20_000])
        _wait_for_checkpoint(ckpt, 1500, proc)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    with open(live, "ab") as f:
        f.write(data[cut + 20_000:])
    res = cli(live, *args, "--checkpoint", ckpt, "--resume", text=True)
    assert res.returncode == 0, res.stderr
    got = last_json(res.stdout)
    assert got == want
    assert_counts(got, oracle_counts(last))


def test_kill_and_resume_a_slow_stdin_pipe(tmp_path):
    rows, last = make_events(4000, 9, window=400)
    text = csv_text(rows).encode()
    lines = text.splitlines(keepends=True)
    args = ["-", "--window", 400, "--every", 500, "--format", "json"]
    want = last_json(cli(*args, input=text, check=True).stdout.decode())
    ckpt = tmp_path / "pipe.ckpt"
    proc = spawn(*args, "--checkpoint", ckpt, "--checkpoint-every", 300,
                 stdin=subprocess.PIPE)
    try:
        for i in range(0, 2600, 100):      # a slow producer: 100 lines at a time
            proc.stdin.write(b"".join(lines[i:i + 100]))
            proc.stdin.flush()
            time.sleep(0.01)
        _wait_for_checkpoint(ckpt, 1800, proc)
        proc.send_signal(signal.SIGKILL)   # mid-stream: the pipe is still open
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
        proc.stdin.close()
    meta, _ = read_checkpoint(ckpt)
    assert 1800 <= meta["rows"] < 2600 and meta["offset"] is None
    res = cli(*args, "--checkpoint", ckpt, "--resume", input=text)
    assert res.returncode == 0, res.stderr
    got = last_json(res.stdout.decode())
    assert got == want
    assert_counts(got, oracle_counts(last))


def test_ctrl_c_stops_a_follow_cleanly(tmp_path):
    rows, last = make_events(1500, 10, window=200)
    path = write_csv(tmp_path / "f.csv", rows)
    png, ckpt = tmp_path / "f.png", tmp_path / "f.ckpt"
    proc = spawn(path, "--window", 200, "--every", 300, "--format", "json", "--follow",
                 "--poll", 0.02, "--plot", png, "--checkpoint", ckpt,
                 "--checkpoint-every", 100_000, text=True)
    try:
        last_report = len(rows) // 300 * 300
        line = ""
        while f'"events": {last_report},' not in line:
            line = proc.stdout.readline()   # reports arrive as the rows are read
            assert line, proc.communicate()
        time.sleep(0.3)                      # now it is polling at the end of the file
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped by SIGINT (Ctrl-C); " in err and f"{len(rows)} events" in err
    assert_counts(last_json(out), oracle_counts(last))   # the final report
    assert png.read_bytes().startswith(PNG)
    assert read_checkpoint(ckpt)[0]["rows"] == len(rows)
    # and --max-idle ends a follow by itself
    res = cli(path, "--window", 200, "--format", "json", "--follow", "--poll", 0.02,
              "--max-idle", 0.3, text=True)
    assert res.returncode == 0
    assert_counts(last_json(res.stdout), oracle_counts(last))


def test_help_lists_monitor():
    res = CliRunner().invoke(main, ["--help"])
    assert "monitor" in res.stdout
    res = CliRunner().invoke(main, ["monitor", "--help"])
    assert res.exit_code == 0 and "--checkpoint-every" in res.stdout


def test_a_closed_stdout_stops_the_run_cleanly(tmp_path):
    """``streamrank monitor ... | head -1``: when the reader of stdout leaves, the run
    stops between rows as on a signal (checkpoint and summary written, the exit code as
    at the end of the input), without a traceback or a false read error."""
    rows, _ = make_events(3000, 8, window=300)
    path = write_csv(tmp_path / "e.csv", rows)
    ckpt = tmp_path / "m.ckpt"
    # a report per event: more output than a pipe buffers, so a write meets the closed pipe
    proc = subprocess.Popen([*CMD, str(path), "--window", "300", "--every", "1",
                             "--checkpoint", str(ckpt)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env())
    proc.stdout.readline()              # the header, then the reader leaves
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "standard output was closed" in err and "Traceback" not in err
    assert "cannot read" not in err and ckpt.exists()
    events = int(re.search(r"stopped after event (\d+)", err).group(1))
    assert 0 < events < len(rows)
    assert re.search(rf"monitor: {events} events?,", err)


@pytest.mark.parametrize("n", [4000, 4050])     # ends on an --every boundary, or not
def test_resuming_with_no_new_rows_repeats_no_report(tmp_path, n):
    """A resumed run that reads no new row prints nothing (not the header, not the first
    run's last report, made after its checkpoint): its reports, alerts and exit code are
    those of the one run."""
    rows = make_events(3100, 9, window=300, collapse_at=1500)[0][:n]
    path = write_csv(tmp_path / "e.csv", rows)
    ckpt = tmp_path / "m.ckpt"
    base = [path, "--window", 300, "--every", 250, "--checkpoint", ckpt, "--fail-on-alert",
            "--format", "json"]
    first = run(base)
    again = run([*base, "--resume"])
    summary = re.compile(r"(\d+) reports, (\d+) alerts")
    assert first.exit_code == again.exit_code == 1, again.output
    assert summary.search(again.stderr).groups() == summary.search(first.stderr).groups()
    assert first.stdout.count("\n") == len(rows) // 250 + (len(rows) % 250 > 0)
    assert again.stdout == ""


def test_a_prediction_back_in_time_is_named_in_iso_8601_when_the_input_is(tmp_path):
    path = tmp_path / "back.csv"
    path.write_text("id,ts,score,label\n1,2026-01-01T00:10:00,0.4,1\n"
                    "2,2026-01-01T00:05:00,0.3,0\n")
    res = run([path, "--time", "ts", "--period", "1h"])
    assert res.exit_code == 2
    assert ("line 3 (row 2), column 'ts': must be at least the clock 2026-01-01T00:10:00Z"
            in res.stderr and "Got 2026-01-01T00:05:00Z instead" in res.stderr), res.stderr


def test_the_summary_says_when_the_reference_cannot_be_tested_and_history_was_trimmed(
        tmp_path):
    rows, _ = make_events(3000, 10, window=300, collapse_at=1500)
    path = write_csv(tmp_path / "e.csv", rows)
    res = run([path, "--window", 300, "--every", 100, "--max-history", 1])
    assert "alerts, the first kept (--max-history) at event" in res.stderr, res.stderr
    # labels that lag a window of 3 by 10 predictions: the reference holds one class
    lag = tmp_path / "lag.csv"
    lines = [f"{i},0.{i % 10}," for i in range(40)] + [f"{i},,{i % 2}" for i in range(40)]
    lag.write_text("id,score,label\n" + "\n".join(lines) + "\n")
    res = run([lag, "--window", 3, "--min-window", 2])
    assert res.exit_code == 0 and "no test can run against it" in res.stderr, res.stderr
