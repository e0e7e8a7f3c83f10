#!/usr/bin/env python
"""Intervals benchmark: `roc_auc_ci` and `delong_test` against the usual fast DeLong.

Usage::

    python benchmarks/bench_intervals.py --n 1e6 1e7       # Markdown report on stdout
    python benchmarks/bench_intervals.py --n 1e5 --repeats 3

The peer is DeLong's variance written the usual way in numpy, Sun & Xu's (2014)
algorithm: midranks by ``scipy.stats.rankdata`` three times per model (all samples, the
positives, the negatives), the placements from their differences, ``np.cov`` of them
(the ``compare_auc_delong_xu`` recipe passed around as a snippet). For the interval the
peer computes one model's variance and the same logit interval; for the paired test both
models' placements and their covariance. Both sides get labels and scores as numpy arrays
(binary labels, 40% positives), once with continuous scores and once with the scores
rounded to 3 decimals (column "tied": the share of samples whose score is not the first
of its value). Every answer is checked against the peer's.

Method: median wall time of ``--repeats`` round-robin runs (``_common.py``). Goal of
issue 15: >= 3x the peer at 1e6 and 1e7.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from _common import (fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown,
                     markdown_table, parse_size, side_by_side)

import streamrank
from streamrank.intervals import logit_interval, normal_p_value


def sun_xu_placements(y, scores):
    """``(aucs, v01, v10, m, n)`` of the ``k`` rows of ``scores``: three midranks each."""
    from scipy.stats import rankdata

    order = np.argsort(~y, kind="stable")        # positives first, as the recipe wants
    m = int(y.sum())
    X, Y = scores[:, order[:m]], scores[:, order[m:]]
    n = Y.shape[1]
    tx = np.vstack([rankdata(x) for x in X])
    ty = np.vstack([rankdata(x) for x in Y])
    tz = np.vstack([rankdata(x) for x in np.hstack([X, Y])])
    aucs = tz[:, :m].sum(axis=1) / m / n - (m + 1.0) / 2.0 / n
    v01 = (tz[:, :m] - tx) / n
    v10 = 1.0 - (tz[:, m:] - ty) / m
    return aucs, v01, v10, m, n


def peer_ci(y, s):
    aucs, v01, v10, m, n = sun_xu_placements(y, s[None, :])
    var = v01[0].var(ddof=1) / m + v10[0].var(ddof=1) / n
    se = math.sqrt(var)
    return (float(aucs[0]), se) + logit_interval(float(aucs[0]), se, 0.95)


def peer_test(y, a, b):
    aucs, v01, v10, m, n = sun_xu_placements(y, np.vstack([a, b]))
    cov = np.cov(v01) / m + np.cov(v10) / n
    se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (aucs[0] - aucs[1]) / se
    return float(aucs[0] - aucs[1]), se, normal_p_value(z)


def data(n, ties, seed=0):
    """Labels and two correlated models; ``ties``: scores rounded to 3 decimals."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    common = rng.normal(size=n)
    a = y + common + rng.normal(size=n)
    b = y + common + 1.1 * rng.normal(size=n)
    return (y, np.round(a, 3), np.round(b, 3)) if ties else (y, a, b)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--n", nargs="+", default=["1e6", "1e7"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    rows, worst = [], math.inf
    for n, ties in ((parse_size(x), t) for x in args.n for t in (True, False)):
        log(f"n = {fmt_n(n)}, ties: {ties}")
        y, a, b = data(n, ties)
        tied = 1.0 - np.unique(a).size / n
        cases = {
            "roc_auc_ci": ({"streamrank": lambda: streamrank.roc_auc_ci(y, a),
                            "Sun & Xu numpy": lambda: peer_ci(y, a)}),
            "delong_test": ({"streamrank": lambda: streamrank.delong_test(y, a, b),
                             "Sun & Xu numpy": lambda: peer_test(y, a, b)}),
        }
        for case, funcs in cases.items():
            t = side_by_side(funcs, args.repeats, progress=log)
            ours, peer = t["streamrank"], t["Sun & Xu numpy"]
            if case == "roc_auc_ci":
                r = ours.result
                diff = max(abs(x - y_) for x, y_ in zip((r.auc, r.se, r.low, r.high),
                                                        peer.result))
            else:
                r = ours.result
                diff = max(abs(x - y_) for x, y_ in zip((r.difference, r.se, r.p_value),
                                                        peer.result))
            ratio = peer.median / ours.median
            worst = min(worst, ratio)
            rows.append([case, fmt_n(n), f"{tied:.0%}", fmt_seconds(ours.median), fmt_seconds(peer.median),
                         fmt_ratio(ratio), f"{len(ours.times)}/{len(peer.times)}",
                         f"{diff:.1e}"])
    print("#### DeLong intervals and paired tests\n")
    print(markdown_table(["function", "n", "tied", "streamrank s", "Sun & Xu s", "speedup", "runs",
                          "|diff|"], rows))
    print(f"\n**Goal** >= 3x the numpy Sun & Xu DeLong: {'PASS' if worst >= 3 else 'FAIL'} "
          f"(worst {worst:.2f}x).\n")
    print(machine_markdown(machine_info()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
