"""``streamrank monitor --metrics-port``: a real Prometheus scrape of a running monitor, and
`Monitor.metrics` against the monitor's own report.

A followed monitor is started as a subprocess on a free port (``--metrics-port 0``, the
port read from its stderr); rows are appended to its file; ``/metrics`` is read over HTTP
and parsed with ``prometheus_client``'s own parser; the gauges must equal the last printed
report and the counters the rows fed.
"""

import json
import math
import re
import subprocess
import queue
import signal
import threading
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from test_cli_monitor import CMD, _env, csv_text, make_events, run

from streamrank.monitor import Monitor

EVERY = 50
GAUGES = {"streamrank_window_auc": "auc", "streamrank_window_auc_low": "auc_low",
          "streamrank_window_auc_high": "auc_high",
          "streamrank_reference_auc": "reference_auc", "streamrank_p_value": "p_value",
          "streamrank_window_labeled": "n", "streamrank_window_pending": "pending"}
COUNTERS = ("streamrank_events", "streamrank_predictions", "streamrank_labels",
            "streamrank_rescored", "streamrank_late_dropped", "streamrank_skipped_rows",
            "streamrank_alerts")


class _Lines:
    """The lines of a subprocess' pipe, read by a thread (a select on a buffered pipe
    misses the lines already in its buffer); `next` fails, not hangs, after a timeout."""

    def __init__(self, stream):
        self._queue = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in iter(stream.readline, b""):
            self._queue.put(line.decode())
        self._queue.put(None)

    def next(self, timeout=30.0):
        line = self._queue.get(timeout=timeout)
        assert line is not None, "the monitor ended early"
        return line

    def rest(self):
        lines = []
        while (line := self._queue.get(timeout=30)) is not None:
            lines.append(line)
        return "".join(lines)


