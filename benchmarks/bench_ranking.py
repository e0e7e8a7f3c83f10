#!/usr/bin/env python
"""Ranking benchmark: streamrank.ranking NDCG@10 and MAP against the floor and the peers.

Usage::

    python benchmarks/bench_ranking.py                      # both sizes, Markdown report
    python benchmarks/bench_ranking.py --sizes 1000x100     # a quick look
    python benchmarks/bench_ranking.py -o benchmarks/RESULTS_ranking.md

Data: ``n_q`` queries of ``L`` documents (``10^4 x 100`` and ``10^3 x 10^3`` by default),
graded relevance uniform on 0-4, scores uniform floats (no ties), given as flat arrays
``query_ids, y_true, y_score`` grouped by query. One extra case rounds the scores to 2
decimals (heavy ties) for the tie-averaged comparison with scikit-learn.

Timed side by side, round-robin (``_common.side_by_side``), median of ``--repeats``:

* **floor**: a bare numpy top-k selection of the dense ``(n_q, L)`` score matrix,
  ``np.argpartition(-S, 9, axis=1)[:, :10]`` (no metric at all). MAP needs the whole
  ranking, not a top 10, so its floor is the row-wise ``np.argsort(-S, axis=1)``; both
  are shown.
* **streamrank**: ``ndcg_at_k(q, y, s, k=10, gain="linear")`` (ties averaged, the
  default) and ``map_score(q, y, s)`` on the flat arrays.
* **scikit-learn** ``ndcg_score(Y, S, k=10)`` (ties averaged, ``ignore_ties=False``) on
  the dense matrices (it has no MAP over queries).
* **ranx** ``evaluate(qrels, run, "ndcg@10" | "map")``, *including* building its
  ``Qrels`` / ``Run`` from the arrays (``from_df`` with a pandas DataFrame, ids as
  strings: ranx needs string ids). Numba compiles on a small warm-up first, not timed.
  ranx's ``ndcg`` is the linear-gain (Järvelin) one, like scikit-learn's.
* **pytrec_eval** ``RelevanceEvaluator(qrels, {"ndcg_cut.10"} | {"map"}).evaluate(run)``
  and the per-query mean, *including* building its dict-of-dicts input (trec_eval's ndcg
  is linear-gain too).

Every answer is checked: each peer's mean against streamrank's (max abs diff printed).
Then the goals of issue 5 are printed PASS/FAIL.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed

from _common import (  # noqa: E402
    fmt_ratio, fmt_seconds, log, machine_info, machine_markdown, markdown_table, side_by_side,
    write_report,
)
from streamrank.ranking import RankingState, map_score, ndcg_at_k  # noqa: E402

K = 10


def make_data(nq, L, seed, ties=False):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(nq), L)
    y = rng.integers(0, 5, nq * L)
    s = rng.random(nq * L)
    if ties:
        s = np.round(s, 2)
    return q, y, s


# ------------------------------------------------------------------------- peers
def ranx_inputs(q, y, s):
    import pandas as pd
    import ranx

    qs = q.astype(str)
    docs = np.char.add("d", np.arange(q.size).astype(str))
    rel = y > 0
    qrels = ranx.Qrels.from_df(pd.DataFrame({"q_id": qs[rel], "doc_id": docs[rel],
                                             "score": y[rel].astype(np.int64)}))
    run = ranx.Run.from_df(pd.DataFrame({"q_id": qs, "doc_id": docs, "score": s}))
    return qrels, run


def ranx_metric(q, y, s, metric):
    import ranx

    qrels, run = ranx_inputs(q, y, s)
    return float(ranx.evaluate(qrels, run, metric, make_comparable=True))


def pytrec_inputs(q, y, s):
    qrels, run = {}, {}
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    ends = np.r_[starts[1:], q.size]
    yl, sl = y.tolist(), s.tolist()
    for a, b in zip(starts.tolist(), ends.tolist()):
        names = [f"d{i}" for i in range(a, b)]
        key = str(q[a])
        qrels[key] = dict(zip(names, yl[a:b]))
        run[key] = dict(zip(names, sl[a:b]))
    return qrels, run


def pytrec_metric(q, y, s, measure, field):
    import pytrec_eval

    qrels, run = pytrec_inputs(q, y, s)
    res = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[field] for v in res.values()]))


def warm_up():
    """Compile ranx's numba kernels and import everything outside the timings."""
    q, y, s = make_data(200, 50, 1)
    for _ in range(2):   # ranx compiles some kernels on the second call of a process
        for m in ("ndcg@10", "map"):
            try:
                ranx_metric(q, y, s, m)
            except ImportError:
                pass
    ndcg_at_k(q, y, s, k=K)
    map_score(q, y, s)


