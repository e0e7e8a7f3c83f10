#!/usr/bin/env python
"""CLI benchmark: ``streamrank eval`` on 10-column CSV and Parquet files vs pandas + sklearn.

Usage::

    python benchmarks/bench_cli.py                     # 1e7 rows, Markdown report on stdout
    python benchmarks/bench_cli.py --n 1e6 --repeats 1 # a quick look
    python benchmarks/bench_cli.py --json

For each size ``n`` and format a file of ``n`` rows and 10 columns (``id``, ``user``,
``label`` (int8, ``P(label = 1) = score``), ``score`` (rounded to 6 decimals: ties),
``weight`` and five float features) is written once to ``--data-dir``. Then, round-robin
(see ``_common.py``), each method runs as a fresh Python process that reads the file and
prints the ROC AUC, so that start-up, imports, reading and the metric are all counted:

* **streamrank eval**: ``python -m streamrank.cli eval FILE --label label --score score
  --format json --no-progress`` (every pair count and metric, not only the AUC);
* **pandas + sklearn**: ``pandas.read_csv(usecols=[label, score])`` (or
  ``read_parquet(columns=...)``) then ``sklearn.metrics.roc_auc_score``: the obvious peer
  pipeline;
* **pandas + streamrank**: the same read, then ``streamrank.roc_auc_score`` (what the
  metric costs apart from the reader).

Time: wall time of the process, median of the runs (count in parentheses). Memory: the
process's peak resident set size (``ru_maxrss`` from ``os.wait4``). Agreement: every
method's AUC against streamrank's exact one. Progress goes to stderr, the report to stdout.
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

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown, markdown_table,
    parse_size,
)

MiB = 2**20

PEER = {
    "pandas + sklearn": "from sklearn.metrics import roc_auc_score",
    "pandas + streamrank": "from streamrank import roc_auc_score",
}
PEER_READ = {
    "csv": "d = pandas.read_csv({path!r}, usecols=['label', 'score'])",
    "parquet": "d = pandas.read_parquet({path!r}, columns=['label', 'score'])",
}


def write_files(base: str, n: int, seed: int, chunk: int = 1_000_000) -> dict:
    """``base.csv`` and ``base.parquet``, ``n`` rows and 10 columns, written chunk by
    chunk (bounded memory); returns ``{format: path}``."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    paths = {"csv": base + ".csv", "parquet": base + ".parquet"}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    tmp = {k: p + ".part" for k, p in paths.items()}
    wc = wp = None
    try:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            score = np.round(rng.random(m), 6)
            cols = {"id": np.arange(start, start + m), "user": rng.integers(0, 100_000, m),
                    "label": (rng.random(m) < score).astype(np.int8), "score": score,
                    "weight": np.round(rng.random(m) + 0.5, 3)}
            for j in range(5):
                cols[f"f{j}"] = np.round(rng.standard_normal(m), 5)
            t = pa.table(cols)
            if wc is None:
                wc = pcsv.CSVWriter(tmp["csv"], t.schema)
                wp = pq.ParquetWriter(tmp["parquet"], t.schema)
            wc.write_table(t)
            wp.write_table(t, row_group_size=chunk)
    finally:
        if wc is not None:
            wc.close()
            wp.close()
    for k in paths:
        os.replace(tmp[k], paths[k])
    return paths


def run_process(cmd: list[str]) -> tuple[float, int, str]:
    """``(seconds, peak RSS bytes, stdout)`` of one child process, reaped by ``os.wait4``
    (which returns that child's own resource usage)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[:6]} failed ({proc.returncode}): {err.read()[-2000:]}")
        return elapsed, usage.ru_maxrss * 1024, out.read()   # ru_maxrss: KiB on Linux


def methods(path: str, fmt: str) -> dict:
    py = sys.executable
    cmds = {"streamrank eval": [py, "-m", "streamrank.cli", "eval", path, "--label", "label",
                                "--score", "score", "--format", "json", "--no-progress"]}
    for name, imp in PEER.items():
        code = (f"import pandas; {imp}; " + PEER_READ[fmt].format(path=path) +
                "; print(repr(float(roc_auc_score(d['label'].to_numpy(), "
                "d['score'].to_numpy()))))")
        cmds[name] = [py, "-c", code]
    return cmds


def auc_of(name: str, out: str) -> float:
    if name == "streamrank eval":
        return json.loads(out)["auc"]
    return float(out.strip())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", nargs="+", default=["1e7"], help="row counts")
    ap.add_argument("--formats", nargs="+", default=["csv", "parquet"],
                    choices=["csv", "parquet"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                       "streamrank-bench-cli"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    os.makedirs(args.data_dir, exist_ok=True)
    info = machine_info(packages=("numpy", "pandas", "pyarrow", "scikit-learn", "click",
                                  "streamrank"), repo=REPO)
    results = []
    for n in [parse_size(x) for x in args.n]:
        base = os.path.join(args.data_dir, f"cols10_{fmt_n(n)}_s{args.seed}")
        log(f"n={fmt_n(n)}: files {base}.csv/.parquet")
        paths = write_files(base, n, args.seed)
        for fmt in args.formats:
            path = paths[fmt]
            cmds = methods(path, fmt)
            runs = {name: [] for name in cmds}
            for r in range(args.repeats):       # round-robin, as _common.side_by_side
                for name, cmd in cmds.items():
                    t, rss, out = run_process(cmd)
                    runs[name].append((t, rss, auc_of(name, out)))
                    log(f"    {fmt} {name}: {t:.2f} s, peak {rss / MiB:.0f} MiB (run {r + 1})")
            exact = runs["streamrank eval"][-1][2]
            for name, rr in runs.items():
                results.append(dict(
                    n=n, format=fmt, method=name, file_mb=os.path.getsize(path) / MiB,
                    seconds=float(np.median([x[0] for x in rr])), runs=len(rr),
                    peak_rss=int(max(x[1] for x in rr)), auc=rr[-1][2],
                    auc_error=abs(rr[-1][2] - exact)))
    if args.json:
        print(json.dumps({"machine": info, "args": vars(args), "results": results}, indent=1,
                         default=str))
        return 0
    rows = []
    for res in results:
        ref = next(x for x in results if x["n"] == res["n"] and x["format"] == res["format"]
                   and x["method"] == "streamrank eval")
        rows.append([fmt_n(res["n"]), res["format"], f"{res['file_mb']:.0f}", res["method"],
                     fmt_seconds(res["seconds"]) + f" ({res['runs']})",
                     fmt_ratio(res["seconds"] / ref["seconds"]),
                     f"{res['peak_rss'] / MiB:.0f}", fmt_ratio(res["peak_rss"] / ref["peak_rss"]),
                     f"{res['auc']:.12f}", f"{res['auc_error']:.1e}"])
    print("## streamrank eval benchmark (CLI, 10-column files)\n")
    cmdline = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"`python benchmarks/bench_cli.py {cmdline}`\n")
    print(machine_markdown(info) + "\n")
    print("Each method is a fresh process (start-up, imports, reading two of the ten "
          "columns, the metric). Time: median wall time of the runs (count in parentheses), "
          "round-robin. Memory: peak RSS of the process (`ru_maxrss`). Ratios are against "
          "`streamrank eval` on the same file (> 1: slower / more memory than it). AUC error: "
          "difference from streamrank's exact AUC.\n")
    print(markdown_table(
        ["n", "format", "file MB", "method", "time", "time / eval", "peak RSS MiB",
         "RSS / eval", "AUC", "AUC error"], rows, align="rlrlrrrrrr"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
