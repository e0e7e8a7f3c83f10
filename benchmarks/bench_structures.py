#!/usr/bin/env python
"""Micro-benchmark of the order-statistic structures: median time per operation.

Usage::

    python benchmarks/bench_structures.py                    # n = 1e4 1e5 1e6, Markdown
    python benchmarks/bench_structures.py --n 1e5 --ops 500  # a quick look
    python benchmarks/bench_structures.py --json > out.json
    python benchmarks/bench_structures.py --memory           # + bytes per item held
    python benchmarks/bench_structures.py --leaf       # DominanceCounter leaf 16 / 32 / 64
    python benchmarks/bench_structures.py --levels     # per-level counter vs dominance tree

The last two modes are the measurements behind the tuning constants: ``_cdominance.pyx``'s
``_LEAF``, and the advice on when to leave `LevelDominanceCounter` for `DominanceCounter`.

Method. Each structure is built holding ``n`` items drawn from a seeded generator (with
its bulk constructor). Every operation then runs on ``--ops`` fresh random arguments,
split into batches of ``--batch`` calls; each batch is timed with
``time.process_time_ns`` (the CPU time of this process: load from other processes on a
shared machine is not counted, though the cache pollution it causes is), with the garbage
collector disabled, and the figure reported is the median over the batches of the time
per call. Inserts come first and the removals take the same items out again, so ``n``
holds throughout. Scores are uniform in [0, 1) (continuous, no ties); labels are binary,
5 levels, or uniform (continuous). ``--memory`` divides the tracemalloc peak of the build
by ``n``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import tracemalloc

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed
try:
    import streamrank
except ImportError:  # run from a source tree without installing
    sys.path.insert(0, REPO)
    import streamrank

from _common import (  # noqa: E402
    fmt_n, log, machine_info, machine_markdown, markdown_table, parse_size,
)
from sortedcontainers import SortedList  # noqa: E402

from streamrank.structures import DominanceCounter, LevelDominanceCounter  # noqa: E402
from streamrank.structures import _cdominance as dominance_module  # noqa: E402


# --------------------------------------------------------------------------- timing
def per_call(fn, args, batch):
    """Median CPU seconds per call of ``fn(*a)`` over batches of ``args``."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for lo in range(0, len(args), batch):
            chunk = args[lo:lo + batch]
            t0 = time.process_time_ns()
            for a in chunk:
                fn(*a)
            times.append((time.process_time_ns() - t0) / len(chunk) / 1e9)
    finally:
        gc.enable()
    return statistics.median(times)


def fmt_us(seconds):
    return "-" if seconds is None else f"{seconds * 1e6:.2f}"


# --------------------------------------------------------------------------- cases
def sortedlist_case(n, rng, ops, batch):
    sl = SortedList(rng.random(n).tolist())
    new = [(v,) for v in rng.random(ops).tolist()]
    out = {"add": per_call(sl.add, new, batch), "remove": per_call(sl.remove, new, batch)}
    out["partition"] = per_call(sl.bisect_left, [(v,) for v in rng.random(ops).tolist()],
                                batch)
    return sl, out


def dominance_case(cls, n, rng, ops, batch, levels):
    """``levels``: a number of label levels, None for continuous labels, or "increasing"
    for continuous labels whose new points all land beyond the largest label held."""
    def labels(size):
        if levels == "increasing":
            return 1.0 + np.arange(size) / size
        return rng.random(size) if levels is None else rng.integers(0, levels, size)

    if cls is DominanceCounter:
        dc = DominanceCounter.from_arrays(rng.random(n) if levels == "increasing"
                                          else labels(n), rng.random(n))
    else:
        dc = LevelDominanceCounter()
        for y, s in zip(labels(n).tolist(), rng.random(n).tolist()):
            dc.add(y, s)
    new = list(zip(labels(ops).tolist(), rng.random(ops).tolist()))
    out = {"add": per_call(dc.add, new, batch), "remove": per_call(dc.remove, new, batch)}
    out["pairs_with"] = per_call(dc.pairs_with, list(zip(labels(ops).tolist(),
                                                         rng.random(ops).tolist())), batch)
    return dc, out