def incremental_us(metrics, n_queries=100, n_docs=100, n_updates=5000, seed=0, repeats=3):
    """Median microseconds per score change of one document of a 100-document query in
    a `RankingState` of ``n_queries`` queries (relevance unchanged, new random score)."""
    import time

    rng = np.random.default_rng(seed)
    rel = rng.integers(0, 5, (n_queries, n_docs))
    st = RankingState(k=K, metrics=metrics)
    for q in range(n_queries):
        for d in range(n_docs):
            st.set(q, d, int(rel[q, d]), float(rng.random()))
    qs = rng.integers(0, n_queries, n_updates).tolist()
    ds = rng.integers(0, n_docs, n_updates).tolist()
    ss = rng.random(n_updates).tolist()
    rl = rel.tolist()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for q, d, s in zip(qs, ds, ss):
            st.set(q, d, rl[q][d], s)
        out.append((time.perf_counter() - t0) / n_updates * 1e6)
    return float(np.median(out))


# ------------------------------------------------------------------------- cases
def run_case(nq, L, seed, repeats, budget, peers=True, ties=False):
    from sklearn.metrics import ndcg_score as sk_ndcg

    q, y, s = make_data(nq, L, seed, ties)
    S, Y = s.reshape(nq, L), y.reshape(nq, L)
    funcs = {
        "floor: argpartition top-10": lambda: np.argpartition(-S, K - 1, axis=1)[:, :K],
        "floor: argsort rows": lambda: np.argsort(-S, axis=1),
        "streamrank NDCG@10": lambda: ndcg_at_k(q, y, s, k=K, gain="linear"),
        "streamrank MAP": lambda: map_score(q, y, s),
        "sklearn ndcg_score@10": lambda: float(sk_ndcg(Y, S, k=K)),
    }
    if peers:
        funcs.update({
            "ranx NDCG@10 (incl. input)": lambda: ranx_metric(q, y, s, "ndcg@10"),
            "ranx MAP (incl. input)": lambda: ranx_metric(q, y, s, "map"),
            "pytrec_eval NDCG@10 (incl. input)":
                lambda: pytrec_metric(q, y, s, "ndcg_cut.10", "ndcg_cut_10"),
            "pytrec_eval MAP (incl. input)": lambda: pytrec_metric(q, y, s, "map", "map"),
        })
    slow = [n for n in funcs if n.startswith(("ranx", "pytrec"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = side_by_side(funcs, repeats, budget_s=budget, budgeted=slow,
                           progress=log if VERBOSE else None)
    return res


def report(cases, repeats, incremental=None):
    lines = ["# Ranking metrics benchmark (streamrank.ranking)", "",
             "Produced by `python benchmarks/bench_ranking.py`; see its docstring for the "
             "method. Times are medians of round-robin runs (runs column); peers include "
             "building their input from the flat arrays.", "", "## Machine", "",
             machine_markdown(machine_info(("numpy", "scipy", "scikit-learn", "ranx",
                                            "pytrec-eval-terrier", "numba", "streamrank"),
                                           REPO)), ""]
    goals = []
    for (nq, L, ties), res in cases:
        title = f"{nq:,} queries x {L:,} documents" + (" (scores rounded: heavy ties)" if ties else "")
        lines += [f"## {title}", ""]
        ours_ndcg = res["streamrank NDCG@10"]
        ours_map = res["streamrank MAP"]
        rows = []
        for name, t in res.items():
            ref = ours_map if "MAP" in name else ours_ndcg
            if name.startswith("floor"):
                value = diff = "—"
                ratio = "—"
            else:
                value = f"{t.result:.6f}"
                diff = "—" if t is ref else f"{abs(t.result - ref.result):.1e}"
                ratio = "—" if t is ref else fmt_ratio(t.median / ref.median)
            rows.append([name, fmt_seconds(t.median), str(t.reps), value, diff, ratio])
        lines.append(markdown_table(
            ["method", "median s", "runs", "mean value", "|diff| vs streamrank",
             "time / streamrank"], rows, "lrrrrr"))
        lines.append("")
        floor_k = res["floor: argpartition top-10"].median
        floor_all = res["floor: argsort rows"].median

        def goal(text, ok, detail):
            goals.append([title, text, detail, "PASS" if ok else "FAIL"])

        a = ours_ndcg.median / floor_k
        goal("NDCG@10 within 4x of argpartition top-10", a <= 4, fmt_ratio(a))
        b = ours_map.median / floor_all
        goal("MAP within 4x of the full row argsort (MAP's floor)", b <= 4, fmt_ratio(b))
        c = ours_map.median / floor_k
        goal("MAP within 4x of argpartition top-10 (literal goal)", c <= 4, fmt_ratio(c))
        d = res["sklearn ndcg_score@10"].median / ours_ndcg.median
        goal(">= 5x faster than sklearn ndcg_score", d >= 5, fmt_ratio(d))
        for peer in ("ranx", "pytrec_eval"):
            for metric, ours in (("NDCG@10", ours_ndcg), ("MAP", ours_map)):
                key = f"{peer} {metric} (incl. input)"
                if key in res:
                    e = res[key].median / ours.median
                    goal(f">= 10x faster than {peer} {metric}", e >= 10, fmt_ratio(e))
        diffs = [abs(t.result - (ours_map if "MAP" in n else ours_ndcg).result)
                 for n, t in res.items() if not n.startswith("floor")]
        goal("answers agree (|diff| < 1e-7)", max(diffs) < 1e-7, f"max {max(diffs):.1e}")
    if incremental:
        lines += ["## Incremental: one document's score changes in a 100-document query", "",
                  "`RankingState` with 100 queries of 100 documents, relevance 0-4; 5,000 "
                  "score changes of random documents, median of 3 passes.", ""]
        rows = [[", ".join(m), f"{us:.1f}"] for m, us in incremental]
        lines += [markdown_table(["metrics kept current (+ exact pair counts)",
                                  "us per update"], rows, "lr"), ""]
        for m, us in incremental:
            if m == ("ndcg",):
                goals.append(["100 queries x 100 documents", "incremental NDCG@10 update <= 50 us",
                              f"{us:.1f} us", "PASS" if us <= 50 else "FAIL"])
    lines += ["## Goals (issue 5)", "",
              markdown_table(["case", "goal", "measured", "result"], goals, "lllr"), ""]
    lines += ["Notes: MAP needs the whole ranking of every query, so a top-10 selection "
              "cannot compute it; the row-wise `np.argsort` is its floor, and the literal "
              "comparison with the top-10 selection is listed too. pytrec_eval's MAP on "
              "1,000-document queries differs from streamrank's in the 9th digit (not "
              "investigated; on 2-30-document queries the tests agree to 1e-12), so "
              "agreement is checked to 1e-7. The heavy-ties case is an extra beyond the "
              "issue's goals: tie groups make MAP take the general segment path.", ""]
    return "\n".join(lines)


VERBOSE = False


def main(argv=None):
    global VERBOSE
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", nargs="+", default=["10000x100", "1000x1000"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget", type=float, default=30.0,
                   help="seconds after which a peer stops repeating (default 30)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-peers", action="store_true", help="skip ranx and pytrec_eval")
    p.add_argument("--output", "-o")
    p.add_argument("--verbose", "-v", action="store_true")
    args = p.parse_args(argv)
    VERBOSE = args.verbose
    log("warming up (numba compilation of ranx) ...")
    warm_up()
    cases = []
    for i, size in enumerate(args.sizes):
        nq, L = (int(float(x)) for x in size.lower().split("x"))
        log(f"case {nq} x {L} ...")
        cases.append(((nq, L, False), run_case(nq, L, args.seed + i, args.repeats, args.budget,
                                               peers=not args.no_peers)))
    nq, L = (int(float(x)) for x in args.sizes[0].lower().split("x"))
    log(f"case {nq} x {L}, tied scores ...")
    cases.append(((nq, L, True), run_case(nq, L, args.seed, args.repeats, args.budget,
                                          peers=False, ties=True)))
    log("incremental ...")
    incremental = [(m, incremental_us(m)) for m in (("ndcg",), ("ndcg", "ap", "mrr", "err"))]
    text = report(cases, args.repeats, incremental)
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
