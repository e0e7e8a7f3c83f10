"""The cost of DeLong's paired test (`streamrank.delong_test`, two models): the test of
every paired report of a monitor, against another streamrank tree.

Data: ``n`` rows, binary labels (30% positives), a score and a correlated second score
(continuous: no ties). Timed: ``--calls`` calls in a row, the median of ``--repeats``
such timings, in microseconds a call. Each run checks its answer against scikit-learn's
AUC of both models.

With ``--against DIR`` (a checkout of another commit, its extensions built) the same
measurement runs in subprocesses under both trees, alternating, ``--rounds`` rounds; the
table gives the median of the rounds for each tree and their ratio.

    python benchmarks/bench_paired_test.py --sizes 1e3 1e4 --against /tmp/old --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from _common import REPO, json_under, load_average, machine_info, markdown_table, \
    parse_size, report_head, write_report


def measure(sizes, calls, repeats) -> dict:
    """size -> microseconds a call, in this process."""
    from sklearn.metrics import roc_auc_score

    from streamrank import delong_test

    out = {}
    rng = np.random.default_rng(0)
    for n in sizes:
        y = (rng.random(n) < 0.3).astype(float)
        s = np.clip(rng.normal(0.5 + 0.3 * y, 0.2), 0, 1)
        c = s + rng.normal(0, 0.05, n)
        r = delong_test(y, c, s)
        assert abs(r.auc_a - roc_auc_score(y, c)) < 1e-12
        assert abs(r.auc_b - roc_auc_score(y, s)) < 1e-12
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            for _ in range(calls):
                delong_test(y, c, s)
            times.append((time.perf_counter() - t) / calls * 1e6)
        out[str(n)] = statistics.median(times)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=parse_size, default=[1000, 10_000])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--against", help="another streamrank tree (its extensions built)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--output", "-o")
    args = ap.parse_args(argv)
    if args.json:
        import json

        print(json.dumps(measure(args.sizes, args.calls, args.repeats)))
        return
    sub = ["--sizes", *map(str, args.sizes), "--calls", str(args.calls),
           "--repeats", str(args.repeats)]
    runs = {"this": [], "other": []}
    for _ in range(args.rounds if args.against else 1):
        runs["this"].append(json_under(str(REPO), __file__, sub))
        if args.against:
            runs["other"].append(json_under(args.against, __file__, sub))
    rows = []
    for n in map(str, args.sizes):
        this = statistics.median(r[n] for r in runs["this"])
        row = [f"{int(n):,}", f"{this:.1f}"]
        if args.against:
            other = statistics.median(r[n] for r in runs["other"])
            row += [f"{other:.1f}", f"{this / other:.2f}x"]
        rows.append(row)
    headers = ["rows", "us a call (this tree)"]
    if args.against:
        headers += ["us a call (other tree)", "ratio"]
    result = {"command": "python benchmarks/bench_paired_test.py " + " ".join(
        sys.argv[1:] if argv is None else argv), "machine": machine_info(),
        "load_average_end": load_average()}
    lines = [*report_head("## DeLong's paired test, two models", result),
             f"Median of {args.repeats} timings of {args.calls} calls"
             + (f", of {args.rounds} alternating rounds against {args.against}"
                if args.against else "") + ".", "", markdown_table(headers, rows)]
    write_report("\n".join(lines), args.output)


if __name__ == "__main__":
    main()
