"""Benchmark of the GSD comparison on the authors' OpenML suite (their OpenML experiment, [J24]).

80 binary data sets x 7 classifiers; accuracy cardinal, CPU training and test time cut into
deciles over all 560 rows (reversed: faster is better) ordinal; SVM is the model of interest
against the 6 others. Measures, per competitor: building the reduced LP, one statistic at
epsilon = 0, xi (the auxiliary LP behind epsilon > 0); then the whole front-membership test
with B re-splits per competitor at epsilon = 0, and the peak memory.

The authors needed about 315 hours with Gurobi for their OpenML tests (1000 permutations x 5
epsilons, 6 competitors; 14-96 h per competitor, from the run times they reported); at
epsilon = 0 alone that is roughly 63 hours. [J24] is listed in docs/compare.md, References.

Usage (from the repository root)::

    python benchmarks/bench_gsd.py                       # B = 1000, 1 process
    python benchmarks/bench_gsd.py --permutations 200 --n-jobs 2
    python benchmarks/bench_gsd.py --data /path/to/gsd/openml --markdown RESULTS.md

Nothing runs at import: the file is safe for test collectors.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "gsd" / "openml"
MODEL = "classif.svm"
NAMES = {"classif.svm": "SVM", "classif.multinom": "LR", "classif.ranger": "RF",
         "classif.xgboost": "xGBoost", "classif.glmnet": "GLMNet", "classif.kknn": "kNN",
         "classif.rpart": "CART"}


def _machine() -> list[str]:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numpy
    import scipy

    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    return [f"- CPU: {cpu}; {os.cpu_count()} logical cores visible (shared machine)",
            f"- {platform.system()} {platform.release()}; Python {platform.python_version()}, "
            f"numpy {numpy.__version__}, scipy {scipy.__version__} (HiGHS via linprog)",
            f"- load average at the end of the run: {load}"]


def _peak_mib() -> tuple[float, float]:
    """Peak resident set size of this process and of the largest finished child (MiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


def _authors_times(data: Path) -> dict:
    """Hours of the authors' all-pairs epsilon = 0 evaluation (build + xi + 1 LP) per pair."""
    out = {}
    path = data / "computation_times.csv"
    if path.exists():
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                name = r["file"].split("_computation_time")[0]
                a, _, b = name.partition("-")
                if a == MODEL:
                    out[b] = float(r["hours"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA,
                    help=f"folder with openml_performance_raw.csv (default {DEFAULT_DATA})")
    ap.add_argument("--permutations", "-B", type=int, default=1000)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2893, help="the authors' R seed, for the record")
    ap.add_argument("--no-test", action="store_true", help="time the statistics only")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from streamrank.compare import cardinal, gsd_test, ordinal, performance_table
    from streamrank.compare._statistic import PairProblem

    raw = args.data / "openml_performance_raw.csv"
    if not raw.exists():
        print(f"error: {raw} not found; pass --data DIR", file=sys.stderr)
        return 2
    with open(raw, newline="") as fh:
        rows = list(csv.DictReader(fh))
    t0 = time.perf_counter()
    table = performance_table(
        rows, model="learner.name", dataset="data.name",
        metrics=[cardinal("predictive.accuracy"),
                 ordinal("usercpu.time.millis.training", direction="smaller", bins=10),
                 ordinal("usercpu.time.millis.testing", direction="smaller", bins=10)])
    t_table = time.perf_counter() - t0
    check = ""
    gsd_input = args.data / "openml_gsd_input.csv"
    if gsd_input.exists():  # our binning against the authors' preprocessing
        with open(gsd_input, newline="") as fh:
            ref = {(r["learner.name"], r["data.name"]): (float(r["train_time_ord"]),
                                                         float(r["test_time_ord"]))
                   for r in csv.DictReader(fh)}
        ours = {(table.models[m], table.datasets[d]): tuple(v[:2])
                for m, d, v in zip(table.model_index, table.dataset_index, table.values)}
        check = "yes" if ours == ref else "NO"

    competitors = [m for m in table.models if m != MODEL]
    authors = _authors_times(args.data)
    lines = ["# GSD benchmark: OpenML suite (80 data sets x 7 classifiers, SVM vs the 6 others)",
             "", "Machine:", *_machine(), "",
             f"Table: {len(rows)} rows validated and binned in {t_table:.3f} s"
             + (f"; deciles equal to the authors' preprocessing: {check}" if check else ""), "",
             "## One statistic per pair (epsilon = 0), one process", "",
             "| competitor | points m | rows (R1 + R2 + eq) | build (s) | LP (s) | d | xi | xi LP (s) "
             "| authors: build + xi + 1 LP (h) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in competitors:
        i, j = table.models.index(MODEL), table.models.index(c)
        t0 = time.perf_counter()
        pair = PairProblem(table, i, j)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        d = pair.program.minimize(pair.observed_cost())
        t_lp = time.perf_counter() - t0
        t0 = time.perf_counter()
        xi = pair.program.xi()
        t_xi = time.perf_counter() - t0
        p = pair.program
        a = authors.get(c)
        lines.append(f"| {NAMES.get(c, c)} | {p.m} | {p.n_rows:,} ({p.n_r1} + {p.n_r2:,} + {p.n_eq}) "
                     f"| {t_build:.3f} | {t_lp:.3f} | {d:+.4f} | {xi:.3g} | {t_xi:.2f} | "
                     + (f"{a:.2f}" if a is not None else "n/a") + " |")
        print(lines[-1], flush=True)

    if not args.no_test:
        t0 = time.perf_counter()
        result = gsd_test(table, MODEL, permutations=args.permutations, seed=args.seed,
                          n_jobs=args.n_jobs, contamination=[0, 1, 2])
        t_test = time.perf_counter() - t0
        own, kids = _peak_mib()
        n_lp = args.permutations * len(competitors)
        lines += ["", f"## Whole test: B = {args.permutations} re-splits x {len(competitors)} "
                  f"competitors at epsilon = 0, n_jobs = {args.n_jobs}", "",
                  f"- wall time: **{t_test:.1f} s** ({t_test / 60:.1f} min) for {n_lp:,} LPs "
                  f"+ {len(competitors)} builds, {t_test / n_lp * 1000:.1f} ms per LP "
                  f"(wall, all processes)",
                  "- authors (Gurobi, R): about 315 h for 5 epsilons, so about 63 h at one epsilon",
                  f"- peak memory (max RSS): main process {own:.0f} MiB, largest worker "
                  f"{kids:.0f} MiB", "",
                  "| competitor | d (natural scale) | p-value (1 + #le)/(B + 1) | authors' count "
                  "#{d_b < d} | p, 1 contaminated | p, 2 contaminated |",
                  "|---|---|---|---|---|---|"]
        for t in result.tests:
            lines.append(f"| {NAMES.get(t.competitor, t.competitor)} | {t.statistic:+.4f} | "
                         f"{t.p_value:.4f} | {t.n_below} | {t.robust_p_values[1]:.4f} | "
                         f"{t.robust_p_values[2]:.4f} |")
        lines += ["", f"SVM in the GSD front at level 0.05: {result.in_front}; with "
                  f"Bonferroni (0.05/6): "
                  f"{all(t.p_value <= 0.05 / 6 for t in result.tests)}"]
    else:
        own, kids = _peak_mib()
        lines += ["", f"- peak memory (max RSS): {own:.0f} MiB"]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.markdown is not None:
        args.markdown.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
