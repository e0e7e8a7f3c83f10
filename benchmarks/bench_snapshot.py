"""The cost of a monitor's snapshot (``to_bytes``, ``from_bytes``: what every checkpoint of
``streamrank monitor`` writes), for each shape, against another streamrank tree.

The shapes: a plain `Monitor` of window ``W``, a `PairedMonitor` of window ``W``, and a
`SegmentedMonitor` of ``--segments`` `PairedMonitor` units of window ``W / segments``
each, filled with ``3 W`` events (ids, a score, a challenger's score, a label; binary
labels, 30% positives, segments drawn uniformly) and ``--reports`` reports in their
history. Timed: ``to_bytes`` and ``from_bytes`` (wall time, gc off), the median of
``--repeats``; the size of the snapshot. Each load is checked: it writes the same bytes
again (``from_bytes(b).to_bytes() == b``).

With ``--against DIR`` (a checkout of another commit, its extensions built) the same
measurement runs in subprocesses under both trees, alternating, ``--rounds`` rounds, and
the table gives the medians of both and their ratio (this tree's time over the other's).

    python benchmarks/bench_snapshot.py --window 1e4 --segments 100
    python benchmarks/bench_snapshot.py --window 1e4 --against /tmp/old --rounds 5
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

import numpy as np

from _common import REPO, json_under, load_average, machine_info, markdown_table, \
    parse_size, report_head, write_report


def _monitors(window, segments, reports):
    from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor

    n = 3 * window
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(float)
    s = np.clip(rng.normal(0.5 + 0.3 * y, 0.2), 0, 1)
    c = s + rng.normal(0, 0.05, n)
    g = rng.integers(0, segments, n)
    keys = list(range(n))
    unit = max(window // segments, 10)
    made = {"Monitor": Monitor(window=window), "PairedMonitor": PairedMonitor(window=window),
            f"{segments} segments x PairedMonitor": SegmentedMonitor(
                factory=lambda: PairedMonitor(window=unit), max_segments=segments)}
    for name, m in made.items():
        step = n // reports
        for lo in range(0, n, step):
            cols = {"score": s[lo:lo + step], "label": y[lo:lo + step]}
            if name != "Monitor":
                cols["challenger"] = c[lo:lo + step]
            if "segments" in name:
                cols["segment"] = g[lo:lo + step].tolist()
            m.observe_many(keys[lo:lo + step], **cols)
            m.report()
    return made


def measure(window, segments, reports, repeats) -> dict:
    """shape -> {"to_bytes": s, "from_bytes": s, "bytes": n}, in this process."""
    out = {}
    for name, m in _monitors(window, segments, reports).items():
        times = {"to_bytes": [], "from_bytes": []}
        gc.disable()
        try:
            for _ in range(repeats):
                t = time.perf_counter()
                data = m.to_bytes()
                times["to_bytes"].append(time.perf_counter() - t)
                t = time.perf_counter()
                back = type(m).from_bytes(data)
                times["from_bytes"].append(time.perf_counter() - t)
        finally:
            gc.enable()
        assert back.to_bytes() == data
        out[name] = {k: statistics.median(v) for k, v in times.items()}
        out[name]["bytes"] = len(data)
    return out


def _in(tree, args) -> dict:
    return json_under(tree, __file__, ["--window", str(args.window), "--segments",
                                       str(args.segments), "--reports", str(args.reports),
                                       "--repeats", str(args.repeats)])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--window", type=parse_size, default=10_000)
    ap.add_argument("--segments", type=int, default=100)
    ap.add_argument("--reports", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--against", help="another streamrank tree (its extensions built)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--output", "-o")
    args = ap.parse_args(argv)
    if args.json:
        print(json.dumps(measure(args.window, args.segments, args.reports, args.repeats)))
        return
    if args.against is None:
        runs = {"this": [measure(args.window, args.segments, args.reports, args.repeats)]}
    else:
        runs = {"this": [], "other": []}
        for _ in range(args.rounds):
            runs["this"].append(_in(str(REPO), args))
            runs["other"].append(_in(os.path.abspath(args.against), args))
    rows = []
    for shape in runs["this"][0]:
        for op in ("to_bytes", "from_bytes"):
            this = statistics.median(r[shape][op] for r in runs["this"])
            row = [shape, op, f"{this * 1e3:.2f} ms"]
            if "other" in runs:
                other = statistics.median(r[shape][op] for r in runs["other"])
                row += [f"{other * 1e3:.2f} ms", f"{this / other:.2f}x"]
            rows.append(row)
        size = [f"{runs['this'][0][shape]['bytes']:,}"]
        if "other" in runs:
            size.append(f"{runs['other'][0][shape]['bytes']:,}")
        rows[-1].append(", ".join(size))
    headers = ["shape", "call", "this tree"]
    if "other" in runs:
        headers += ["other tree", "ratio"]
    headers.append("bytes (this, other)")
    for r in rows:
        r += [""] * (len(headers) - len(r))
    result = {"command": "python benchmarks/bench_snapshot.py " + " ".join(
        sys.argv[1:] if argv is None else argv), "machine": machine_info(),
        "load_average_end": load_average()}
    lines = [*report_head("## Snapshots of each shape", result),
             f"Window {args.window:,}, {args.segments} segments, {args.reports} reports; "
             f"median of {args.repeats} calls" + (f", of {args.rounds} alternating rounds "
                                                   f"against {args.against}"
                                                   if args.against else "") + ".", "",
             markdown_table(headers, rows)]
    write_report("\n".join(lines), args.output)


if __name__ == "__main__":
    main()
