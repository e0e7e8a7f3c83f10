"""Benchmark: `streamrank.monitor.Monitor` (and ``streamrank monitor``) throughput.

What is timed, per window size ``W`` (default 1e4 and 1e5) with a report every ``R``
events (default 100), on the same stream (binary labels, 30% positives, continuous
scores, AUC about 0.8):

* **Monitor** -- ``observe(id, score=, label=)`` per event (a keyed prediction with its
  label), ``report()`` every R events: exact counts, AUC, the Hanley-McNeil test against
  the frozen reference window.
* **Monitor, late labels** -- every prediction arrives without its label, the label 50
  predictions later (two events per prediction); R counts predictions.
* **Monitor, observe_many** / **Monitor, late labels, observe_many** -- the same two
  streams given as numpy columns to ``observe_many`` in blocks of R predictions (a report
  after each block): the compiled runs of a steady count window.
* **Monitor, label_wait, in order** -- as the first with ``Monitor(label_wait=100)``:
  nothing ever waits (the per-event path stays one C call; each eviction is remembered
  for the wait's late-drop rule), against the first.
* **Monitor, labels early, label_wait** -- every label arrives 50 predictions *before*
  its prediction (two events per prediction) and waits for it (``label_wait=200``), so
  a label always waits and every event takes the checked path; against the late labels.
* **Monitor, 1% orphan labels** -- as the first, plus a label for an id that is never
  predicted after every 100th prediction (a log with a trickle of labels whose
  prediction was lost): unmatched at once; and the same with ``label_wait=100``, where
  each such label waits 100 events first (so one is nearly always waiting and the
  predictions take the checked path): the cost of a default wait on such a stream.
* **Monitor, DeLong** -- as the first, with DeLong's variance computed from the window's
  contents at each report (``O(W log W)`` per report).
* **Monitor, ADWIN** / **Monitor, Page-Hinkley** -- as the first, with
  ``detector="adwin"`` / ``"page-hinkley"``: each labeled event's placement value against
  the frozen reference (two binary searches on fixed sorted lists, ``O(log R)``; the
  event keeps the per-event path) is fed to River's detector.
* **Monitor, ADWIN, window signal** -- ``detector_signal="window"``: the placement is
  read from the engine against the window (``O(log W)``, which also hands the engine
  each change at once instead of at the next report; the event takes the checked path).
* **River RollingROCAUC** -- ``update(y, s)`` per event, ``get()`` every R events: River's
  exact rolling AUC (Rust), no ids, no late labels, no test.
* **sklearn recount** -- the naive peer: ``roc_auc_score`` of the window's numpy slice
  every R events (``O(W log W)`` per report).
* **streamrank RollingROCAUC** -- streamrank's River-style metric (no ids), for context.
* **CLI** -- ``streamrank monitor FILE.csv --window W --every R --format json`` as a
  subprocess on a CSV of the same stream: start-up, CSV parsing, events, output.

Method: the window is filled first (not timed); then ``--events`` events are timed
(wall time, gc disabled, as `_common.time_call`), every method once per round,
``--repeats`` rounds (round-robin, so a slow period of a shared machine hits all
methods alike), median reported. A method whose pilot (2,000 events) says a run would
take more than ``--budget`` seconds is timed on fewer events (*subsampled*, said in the
table). Every cell checks its answer: the final AUC of each method equals scikit-learn's
on the final window (``|diff| <= 1e-12``; River's RollingROCAUC is exact on untied
scores).

Run: ``python benchmarks/bench_monitor.py [--events 2e5] [--windows 1e4 1e5] [--every
100] [--repeats 3] [--json] [-o FILE]``. Progress goes to stderr, the report to stdout.

``--paired`` times champion against challenger instead (`PairedMonitor`, per window
size): the cost of one ``report()`` (both models' reports and DeLong's paired test on the
ids labeled in both windows), and of its paired test alone (the join of the windows and
`delong_test`), against recomputing from scratch on the window's numpy slices: both
AUCs by ``roc_auc_score`` and `delong_test`. The stream: both scores on every prediction
row with its label, ``--every`` new events between two reports (not timed), the median of
``--reports`` reports; each report's p-value is checked equal to the scratch one.

``--segments S [S ...]`` (e.g. ``--segments 1 10 100``) times instead a
`streamrank.monitor.SegmentedMonitor` with ``S`` segments (event ``i`` in segment
``i mod S``, each segment a window of ``W // S`` predictions, so that the windows hold
``W`` in all) against one `Monitor` of window ``W``, on the same events, with the label
in the prediction's event and with late labels (``LATE`` predictions later, the label
event without its segment: routed by id); a report (of every segment) every R events.
Each run's answer is checked: the group AUC of the final report equals
`streamrank.group_auc_score` of the segments' final windows (|diff| <= 1e-12).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed

from river import metrics as river_metrics  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, log, machine_info, markdown_table, median, parse_size, load_average,
    report_head, time_call, write_report,
)
from streamrank import metrics as sm  # noqa: E402
from streamrank import delong_test, group_auc_score  # noqa: E402
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor  # noqa: E402

ANSWER_TOL = 1e-12
LATE = 50           # the label of prediction i arrives with prediction i + LATE


# --------------------------------------------------------------------------- data
def make_stream(n: int, seed: int):
    """Labels (bool) and scores (float) as Python lists and numpy arrays."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = 1.0 / (1.0 + np.exp(-(1.2 * y + rng.normal(0.0, 1.0, n))))
    return y.tolist(), s.tolist(), y, s


