"""Per-event cost of each shape of monitor, against the plain `Monitor`.

The shapes: a plain `Monitor` (1 x 1), ``Monitor(labels="binary")``, a `PairedMonitor`
(champion and challenger, 1 x 2) and a `SegmentedMonitor` of `PairedMonitor` units
(``--segments`` segments x 2 models, each segment's window ``W / segments``), fed the
same stream: ids, a score (and a challenger's score: the score plus noise), the label
with the prediction, binary labels (30% positives), a segment drawn uniformly; a report
every ``--every`` events. The window is filled first (not timed); then ``--events``
events are timed (wall time, gc off), every shape once per round, ``--repeats`` rounds
round-robin, medians; the ratio is each shape's time over the plain monitor's, in the
same run. Each run checks its answer: the final report's AUC (the champion's) equals
scikit-learn's on the last ``W`` events (``|diff| <= 1e-12``), and a segmented run's
segments hold every one of their last events.

With ``--cli-rows N`` it also times the command, ``streamrank monitor FILE --window W
--every R`` (``--cli-every``) as a subprocess on a CSV of the first ``N`` events, once
with the columns id, score, label and once with a challenger and a segment column too
(``--challenger-score challenger --segment segment``): wall time, median of
``--repeats``, rows a second (its last JSON line checked as above). Beside each, the
same command reading row by row (its block reader off: ``EventParser.block`` declining
every block, as for an input that is not plain CSV), in the same rounds, and the ratio.

    python benchmarks/bench_monitor_shapes.py --windows 1e3 1e4 --every 100 10000
    python benchmarks/bench_monitor_shapes.py --windows 1e3 --every 1e4 --cli-rows 1e6
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.metrics import roc_auc_score

from _common import (REPO, load_average, machine_info, markdown_table, parse_size,
                     report_head, write_report)
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor


def stream(n, segments, seed):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.clip(rng.normal(0.5 + 0.3 * y, 0.2), 0, 1)
    c = s + rng.normal(0, 0.05, n)
    g = rng.integers(0, segments, n)
    return y.tolist(), s.tolist(), c.tolist(), g.tolist()


def shapes(window, segments):
    """name -> (a new monitor, its observe of event i, the observe_many columns of
    events lo..hi)."""
    def plain():
        return (Monitor(window=window),
                lambda m, i, e: m.observe(i, score=e[1][i], label=e[0][i]),
                lambda a, lo, hi: {"score": a[1][lo:hi], "label": a[0][lo:hi]})

    def binary():
        return (Monitor(window=window, labels="binary"),
                lambda m, i, e: m.observe(i, score=e[1][i], label=e[0][i]),
                lambda a, lo, hi: {"score": a[1][lo:hi], "label": a[0][lo:hi]})

    def paired():
        return (PairedMonitor(window=window),
                lambda m, i, e: m.observe(i, score=e[1][i], challenger=e[2][i],
                                          label=e[0][i]),
                lambda a, lo, hi: {"score": a[1][lo:hi], "challenger": a[2][lo:hi],
                                   "label": a[0][lo:hi]})

    def segmented():
        per = max(2, window // segments)
        return (SegmentedMonitor(factory=lambda: PairedMonitor(window=per, min_window=2),
                                 max_segments=segments),
                lambda m, i, e: m.observe(i, segment=e[3][i], score=e[1][i],
                                          challenger=e[2][i], label=e[0][i]),
                lambda a, lo, hi: {"segment": a[3][lo:hi], "score": a[1][lo:hi],
                                   "challenger": a[2][lo:hi], "label": a[0][lo:hi]})
    return {"Monitor": plain, 'Monitor(labels="binary")': binary,
            "PairedMonitor": paired, f"{segments} segments x PairedMonitor": segmented}


def run(make, events, window, n, every, arrays=None):
    """Seconds per event (and the monitor): ``observe`` per event, or with ``arrays``
    (the events as numpy columns) ``observe_many`` per block of ``every`` events."""
    m, observe, columns = make()
    keys = list(range(window + n))
    if arrays is None:
        for i in range(window):
            observe(m, i, events)
    else:
        m.observe_many(keys[:window], **columns(arrays, 0, window))
    gc.disable()
    t0 = time.perf_counter()
    if arrays is None:
        for i in range(window, window + n):
            observe(m, i, events)
            if i % every == every - 1:
                m.report()
    else:
        for lo in range(window, window + n, every):
            hi = min(lo + every, window + n)
            m.observe_many(keys[lo:hi], **columns(arrays, lo, hi))
            m.report()
    took = time.perf_counter() - t0
    gc.enable()
    return took / n, m


def check(name, m, events, window, n):
    y, s = events[0][n:window + n], events[1][n:window + n]
    last = m.report()
    if isinstance(m, SegmentedMonitor):
        held = sum(m.unit(g).n for g in m.segments)
        assert 0 < held <= window + n, (name, held)
        return
    auc = last.champion.auc if isinstance(m, PairedMonitor) else last.auc
    assert abs(auc - roc_auc_score(y, s)) <= 1e-12, (name, auc)


#: The command with its block reader off (every block declined: read row by row).
_ROW_BY_ROW = ("import sys; from streamrank.io.events import EventParser; "
               "EventParser.block = lambda self, body: None; "
               "from streamrank.cli import main; sys.argv[0] = 'streamrank'; main()")


def run_cli(events, window, rows, every, segments, repeats) -> list:
    """Table rows of ``streamrank monitor`` on CSVs of the first ``rows`` events."""
    y, s, c, g = (col[:rows] for col in events)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        plain, shaped = os.path.join(tmp, "plain.csv"), os.path.join(tmp, "shaped.csv")
        with open(plain, "w") as f:
            f.write("id,score,label\n")
            f.writelines(f"{i},{a!r},{b}\n" for i, (a, b) in enumerate(zip(s, y)))
        with open(shaped, "w") as f:
            f.write("id,score,challenger,segment,label\n")
            f.writelines(f"{i},{a!r},{cc!r},g{gg},{b}\n"
                         for i, (a, cc, gg, b) in enumerate(zip(s, c, g, y)))
        args = ["monitor", "--window", str(window), "--every", str(every), "--format",
                "json", "--no-progress"]
        modes = {"blocks": [sys.executable, "-m", "streamrank.cli"] + args,
                 "row by row": [sys.executable, "-c", _ROW_BY_ROW] + args}
        for name, path, more in (
                ("streamrank monitor", plain, []),
                (f"streamrank monitor, {segments} segments x challenger", shaped,
                 ["--challenger-score", "challenger", "--segment", "segment",
                  "--max-segments", str(segments)])):
            times = {mode: [] for mode in modes}
            for _ in range(repeats):
                for mode, cmd in modes.items():
                    t0 = time.perf_counter()
                    res = subprocess.run(cmd + [path] + more, check=True,
                                         capture_output=True, text=True)
                    times[mode].append(time.perf_counter() - t0)
                    last = json.loads(res.stdout.splitlines()[-1])
                    if not more:
                        exact = roc_auc_score(y[rows - window:], s[rows - window:])
                        assert abs(last["auc"] - exact) <= 1e-12, (last["auc"], exact)
                    else:
                        assert last["segment"] is None and last["events"] == rows, last
            t, t_rows = (statistics.median(times[m]) for m in modes)
            out.append([name, f"{rows:,}", f"{every:,}", f"{t:.2f}", f"{rows / t:,.0f}",
                        f"{rows / t_rows:,.0f}", f"{t_rows / t:.2f}x"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--windows", nargs="+", default=["1e3", "1e4"])
    ap.add_argument("--every", nargs="+", default=["100", "1e4"],
                    help="report every R events (each R a table row group)")
    ap.add_argument("--events", default="1e5", help="timed events per run")
    ap.add_argument("--segments", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--many", action="store_true",
                    help="feed observe_many a block of R events (numpy columns) per "
                         "report instead of observe per event")
    ap.add_argument("--cli-rows", default="0", help="rows of the command's CSV (0: off)")
    ap.add_argument("--cli-every", default="1e4", help="the command's --every")
    ap.add_argument("--output", "-o")
    args = ap.parse_args(argv)
    n = parse_size(args.events)
    info = machine_info(packages=("numpy", "scikit-learn", "river", "streamrank"),
                        repo=REPO)
    rows = []
    for shown, window in zip(args.windows, map(parse_size, args.windows)):
        events = stream(window + n, args.segments, args.seed)
        arrays = None
        if args.many:
            arrays = [np.array(col, dtype=float) for col in events[:3]] + [events[3]]
        for every in map(parse_size, args.every):
            cells = shapes(window, args.segments)
            times = {name: [] for name in cells}
            for _ in range(args.repeats):
                for name, make in cells.items():
                    took, m = run(make, events, window, n, every, arrays)
                    check(name, m, events, window, n)
                    times[name].append(took)
            base = statistics.median(times["Monitor"])
            for name, ts in times.items():
                t = statistics.median(ts)
                rows.append([shown, f"{every:,}", name, f"{t * 1e6:.2f}",
                             f"{t / base:.2f}x"])
    command = "python benchmarks/bench_monitor_shapes.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    head = report_head("## Monitor shapes: per-event cost against the plain Monitor"
                       + (" (observe_many)" if args.many else ""),
                       {"command": command, "machine": info,
                        "load_average_end": load_average()})
    text = "\n".join(head) + "\n" + markdown_table(
        ["W", "report every", "shape", "us/event", "÷ Monitor"], rows, "rrlrr") + "\n"
    cli_rows = 0 if args.cli_rows == "0" else parse_size(args.cli_rows)
    if cli_rows:
        window = parse_size(args.windows[0])
        events = stream(max(cli_rows, window), args.segments, args.seed)
        table = run_cli(events, window, cli_rows, parse_size(args.cli_every),
                        args.segments, args.repeats)
        text += (f"\n`streamrank monitor` on a CSV, W = {args.windows[0]} (wall time, "
                 f"start-up included, median of {args.repeats}):\n\n"
                 + markdown_table(["command", "rows", "--every", "s", "rows/s",
                                   "rows/s row by row", "speed-up"], table,
                                  "lrrrrrr") + "\n")
    print(text)
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
