#!/usr/bin/env python
"""Dask benchmark: exact pair counts of Parquet files on a local cluster vs the numpy core.

Usage::

    python benchmarks/bench_dask.py --n 1e6 1e7 1e8          # Markdown report on stdout
    python benchmarks/bench_dask.py --n 1e6 --repeats 1      # a quick look
    python benchmarks/bench_dask.py --n 1e7 --labels continuous --json

For each size ``n`` a Parquet file of ``n`` rows (``label`` int8, ``score`` float64 rounded
to 6 decimals, so ties cross every range boundary; ``P(label = 1) = score``) is written
once, row group by row group, to ``--data-dir``. Then, round-robin (see ``_common.py``):

* **dask**: ``streamrank.dask.pair_counts`` reading the file with ``dd.read_parquet`` on
  a ``distributed.LocalCluster`` of ``--workers`` worker processes (one thread each,
  ``--memory-limit`` each), started once; the time includes reading the file (twice: scan
  and shuffle);
* **numpy**: ``streamrank.pair_counts`` on the columns already in memory (the read is
  not timed); skipped above ``--numpy-max`` rows unless ``--check`` asks for the agreement
  check, which then runs it once after the cluster is closed.

Memory: the peak resident set size, sampled every 20 ms by psutil, of the whole process
tree (this process, the nannies and the workers) during the dask runs, and of this process
alone during the numpy runs. Agreement: the two `PairCounts` must be equal (Python ints).
Goals (issue 7): 1e8 rows complete with a peak under 4 GiB; at 1e7 the Dask path within 3x
of the numpy core on the same 2 cores. Progress goes to stderr, the report to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import warnings

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed
try:
    import streamrank
except ImportError:  # run from a source tree without installing
    sys.path.insert(0, REPO)
    import streamrank

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown, markdown_table,
    parse_size, side_by_side,
)

GiB = 2**30


class PeakRSS:
    """Peak RSS (bytes) of a process and, optionally, all its descendants, sampled by a
    background thread every ``interval`` seconds while the context is open."""

    def __init__(self, tree: bool, interval: float = 0.02):
        import psutil

        self.proc = psutil.Process()
        self.tree, self.interval, self.peak = tree, interval, 0
        self._stop = threading.Event()

    def _sample(self) -> int:
        procs = [self.proc] + (self.proc.children(recursive=True) if self.tree else [])
        total = 0
        for p in procs:
            try:
                total += p.memory_info().rss
            except Exception:  # a process that just exited
                pass
        return total

    def _loop(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            time.sleep(self.interval)

    def __enter__(self):
        self.peak = self._sample()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


def write_parquet(path: str, n: int, labels: str, seed: int, row_group: int) -> None:
    """``n`` rows written row group by row group (bounded memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    tmp = path + ".part"
    writer = None
    try:
        for start in range(0, n, row_group):
            m = min(row_group, n - start)
            s = np.round(rng.random(m), 6)
            if labels == "binary":
                y = (rng.random(m) < s).astype(np.int8)
            else:
                y = np.round(s + rng.normal(scale=0.3, size=m), 3)
            table = pa.table({"label": y, "score": s})
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table, row_group_size=row_group)
    finally:
        if writer is not None:
            writer.close()
    os.replace(tmp, path)


