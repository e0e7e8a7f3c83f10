"""``streamrank monitor --label-wait N|DURATION``: labels before their prediction.

A file whose labels were moved before their predictions (as a log shipper may reorder
lines) gives, with a wait, exactly the reports of the ordered file read without one; the
JSON and CSV lines, the summary and the metrics say what joined, what never matched and
what waits; a checkpoint carries the waiting labels; bad values exit 2.
"""

import csv
import io
import json
import random

import pytest
from test_cli_monitor import last_json, run

from streamrank.monitor import Monitor

WAIT_KEYS = ("joined", "waiting")      # (unmatched is a column of every report)


def _rows(n=600, seed=3):
    """An ordered stream: each prediction, then its label 0-3 predictions later."""
    rnd = random.Random(seed)
    rows, due = [], []
    for i in range(n):
        y = int(rnd.random() < 0.4)
        s = round(rnd.gauss(0.8 * y, 1), 3)
        rows.append({"id": i, "score": s, "ts": i // 10})
        if rnd.random() < 0.9:
            due.append([rnd.randint(0, 3), i, y])
        for d in due:
            if d[0] == 0:
                rows.append({"id": d[1], "label": d[2], "ts": i // 10})
            d[0] -= 1
        due = [d for d in due if d[0] >= 0]
    return rows


def _reorder(rows, block=8, seed=5, window=100):
    """Labels moved before the predictions of their block (predictions keep order),
    but in the block of the first eviction (the reference freezes then)."""
    rnd = random.Random(seed)
    out, seen = [], 0
    for start in range(0, len(rows), block):
        chunk = rows[start:start + block]
        preds = [r for r in chunk if "score" in r]
        labels = [r for r in chunk if "score" not in r]
        rnd.shuffle(labels)
        out += chunk if seen <= window < seen + len(preds) else labels + preds
        seen += len(preds)
    return out


def _write(path, rows):
    with open(path, "w", newline="") as f:
        f.write("id,score,label,ts\n")
        for r in rows:
            f.write(",".join("" if r.get(k) is None else str(r[k])
                             for k in ("id", "score", "label", "ts")) + "\n")
    return path


def _json_lines(stdout):
    return [json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")]


ARGS = ["--window", 100, "--every", 8, "--format", "json", "--test", "delong"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wait")
    rows = _rows()
    return _write(tmp / "ordered.csv", rows), _write(tmp / "reordered.csv", _reorder(rows))


@pytest.mark.parametrize("wait", [["--label-wait", 8], ["--label-wait", "2s", "--time",
                                                         "ts"]])
def test_a_reordered_file_with_a_wait_reports_as_the_ordered_one(files, wait):
    ordered, reordered = files
    base = ARGS + (["--time", "ts"] if "--time" in wait else [])
    want = run([ordered, *base])
    assert want.exit_code == 0, want.output
    assert " 0 late dropped" in want.stderr
    lossy = run([reordered, *base])
    # without a wait the early labels are unmatched (not late), and the summary gives
    # the wait that would have joined them: counted from the file by a plain loop
    rows = list(csv.DictReader(open(reordered)))
    first = {}
    for i, r in enumerate(rows):
        first.setdefault((r["id"], bool(r["score"])), i)
    leads = [first[(k, True)] - i for (k, scored), i in first.items()
             if not scored and i < first[(k, True)]]
    assert leads and " 0 late dropped" in lossy.stderr
    assert (f"{len(leads)} unmatched" in lossy.stderr and f"unmatched: {len(leads)} labels"
            f" met no prediction; all came before their prediction, up to {max(leads)} "
            f"events ahead: --label-wait {max(leads)} would join them") in lossy.stderr
    assert _json_lines(lossy.stdout)[-1]["unmatched"] == len(leads)
    got = run([reordered, *ARGS, *wait])
    assert got.exit_code == 0, got.output
    want_lines, got_lines = _json_lines(want.stdout), _json_lines(got.stdout)
    assert len(want_lines) == len(got_lines)
    for w, g in zip(want_lines, got_lines):
        # at every block end (8 events) the window, counts and test are the same
        assert {k: v for k, v in g.items() if k not in WAIT_KEYS} == w
        assert g["waiting"] == 0 and g["unmatched"] == 0
    assert got_lines[-1]["joined"] > 0
    assert " 0 late dropped" in got.stderr
    assert f"{got_lines[-1]['joined']} joined, 0 unmatched" in got.stderr
    assert set(WAIT_KEYS).isdisjoint(want_lines[0])   # no wait: the lines are as before


def test_csv_lines_and_the_summary_show_what_never_matched(tmp_path):
    path = _write(tmp_path / "e.csv", [
        {"id": "b", "label": 1}, {"id": "a", "score": 0.9}, {"id": "b", "score": 0.2},
        {"id": "x", "label": 0}, {"id": "c", "score": 0.4, "label": 0},
        {"id": "d", "score": 0.3}, {"id": "e", "score": 0.5, "label": 1},
        {"id": "y", "label": 1}])
    res = run([path, "--label-wait", 2, "--every", 4, "--format", "csv", "--min-window", 2])
    assert res.exit_code == 0, res.output
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(table[0])[-2:] == list(WAIT_KEYS)
    assert [(r["events"], r["joined"], r["unmatched"], r["waiting"]) for r in table] == [
        ("4", "1", "0", "1"), ("8", "1", "1", "1")]
    assert "label wait 2 events: 1 joined, 1 unmatched (never met their prediction), " \
           "1 waiting" in res.stderr


def test_a_checkpoint_carries_the_waiting_labels(tmp_path, files):
    _, reordered = files
    args = [*ARGS, "--label-wait", 8, "--every", 50]
    want = run([reordered, *args])
    data = reordered.read_bytes()
    ckpt = tmp_path / "w.ckpt"
    probe = Monitor(window=100, label_wait=8)
    cuts = []
    for i, r in enumerate(csv.DictReader(io.StringIO(reordered.read_text())), 1):
        probe.observe(int(r["id"]), score=float(r["score"]) if r["score"] else None,
                      label=int(r["label"]) if r["label"] else None)
        if i > 300 and probe.waiting and len(cuts) < 2:
            cuts.append(i + 1)      # with the header line
    for cut_row in cuts:        # labels waiting at the checkpoint
        lines = data.splitlines(keepends=True)
        part = tmp_path / "part.csv"
        part.write_bytes(b"".join(lines[:cut_row]))
        if ckpt.exists():
            ckpt.unlink()
        res = run([part, *args, "--checkpoint", ckpt])
        assert res.exit_code == 0, res.output
        from streamrank.monitor.checkpoint import load_checkpoint

        _, mon = load_checkpoint(ckpt)
        assert mon.waiting > 0 and mon.label_wait == 8
        part.write_bytes(data)
        res = run([part, *args, "--checkpoint", ckpt, "--resume"])
        assert res.exit_code == 0, res.output
        assert last_json(res.stdout) == last_json(want.stdout)
        assert res.stderr.splitlines() == want.stderr.splitlines()
    # another --label-wait on resume: refused, listing the difference
    res = run([part, *args[:-4], "--label-wait", "9", "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 2
    assert "--label-wait 9: the checkpoint's run has --label-wait 8" in res.stderr
    res = run([part, *args, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("value, message", [
    ("0", "a wait must be at least 1 event"),
    ("-3", "a wait is a number of events"),
    ("1.5", "a wait is a number of events"),
    ("abc", "a wait is a number of events"),
    ("0s", "a wait is a number of events"),
    ("15x", "a wait is a number of events"),
])
def test_a_bad_label_wait_exits_2(tmp_path, value, message):
    path = _write(tmp_path / "e.csv", [{"id": 1, "score": 0.5, "ts": 0}])
    res = run([path, "--label-wait", value, "--time", "ts"])
    assert res.exit_code == 2 and message in res.stderr and "Traceback" not in res.output
    assert "--label-wait" in res.stderr


def test_a_duration_needs_time(tmp_path):
    path = _write(tmp_path / "e.csv", [{"id": 1, "score": 0.5, "ts": 0}])
    res = run([path, "--label-wait", "15m"])
    assert res.exit_code == 2 and "needs --time" in res.stderr


def test_the_metrics_endpoint_exposes_the_wait():
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.parser import text_string_to_metric_families

    from streamrank.cli._monitor_metrics import Collector

    mon = Monitor(window=10, min_window=2, label_wait=2)
    for key, kw in [("x", {"label": 1}), ("y", {"label": 0}), ("x", {"score": 0.3}),
                    ("z", {"score": 0.1}), ("w", {"label": 1})]:
        mon.observe(key, **kw)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector(mon, lambda: 0, "m"))
    samples = {s.name: s.value for f in text_string_to_metric_families(
        generate_latest(registry).decode()) for s in f.samples}
    assert samples["streamrank_joined_labels_total"] == 1
    assert samples["streamrank_unmatched_labels_total"] == 1
    assert samples["streamrank_waiting_labels"] == 1
