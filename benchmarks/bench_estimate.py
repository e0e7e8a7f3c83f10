"""The cost of the label-free estimate: `Monitor(estimate=True)` against the same monitor
without it, per event.

The stream: probabilities drawn uniformly, each label drawn from its probability (a
calibrated model), every prediction with its label; a report every ``--every`` events.
For each window size ``W``, the window is filled first (not timed); then ``--events``
events are timed, fed by ``observe`` one at a time and by ``observe_many`` in blocks of
``--every``, with the estimate off and on, round-robin for ``--repeats`` rounds; the
table gives the medians and the ratio on / off (the goal: at most 1.5x). Each run checks
its answer: the final `Report.estimated_auc` equals scikit-learn's AUC of the window's
predictions duplicated with weights ``p`` and ``1 - p`` (``|diff| <= 1e-9``).

    python benchmarks/bench_estimate.py --windows 1e3 1e4 --events 1e5 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np
from sklearn.metrics import roc_auc_score

from _common import (load_average, machine_info, markdown_table, parse_size, report_head,
                     time_call, write_report)
from streamrank.monitor import Monitor


def stream(n, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(float)


def run(window, n, every, estimate, many, p, y):
    """Seconds per event of the timed part, and the monitor."""
    keys = list(range(window + n))
    m = Monitor(window=window, estimate=estimate)
    m.observe_many(keys[:window], score=p[:window], label=y[:window])
    pl, yl = p.tolist(), y.tolist()

    def timed():
        if many:
            for lo in range(window, window + n, every):
                hi = min(lo + every, window + n)
                m.observe_many(keys[lo:hi], score=p[lo:hi], label=y[lo:hi])
                m.report()
        else:
            for i in range(window, window + n):
                m.observe(i, score=pl[i], label=yl[i])
                if i % every == every - 1:
                    m.report()

    seconds, _ = time_call(timed)
    return seconds / n, m


def check(m, p, window, n):
    s = p[n:window + n]
    rows = np.r_[np.ones(s.size), np.zeros(s.size)]
    want = roc_auc_score(rows, np.r_[s, s], sample_weight=np.r_[s, 1 - s])
    got = m.report().estimated_auc
    assert abs(got - want) <= 1e-9, (got, want)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--windows", nargs="+", default=["1e3", "1e4"])
    ap.add_argument("--events", default="1e5")
    ap.add_argument("--every", default="100")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    n, every = parse_size(args.events), parse_size(args.every)
    rows = []
    for w in args.windows:
        window = parse_size(w)
        p, y = stream(window + n, args.seed)
        for many in (False, True):
            times = {False: [], True: []}
            for _ in range(args.repeats):
                for estimate in (False, True):
                    t, m = run(window, n, every, estimate, many, p, y)
                    times[estimate].append(t)
                    if estimate:
                        check(m, p, window, n)
            off, on = (statistics.median(times[e]) for e in (False, True))
            rows.append([w, "observe_many" if many else "observe", f"{1e6 * off:.2f}",
                         f"{1e6 * on:.2f}", f"{on / off:.2f}x"])
    result = {"command": "python benchmarks/bench_estimate.py " + " ".join(
        argv if argv is not None else sys.argv[1:]), "machine": machine_info(
        ("numpy", "scikit-learn", "streamrank")), "load_average_end": load_average()}
    text = "\n".join(report_head("### The estimate's cost per event", result) + [
        f"{n:,} events timed after the window fills, a report every {every}; median of "
        f"{args.repeats} round-robin rounds.", "",
        markdown_table(["W", "fed by", "us/event off", "us/event on", "on / off"], rows),
        ""])
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