# --------------------------------------------------------------------------- methods
# Each method: make(W) -> state; feed(state, lo, hi, every) -> last metric value.
def _monitor(test, orphans=False, **kw):
    def make(w):
        return Monitor(window=w, test=test, min_window=30, **kw)

    def feed(m, d, lo, hi, every):
        y, s = d["y"], d["s"]
        observe, report = m.observe, m.report
        k = 0
        for i in range(lo, hi):
            observe(i, score=s[i], label=y[i])
            if orphans and i % 100 == 0:
                observe(-1 - i, label=1.0)      # an id never predicted
            k += 1
            if k == every:
                report()
                k = 0
        return report().auc
    return make, feed


def _monitor_late():
    def make(w):
        return Monitor(window=w, min_window=30)

    def feed(m, d, lo, hi, every):
        y, s = d["y"], d["s"]
        observe, report = m.observe, m.report
        k = 0
        for i in range(lo, hi):
            observe(i, score=s[i])
            j = i - LATE
            if j >= 0:
                observe(j, label=y[j])
            k += 1
            if k == every:
                report()
                k = 0
        return report().auc
    return make, feed


def _monitor_many(late=False):
    """The first (or the late-label) monitor fed by `Monitor.observe_many`: each block of
    ``every`` predictions (with their late labels) as numpy columns, then a report."""
    def make(w):
        return Monitor(window=w, min_window=30)

    def feed(m, d, lo, hi, every):
        ya, sa = d["ya"], d["sa"]
        i = np.arange(lo, hi)
        if late:        # prediction i, then the label of prediction i - LATE
            keys = np.stack([i, i - LATE], axis=1).ravel()
            score = np.stack([sa[lo:hi], np.full(hi - lo, np.nan)], axis=1).ravel()
            y = np.where(i >= LATE, ya[np.maximum(i - LATE, 0)], np.nan)
            label = np.stack([np.full(hi - lo, np.nan), y], axis=1).ravel()
            keep = keys >= 0
            keys, score, label = keys[keep], score[keep], label[keep]
            step = 2 * every
        else:
            keys, score, label, step = i, sa[lo:hi], ya[lo:hi], every
        keys = keys.tolist()
        for a in range(0, len(keys), step):
            m.observe_many(keys[a:a + step], score=score[a:a + step],
                           label=label[a:a + step])
            m.report()
        return m.report().auc
    return make, feed