def spawn(*args):
    """``streamrank monitor ARGS`` running, its stdout unbuffered (each report is read as
    it is printed: a pipe is block-buffered otherwise)."""
    env = {**_env(), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(CMD + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)


def stop(proc):
    """SIGTERM (the monitor's clean stop) and its end."""
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def kill(proc):
    """SIGKILL if it still runs (a test that failed before `stop`)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        assert resp.status == 200
        text = resp.read().decode()
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("streamrank_"):
                out[sample.name] = (sample.value, sample.labels)
    return out


def _same(got, want):
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return math.isnan(got)
    return got == pytest.approx(want, rel=1e-12, abs=1e-15)


def _check(metrics, report, stats, model):
    for name, key in GAUGES.items():
        value, labels = metrics[name]
        assert labels == {"model": model}
        assert _same(value, report[key]), (name, value, report[key])
    for name in COUNTERS:
        value, labels = metrics[name + "_total"]
        assert labels == {"model": model}
        assert value == stats[name[len("streamrank_"):]], name


def _expected_stats(rows):
    """The rows counted by hand: events, predictions (distinct ids), labels."""
    seen, labels = set(), 0
    for r in rows:
        labels += r.get("label") is not None
        seen.add(r["id"])
    return {"events": len(rows), "predictions": len(seen), "labels": labels}


def test_a_scrape_of_a_followed_monitor_matches_its_reports(tmp_path):
    rows, _ = make_events(600, 7, window=120, rescore=0.0, too_late=0)
    lines = csv_text(rows).splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    first = 6 * EVERY                                # rows in the file at the start
    live = tmp_path / "live.csv"
    live.write_text(header + "".join(body[:first]))
    proc = spawn(live, "--follow", "--poll", 0.02, "--max-idle", 20, "--time", "ts",
                 "--window", 120, "--every", EVERY, "--format", "json",
                 "--metrics-port", 0, "--name", "ranker-7")
    out, errs = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        found = re.search(r"metrics on http://127\.0\.0\.1:(\d+)/metrics", errs.next())
        assert found
        port = int(found.group(1))
        last = len(body) // EVERY * EVERY          # a report is printed at each
        for fed in (first, last):
            if fed > first:
                with open(live, "a") as f:
                    f.write("".join(body[first:fed]))
            # a report every EVERY events: wait for the one at `fed`
            while True:
                report = json.loads(out.next())
                if report["events"] == fed:
                    break
            metrics = _scrape(port)
            want = _expected_stats(rows[:fed])
            stats = {**want, "rescored": 0, "late_dropped": 0, "skipped_rows": 0,
                     "alerts": metrics["streamrank_alerts_total"][0]}
            _check(metrics, report, stats, "ranker-7")
            assert report["n"] > 0 and not math.isnan(metrics["streamrank_window_auc"][0])
        stop(proc)
    finally:
        kill(proc)
    err = errs.rest()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped by SIGTERM; " in err
    n_pred = _expected_stats(rows[:last])["predictions"]
    assert f"{last} events, {n_pred} predictions" in err


def test_alerts_and_skipped_rows_are_counted(tmp_path):
    # the scores collapse after the reference: alerts; one bad row: skipped
    rows, _ = make_events(900, 3, window=150, collapse_at=450, too_late=3)
    lines = csv_text(rows).splitlines(keepends=True)
    lines.insert(200, "zz,not-a-number,1,199.5\n")
    live = tmp_path / "events.csv"
    live.write_text("".join(lines))
    proc = spawn(live, "--follow", "--poll", 0.02, "--max-idle", 20, "--time", "ts",
                 "--window", 150, "--every", EVERY, "--format", "json",
                 "--on-error", "skip", "--metrics-port", 0)
    out, errs = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        while True:
            found = re.search(r":(\d+)/metrics", errs.next())
            if found:
                break
        port = int(found.group(1))
        fired = 0
        while True:     # the last report on the --every schedule
            last = json.loads(out.next())
            fired += last["alert"] or last["drift"]
            if last["events"] == len(rows) // EVERY * EVERY:
                break
        deadline = time.monotonic() + 20
        while True:     # every row read (the counters count them as they come)
            metrics = _scrape(port)
            if metrics["streamrank_events_total"][0] == len(rows):
                break
            assert time.monotonic() < deadline, metrics["streamrank_events_total"]
            time.sleep(0.05)
        stop(proc)
    finally:
        kill(proc)
    summary = errs.rest()
    assert proc.returncode == 0, summary
    assert fired > 0 and int(re.search(r"(\d+) alerts", summary).group(1)) >= fired
    assert metrics["streamrank_skipped_rows_total"][0] == 1
    assert metrics["streamrank_alerts_total"][0] == fired
    assert metrics["streamrank_events_total"][0] == len(rows)
    for key, name in (("re-scored", "rescored"), ("late dropped", "late_dropped")):
        count = int(re.search(rf"(\d+) {key}", summary).group(1))
        assert metrics[f"streamrank_{name}_total"][0] == count
    assert metrics["streamrank_late_dropped_total"][0] > 0
    assert metrics["streamrank_window_auc"][1] == {"model": "model"}
    assert _same(metrics["streamrank_window_auc"][0], last["auc"])
    with pytest.raises(OSError):     # the server is shut down with the run
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)


def test_metrics_of_the_monitor_equal_its_report_and_stats():
    rows, _ = make_events(800, 11, window=200, too_late=5)
    mon = Monitor(window=200, test="delong")
    before = mon.metrics()
    assert math.isnan(before["window_auc"]) and before["window_labeled"] == 0
    assert before["events"] == 0
    for i, r in enumerate(rows, 1):
        mon.observe(r["id"], score=r.get("score"), label=r.get("label"), time=r.get("ts"))
        if i % 100 == 0:
            rep = mon.report()
            m = mon.metrics()
            assert m["window_auc"] == rep.auc and _same(m["p_value"], rep.p_value)
            assert (m["window_auc_low"], m["window_auc_high"]) == (rep.low, rep.high)
            assert _same(m["reference_auc"], rep.reference_auc)
            assert (m["window_labeled"], m["window_pending"]) == (rep.n, rep.pending)
            st = mon.stats
            assert (m["events"], m["predictions"], m["labels"], m["rescored"],
                    m["late_dropped"], m["alerts"]) == (
                st["events"], st["predictions"], st["labeled"], st["rescored"],
                st["dropped"], st["alerts"])
    assert m["late_dropped"] > 0 and m["rescored"] > 0 and not math.isnan(m["p_value"])
    rep = mon.report()
    mon.observe("new", score=0.5)            # no report since: the report's readings stay
    m = mon.metrics()
    assert m["window_pending"] == rep.pending and m["window_auc"] == rep.auc
    assert m["events"] == rep.events + 1 == len(rows) + 1   # the counters move on


def test_bad_metrics_options_exit_2(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("id,score,label\na,0.5,1\n")
    res = run([path, "--metrics-host", "127.0.0.1"])
    assert res.exit_code == 2 and "--metrics-host needs --metrics-port" in res.output
    res = run([path, "--metrics-port", 70000])
    assert res.exit_code == 2 and "--metrics-port" in res.output
    res = run([path, "--metrics-port", 0, "--metrics-host", "no-such-host.invalid"])
    assert res.exit_code == 2 and "cannot serve the metrics" in res.output
    assert "Traceback" not in res.output


def test_every_scrape_is_of_a_moment_between_two_events(tmp_path):
    """Scraped as fast as it answers while the monitor reads 60,000 rows (new
    predictions, their labels 5 rows later, labels of ids that left the window or that
    it never saw): in every scrape the counters add up, ``events = predictions + labels
    + late_dropped + unmatched_labels`` (the command holds one lock around each event
    and each scrape; without it a scrape lands inside an event, between two counts)."""
    n = 60_000
    lines = ["id,score,label,ts\n"]
    for i in range(n // 2):
        lines.append(f"p{i},{(i * 37 % 101) / 100},,{i}\n")
        if i % 100 == 0 or i < 5:
            j = -i - 1              # a label for an id never seen
        elif i % 50 == 0 and i >= 600:
            j = i - 600             # for an id that left the window (500 predictions)
        else:
            j = i - 5               # a late label
        lines.append(f"p{j},,{(j * 7 % 3) % 2},{i}\n")
    live = tmp_path / "big.csv"
    live.write_text("".join(lines))
    proc = spawn(live, "--follow", "--poll", 0.02, "--max-idle", 30, "--time", "ts",
                 "--window", 500, "--every", 1000, "--format", "json", "--metrics-port", 0)
    out, errs = _Lines(proc.stdout), _Lines(proc.stderr)
    scrapes = []
    try:
        port = int(re.search(r":(\d+)/metrics", errs.next()).group(1))
        deadline = time.monotonic() + 120
        while not scrapes or scrapes[-1]["streamrank_events_total"] < n:
            assert time.monotonic() < deadline
            metrics = _scrape(port)
            scrapes.append({k: v for k, (v, _) in metrics.items()})
        stop(proc)
    finally:
        kill(proc)
    assert proc.returncode == 0, errs.rest()
    moments = {s["streamrank_events_total"] for s in scrapes}
    assert len(moments) > 5, len(moments)          # scrapes during the read
    for s in scrapes:
        assert s["streamrank_events_total"] == (s["streamrank_predictions_total"]
                                                + s["streamrank_labels_total"]
                                                + s["streamrank_late_dropped_total"]
                                                + s["streamrank_unmatched_labels_total"]), s
    assert scrapes[-1]["streamrank_late_dropped_total"] > 0
