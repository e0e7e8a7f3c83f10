#!/usr/bin/env python
"""Streaming benchmark: streamrank.metrics against River's ROC AUC metrics.

Usage::

    python benchmarks/bench_river.py                         # 1e6 events, Markdown report
    python benchmarks/bench_river.py --events 2e5 --repeats 1 # a quick look

A stream of ``--events`` binary events (labels with P(positive) = 0.3, scores a noisy
logistic probability, continuous: no ties) is fed to

* `streamrank.metrics.RollingROCAUC` and ``river.metrics.RollingROCAUC`` (exact, Rust) for
  every window ``W`` in ``--windows`` (1e3 1e4 1e5), reading the metric every ``R`` events
  for ``R`` in ``--every`` (1, 100, 1e4);
* `streamrank.metrics.ROCAUC` (exact) and ``river.metrics.ROCAUC`` (10 thresholds,
  approximate) over the whole stream, with the same reads; River's error against the exact
  value is reported.

Method. For each cell, each library's metric is first filled with ``W`` events (not timed,
so the timed part is the steady state of a full window), then timed on the following
events with a read every ``R`` events (``time.perf_counter``, garbage collector off,
``_common.time_call``). The libraries run round-robin, ``--repeats`` times, median
reported. A cell whose slower library would take more than ``--budget`` seconds on the
whole stream is **subsampled**: both libraries are timed on the same first ``N`` events
after the warm-up, ``N`` chosen from a 2,000-event pilot run so that the run fits the
budget; the table says so. Every cell checks the answers: the two exact metrics agree
(``|diff| <= 1e-12``) and equal scikit-learn on the final window.

A tie case (scores rounded to one decimal) shows River's ``RollingROCAUC`` wrong (it
halves tied pairs with integer division) and ours equal to scikit-learn. The goals of issue
4 are printed PASS/FAIL at the end. Progress goes to stderr; the report to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed

from river import metrics as river_metrics  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, log, machine_info, machine_markdown, markdown_table, median, parse_size,
    load_average, time_call, write_report,
)
from streamrank import metrics as sm  # noqa: E402

GOAL_W = 10**4
GOALS = {
    "G1": "RollingROCAUC read after every event, W = 1e4: >= 3x River's throughput",
    "G2": "RollingROCAUC read every 100 events, W = 1e4: >= River's throughput (parity)",
    "G3": "ties: exact (= scikit-learn) where River's RollingROCAUC is wrong",
    "R1": "RollingROCAUC read every 100 events, W = 1e3: >= 1.5x River's throughput",
    "R2": "RollingROCAUC read every 100 events, W = 1e4: >= 1.5x River's throughput",
    "R3": "RollingROCAUC read every 100 events, W = 1e5: >= 3x River's throughput",
    "R4": "RollingROCAUC read after every event, W = 1e3: >= 3x River's throughput",
}
#: The goals R1..R4: (window, read every, least ratio ours / River).
RATIO_GOALS = {"R1": (10**3, 100, 1.5), "R2": (10**4, 100, 1.5), "R3": (10**5, 100, 3.0),
               "R4": (10**3, 1, 3.0)}
ANSWER_TOL = 1e-12


# --------------------------------------------------------------------------- data
def make_stream(n: int, seed: int, *, decimals: int | None = None):
    """``n`` events: labels (bool) and scores (float), as Python lists (what a River
    loop passes). Scores are a noisy logistic of the label, so AUC is about 0.8."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = 1.0 / (1.0 + np.exp(-(1.2 * y + rng.normal(0.0, 1.0, n))))
    if decimals is not None:
        s = np.round(s, decimals)
    return y.tolist(), s.tolist()


# --------------------------------------------------------------------------- runs
def feed(metric, y, s, lo, hi, every):
    """Update with events ``lo:hi``, reading after every ``every``-th; the last value."""
    update, get = metric.update, metric.get
    value = None
    if every == 1:
        for a, b in zip(y[lo:hi], s[lo:hi]):
            update(a, b)
            value = get()
        return value
    k = 0
    for a, b in zip(y[lo:hi], s[lo:hi]):
        update(a, b)
        k += 1
        if k == every:
            value = get()
            k = 0
    return get() if value is None or k else value


