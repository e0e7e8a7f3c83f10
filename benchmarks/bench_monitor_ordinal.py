"""Benchmark: the per-report cost of a `streamrank.monitor.Monitor` with non-binary labels.

With a third label value each report tests the window's concordance against the
reference's with the U-statistic variance of `streamrank.concordance_variance`,
recomputed from the window's labeled predictions (``O(W log W)``). Timed per window size
``W`` (default 1e3, 1e4, 1e5) on an ordinal stream (labels 0..4, scores = label + noise,
rounded to 2 decimals: ties in both):

* **report, ordinal** -- one new event (the window slides by one), then ``report()``:
  the engine's exact counts, the concordance, its variance and the test;
* **recount** -- `streamrank.pair_counts` of the window's rows: the metric alone counted
  again from scratch, the cheapest peer a report could be (no variance, no test);
* **variance from scratch** -- `concordance_variance` of the window's rows (what the
  report adds to the counts);
* **pair matrix** -- the same variance from the ``W x W`` comparison matrices in numpy
  (``O(W^2)``; only up to ``--max-matrix``);
* **report, binary** -- for context, the ``O(1)`` Hanley-McNeil report of a binary
  stream of the same size.

Each cell is the median of ``--repeats`` calls (gc disabled, `_common.time_call`); every
report's p-value is checked against `auc_drop_test` of `concordance_variance` of the
window's and the reference's rows, the matrix variance against the fast one.

Run: ``python benchmarks/bench_monitor_ordinal.py [--windows 1e3 1e4 1e5] [--repeats 15]
[-o FILE]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from _common import REPO  # noqa: F401  (puts a source tree on sys.path if needed)

from _common import (  # noqa: E402
    fmt_n, log, machine_info, machine_markdown, markdown_table, median, parse_size, time_call,
    write_report,
)
from streamrank import concordance_variance, pair_counts  # noqa: E402
from streamrank.monitor import Monitor  # noqa: E402
from streamrank.monitor.drift import auc_drop_test  # noqa: E402


def stream(n, rng, binary=False):
    y = rng.integers(0, 2 if binary else 5, n).astype(float)
    return y, np.round(y + rng.normal(0, 1.5, n), 2)


def matrix_variance(y, s):
    """The U-statistic variance from the full comparison matrices, O(W^2) memory."""
    dy = np.sign(y[:, None] - y[None, :])
    ds = np.sign(s[:, None] - s[None, :])
    b = (dy != 0).sum(axis=1).astype(float)
    a = b + (dy * ds).sum(axis=1)
    c = a.sum() / (2 * b.sum())
    n = y.size
    return n / (n - 1) * float(((a - 2 * c * b) ** 2).sum()) / b.sum() ** 2


def bench(w, repeats, max_matrix, rng):
    y, s = stream(w + repeats + 1, rng)
    m = Monitor(window=w, min_window=30)
    for i in range(w + 1):                      # full, the reference frozen at the slide
        m.observe(i, score=s[i], label=y[i])
    ref = concordance_variance(y[:w], s[:w])
    times = {"report": [], "recount": [], "variance": []}
    for k in range(repeats):
        i = w + 1 + k
        m.observe(i, score=s[i], label=y[i])
        t, r = time_call(m.report)
        times["report"].append(t)
        yw, sw = y[i - w + 1:i + 1], s[i - w + 1:i + 1]
        times["recount"].append(time_call(lambda: pair_counts(yw, sw))[0])
        t, (c, var) = time_call(lambda: concordance_variance(yw, sw))
        times["variance"].append(t)
        want = auc_drop_test(c, var, *ref).p_value
        assert math.isclose(r.p_value, want, rel_tol=1e-9, abs_tol=1e-300), (r.p_value, want)
    row = {k: median(v) for k, v in times.items()}
    if w <= max_matrix:
        t, v = time_call(lambda: matrix_variance(yw, sw))
        assert math.isclose(v, var, rel_tol=1e-9)
        row["matrix"] = t
    yb, sb = stream(w + repeats + 1, rng, binary=True)
    mb = Monitor(window=w, min_window=30)
    for i in range(w + 1):
        mb.observe(i, score=sb[i], label=yb[i])
    tb = []
    for k in range(repeats):
        i = w + 1 + k
        mb.observe(i, score=sb[i], label=yb[i])
        tb.append(time_call(mb.report)[0])
    row["binary"] = median(tb)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--windows", nargs="+", default=["1e3", "1e4", "1e5"])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--max-matrix", type=parse_size, default=parse_size("1e4"))
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = []
    for w in (parse_size(x) for x in args.windows):
        log(f"W = {fmt_n(w)}")
        r = bench(w, args.repeats, args.max_matrix, rng)
        ms = lambda x: f"{1e3 * x:.3g}"      # noqa: E731
        rows.append([fmt_n(w), ms(r["report"]), ms(r["recount"]), ms(r["variance"]),
                     f"{r['report'] / r['recount']:.2f}x",
                     ms(r["matrix"]) if "matrix" in r else "-", f"{1e3 * r['binary']:.3g}"])
    head = ["W", "report, ordinal ms", "recount ms", "variance ms", "report / recount",
            "pair matrix ms", "report, binary ms"]
    text = (f"Per report, median of {args.repeats} (the window slides by one event "
            "before each report); every p-value checked against the formula on the "
            "window's rows.\n\n" + markdown_table(head, rows) + "\n\n"
            + machine_markdown(machine_info(packages=("numpy", "streamrank"))))
    write_report(text, args.output)


if __name__ == "__main__":
    main()
