#!/usr/bin/env python
"""Per-call cost of the River metrics: ``update``, ``update`` + ``get`` and ``revert``.

Usage::

    python benchmarks/bench_metrics.py                      # 2e5 events, Markdown report
    python benchmarks/bench_metrics.py --baseline ../old    # and another checkout beside it

A stream of ``--events`` binary events (P(positive) = 0.3, continuous scores) is fed to
`streamrank.metrics.ROCAUC`, `KendallTau` and `ConcordanceIndex`, and to
``river.metrics.ROCAUC`` (the peer: 10 thresholds, approximate), with three patterns:

* ``update``: one update per event, a read at the end;
* ``update+get``: a read after every event (what a dashboard or a stopping rule does);
* ``revert``: every event reverted again, in the order it came (after the updates).

Each (metric, pattern) cell runs in a fresh subprocess, round-robin over the sources and
``--repeats`` times; the median microseconds per event is reported. With ``--baseline
DIR`` the same cells also run on the streamrank of DIR (a checkout with its compiled
modules built), interleaved with this one, so the ratio of two versions comes from one
run. Every cell checks that streamrank's final value equals scikit-learn's (ROCAUC) or
SciPy's (KendallTau, tau-b).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _common import REPO, fmt_ratio, log, machine_info, machine_markdown, markdown_table, median

METRICS = ("ROCAUC", "KendallTau", "ConcordanceIndex", "river ROCAUC")
PATTERNS = ("update", "update+get", "revert")

_CELL = r"""
import json, sys, time, gc
import numpy as np
sys.path.insert(0, {repo!r})
name, pattern, n = {name!r}, {pattern!r}, {n}
rng = np.random.default_rng(0)
y = (rng.random(n) < 0.3).tolist()
s = (rng.random(n) + 0.5 * np.array(y)).tolist()
if name == "river ROCAUC":
    from river import metrics
    m = metrics.ROCAUC()
else:
    import streamrank.metrics as sm
    m = getattr(sm, name)()
    assert {repo!r} in sm.__file__, sm.__file__
if pattern == "revert" and name == "river ROCAUC":
    print(json.dumps(None)); sys.exit()
u, g, r = m.update, m.get, getattr(m, "revert", None)
gc.collect(); gc.disable()
if pattern == "update":
    t0 = time.perf_counter()
    for a, b in zip(y, s):
        u(a, b)
    g()
elif pattern == "update+get":
    t0 = time.perf_counter()
    for a, b in zip(y, s):
        u(a, b)
        g()
else:
    for a, b in zip(y, s):
        u(a, b)
    g()
    t0 = time.perf_counter()
    for a, b in zip(y, s):
        r(a, b)
    g()
t = time.perf_counter() - t0
if pattern != "revert" and name != "river ROCAUC":
    from sklearn.metrics import roc_auc_score
    from scipy.stats import kendalltau
    want = (roc_auc_score(y, s) if name != "KendallTau" else kendalltau(y, s).statistic)
    assert abs(g() - want) <= 1e-12, (g(), want)
print(json.dumps(t / n * 1e6))
"""


def run_cell(repo: str, name: str, pattern: str, n: int) -> float | None:
    code = _CELL.format(repo=repo, name=name, pattern=pattern, n=n)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd="/")
    return json.loads(out.stdout)


def measure(args) -> dict:
    sources = {"this": REPO}
    if args.baseline:
        sources["baseline"] = args.baseline
    times: dict = {}
    for rep in range(args.repeats):
        for name in METRICS:
            for pattern in PATTERNS:
                for label, repo in sources.items():
                    if label == "baseline" and name.startswith("river"):
                        continue
                    t = run_cell(repo, name, pattern, args.events)
                    times.setdefault((label, name, pattern), []).append(t)
        log(f"round {rep + 1}/{args.repeats} done")
    return {k: (None if None in v else median(v)) for k, v in times.items()}


def report(med: dict, args) -> str:
    river = {p: med.get(("this", "river ROCAUC", p)) for p in PATTERNS}
    rows = []
    for name in METRICS[:-1]:
        for pattern in PATTERNS:
            t = med[("this", name, pattern)]
            base = med.get(("baseline", name, pattern))
            rows.append([name, pattern, f"{t:.2f}",
                         "" if base is None else f"{base:.2f}",
                         "" if base is None else fmt_ratio(base / t),
                         "" if river[pattern] is None else fmt_ratio(river[pattern] / t)])
    rows += [["river ROCAUC", p, f"{river[p]:.2f}", "", "", ""]
             for p in PATTERNS if river[p] is not None]
    info = machine_info(packages=("numpy", "river", "streamrank"))
    return "\n\n".join([
        f"# River metrics per call ({args.events:,} events, median of {args.repeats})",
        machine_markdown(info),
        markdown_table(["metric", "pattern", "µs/event", "baseline µs", "speed-up vs baseline",
                        "River ROCAUC time ÷ this"], rows, "llrrrr")])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=lambda x: int(float(x)), default=200_000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--baseline", help="another checkout of streamrank (its modules built)")
    args = p.parse_args(argv)
    print(report(measure(args), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
