"""``streamrank monitor --segment COL``: one window per segment value. The final
per-segment AUCs against sklearn on the segment's last W predictions, the total line
against group_auc_score, every output format, resume equals an uninterrupted run, the
plot, --fail-on-alert, the metrics endpoint with its segment label, bad input."""

import json
import math
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sklearn.metrics import roc_auc_score
from test_cli_monitor import PNG, make_events, run, write_csv, write_jsonl

from streamrank import group_auc_score
from streamrank.monitor import SegmentedMonitor
from streamrank.monitor.checkpoint import read_checkpoint

FIELDS = ("id", "score", "label", "ts", "dev")
W = 60


def segmented_events(n=900, seed=5, collapse_at=None, segments="abc"):
    """make_events' rows with a segment column ``dev`` on prediction rows only (the label
    rows leave it empty, as label logs do)."""
    rows, _ = make_events(n, seed, window=W, collapse_at=collapse_at, too_late=0,
                          rescore=0.05)
    seen = set()
    for r in rows:
        first = r["id"] not in seen and r["score"] is not None
        seen.add(r["id"])
        r["dev"] = segments[int(r["id"][1:]) % len(segments)] if first else None
    return rows


def final_windows(rows):
    """segment -> [(label, score)] of the labeled among its last W predictions, their
    final label and score (the rows keep every late event within W predictions)."""
    state, order = {}, {}
    for r in rows:
        k = r["id"]
        if k not in state:
            state[k] = [None, None]
            order.setdefault(r["dev"], []).append(k)
        if r["score"] is not None:
            state[k][1] = r["score"]
        if r["label"] is not None:
            state[k][0] = r["label"]
    return {g: [tuple(state[k]) for k in keys[-W:] if state[k][0] is not None]
            for g, keys in order.items()}