def _monitor_early():
    def make(w):
        return Monitor(window=w, min_window=30, label_wait=4 * LATE)

    def feed(m, d, lo, hi, every):
        y, s = d["y"], d["s"]
        observe, report = m.observe, m.report
        if lo == 0:     # the first labels: they wait for their predictions too
            for j in range(LATE):
                observe(j, label=y[j])
        k = 0
        for i in range(lo, hi):
            j = i + LATE
            observe(j, label=y[j])
            observe(i, score=s[i])
            k += 1
            if k == every:
                report()
                k = 0
        return report().auc
    return make, feed


def _rolling(cls):
    def make(w):
        return cls(window_size=w)

    def feed(metric, d, lo, hi, every):
        y, s = d["y"], d["s"]
        update, get = metric.update, metric.get
        k = 0
        for i in range(lo, hi):
            update(y[i], s[i])
            k += 1
            if k == every:
                get()
                k = 0
        return get()
    return make, feed


def _recount():
    def make(w):
        return {"w": w}

    def feed(state, d, lo, hi, every):
        w, ya, sa = state["w"], d["ya"], d["sa"]
        value = None
        for end in range(lo + every, hi + 1, every):  # the events lo..end-1 arrived
            value = roc_auc_score(ya[end - w:end], sa[end - w:end])
        return roc_auc_score(ya[hi - w:hi], sa[hi - w:hi]) if (hi - lo) % every else value
    return make, feed


METHODS = {
    "streamrank Monitor": _monitor("hanley-mcneil"),
    "streamrank Monitor, late labels": _monitor_late(),
    "streamrank Monitor, observe_many": _monitor_many(),
    "streamrank Monitor, late labels, observe_many": _monitor_many(late=True),
    "streamrank Monitor, label_wait, in order": _monitor("hanley-mcneil", label_wait=100),
    "streamrank Monitor, labels early, label_wait": _monitor_early(),
    "streamrank Monitor, 1% orphan labels": _monitor("hanley-mcneil", orphans=True),
    "streamrank Monitor, 1% orphan labels, label_wait": _monitor(
        "hanley-mcneil", orphans=True, label_wait=100),
    "streamrank Monitor, DeLong": _monitor("delong"),
    "streamrank Monitor, ADWIN": _monitor("hanley-mcneil", detector="adwin"),
    "streamrank Monitor, Page-Hinkley": _monitor("hanley-mcneil", detector="page-hinkley"),
    "streamrank Monitor, ADWIN, window signal": _monitor("hanley-mcneil", detector="adwin",
                                                         detector_signal="window"),
    "river RollingROCAUC": _rolling(river_metrics.RollingROCAUC),
    "sklearn recount": _recount(),
    "streamrank RollingROCAUC": _rolling(sm.RollingROCAUC),
}


def _warm(name, make, feed, d, w):
    state = make(w)
    if name != "sklearn recount":
        feed(state, d, 0, w, w)  # fill the window (one report)
    return state


def _time_one(name, d, w, n_timed, every):
    make, feed = METHODS[name]
    state = _warm(name, make, feed, d, w)
    elapsed, value = time_call(lambda: feed(state, d, w, w + n_timed, every))
    return elapsed, value