def read_columns(path: str):
    import pyarrow.parquet as pq

    t = pq.read_table(path, columns=["label", "score"])
    return t.column("label").to_numpy(), t.column("score").to_numpy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", nargs="+", default=["1e6", "1e7"], help="sample counts")
    ap.add_argument("--labels", choices=["binary", "continuous"], default="binary")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1.5GiB", help="per worker (spills beyond)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of runs per method")
    ap.add_argument("--numpy-max", default="1e7", help="largest n timed with the numpy core")
    ap.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                    help="check agreement above --numpy-max too (numpy run once, untimed)")
    ap.add_argument("--row-group", default="2097152", help="rows per Parquet row group")
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                       "streamrank-bench-dask"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    import dask
    import dask.dataframe as dd
    import distributed

    from streamrank import dask as sd

    warnings.simplefilter("ignore", UserWarning)
    sizes = [parse_size(x) for x in args.n]
    numpy_max = parse_size(args.numpy_max)
    row_group = parse_size(args.row_group)
    os.makedirs(args.data_dir, exist_ok=True)
    info = machine_info(packages=("numpy", "pandas", "pyarrow", "dask", "distributed",
                                  "psutil", "streamrank"), repo=REPO)
    rows, results, pending = [], [], []
    dask.config.set({"distributed.worker.daemon": True, "logging.distributed": "error"})
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, memory_limit=args.memory_limit,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        for n in sizes:
            path = os.path.join(args.data_dir, f"{args.labels}_{fmt_n(n)}_s{args.seed}.parquet")
            if not os.path.exists(path):
                log(f"writing {path}")
                write_parquet(path, n, args.labels, args.seed, row_group)
            size_mb = os.path.getsize(path) / 2**20
            ddf = dd.read_parquet(path, columns=["label", "score"], split_row_groups=True)
            log(f"n={fmt_n(n)}: {ddf.npartitions} partitions, {size_mb:.0f} MB on disk")

            def run_dask(ddf=ddf):
                return sd.pair_counts(ddf, label="label", score="score", scheduler=client)

            funcs = {"dask": run_dask}
            y = s = None
            if n <= numpy_max:
                y, s = read_columns(path)
                funcs["numpy"] = lambda y=y, s=s: streamrank.pair_counts(y, s)
            peaks = {}
            timings = {}
            for name, fn in funcs.items():
                # One warm-up call of the dask path (imports, worker start-up caches).
                if name == "dask" and n == sizes[0]:
                    fn()
            for r in range(args.repeats):
                for name, fn in funcs.items():
                    t = timings.setdefault(name, [])
                    if r > 0 and sum(t) >= args.budget:
                        continue
                    with PeakRSS(tree=(name == "dask")) as pk:
                        one = side_by_side({name: fn}, 1)[name]
                    peaks[name] = max(peaks.get(name, 0), pk.peak)
                    t.append(one.times[0])
                    timings[name + "_result"] = one.result
                    log(f"    {name}: {one.times[0]:.2f} s, peak {pk.peak / GiB:.2f} GiB")
            dres = timings["dask_result"]
            nres = timings.get("numpy_result")
            agree = None if nres is None else dres == nres
            if nres is None and args.check:
                pending.append((n, path, dres))
            med = {k: float(np.median(v)) for k, v in timings.items() if not k.endswith("_result")}
            results.append(dict(n=n, partitions=ddf.npartitions, file_mb=size_mb,
                                dask_s=med["dask"], dask_runs=len(timings["dask"]),
                                numpy_s=med.get("numpy"), dask_peak=peaks["dask"],
                                numpy_peak=peaks.get("numpy"), agree=agree,
                                auc=dres.auc, pairs=dres.total))
            del y, s
    finally:
        client.close()
        cluster.close()
    for n, path, dres in pending:  # agreement above --numpy-max: one untimed numpy run
        log(f"checking n={fmt_n(n)} against the numpy core (untimed)")
        y, s = read_columns(path)
        t0 = time.perf_counter()
        nres = streamrank.pair_counts(y, s)
        el = time.perf_counter() - t0
        del y, s
        for res in results:
            if res["n"] == n:
                res["agree"] = dres == nres
                res["numpy_s_untimed"] = el

    goal_lines = []
    for res in results:
        ratio = res["dask_s"] / res["numpy_s"] if res.get("numpy_s") else None
        rows.append([fmt_n(res["n"]), res["partitions"], f"{res['file_mb']:.0f}",
                     fmt_seconds(res["dask_s"]) + f" ({res['dask_runs']})",
                     fmt_seconds(res.get("numpy_s") or res.get("numpy_s_untimed")) +
                     ("" if res.get("numpy_s") else " (1, untimed check)"
                      if res.get("numpy_s_untimed") else ""),
                     fmt_ratio(ratio), f"{res['dask_peak'] / GiB:.2f}",
                     "—" if res["numpy_peak"] is None else f"{res['numpy_peak'] / GiB:.2f}",
                     {True: "exact", False: "DIFFERENT", None: "not checked"}[res["agree"]],
                     f"{res['auc']:.6f}", f"{res['pairs']:.3e}"])
        if res["n"] == 10**7 and ratio is not None:
            goal_lines.append(f"- 1e7: Dask within 3x of the numpy core: {ratio:.2f}x -> "
                              f"{'PASS' if ratio <= 3 else 'FAIL'}")
        if res["n"] >= 10**8:
            ok = res["dask_peak"] < 4 * GiB and res["agree"] is not False
            goal_lines.append(f"- {fmt_n(res['n'])}: completes with peak memory under 4 GiB: "
                              f"{res['dask_peak'] / GiB:.2f} GiB -> {'PASS' if ok else 'FAIL'}")
        if res["agree"] is False:
            goal_lines.append(f"- {fmt_n(res['n'])}: exact agreement -> FAIL")
    if args.json:
        print(json.dumps({"machine": info, "args": vars(args), "results": results}, indent=1,
                         default=str))
        return 0
    print(f"# streamrank.dask benchmark ({args.labels} labels)\n")
    print(f"`python benchmarks/bench_dask.py {' '.join(argv if argv is not None else sys.argv[1:])}`\n")
    print(machine_markdown(info) + "\n")
    print(f"Local cluster: {args.workers} worker processes x 1 thread, memory limit "
          f"{args.memory_limit} each (spill to disk beyond). Dask time includes reading "
          "the Parquet file (twice); numpy time is `pair_counts` on in-memory columns. Peak "
          "memory: RSS of the whole process tree (dask) or of this process (numpy), sampled "
          "every 20 ms. Time: median of the runs (count in parentheses).\n")
    print(markdown_table(
        ["n", "parts", "MB", "dask s", "numpy s", "dask/numpy", "dask peak GiB",
         "numpy peak GiB", "agreement", "AUC", "pairs"],
        rows, align="rrrrrrrrlrr"))
    print("\nGoals (issue 7):\n")
    print("\n".join(goal_lines) if goal_lines else "- (no goal size in this run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
