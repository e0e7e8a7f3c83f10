#!/usr/bin/env python
"""Compiled batch kernels: streamrank against its peers, each pair timed in one run.

Usage::

    python benchmarks/bench_kernels.py                      # every section, Markdown
    python benchmarks/bench_kernels.py --sections tau churn --repeats 5
    python benchmarks/bench_kernels.py --n 1e5 --queries 1000   # a quick look

Sections (``--sections``), timed side by side, round-robin (``_common.side_by_side``),
medians of ``--repeats`` runs; every answer is checked against its peer:

* ``tau``: `streamrank.kendall_tau` against ``scipy.stats.kendalltau`` at ``--n``
  (default 1e6): continuous labels with 0% and 50% tied scores and with tied labels
  (compiled merge-sort path), and binary and 5-level labels (per-level paths) for
  reference. Goal: continuous labels >= 2x faster than scipy.
* ``ranking``: `streamrank.ranking` metrics on ``--queries`` x ``--docs`` rows (default
  1e4 x 100, graded relevance 0-4, uniform scores) grouped by query against the same
  rows in shuffled order (the compiled grouping; for NDCG@k the per-query heaps). Goals:
  `ndcg_at_k` shuffled within 1.2x of grouped, every metric within 1.5x.
* ``churn``: `EpochTracker.step` on ``--n`` samples with ``track_churn`` on and off, and
  the churn count alone (`streamrank.batch._kernels.discordant_pairs`, with and without the
  previous order) against ``scipy.stats.kendalltau(old, new)``, which counts the same
  discordant pairs (checked: ``tau_a`` of the two score vectors).
* ``cindex``: `streamrank.concordance_index` with 30% censoring against
  ``lifelines.utils.concordance_index`` at ``--n`` (lifelines runs once or twice: its runs
  stop repeating after ``--slow-budget`` seconds).

Progress goes to stderr, the report (Markdown) to stdout.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown, markdown_table,
    parse_size, side_by_side, write_report,
)
import streamrank  # noqa: E402
from streamrank import EpochTracker  # noqa: E402
from streamrank.batch._kernels import discordant_pairs  # noqa: E402
from streamrank.ranking import (  # noqa: E402
    err_score, map_score, mrr_score, ndcg_at_k, precision_at_k,
)

SECTIONS = ("tau", "ranking", "churn", "cindex")


def _check(a, b, tol=1e-9):
    return "—" if a is None or b is None else f"{abs(float(a) - float(b)):.1e}" + (
        "" if abs(float(a) - float(b)) <= tol else " MISMATCH")


# --------------------------------------------------------------------------- tau
def tau_cases(n, rng):
    y = rng.normal(size=n)
    s = y + rng.normal(size=n)
    half = rng.random(n) < 0.5
    s50 = s.copy()
    s50[half] = np.round(s50[half] * 10) / 10
    z = rng.normal(size=n)
    yield "continuous, 0% tied", y, s, True
    yield "continuous, 50% tied scores", y, s50, True
    yield "continuous, tied labels and scores", np.round(y, 1), np.round(s, 1), True
    yield "binary (per-level path)", (z > 0.5).astype(np.int64), z + rng.normal(size=n), False
    yield "ordinal 5 levels (per-level path)", np.digitize(z, [-0.84, -0.25, 0.25, 0.84]), \
        z + rng.normal(size=n), False


def run_tau(args, rng):
    import scipy.stats

    rows, goal = [], []
    for title, y, s, continuous in tau_cases(args.n, rng):
        res = side_by_side({
            "streamrank": lambda y=y, s=s: streamrank.kendall_tau(y, s),
            "scipy": lambda y=y, s=s: float(scipy.stats.kendalltau(y, s).statistic),
        }, args.repeats, progress=log if args.verbose else None)
        ours, peer = res["streamrank"], res["scipy"]
        ratio = peer.median / ours.median
        rows.append([title, fmt_seconds(ours.median), fmt_seconds(peer.median),
                     fmt_ratio(ratio), f"{ours.reps}/{peer.reps}",
                     _check(ours.result, peer.result, 1e-12)])
        if continuous:
            goal.append(ratio)
    table = markdown_table(["labels / scores", "streamrank s", "scipy s",
                            "speedup vs scipy", "runs", "|diff|"], rows, "lrrrrl")
    verdict = (f"**Goal** continuous labels >= 2x faster than scipy kendalltau: "
               f"{'PASS' if min(goal) >= 2 else 'FAIL'} (worst {fmt_ratio(min(goal))}).")
    return f"## Kendall's tau at n = {fmt_n(args.n)}", table, verdict


# --------------------------------------------------------------------------- ranking
def run_ranking(args, rng):
    nq, L = args.queries, args.docs
    q = np.repeat(np.arange(nq), L)
    y = rng.integers(0, 5, nq * L)
    s = rng.random(nq * L)
    perm = rng.permutation(q.size)
    qs, ys, ss = q[perm], y[perm], s[perm]
    metrics = {
        "ndcg_at_k k=10": lambda q, y, s: ndcg_at_k(q, y, s, k=10),
        "ndcg_at_k": lambda q, y, s: ndcg_at_k(q, y, s),
        "map_score": lambda q, y, s: map_score(q, y, s),
        "mrr_score": lambda q, y, s: mrr_score(q, y, s),
        "err_score": lambda q, y, s: err_score(q, y, s),
        "precision_at_k k=10": lambda q, y, s: precision_at_k(q, y, s, k=10),
    }
    rows, worst, worst_ndcg = [], 0.0, 0.0
    for name, f in metrics.items():
        res = side_by_side({"grouped": lambda f=f: f(q, y, s),
                            "shuffled": lambda f=f: f(qs, ys, ss)}, args.repeats,
                           progress=log if args.verbose else None)
        g, sh = res["grouped"], res["shuffled"]
        ratio = sh.median / g.median
        worst = max(worst, ratio)
        if name.startswith("ndcg"):
            worst_ndcg = max(worst_ndcg, ratio)
        rows.append([name, fmt_seconds(g.median), fmt_seconds(sh.median), fmt_ratio(ratio),
                     f"{g.reps}/{sh.reps}", _check(g.result, sh.result, 1e-12)])
    table = markdown_table(["metric", "grouped s", "shuffled s", "shuffled / grouped",
                            "runs", "|diff|"], rows, "lrrrrl")
    verdict = (f"**Goal** `ndcg_at_k` shuffled within 1.2x of grouped: "
               f"{'PASS' if worst_ndcg <= 1.2 else 'FAIL'} (worst {fmt_ratio(worst_ndcg)}); "
               f"every metric within 1.5x: {'PASS' if worst <= 1.5 else 'FAIL'} (worst "
               f"{fmt_ratio(worst)}).")
    return f"## Ranking metrics, {nq:,} queries x {L} rows, grouped vs shuffled", table, verdict


# --------------------------------------------------------------------------- churn
def run_churn(args, rng):
    import scipy.stats

    n = args.n
    y = rng.normal(size=n)
    old = y + rng.normal(size=n)
    new = old + 0.3 * rng.normal(size=n)
    order = np.argsort(old)
    pairs = n * (n - 1) // 2
    res = side_by_side({
        "discordant_pairs(old, new, order=argsort(old))":
            lambda: discordant_pairs(old, new, None, order),
        "discordant_pairs(old, new)": lambda: discordant_pairs(old, new),
        "scipy kendalltau(old, new)": lambda: scipy.stats.kendalltau(old, new),
    }, args.repeats, progress=log if args.verbose else None)
    peer = res["scipy kendalltau(old, new)"]
    # Distinct values: tau_a = tau_b = (pairs - 2 D) / pairs.
    peer_d = round((1.0 - float(peer.result.statistic)) * pairs / 2)
    rows = []
    for name, t in res.items():
        d = peer_d if t is peer else t.result
        rows.append([name, fmt_seconds(t.median), "—" if t is peer else
                     fmt_ratio(peer.median / t.median), str(t.reps),
                     f"{d:,}" + ("" if t is peer or abs(d - peer_d) <= 1e-9 * pairs
                                 else " MISMATCH")])
    table = markdown_table(["churn count", "median s", "speedup vs scipy", "runs",
                            "discordant pairs"], rows, "lrrrr")

    def tracker(churn):
        tr = EpochTracker(y, track_churn=churn)
        tr.step(old)
        return tr

    on, off = tracker(True), tracker(False)
    res2 = side_by_side({"step, track_churn=True": lambda: on.step(new),
                         "step, track_churn=False": lambda: off.step(new)}, args.repeats,
                        progress=log if args.verbose else None)
    t_on, t_off = res2["step, track_churn=True"], res2["step, track_churn=False"]
    extra = (f"`EpochTracker.step` (continuous labels, n = {fmt_n(n)}): "
             f"{fmt_seconds(t_on.median)} s with churn, {fmt_seconds(t_off.median)} s "
             f"without: churn adds {fmt_seconds(t_on.median - t_off.median)} s "
             f"(scipy's kendalltau alone: {fmt_seconds(peer.median)} s).")
    return f"## Churn (Kendall distance between score vectors) at n = {fmt_n(n)}", table, extra


# --------------------------------------------------------------------------- cindex
def run_cindex(args, rng):
    from lifelines.utils import concordance_index as lifelines_cindex

    n = args.n
    t = rng.exponential(size=n)
    s = np.log(t) + rng.normal(size=n)
    e = rng.random(n) >= 0.3
    res = side_by_side({
        "streamrank": lambda: streamrank.concordance_index(t, s, e),
        "lifelines": lambda: float(lifelines_cindex(t, s, e)),
    }, args.repeats, budget_s=args.slow_budget, budgeted=["lifelines"],
        progress=log if args.verbose else None)
    ours, peer = res["streamrank"], res["lifelines"]
    table = markdown_table(
        ["case", "streamrank s", "lifelines s", "speedup", "runs", "|diff|"],
        [["30% censored, continuous times and scores", fmt_seconds(ours.median),
          fmt_seconds(peer.median), fmt_ratio(peer.median / ours.median),
          f"{ours.reps}/{peer.reps}", _check(ours.result, peer.result, 1e-12)]], "lrrrrl")
    return f"## Censored C-index at n = {fmt_n(n)}", table, ""


# --------------------------------------------------------------------------- main
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    p.add_argument("--n", default="1e6", help="samples of tau, churn, cindex (default 1e6)")
    p.add_argument("--queries", default="1e4", help="ranking queries (default 1e4)")
    p.add_argument("--docs", type=int, default=100, help="rows per query (default 100)")
    p.add_argument("--repeats", type=int, default=7, help="runs per method (default 7)")
    p.add_argument("--slow-budget", type=float, default=20.0,
                   help="seconds after which lifelines stops repeating (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", "-o", help="also write the report to this file")
    p.add_argument("--verbose", "-v", action="store_true", help="log every run to stderr")
    args = p.parse_args(argv)
    args.n, args.queries = parse_size(args.n), parse_size(args.queries)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    warnings.simplefilter("ignore", category=FutureWarning)
    info = machine_info(repo=REPO)
    lines = ["# Compiled batch kernels against their peers", "",
             "Produced by `python benchmarks/bench_kernels.py`; see its docstring for the "
             "method. Medians of round-robin runs, each pair of methods in one run.", "",
             "## Machine", "", machine_markdown(info), ""]
    runners = {"tau": run_tau, "ranking": run_ranking, "churn": run_churn,
               "cindex": run_cindex}
    for name in args.sections:
        log(f"section {name}")
        rng = np.random.default_rng(np.random.SeedSequence([args.seed, SECTIONS.index(name)]))
        title, table, note = runners[name](args, rng)
        lines += [title, "", table, ""] + ([note, ""] if note else [])
    write_report("\n".join(lines), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
