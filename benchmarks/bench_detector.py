"""Benchmark: detection delay and false alarms of the monitor's drift detectors.

`streamrank.monitor.Monitor(detector=...)` feeds River's detector one *placement value*
per newly labeled prediction (its share of the other class ordered correctly, ties one
half; the mean is the AUC), taken against the frozen reference window
(``detector_signal="reference"``) or against the window (``"window"``). This script
measures, for each detector spec and each signal (``--signals``), on the same streams:

* **Drift runs** (``--runs``, default 50, seeds 0..runs-1): a binormal stream (30%
  positives, scores ``N(d y, 1)``, so the AUC is ``Phi(d / sqrt 2)``) whose AUC falls
  from ``--auc-before`` (0.9) to ``--auc-after`` (0.7) at event ``--change`` (3000) of
  ``--events`` (6000), window ``--window`` (1000), each prediction with its label. The
  *delay* of a run is the number of events from the change to the detector's first
  detection at or after it (1 = at the first changed event); a run without one is a
  *miss*. Detections before the change are false alarms.
* **Stationary runs** (``--runs`` more, seeds ``10**6 + k``, ``--stationary-events``
  (30000) each): the same stream without the change; every detection is a false alarm
  (runs with one, and their total).
* **Score shift** (``--runs`` more, seeds ``2 * 10**6 + k``, ``--events`` each): the AUC
  stays ``--auc-before`` but every score from event ``--change`` on is shifted by
  ``--shift`` (0.2): the ranking among the shifted predictions is unchanged, so a window
  after the change has the same AUC, but the shifted scores are placed differently
  against the unshifted reference. Runs with a detection after the change, and the
  median delay of the first.
* **Independent placements** (a control, ``--control``): River's ADWIN fed, on the same
  stationary streams, each event's placement against the *population* rather than the
  window (``Phi(s)`` for a positive, ``1 - Phi(s - d)`` for a negative: independent
  values with the same mean and nearly the same spread). The window's placements share
  the window's sampling error over about ``W`` events (a window that happens to hold
  high-scoring negatives lowers every positive's placement until they leave), which
  ADWIN's bound does not allow for; the control shows how many of the false alarms that
  sharing causes.
* **The demo's drift stream** (``streamrank demo --events``: River's ``Sine`` stream
  learnt online, concept drift at prediction 5,000, each label 25 predictions late),
  replayed through the monitor (window 1000): the events at which each detector fired.

Seeded: every run is reproducible (numpy ``default_rng(seed)``; River's detectors use no
randomness). The window is a count window, ``min_window=30`` (the monitor's default).

Run: ``python benchmarks/bench_detector.py [--runs 50] [--stationary-events 30000]
[--detectors adwin page-hinkley] [--signals reference window] [--no-control] [--no-demo]
[--json]`` (about 4 minutes with the defaults on one core). Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from _common import REPO  # noqa: F401 (puts a source tree on sys.path if needed)

from _common import log, markdown_table  # noqa: E402
from streamrank.monitor import Monitor  # noqa: E402

DEFAULT_DETECTORS = ("adwin", "page-hinkley")
SIGNALS = ("reference", "window")


def binormal_stream(n: int, seed: int, change_at: int | None, auc_before: float,
                    auc_after: float, p: float = 0.3):
    """Labels and scores (Python lists): AUC ``auc_before`` before event ``change_at``
    (0-based), ``auc_after`` from it on (no change with None)."""
    from scipy.stats import norm

    rng = np.random.default_rng(seed)
    y = rng.random(n) < p
    d = np.full(n, math.sqrt(2) * norm.ppf(auc_before))
    if change_at is not None:
        d[change_at:] = math.sqrt(2) * norm.ppf(auc_after)
    return y.tolist(), (rng.normal(0.0, 1.0, n) + d * y).tolist()


def detections(spec: str, y, s, window: int, signal: str = "reference") -> list[int]:
    """The 1-based event numbers at which the detector fired (``stats["detections"]``
    went up), each event a prediction with its label."""
    m = Monitor(window=window, detector=spec, detector_signal=signal)
    observe, st = m.observe, m.stats
    out = []
    for i in range(len(y)):
        k = st["detections"]
        observe(i, score=s[i], label=y[i])
        if st["detections"] != k:
            out.append(i + 1)
    return out


def _quantile(values, q):
    return float(np.quantile(values, q, method="inverted_cdf")) if values else math.nan


def run_synthetic(spec: str, signal: str, args) -> dict:
    delays, misses, before, t0 = [], 0, 0, time.perf_counter()
    for seed in range(args.runs):
        y, s = binormal_stream(args.events, seed, args.change, args.auc_before,
                               args.auc_after)
        at = detections(spec, y, s, args.window, signal)
        before += sum(a <= args.change for a in at)
        after = [a for a in at if a > args.change]
        if after:
            delays.append(after[0] - args.change)
        else:
            misses += 1
    runs_with, total = 0, 0
    for k in range(args.runs):
        y, s = binormal_stream(args.stationary_events, 10**6 + k, None, args.auc_before,
                               args.auc_after)
        at = detections(spec, y, s, args.window, signal)
        runs_with += bool(at)
        total += len(at)
    shift_runs, shift_delays = 0, []
    for k in range(args.runs):
        y, s = binormal_stream(args.events, 2 * 10**6 + k, None, args.auc_before,
                               args.auc_after)
        s = [v + args.shift if i >= args.change else v for i, v in enumerate(s)]
        after = [a for a in detections(spec, y, s, args.window, signal) if a > args.change]
        shift_runs += bool(after)
        if after:
            shift_delays.append(after[0] - args.change)
    seconds = time.perf_counter() - t0
    out = {"detector": spec, "signal": signal, "runs": args.runs, "delay_median": _quantile(delays, 0.5),
           "delay_p90": _quantile(delays, 0.9), "delay_max": max(delays, default=math.nan),
           "misses": misses, "false_before_change": before,
           "stationary_runs_with_alarm": runs_with, "stationary_alarms": total,
           "stationary_events": args.runs * args.stationary_events,
           "shift_runs_with_detection": shift_runs,
           "shift_delay_median": _quantile(shift_delays, 0.5), "seconds": seconds}
    log(f"  {spec}, {signal}: delay median {out['delay_median']:.0f}, p90 {out['delay_p90']:.0f}, "
        f"{misses} misses; {runs_with}/{args.runs} stationary runs with a false alarm; "
        f"{shift_runs}/{args.runs} shifted runs with a detection ({seconds:.0f} s)")
    return out


def run_control(args) -> dict:
    """ADWIN (River's defaults) on independent placements of the stationary streams."""
    from river import drift
    from scipy.stats import norm

    d = math.sqrt(2) * norm.ppf(args.auc_before)
    runs_with = total = 0
    for k in range(args.runs):
        y, s = binormal_stream(args.stationary_events, 10**6 + k, None, args.auc_before,
                               args.auc_after)
        y, s = np.array(y), np.array(s)
        values = np.where(y, norm.cdf(s), 1.0 - norm.cdf(s - d))
        det, fired = drift.ADWIN(), 0
        for v in values[30:].tolist():          # as the monitor: from min_window on
            det.update(v)
            fired += det.drift_detected
        runs_with += bool(fired)
        total += fired
    log(f"  control: {runs_with}/{args.runs} runs with a false alarm")
    return {"runs": args.runs, "stationary_runs_with_alarm": runs_with,
            "stationary_alarms": total}


def run_demo(specs, signals, window: int) -> dict:
    """The demo's drifting Sine stream (`streamrank.cli.demo_run`), its labels 25
    predictions late as in ``streamrank demo --events``: the events at which each
    detector fired, the prediction count there, and the drift's event."""
    from streamrank.cli import demo
    from streamrank.cli import demo_run as d

    n, at = demo.DRIFT_EVENTS, demo.DRIFT_AT
    pairs = list(d.progressive_predictions(d.sine_drift_stream(drift_at=at),
                                           d.online_model(), n_events=n))
    delay = 25
    out = {"predictions": n, "drift_at_prediction": at, "label_delay": delay,
           "window": window, "detectors": {}}
    for spec, signal in ((sp, sg) for sp in specs for sg in signals):
        m = Monitor(window=window, detector=spec, detector_signal=signal)
        fired = []
        for i in range(1, n + delay + 1):       # the event log's order
            if i - delay >= 1:
                k = m.stats["detections"]
                m.observe(i - delay, label=pairs[i - delay - 1][0])
                if m.stats["detections"] != k:
                    fired.append(i - delay)     # the prediction whose label fired it
            if i <= n:
                m.observe(i, score=pairs[i - 1][1])
        out["detectors"][f"{spec}, {signal}"] = fired
        log(f"  demo stream, {spec}, {signal}: fired at labels of predictions {fired}")
    return out


def markdown_report(result) -> str:
    a = result["args"]
    rows = []
    for r in result["synthetic"]:
        rows.append([f"`{r['detector']}`", r["signal"], f"{r['delay_median']:.0f}",
                     f"{r['delay_p90']:.0f}", f"{r['delay_max']:.0f}",
                     f"{r['misses']}/{r['runs']}", str(r["false_before_change"]),
                     f"{r['stationary_runs_with_alarm']}/{r['runs']}",
                     str(r["stationary_alarms"]),
                     f"{r['shift_runs_with_detection']}/{r['runs']}"])
    lines = [
        f"Synthetic stream: binormal scores, 30% positives, AUC {a['auc_before']} -> "
        f"{a['auc_after']} at event {a['change']:,} of {a['events']:,}, window "
        f"{a['window']:,}, every prediction with its label; {a['runs']} seeded runs with "
        f"the change (delay: events after the change to the first detection) and "
        f"{a['runs']} without it, {a['stationary_events']:,} events each "
        f"({a['runs'] * a['stationary_events']:,} stationary events).",
        "",
        markdown_table(["detector", "signal", "delay median", "delay p90", "delay max",
                        "misses", "false alarms before the change", "stationary runs with "
                        "a false alarm", "stationary false alarms",
                        f"score shift +{a['shift']:g}: runs with a detection"], rows),
    ]
    c = result.get("control")
    if c:
        lines += ["", f"Control: River's ADWIN (defaults) fed independent placements "
                  f"(against the population, not the window) on the same stationary "
                  f"streams: {c['stationary_alarms']} false alarms, "
                  f"{c['stationary_runs_with_alarm']}/{c['runs']} runs with one."]
    demo = result.get("demo")
    if demo:
        lines += ["", f"The demo's drift stream (`streamrank demo --events`: River's Sine "
                  f"stream, concept drift at prediction {demo['drift_at_prediction']:,} "
                  f"of {demo['predictions']:,}, labels {demo['label_delay']} predictions "
                  f"late, window {demo['window']:,}): the predictions whose label made "
                  "the detector fire.", ""]
        lines.append(markdown_table(
            ["detector, signal", "fired at (prediction)", "before the drift"],
            [[f"`{k}`", ", ".join(f"{v:,}" for v in fired) or "never",
              str(sum(v <= demo["drift_at_prediction"] for v in fired))]
             for k, fired in demo["detectors"].items()]))
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=50, help="seeded runs with and without drift")
    p.add_argument("--events", type=int, default=6000)
    p.add_argument("--change", type=int, default=3000)
    p.add_argument("--stationary-events", type=int, default=30000)
    p.add_argument("--window", type=int, default=1000)
    p.add_argument("--auc-before", type=float, default=0.9)
    p.add_argument("--auc-after", type=float, default=0.7)
    p.add_argument("--shift", type=float, default=0.2,
                   help="the score shift of the shifted runs")
    p.add_argument("--detectors", nargs="+", default=list(DEFAULT_DETECTORS))
    p.add_argument("--signals", nargs="+", default=list(SIGNALS), choices=SIGNALS)
    p.add_argument("--no-demo", action="store_true", help="skip the demo's drift stream")
    p.add_argument("--no-control", action="store_true",
                   help="skip ADWIN on independent placements")
    p.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    result = {"args": vars(args), "synthetic": [run_synthetic(d, g, args)
                                                for d in args.detectors
                                                for g in args.signals]}
    if not args.no_control:
        result["control"] = run_control(args)
    if not args.no_demo:
        result["demo"] = run_demo(args.detectors, args.signals, args.window)
    log(f"done in {time.perf_counter() - t0:.0f} s")
    print(json.dumps(result, indent=1) if args.json else markdown_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