def json_lines(stdout):
    return [json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")]


@pytest.fixture(scope="module")
def rows():
    return segmented_events()


def test_final_segment_windows_match_sklearn_and_the_total_group_auc(tmp_path, rows):
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    res = run([path, "--segment", "dev", "--window", W, "--every", 200, "--format",
               "json", "--min-window", 10])
    assert res.exit_code == 0, res.output
    lines = json_lines(res.stdout)
    last = [x for x in lines if x["events"] == lines[-1]["events"]]
    assert [x["segment"] for x in last] == ["a", "b", "c", None]
    wins = final_windows(rows)
    ys, ss, gs = [], [], []
    for x in last[:-1]:
        y, s = zip(*wins[x["segment"]])
        assert x["n"] == len(y)
        assert x["auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        ys += y
        ss += s
        gs += [x["segment"]] * len(y)
    total = last[-1]
    assert total["metric"] == "gauc" and total["n"] == len(ys)
    assert total["auc"] == pytest.approx(group_auc_score(ys, ss, gs), abs=1e-12)
    # a line per segment and a total per report
    reports = sorted({x["events"] for x in lines})
    assert len(lines) == 4 * len(reports)
    assert "3 segments (max 64); holm correction; group AUC" in res.stderr


def test_every_format_has_the_segment_column(tmp_path, rows):
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    base = [path, "--segment", "dev", "--window", W, "--every", 300]
    as_json = json_lines(run([*base, "--format", "json"]).stdout)
    csv_out = run([*base, "--format", "csv"]).stdout.splitlines()
    header = csv_out[0].split(",")
    assert header[:3] == ["events", "time", "segment"] and "p_adjusted" in header
    assert len(csv_out) == 1 + len(as_json)
    for line, rec in zip(csv_out[1:], as_json):
        cells = dict(zip(header, line.split(",")))
        assert cells["segment"] == ("" if rec["segment"] is None else rec["segment"])
        assert cells["events"] == str(rec["events"])
    table = run(base).stdout.splitlines()
    assert table[0].split()[:3] == ["events", "segment", "n"]
    assert sum("(total)" in ln for ln in table) == sum(r["segment"] is None
                                                       for r in as_json)
    # JSON lines input, same numbers
    jpath = tmp_path / "e.jsonl"
    write_jsonl(jpath, rows, FIELDS)
    again = json_lines(run([jpath, *base[1:], "--format", "json"]).stdout)
    assert again == as_json


def test_resume_equals_an_uninterrupted_run(tmp_path, rows):
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    text = path.read_text().splitlines(keepends=True)
    part = tmp_path / "live.csv"
    cut = len(text) // 2
    part.write_text("".join(text[:cut]))
    ckpt = tmp_path / "m.ckpt"
    args = ["--segment", "dev", "--window", W, "--every", 100, "--format", "json",
            "--max-segments", 2, "--correction", "bonferroni", "--checkpoint", ckpt]
    full = run([path, *args[:-2]])
    first = run([part, *args])
    assert first.exit_code == 0, first.output
    meta, _ = read_checkpoint(ckpt)
    assert meta["segmented"] is True and meta["columns"]["segment"] == "dev"
    with open(part, "a") as f:
        f.write("".join(text[cut:]))
    # the options left out come from the checkpoint (--segment too)
    second = run([part, "--window", W, "--every", 100, "--format", "json",
                  "--checkpoint", ckpt, "--resume"])
    assert second.exit_code == 0, second.output
    whole = json_lines(full.stdout)
    got = json_lines(first.stdout)
    got = [x for x in got if x["events"] % 100 == 0] + json_lines(second.stdout)
    assert got == whole
    assert second.stderr.splitlines()[-4:] == full.stderr.splitlines()[-4:]
    assert f"+ {SegmentedMonitor.OTHER}" in full.stderr
    # another --max-segments, or --segment on another column: refused, listed
    res = run([part, "--checkpoint", ckpt, "--resume", "--max-segments", 5])
    assert res.exit_code == 2 and "--max-segments 5: the checkpoint's run has " \
        "--max-segments 2" in res.stderr
    res = run([part, "--checkpoint", ckpt, "--resume", "--segment", "ts"])
    assert res.exit_code == 2 and "--segment is 'ts'" in res.stderr


def test_plot_and_fail_on_alert(tmp_path):
    rows = segmented_events(1500, 9, collapse_at=900)
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    png = tmp_path / "seg.png"
    res = run([path, "--segment", "dev", "--window", 150, "--every", 150, "--plot", png,
               "--fail-on-alert", "--format", "json"])
    assert res.exit_code == 1, res.output
    assert png.read_bytes()[:8] == PNG
    lines = json_lines(res.stdout)
    assert any(x["alert"] for x in lines if x["segment"] is not None)
    assert all(x["alert"] == (isinstance(x["p_adjusted"], float) and x["p_adjusted"] < 0.01)
               for x in lines if x["segment"] is not None)
    assert "segment a:" in res.stderr and "alerts, first at event" in res.stderr


@pytest.mark.parametrize("text, where", [
    ("id,score,label,dev\na,0.5,1,\n", "line 2 (row 1), column 'dev'"),
    ("id,score,label,dev\na,0.5,,x\na,,1,y\n", "line 3 (row 2), column 'dev'"),
])
def test_bad_segment_cells_fail_with_their_location(tmp_path, text, where):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    res = run([path, "--segment", "dev"])
    assert res.exit_code == 2 and where in res.stderr and "Traceback" not in res.output
    res = run([path, "--segment", "dev", "--on-error", "skip"])
    assert res.exit_code == 0 and "1 row skipped" in res.stderr


def test_bad_segment_options(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("id,score,label,dev\na,0.5,1,x\n")
    res = run([path, "--max-segments", 3])
    assert res.exit_code == 2 and "--max-segments needs --segment" in res.output
    res = run([path, "--segment", "nope"])
    assert res.exit_code == 2 and "no column 'nope'" in res.stderr
    res = run([path, "--segment", "label"])
    assert res.exit_code == 2 and "--label and --segment name the same column" in res.output
    jpath = tmp_path / "e.jsonl"
    jpath.write_text('{"id": "a", "score": 0.5, "dev": [1]}\n')
    res = run([jpath, "--segment", "dev"])
    assert res.exit_code == 2 and "not a segment value" in res.stderr


def test_the_metrics_endpoint_has_a_segment_label(tmp_path, rows):
    from streamrank.cli._monitor_metrics import serve_metrics

    m = SegmentedMonitor(window=W, min_window=10)
    for r in rows:
        m.observe(r["id"], segment=r["dev"], score=r["score"], label=r["label"])
    rep = m.report()
    server = serve_metrics(m, lambda: 2, "127.0.0.1", 0, "ranker")
    try:
        port = server.server_address[1]
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                      timeout=10).read().decode()
    finally:
        server.shutdown()
        server.server_close()
    samples = {(s.name, s.labels.get("segment")): s.value
               for fam in text_string_to_metric_families(text) for s in fam.samples}
    for seg in "abc":
        assert samples[("streamrank_window_auc", seg)] == rep[seg].auc
        assert samples[("streamrank_window_labeled", seg)] == rep[seg].n
        assert samples[("streamrank_events_total", seg)] == m.unit(seg).stats["events"]
    assert samples[("streamrank_window_gauc", None)] == rep.gauc
    assert samples[("streamrank_stream_events_total", None)] == len(rows)
    assert samples[("streamrank_skipped_rows_total", None)] == 2
    # and the command serves it (its address on stderr)
    path = tmp_path / "e.csv"
    write_csv(path, rows[:50], FIELDS)
    res = run([path, "--segment", "dev", "--metrics-port", 0])
    assert res.exit_code == 0 and "/metrics" in res.stderr


def test_the_library_and_the_command_agree(tmp_path, rows):
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    lines = json_lines(run([path, "--segment", "dev", "--window", W, "--every", 250,
                            "--format", "json", "--min-window", 10]).stdout)
    m = SegmentedMonitor(window=W, min_window=10)
    reports = []
    for i, r in enumerate(rows, 1):
        m.observe(r["id"], segment=r["dev"], score=r["score"], label=r["label"])
        if i % 250 == 0:
            reports.append(m.report())
    reports.append(m.report())
    expect = [row for rep in reports for row in rep.rows()]
    assert len(expect) == len(lines)
    for got, want in zip(lines, expect):
        for k, v in got.items():
            w = want[k]
            if isinstance(w, float) and not math.isfinite(w):
                assert v == str(w), k     # "nan", "inf": JSON strings
            else:
                assert v == w, k


def test_follow_mode_reads_the_same_lines(tmp_path, rows):
    path = tmp_path / "e.csv"
    write_csv(path, rows[:400], FIELDS)
    args = [path, "--segment", "dev", "--window", W, "--every", 100, "--format", "json"]
    plain = run(args)
    followed = run([*args, "--follow", "--max-idle", 0.2, "--poll", 0.02])
    assert followed.exit_code == 0, followed.output
    assert json_lines(followed.stdout) == json_lines(plain.stdout)


def test_a_run_stopped_by_a_bad_row_resumes_after_the_fix(tmp_path, rows):
    """Stopped mid-stream (a prediction without its segment), checkpointed before the
    row; the fixed file resumed: the reports are an uninterrupted run's."""
    path = tmp_path / "e.csv"
    write_csv(path, rows, FIELDS)
    good = path.read_text()
    lines = good.splitlines(keepends=True)
    k = next(i for i in range(500, len(lines)) if lines[i].rstrip("\n").endswith(",a"))
    path.write_text("".join(lines[:k] + [lines[k][:-2] + "\n"] + lines[k + 1:]))
    ckpt = tmp_path / "m.ckpt"
    args = ["--segment", "dev", "--window", W, "--every", 100, "--format", "json",
            "--checkpoint", ckpt, "--checkpoint-every", 97]
    first = run([path, *args])
    assert first.exit_code == 2 and f"line {k + 1} (row {k}), column 'dev'" in first.stderr
    assert read_checkpoint(ckpt)[0]["rows"] == k - 1
    path.write_text(good)
    second = run([path, *args, "--resume"])
    assert second.exit_code == 0, second.output
    full = run([path, *args[:-4]])
    got = [x for x in json_lines(first.stdout) if x["events"] % 100 == 0]
    assert got + json_lines(second.stdout) == json_lines(full.stdout)
    assert second.stderr.splitlines()[-5:] == full.stderr.splitlines()[-5:]