def run_window(d, w, args) -> dict:
    n_total = min(args.events, len(d["y"]) - w - LATE)
    every = args.every
    pilot_n = min(n_total, max(2000, 2 * every))
    per_event = {}
    for name in METHODS:
        t, _ = _time_one(name, d, w, pilot_n, every)
        per_event[name] = t / pilot_n
    n_timed = {}
    for name, pe in per_event.items():
        n = n_total if pe * n_total <= args.budget else max(
            pilot_n, int(args.budget / pe) // every * every)
        n_timed[name] = min(n, n_total)
    times = {name: [] for name in METHODS}
    values = {}
    for r in range(args.repeats):
        for name in METHODS:
            elapsed, values[name] = _time_one(name, d, w, n_timed[name], every)
            times[name].append(elapsed)
            if args.verbose:
                log(f"    {name}: {elapsed:.3f} s on {n_timed[name]:,} events (run {r + 1})")
    out = {"window": w, "every": every, "methods": {}}
    for name in METHODS:
        end = w + n_timed[name]
        # the late-label monitor's window still waits for the last LATE labels
        lo = end - w
        exact = roc_auc_score(d["ya"][lo:end - LATE], d["sa"][lo:end - LATE]) \
            if "late" in name else roc_auc_score(d["ya"][lo:end], d["sa"][lo:end])
        err = abs(values[name] - exact)
        if err > ANSWER_TOL:
            raise AssertionError(f"{name} at W = {w}: AUC {values[name]!r}, sklearn {exact!r}")
        t = median(times[name])
        out["methods"][name] = {
            "n_timed": n_timed[name], "subsampled": n_timed[name] < n_total,
            "times_s": times[name], "median_s": t, "events_per_s": n_timed[name] / t,
            "us_per_event": t / n_timed[name] * 1e6, "auc": values[name], "error": err}
        log(f"  W = {fmt_n(w)} {name}: {n_timed[name] / t:,.0f} ev/s "
            f"({t / n_timed[name] * 1e6:.1f} us/event)")
    return out


def run_cli(d, w, args) -> dict:
    """``streamrank monitor`` on a CSV of the stream, as a subprocess (median of runs)."""
    n = min(args.cli_events, len(d["y"]))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "events.csv")
        with open(path, "w") as f:
            f.write("id,score,label\n")
            f.writelines(f"{i},{s!r},{int(y)}\n" for i, (y, s) in
                         enumerate(zip(d["y"][:n], d["s"][:n])))
        cmd = [sys.executable, "-m", "streamrank.cli", "monitor", path, "--window", str(w),
               "--every", str(args.every), "--format", "json", "--no-progress"]
        start = [sys.executable, "-c", "import streamrank.cli.monitor, streamrank.monitor"]
        times, startup = [], []
        last = None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            subprocess.run(start, check=True)
            startup.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            res = subprocess.run(cmd, check=True, capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            last = json.loads(res.stdout.splitlines()[-1])
    exact = roc_auc_score(d["ya"][n - w:n], d["sa"][n - w:n])
    assert abs(last["auc"] - exact) <= ANSWER_TOL, (last["auc"], exact)
    t, t0 = median(times), median(startup)
    log(f"  W = {fmt_n(w)} CLI: {n / t:,.0f} ev/s end to end; {n / (t - t0):,.0f} ev/s "
        f"without the {t0:.2f} s start-up")
    return {"window": w, "events": n, "times_s": times, "startup_s": startup,
            "median_s": t, "startup_median_s": t0, "events_per_s": n / t,
            "events_per_s_after_startup": n / (t - t0),
            "us_per_event_after_startup": (t - t0) / n * 1e6}


# --------------------------------------------------------------------------- segments
def _segmented(n_seg, late):
    """make, feed of a SegmentedMonitor of ``n_seg`` segments (0: one Monitor)."""
    def make(w):
        if not n_seg:
            return Monitor(window=w, min_window=30)
        return SegmentedMonitor(max_segments=n_seg, window=max(2, w // n_seg),
                                min_window=30)

    def feed(m, d, lo, hi, every):
        y, s, g = d["y"], d["s"], d["seg"][n_seg]
        observe, report = m.observe, m.report
        k = 0
        for i in range(lo, hi):
            if late:
                if n_seg:
                    observe(i, segment=g[i], score=s[i])
                else:
                    observe(i, score=s[i])
                j = i - LATE
                if j >= 0:
                    observe(j, label=y[j])
            elif n_seg:
                observe(i, segment=g[i], score=s[i], label=y[i])
            else:
                observe(i, score=s[i], label=y[i])
            k += 1
            if k == every:
                report()
                k = 0
        return report()
    return make, feed


def _segments_answer(d, n_seg, w, end, late, r) -> float:
    """|group AUC of the final report - group_auc_score of the final windows|."""
    idx = np.arange(end - (LATE if late else 0))
    if not n_seg:
        keep = idx[idx >= end - w]
        return abs(r.auc - roc_auc_score(d["ya"][keep], d["sa"][keep]))
    seg = idx % n_seg
    size = max(2, w // n_seg)
    # the last `size` predictions of each segment (predictions 0..end-1)
    last_of = (end - 1) - ((end - 1 - np.arange(n_seg)) % n_seg)
    first = last_of - (size - 1) * n_seg
    keep = idx[idx >= first[seg]]
    expect = group_auc_score(d["ya"][keep], d["sa"][keep], keep % n_seg)
    return abs(r.gauc - expect)


def run_segments(d, w, args) -> dict:
    n = args.events
    out = {"window": w, "every": args.every, "cells": []}
    for late in (False, True):
        names = [0] + args.segments
        times = {k: [] for k in names}
        for _ in range(args.repeats):
            for k in names:
                make, feed = _segmented(k, late)
                m = make(w)
                feed(m, d, 0, w, w)                 # fill the windows (not timed)
                elapsed, r = time_call(lambda: feed(m, d, w, w + n, args.every))
                err = _segments_answer(d, k, w, w + n, late, r)
                if err > ANSWER_TOL:
                    raise AssertionError(f"{k} segments, W = {w}: |diff| = {err}")
                times[k].append(elapsed)
        base = median(times[0])
        for k in names:
            t = median(times[k])
            out["cells"].append({"segments": k, "late": late, "events": n,
                                 "times_s": times[k], "median_s": t,
                                 "us_per_event": t / n * 1e6, "vs_monitor": t / base})
            log(f"  W = {fmt_n(w)} {k or 'one Monitor'} segments{' late' if late else ''}:"
                f" {t / n * 1e6:.1f} us/event ({t / base:.2f}x one Monitor)")
    return out


def segments_markdown(result) -> str:
    args = result["params"]
    lines = [*report_head("## Segmented monitor: per-event cost (issue 16, item 3)", result),
             "Method: see the docstring of `benchmarks/bench_monitor.py` (`--segments`). "
             f"{args['events']:,} timed events after the windows are full, a report of "
             f"every segment every {args['every']} events, median of {args['repeats']} "
             "round-robin runs; S segments hold W // S predictions each; the time is per "
             "prediction (with late labels, its two events: the prediction and, "
             f"{LATE} predictions later, its label without the segment). Every run's "
             "final group AUC equals `group_auc_score` of the final windows "
             "(|diff| <= 1e-12).", ""]
    rows = []
    for cell in result["segments"]:
        for c in cell["cells"]:
            rows.append([fmt_n(cell["window"]),
                         "one Monitor" if not c["segments"] else str(c["segments"]),
                         "late, routed by id" if c["late"] else "with the prediction",
                         f"{c['us_per_event']:.1f}", f"{c['vs_monitor']:.2f}x"])
    lines.append(markdown_table(["W", "segments", "labels", "us/prediction",
                                 "time vs one Monitor"], rows, "rllrr"))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- report
def markdown_report(result) -> str:
    args = result["params"]
    lines = [*report_head("## streamrank monitor benchmark (issue 6)", result),
             "Method: see the docstring of `benchmarks/bench_monitor.py`. Steady state "
             f"(window already full), a report every {args['every']} events, median of "
             f"{args['repeats']} round-robin runs; *subsampled* methods are timed on fewer "
             f"events so that a run fits {args['budget']:g} s. Every method's final AUC "
             "equals scikit-learn's on the final window (|diff| <= 1e-12). Ratios: "
             "throughput of the method over River's RollingROCAUC and over the sklearn "
             "recount (> 1: faster).", ""]
    rows = []
    for cell in result["windows"]:
        ms = cell["methods"]
        river = ms["river RollingROCAUC"]["events_per_s"]
        naive = ms["sklearn recount"]["events_per_s"]
        for name, m in ms.items():
            rows.append([fmt_n(cell["window"]), name,
                         f"{m['n_timed']:,}" + (" (subsampled)" if m["subsampled"] else ""),
                         f"{m['events_per_s']:,.0f}", f"{m['us_per_event']:.1f}",
                         fmt_ratio(m["events_per_s"] / river),
                         fmt_ratio(m["events_per_s"] / naive)])
    lines.append(markdown_table(
        ["W", "method", "events timed", "events/s", "us/event", "vs River RollingROCAUC",
         "vs sklearn recount"], rows, "rlrrrrr"))
    if result.get("cli"):
        lines += ["", f"### `streamrank monitor` end to end (CSV file, a JSON line every "
                  f"{args['every']} events)", ""]
        rows = []
        for c in result["cli"]:
            rows.append([fmt_n(c["window"]), f"{c['events']:,}", f"{c['median_s']:.2f}",
                         f"{c['startup_median_s']:.2f}", f"{c['events_per_s']:,.0f}",
                         f"{c['events_per_s_after_startup']:,.0f}",
                         f"{c['us_per_event_after_startup']:.1f}"])
        lines.append(markdown_table(
            ["W", "events", "wall s", "start-up s", "events/s", "events/s after start-up",
             "us/event after start-up"], rows, "rrrrrrr"))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- paired
def _timed(fn):
    t, value = time_call(fn)
    return t, value


def _paired_test(pm):
    """What `PairedMonitor.report` adds to the two models' reports: the join of the
    windows and `delong_test` (unit weights here)."""
    y, champion, challenger, _ = pm.paired_rows()
    return delong_test(y, challenger, champion, alternative=pm.alternative)


def run_paired(w, args) -> dict:
    """Per-report seconds of `PairedMonitor.report`, of its paired test alone, and of the
    from-scratch peer, at window ``w`` (median of ``args.reports`` reports)."""
    rng = np.random.default_rng(args.seed)
    n = w + args.reports * args.every
    y = rng.random(n) < 0.3
    a = 1.0 / (1.0 + np.exp(-(1.2 * y + rng.normal(0.0, 1.0, n))))
    b = 1.0 / (1.0 + np.exp(-(1.0 * y + rng.normal(0.0, 1.0, n))))
    yl, al, bl = y.tolist(), a.tolist(), b.tolist()
    pm = PairedMonitor(window=w, min_window=30)
    for i in range(w):
        pm.observe(i, score=al[i], challenger=bl[i], label=yl[i])
    pm.report()
    times = {"PairedMonitor.report()": [], "of which the paired test": [],
             "scratch: 2 roc_auc_score + delong_test": [], "scratch: delong_test alone": []}
    for k in range(args.reports):
        lo = w + k * args.every
        for i in range(lo, lo + args.every):
            pm.observe(i, score=al[i], challenger=bl[i], label=yl[i])
        end = lo + args.every
        ys, as_, bs = y[end - w:end], a[end - w:end], b[end - w:end]
        t_rep, r = _timed(pm.report)
        t_pair, _ = _timed(lambda: _paired_test(pm))
        t_sk, t_ref = _timed(lambda: (roc_auc_score(ys, as_), roc_auc_score(ys, bs),
                                      delong_test(ys, bs, as_))[2])
        t_dl, _ = _timed(lambda: delong_test(ys, bs, as_))
        if not (r.p_value == t_ref.p_value and r.n == w
                and abs(r.champion.auc - t_ref.auc_b) <= ANSWER_TOL
                and abs(r.challenger.auc - t_ref.auc_a) <= ANSWER_TOL):
            raise AssertionError(f"W={w}: the report differs from the scratch test")
        for name, t in zip(times, (t_rep, t_pair, t_sk, t_dl)):
            times[name].append(t)
    out = {"window": w, "reports": args.reports,
           "ms": {name: 1e3 * median(ts) for name, ts in times.items()}}
    log(f"paired W={fmt_n(w)}: " + ", ".join(f"{k} {v:.2f} ms"
                                              for k, v in out["ms"].items()))
    return out


def paired_markdown(result) -> str:
    args = result["params"]
    lines = [*report_head("## Champion against challenger: the cost of a paired report (issue 16)", result),
             "Method: see `--paired` in the docstring of `benchmarks/bench_monitor.py`. "
             f"Median of {args['reports']} reports, {args['every']} new events between "
             "two; every report's p-value equals the scratch `delong_test`'s exactly and "
             "its AUCs the scratch ones. Ratio: the scratch peer's time over the "
             "monitor's (> 1: the monitor is faster).", ""]
    rows = []
    for cell in result["paired"]:
        ms = cell["ms"]
        peer = ms["scratch: 2 roc_auc_score + delong_test"]
        for name, v in ms.items():
            rows.append([fmt_n(cell["window"]), name, f"{v:.2f}", fmt_ratio(peer / v)])
    lines.append(markdown_table(["W", "per report", "ms", "vs scratch (sklearn AUCs + "
                                 "delong_test)"], rows, "rlrr"))
    return "\n".join(lines) + "\n"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", default="2e5", help="timed events per run (default 2e5)")
    p.add_argument("--windows", nargs="+", default=["1e4", "1e5"])
    p.add_argument("--every", default="100", help="report every R events (default 100)")
    p.add_argument("--repeats", type=int, default=3, help="runs per method (default 3)")
    p.add_argument("--budget", type=float, default=20.0,
                   help="seconds one timed run may take before it is subsampled")
    p.add_argument("--cli-events", default="2e5", help="rows of the CLI's CSV (default 2e5)")
    p.add_argument("--no-cli", action="store_true", help="skip the CLI runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.add_argument("--output", "-o", help="also write the report to this file")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--paired", action="store_true",
                   help="time PairedMonitor reports against a from-scratch paired test")
    p.add_argument("--reports", type=int, default=30,
                   help="with --paired: reports timed per window (default 30)")
    p.add_argument("--segments", nargs="+", type=int, default=None, metavar="S",
                   help="time a SegmentedMonitor of S segments against one Monitor "
                        "instead (e.g. --segments 1 10 100)")
    args = p.parse_args(argv)
    args.events = parse_size(args.events)
    args.windows = [parse_size(x) for x in args.windows]
    args.every = parse_size(args.every)
    args.cli_events = parse_size(args.cli_events)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    info = machine_info(packages=("numpy", "scikit-learn", "river", "click", "streamrank"),
                        repo=REPO)
    log(f"machine: {info['cpu']['model']}, load {info['load_average_1_5_15min']}")
    command = "python benchmarks/bench_monitor.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    if args.paired:
        result = {"command": command, "machine": info, "params": dict(vars(args)),
                  "paired": [run_paired(w, args) for w in args.windows]}
        result["load_average_end"] = load_average()
        write_report(json.dumps(result, indent=1, default=float) if args.json
                     else paired_markdown(result), args.output)
        return 0
    n = max(args.windows) + args.events + LATE
    y, s, ya, sa = make_stream(max(n, args.cli_events), args.seed)
    d = {"y": y, "s": s, "ya": ya, "sa": sa}
    if args.segments:
        d["seg"] = {k: [f"s{i % k}" for i in range(len(y))] if k else None
                    for k in [0, *args.segments]}
        result = {"command": "python benchmarks/bench_monitor.py " + " ".join(
                      sys.argv[1:] if argv is None else argv),
                  "machine": info, "params": dict(vars(args)),
                  "segments": [run_segments(d, w, args) for w in args.windows]}
        result["load_average_end"] = load_average()
        write_report(json.dumps(result, indent=1, default=float) if args.json
                     else segments_markdown(result), args.output)
        return 0
    result = {
        "command": "python benchmarks/bench_monitor.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "machine": info,
        "params": {k: v for k, v in vars(args).items()},
        "windows": [run_window(d, w, args) for w in args.windows],
        "cli": [] if args.no_cli else [run_cli(d, w, args) for w in args.windows],
    }
    result["load_average_end"] = load_average()
    text = (json.dumps(result, indent=1, default=float) if args.json
            else markdown_report(result))
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