CASES = [
    # (name, builder(n, rng, ops, batch) -> (structure, {operation: seconds}))
    ("sortedcontainers.SortedList (reference)", sortedlist_case),
    ("LevelDominanceCounter, binary", lambda *a: dominance_case(LevelDominanceCounter, *a, 2)),
    ("LevelDominanceCounter, 5 levels",
     lambda *a: dominance_case(LevelDominanceCounter, *a, 5)),
    ("DominanceCounter, continuous", lambda *a: dominance_case(DominanceCounter, *a, None)),
    ("DominanceCounter, increasing labels",
     lambda *a: dominance_case(DominanceCounter, *a, "increasing")),
]


def memory_per_item(builder, n, seed, ops, batch):
    gc.collect()
    tracemalloc.start()
    structure, _ = builder(n, np.random.default_rng(seed), 2, batch)
    peak = tracemalloc.get_traced_memory()[0]  # what stays allocated with the structure
    tracemalloc.stop()
    del structure
    return peak / n


def main_table(args):
    rows, results = [], {}
    for name, builder in CASES:
        per_n, mem = {}, {}
        for n in args.n:
            log(f"{name}: n={fmt_n(n)}")
            _, per_n[n] = builder(n, np.random.default_rng(args.seed), args.ops, args.batch)
            if args.memory:
                mem[n] = memory_per_item(builder, n, args.seed, args.ops, args.batch)
        results[name] = {"seconds": {str(n): v for n, v in per_n.items()},
                         "bytes_per_item": {str(n): v for n, v in mem.items()}}
        for op in per_n[args.n[0]]:
            row = [name, op] + [fmt_us(per_n[n][op]) for n in args.n]
            if args.memory:
                row.append(" / ".join(f"{mem[n]:.0f}" for n in args.n) if op == "add" else "")
            rows.append(row)
    headers = ["structure", "operation"] + [f"n={fmt_n(n)} (us)" for n in args.n]
    if args.memory:
        headers.append("bytes / item")
    return markdown_table(headers, rows, "ll" + "r" * (len(headers) - 2)), results


# --------------------------------------------------------------------------- tuning modes
def leaf_table(args):
    """The DominanceCounter leaf size (read when a counter is created)."""
    rows, saved = [], dominance_module._LEAF
    try:
        for leaf in (16, 32, 64):
            dominance_module._LEAF = leaf
            for n in args.n:
                _, out = dominance_case(DominanceCounter, n, np.random.default_rng(args.seed),
                                        args.ops, args.batch, None)
                rows.append([leaf, fmt_n(n)] + [fmt_us(out[k]) for k in out])
    finally:
        dominance_module._LEAF = saved
    return markdown_table(["_LEAF", "n", "add (us)", "remove (us)", "pairs_with (us)"], rows,
                          "rrrrr")


def levels_table(args):
    """The level counter against the dominance tree, by number of label levels."""
    n, rows = max(args.n), []
    for levels in (2, 4, 8, 16, 32):
        row = [levels]
        for cls in (LevelDominanceCounter, DominanceCounter):
            _, out = dominance_case(cls, n, np.random.default_rng(args.seed), args.ops,
                                    args.batch, levels)
            row += [fmt_us(out["add"]), fmt_us(out["pairs_with"])]
        rows.append(row)
    return markdown_table(["levels", "Level: add (us)", "Level: pairs_with (us)",
                           "Dominance: add (us)", "Dominance: pairs_with (us)"], rows,
                          "rrrrr") + f"\n\n(n = {fmt_n(n)} points)"


# --------------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", nargs="+", type=parse_size, default=[10**4, 10**5, 10**6],
                   help="sizes held (default 1e4 1e5 1e6)")
    p.add_argument("--ops", type=int, default=2000, help="calls per operation (2000)")
    p.add_argument("--batch", type=int, default=100, help="calls per timed batch (100)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--memory", action="store_true", help="also bytes per item held")
    modes = p.add_mutually_exclusive_group()
    for mode in ("leaf", "levels"):
        modes.add_argument(f"--{mode}", action="store_true")
    args = p.parse_args(argv)

    for mode, table in (("leaf", leaf_table), ("levels", levels_table)):
        if getattr(args, mode):
            print(table(args))
            return
    info = machine_info()
    text, results = main_table(args)
    if args.json:
        print(json.dumps({"machine": info, "ops": args.ops, "batch": args.batch,
                          "seed": args.seed, "results": results}, indent=1))
        return
    print(f"## Order-statistic structures: median CPU time per operation\n\n"
          f"{machine_markdown(info)}\n\n{args.ops} calls per operation in batches of "
          f"{args.batch}, seed {args.seed}; streamrank {streamrank.__version__}.\n\n{text}")


if __name__ == "__main__":
    main()