def _time_one(make, y, s, warm, lo, hi, every):
    metric = make()
    feed(metric, y, s, 0, warm, warm or 1)   # fill the window (not timed)
    elapsed, _ = time_call(lambda: feed(metric, y, s, lo, hi, every))
    return elapsed, metric.get()


def run_cell(makers: dict, y, s, warm: int, every: int, args) -> dict:
    """Time every library of ``makers`` on the same events after a warm-up of ``warm``."""
    n_total = len(y) - warm
    # Pilot: 2000 events (at least 2 reads) per library, to size the timed part.
    pilot_n = min(n_total, max(2000, 2 * every))
    per_event = {}
    for name, make in makers.items():
        t, _ = _time_one(make, y, s, warm, warm, warm + pilot_n, every)
        per_event[name] = t / pilot_n
    slowest = max(per_event.values())
    n_timed = n_total
    if slowest * n_total > args.budget:
        n_timed = max(pilot_n, int(args.budget / slowest) // every * every)
        n_timed = min(n_timed, n_total)
    times = {name: [] for name in makers}
    values = {}
    for r in range(args.repeats):
        for name, make in makers.items():
            elapsed, values[name] = _time_one(make, y, s, warm, warm, warm + n_timed, every)
            times[name].append(elapsed)
            if args.verbose:
                log(f"    {name}: {elapsed:.3f} s on {n_timed:,} events (run {r + 1})")
    return {"n_timed": n_timed, "subsampled": n_timed < n_total, "times": times,
            "rate": {k: n_timed / median(v) for k, v in times.items()}, "values": values,
            "pilot_s_per_event": per_event}


def rolling_cells(y, s, args) -> list[dict]:
    cells = []
    for w in args.windows:
        if w >= len(y):
            log(f"skip W = {w}: the stream has only {len(y)} events")
            continue
        for every in args.every:
            log(f"RollingROCAUC W = {fmt_n(w)}, read every {fmt_n(every)}")
            makers = {
                "streamrank": lambda w=w: sm.RollingROCAUC(window_size=w),
                "river": lambda w=w: river_metrics.RollingROCAUC(window_size=w),
            }
            cell = run_cell(makers, y, s, w, every, args)
            end = w + cell["n_timed"]
            exact = roc_auc_score(y[end - w:end], s[end - w:end])
            cell.update(window=w, every=every, exact=exact,
                        err_ours=abs(cell["values"]["streamrank"] - exact),
                        err_river=abs(cell["values"]["river"] - exact))
            log(f"  ours {cell['rate']['streamrank']:,.0f} ev/s, River "
                f"{cell['rate']['river']:,.0f} ev/s, ratio "
                f"{cell['rate']['streamrank'] / cell['rate']['river']:.2f}"
                + (f" (subsampled: {cell['n_timed']:,} events)" if cell["subsampled"] else ""))
            cells.append(cell)
    return cells


def whole_stream_cells(y, s, args) -> list[dict]:
    """Exact ROCAUC vs River's approximate ROCAUC over the whole stream."""
    cells = []
    for every in args.every:
        log(f"ROCAUC (whole stream), read every {fmt_n(every)}")
        makers = {"streamrank": sm.ROCAUC, "river": river_metrics.ROCAUC}
        cell = run_cell(makers, y, s, 0, every, args)
        n = cell["n_timed"]
        exact = roc_auc_score(y[:n], s[:n])
        cell.update(every=every, exact=exact,
                    err_ours=abs(cell["values"]["streamrank"] - exact),
                    err_river=abs(cell["values"]["river"] - exact))
        cells.append(cell)
    return cells


def tie_case(args) -> list[dict]:
    """Scores rounded to one decimal (many tied (positive, negative) pairs), read at the
    end of a stream twice the window long, for a tiny, a small and the goal window."""
    out = []
    for w in (2, 10, min(GOAL_W, args.events // 2)):
        y, s = make_stream(2 * w, args.seed + 1, decimals=1)
        if w == 2:  # the example: one positive and one negative, tied
            y, s = [True, False, True, False], [0.9, 0.1, 0.5, 0.5]
        values = {}
        for name, make in (
                ("streamrank RollingROCAUC", lambda: sm.RollingROCAUC(window_size=w)),
                ("river RollingROCAUC", lambda: river_metrics.RollingROCAUC(window_size=w)),
                ("streamrank ROCAUC (window)", sm.ROCAUC),
                ("river ROCAUC (window)", river_metrics.ROCAUC)):
            m = make()
            lo = 0 if "Rolling" in name else w  # the plain metrics see the window only
            feed(m, y, s, lo, 2 * w, 2 * w)
            values[name] = m.get()
        exact = roc_auc_score(y[w:], s[w:])
        out.append({"window": w, "values": values, "exact": exact,
                    "distinct_scores": len(set(s[w:]))})
    return out


# --------------------------------------------------------------------------- report
def evaluate_goals(result) -> dict:
    by = {(c["window"], c["every"]): c for c in result["rolling"]}
    out = {}
    g1 = by.get((GOAL_W, 1))
    g2 = by.get((GOAL_W, 100))
    if g1:
        r = g1["rate"]["streamrank"] / g1["rate"]["river"]
        out["G1"] = ("PASS" if r >= 3 else "FAIL", f"{r:.2f}x")
    if g2:
        r = g2["rate"]["streamrank"] / g2["rate"]["river"]
        out["G2"] = ("PASS" if r >= 1 else "FAIL", f"{r:.2f}x")
    ok = True
    details = []
    for tie in result["ties"]:
        ours = tie["values"]["streamrank RollingROCAUC"]
        rivers = tie["values"]["river RollingROCAUC"]
        ok &= abs(ours - tie["exact"]) <= ANSWER_TOL
        details.append(f"W = {tie['window']}: ours {ours:.6f}, River {rivers:.6f}, "
                       f"scikit-learn {tie['exact']:.6f}")
    wrong = any(abs(t["values"]["river RollingROCAUC"] - t["exact"]) > 1e-6
                for t in result["ties"])
    out["G3"] = ("PASS" if ok and wrong else "FAIL", "; ".join(details))
    for goal, (w, every, least) in RATIO_GOALS.items():
        cell = by.get((w, every))
        if cell:
            r = cell["rate"]["streamrank"] / cell["rate"]["river"]
            out[goal] = ("PASS" if r >= least else "FAIL", f"{r:.2f}x")
    return out


def markdown_report(result) -> str:
    args = result["params"]
    lines = ["# streamrank.metrics vs River: streaming ROC AUC", "",
             f"Command: `{result['command']}`", "", machine_markdown(result["machine"]),
             f"- Load average at end: {result['load_average_end']}", "",
             "Method: see the docstring of `benchmarks/bench_river.py`. Throughput is events "
             "per second in the steady state (window already full), median of "
             f"{args['repeats']} round-robin runs; *subsampled* cells time both libraries on "
             f"the same first N events after the warm-up so that a run fits {args['budget']:g} "
             "s. Scores are continuous (no ties), so River's exact `RollingROCAUC` and ours "
             "must agree; both are checked against scikit-learn on the final window.", "",
             "## RollingROCAUC: streamrank vs river (exact, Rust)", ""]
    rows = []
    for c in result["rolling"]:
        ratio = c["rate"]["streamrank"] / c["rate"]["river"]
        agree = max(c["err_ours"], abs(c["values"]["streamrank"] - c["values"]["river"]))
        rows.append([fmt_n(c["window"]), fmt_n(c["every"]),
                     f"{c['n_timed']:,}" + (" (subsampled)" if c["subsampled"] else ""),
                     f"{c['rate']['streamrank']:,.0f}", f"{c['rate']['river']:,.0f}",
                     fmt_ratio(ratio), f"{agree:.1e}"])
    lines.append(markdown_table(
        ["W", "read every", "events timed", "streamrank ev/s", "river ev/s",
         "streamrank / river", "max |diff| (vs River, vs sklearn)"], rows, "rrrrrrr"))
    lines += ["", "## ROCAUC over the whole stream: exact (streamrank) vs approximate (river, "
              "10 thresholds)", ""]
    rows = []
    for c in result["whole"]:
        ratio = c["rate"]["streamrank"] / c["rate"]["river"]
        rows.append([fmt_n(c["every"]),
                     f"{c['n_timed']:,}" + (" (subsampled)" if c["subsampled"] else ""),
                     f"{c['rate']['streamrank']:,.0f}", f"{c['rate']['river']:,.0f}",
                     fmt_ratio(ratio), f"{c['exact']:.6f}", f"{c['err_ours']:.1e}",
                     f"{c['err_river']:.2e}"])
    lines.append(markdown_table(
        ["read every", "events timed", "streamrank ev/s", "river ev/s", "streamrank / river",
         "exact AUC (sklearn)", "streamrank error", "river error"], rows, "rrrrrrrr"))
    lines += ["", "## Ties: scores rounded to one decimal, read at the end of a stream twice "
              "the window long", ""]
    rows = []
    for tie in result["ties"]:
        for name, v in tie["values"].items():
            rows.append([fmt_n(tie["window"]), tie["distinct_scores"], name, f"{v:.6f}",
                         f"{v - tie['exact']:+.2e}"])
        rows.append([fmt_n(tie["window"]), tie["distinct_scores"],
                     "scikit-learn roc_auc_score on the window", f"{tie['exact']:.6f}", "0"])
    lines.append(markdown_table(["W", "distinct scores", "metric", "AUC", "minus exact"],
                                rows, "rrlrr"))
    lines.append("")
    lines.append("W = 2 is the issue's example (one positive and one negative at the same "
                 "score): River's RollingROCAUC halves the tied count with integer division. "
                 "River's ROCAUC is an approximation (10 thresholds in [0, 1]), exact only "
                 "when the scores happen to fall on its grid.")
    lines += ["", "## Goals (issue 4)", ""]
    for key, text in GOALS.items():
        verdict, detail = result["goals"].get(key, ("not run", ""))
        lines.append(f"- **{key} {verdict}**: {text} ({detail}).")
    other = [c for c in result["rolling"] if c["every"] == 100 and c["window"] != GOAL_W]
    for c in other:
        r = c["rate"]["streamrank"] / c["rate"]["river"]
        lines.append(f"- (G2 at W = {fmt_n(c['window'])}, for information: {r:.2f}x, "
                     f"{'at or above' if r >= 1 else 'below'} parity.)")
    return "\n".join(lines) + "\n"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", default="1e6", help="stream length (default 1e6)")
    p.add_argument("--windows", nargs="+", default=["1e3", "1e4", "1e5"])
    p.add_argument("--every", nargs="+", default=["1", "100", "1e4"],
                   help="read the metric every R events (default 1 100 1e4)")
    p.add_argument("--repeats", type=int, default=3, help="runs per library (default 3)")
    p.add_argument("--budget", type=float, default=60.0,
                   help="seconds one timed run may take before the cell is subsampled")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.add_argument("--output", "-o", help="also write the report to this file")
    p.add_argument("--verbose", "-v", action="store_true")
    args = p.parse_args(argv)
    args.events = parse_size(args.events)
    args.windows = [parse_size(x) for x in args.windows]
    args.every = [parse_size(x) for x in args.every]
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    info = machine_info(packages=("numpy", "scipy", "scikit-learn", "river", "streamrank"),
                        repo=REPO)
    log(f"machine: {info['cpu']['model']}, load {info['load_average_1_5_15min']}")
    y, s = make_stream(args.events, args.seed)
    result = {
        "command": "python benchmarks/bench_river.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "machine": info,
        "params": {k: v for k, v in vars(args).items()},
        "rolling": rolling_cells(y, s, args),
        "whole": whole_stream_cells(y, s, args),
        "ties": tie_case(args),
    }
    result["load_average_end"] = load_average()
    result["goals"] = evaluate_goals(result)
    text = (json.dumps(result, indent=1, default=float) if args.json
            else markdown_report(result))
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
