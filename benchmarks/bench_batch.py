#!/usr/bin/env python
"""Batch benchmark: streamrank's exact pair counts against the floor and the peers.

Usage::

    python benchmarks/bench_batch.py --n 1e6 1e7            # Markdown report on stdout
    python benchmarks/bench_batch.py --n 1e5 --repeats 3    # a quick look
    python benchmarks/bench_batch.py --n 1e6 --json > out.json

For every sample count ``n`` and every case (binary, ordinal with 5 levels, continuous
labels; 0% and 50% tied scores; one weighted case; one censored survival case) it times
streamrank's ``pair_counts``, ``roc_auc_score``, ``kendall_tau``, ``somers_d``,
``concordance_index`` and ``group_auc_score`` side by side with, in the same run:

* ``np.argsort(y_score)``: the floor, since any exact method must order the scores
  (``np.sort`` is shown too);
* ``sklearn.metrics.roc_auc_score`` (binary labels; a per-group loop of it for GAUC);
* ``scipy.stats.kendalltau`` (Cython, O(n log n));
* ``scipy.stats.somersd``: quadratic in its contingency table, so timed at a small n
  (``--somersd-n``) and extrapolated as ``n^2``, never run on continuous labels;
* ``lifelines.utils.concordance_index``: up to ``--lifelines-max`` (1e6) only;
* the prototype's pure-Python merge-sort counter (``mergesort_peer.py``): up to
  ``--mergesort-max`` (1e5), extrapolated as ``n log n`` from ``--mergesort-n`` above.

Every answer is checked: each streamrank result against every peer result of the same
run (directly, or through an exact identity noted in the table), max abs diff printed.
Then the goals of issue 2 are printed PASS/FAIL. Method: median wall time of
``--repeats`` round-robin runs (see ``_common.py``); memory is the peak extra bytes per
sample of one call, by tracemalloc and by peak RSS, measured after all the timings.
Progress goes to stderr; the report (Markdown, or JSON with ``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed
try:
    import streamrank
except ImportError:  # run from a source tree without installing
    sys.path.insert(0, REPO)
    import streamrank

from _common import (  # noqa: E402
    fmt_bytes_per_sample, fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown,
    load_average, make_rss_accounting_exact, markdown_table, measure_memory, parse_size,
    side_by_side, write_report,
)
from mergesort_peer import prototype_counts  # noqa: E402

# Goals of issue 2 ("Benchmark"): the n they are stated at, and their thresholds.
GOAL_N = 10**7           # G1, G2, G3, G5
GOAL_LIFELINES_N = 10**6  # G4
GOALS = {
    "G1a": "binary labels: pair_counts and roc_auc_score take <= 1x the time of np.argsort",
    "G1b": "binary labels: pair_counts and roc_auc_score >= 5x faster than sklearn roc_auc_score",
    "G2a": "ordinal labels (5 levels): every function within 3x of np.argsort",
    "G2b": "ordinal labels (5 levels): every function >= 3x faster than scipy kendalltau",
    "G3": "continuous labels: every function at least as fast as scipy kendalltau",
    "G4": "every function >= 20x faster than lifelines concordance_index (stated at n = 1e6)",
    "G5": "peak extra memory <= 64 bytes per sample (tracemalloc)",
}
MEMORY_LIMIT = 64
# Below this n the arrays are small enough for glibc to serve them from its heap and keep
# the freed pages resident, so a call's peak RSS under-counts: the report shows "—".
RSS_MIN_N = 500_000
ANSWER_TOL = 1e-12

FUNCTIONS = ("pair_counts", "roc_auc_score", "kendall_tau", "somers_d", "concordance_index",
             "group_auc_score")


# --------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    key: str
    title: str
    labels: str         # "binary" | "ordinal" | "continuous" | "survival"
    tied: float         # fraction of the scores rounded onto a coarse grid
    weighted: bool = False
    censored: float = 0.0

    @property
    def functions(self) -> tuple[str, ...]:
        if self.labels == "survival":
            return ("concordance_index",)
        if self.labels == "binary":
            return FUNCTIONS
        return ("pair_counts", "kendall_tau", "somers_d", "concordance_index")


CASES = [
    Case("binary-0", "binary, 0% tied", "binary", 0.0),
    Case("binary-50", "binary, 50% tied", "binary", 0.5),
    Case("ordinal-0", "ordinal 5 levels, 0% tied", "ordinal", 0.0),
    Case("ordinal-50", "ordinal 5 levels, 50% tied", "ordinal", 0.5),
    Case("continuous-0", "continuous, 0% tied", "continuous", 0.0),
    Case("continuous-50", "continuous, 50% tied", "continuous", 0.5),
    Case("binary-50-w", "binary, 50% tied, weighted", "binary", 0.5, weighted=True),
    Case("survival", "survival, 30% censored", "survival", 0.0, censored=0.3),
]
CASE_BY_KEY = {c.key: c for c in CASES}


def make_data(case: Case, n: int, seed: int, n_groups: int) -> dict:
    """Labels, scores (informative: AUC ~0.76, tau ~0.5), weights, groups, events.

    Binary: 30% positives, ``s = N(0, 1) + y``. Ordinal: a latent normal cut at its
    quintiles into labels 0..4 (int64), ``s = latent + N(0, 1)``. Continuous: ``y`` normal
    (float64), ``s = y + N(0, 1)``. Survival: exponential times, ``s = log t + N(0, 1)``
    (higher score = longer survival), 30% censored. "50% tied": a random half of the
    scores rounded to a 0.1 grid (about 100 distinct values shared by n/2 samples).
    Weights: uniform on (0, 2). Groups (GAUC): ``n_groups`` ids drawn uniformly.
    """
    index = next(i for i, c in enumerate(CASES) if c.key == case.key)
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, index]))
    d: dict = {"w": None, "e": None, "g": None}
    if case.labels == "binary":
        y = (rng.random(n) < 0.3).astype(np.int64)
        s = rng.standard_normal(n) + y
        d["g"] = rng.integers(0, n_groups, n)
    elif case.labels == "ordinal":
        z = rng.standard_normal(n)
        y = np.searchsorted(np.array([-0.8416, -0.2533, 0.2533, 0.8416]), z).astype(np.int64)
        s = z + rng.standard_normal(n)
    elif case.labels == "continuous":
        y = rng.standard_normal(n)
        s = y + rng.standard_normal(n)
    else:
        y = rng.exponential(size=n)
        s = np.log(y) + rng.standard_normal(n)
        d["e"] = rng.random(n) >= case.censored
    if case.tied:
        half = rng.random(n) < case.tied
        s[half] = np.round(s[half] * 10) / 10
    if case.weighted:
        d["w"] = rng.uniform(0.0, 2.0, n)
    d["y"], d["s"] = y, s
    return d


# --------------------------------------------------------------------------- calls
def streamrank_calls(case: Case, d: dict) -> dict:
    y, s, w, g, e = d["y"], d["s"], d["w"], d["g"], d["e"]
    if case.labels == "survival":
        return {"concordance_index": lambda: streamrank.concordance_index(y, s, e)}
    calls = {
        "pair_counts": lambda: streamrank.pair_counts(y, s, sample_weight=w),
        "roc_auc_score": lambda: streamrank.roc_auc_score(y, s, sample_weight=w),
        "kendall_tau": lambda: streamrank.kendall_tau(y, s, sample_weight=w),
        "somers_d": lambda: streamrank.somers_d(y, s, sample_weight=w),
        "concordance_index": lambda: streamrank.concordance_index(y, s, sample_weight=w),
        "group_auc_score": lambda: streamrank.group_auc_score(y, s, g, sample_weight=w),
    }
    return {name: calls[name] for name in case.functions}


def gauc_sklearn_loop(y, s, g, w=None) -> float:
    """Reference GAUC: scikit-learn's roc_auc_score on each group with both classes,
    averaged with the group's sample count (weight sum) as its weight."""
    from sklearn.metrics import roc_auc_score
    order = np.argsort(g, kind="stable")
    cuts = np.flatnonzero(np.diff(g[order])) + 1
    ys, ss = np.split(y[order], cuts), np.split(s[order], cuts)
    ws = np.split(w[order], cuts) if w is not None else [None] * len(ys)
    num = den = 0.0
    for yg, sg, wg in zip(ys, ss, ws):
        if yg.min() == yg.max():
            continue
        v = float(yg.size if wg is None else wg.sum())
        num += v * roc_auc_score(yg, sg, sample_weight=wg)
        den += v
    return num / den


# Peer names, in table order: (column label, description).
PEERS = {
    "argsort": "np.argsort(y_score)",
    "np.sort": "np.sort(y_score)",
    "sklearn": "sklearn.metrics.roc_auc_score",
    "sklearn/group": "per-group loop of sklearn roc_auc_score (GAUC)",
    "kendalltau": "scipy.stats.kendalltau",
    "somersd": "scipy.stats.somersd",
    "lifelines": "lifelines.utils.concordance_index",
    "prototype": "pure-Python merge-sort prototype",
}

# Peers whose repeats stop once they add up to --slow-budget seconds; every other method,
# streamrank's included, gets all its repeats.
SLOW_PEERS = {"lifelines", "prototype", "somersd", "sklearn/group"}


def peer_applies(peer: str, case: Case) -> bool:
    if peer in ("argsort", "np.sort"):
        return True
    if peer in ("sklearn", "sklearn/group"):
        return case.labels == "binary"
    if peer == "kendalltau":
        return case.labels != "survival" and not case.weighted
    if peer == "somersd":
        return case.labels in ("binary", "ordinal") and not case.weighted
    if peer == "lifelines":
        return not case.weighted
    if peer == "prototype":
        return case.labels != "survival" and not case.weighted
    raise KeyError(peer)


def peer_calls(case: Case, d: dict, peers) -> dict:
    """Zero-argument calls of the given peers on the case's data (inputs prepared here,
    outside the timed call: the prototype gets Python lists, as it expects)."""
    import scipy.stats
    from lifelines.utils import concordance_index as ll_cindex
    from sklearn.metrics import roc_auc_score as sk_auc
    y, s, w, g, e = d["y"], d["s"], d["w"], d["g"], d["e"]
    calls = {}
    for p in peers:
        if p == "argsort":
            calls[p] = lambda: np.argsort(s)
        elif p == "np.sort":
            calls[p] = lambda: np.sort(s)
        elif p == "sklearn":
            calls[p] = lambda: float(sk_auc(y, s, sample_weight=w))
        elif p == "sklearn/group":
            calls[p] = lambda: gauc_sklearn_loop(y, s, g, w)
        elif p == "kendalltau":
            calls[p] = lambda: float(scipy.stats.kendalltau(y, s).statistic)
        elif p == "somersd":
            calls[p] = lambda: float(scipy.stats.somersd(y, s).statistic)
        elif p == "lifelines":
            calls[p] = lambda: float(ll_cindex(y, s, e))
        elif p == "prototype":
            y_list, s_list = y.tolist(), s.tolist()
            calls[p] = lambda: prototype_counts(y_list, s_list)
    return calls


# --------------------------------------------------------------------------- answers
def tie_pairs(values: np.ndarray, w: np.ndarray | None):
    """Pairs (or pair weight) with equal ``values``: an independent numpy reference."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    if w is None:
        return int(sum(int(c) * (int(c) - 1) // 2 for c in counts[counts > 1]))
    W = np.bincount(inverse, weights=w)
    W2 = np.bincount(inverse, weights=w * w)
    return float((W * W - W2).sum() / 2)


def all_pairs(n: int, w: np.ndarray | None):
    if w is None:
        return n * (n - 1) // 2
    return float((w.sum() ** 2 - np.dot(w, w)) / 2)


def references(case: Case, d: dict, peer_results: dict) -> dict:
    """``{metric: [(source, value), ...]}`` from the peers' results of this run.

    Direct: sklearn -> auc, kendalltau -> tau_b, somersd -> somers_d, lifelines -> c_index,
    prototype -> counts (C, D, P), sklearn/group -> gauc. Through exact identities, with tie
    counts ``N0`` (all pairs), ``Ty`` (equal labels), ``Ts`` (equal scores) computed here
    by ``np.unique``: Somers' D = ``(C - D) / (N0 - Ty)`` = ``tau_b sqrt((N0 - Ts) / (N0 - Ty))``
    = ``2 AUC - 1`` (binary); C-index (uncensored) = ``(1 + D_somers) / 2`` = AUC (binary);
    ``tau_b`` = ``(2 AUC - 1) P / sqrt(P (N0 - Ts))`` (binary, ``P = N0 - Ty``).
    """
    refs: dict[str, list] = {}

    def add(metric, source, value):
        refs.setdefault(metric, []).append((source, value))

    y, s, w = d["y"], d["s"], d["w"]
    r = peer_results
    if "lifelines" in r:
        add("c_index", "lifelines", r["lifelines"])
    if "prototype" in r:
        add("counts", "prototype", r["prototype"])
    if "sklearn/group" in r:
        add("gauc", "sklearn/group", r["sklearn/group"])
    if case.labels == "survival":
        return refs
    need_ties = "kendalltau" in r or (case.labels == "binary" and "sklearn" in r)
    if need_ties:
        N0 = all_pairs(y.size, w)
        Ty, Ts = tie_pairs(y, w), tie_pairs(s, w)
    if "sklearn" in r:
        auc = r["sklearn"]
        add("auc", "sklearn", auc)
        add("somers_d", "sklearn(2AUC-1)", 2 * auc - 1)
        add("c_index", "sklearn(AUC)", auc)
        if case.weighted:
            P = N0 - Ty
            add("tau_b", "sklearn(derived)", (2 * auc - 1) * P / math.sqrt(P * (N0 - Ts)))
    if "kendalltau" in r:
        tau = r["kendalltau"]
        add("tau_b", "kendalltau", tau)
        dsom = tau * math.sqrt((N0 - Ts) / (N0 - Ty))
        add("somers_d", "kendalltau(derived)", dsom)
        add("c_index", "kendalltau(derived)", (1 + dsom) / 2)
    if "somersd" in r:
        add("somers_d", "somersd", r["somersd"])
        add("c_index", "somersd(derived)", (1 + r["somersd"]) / 2)
    return refs


def outputs(case: Case, fn: str, result) -> dict:
    """``{metric: value}`` of one streamrank result, in the references' vocabulary."""
    if fn == "pair_counts":
        out = {"tau_b": result.tau_b, "somers_d": result.somers_d, "c_index": result.c_index,
               "counts": (result.concordant, result.discordant, result.comparable)}
        if case.labels == "binary":
            out["auc"] = result.auc
        return out
    metric = {"roc_auc_score": "auc", "kendall_tau": "tau_b", "somers_d": "somers_d",
              "concordance_index": "c_index", "group_auc_score": "gauc"}[fn]
    return {metric: float(result)}


def check(case: Case, fn: str, result, refs: dict) -> tuple[list[str], float | None]:
    """(sources compared, max abs diff) of one streamrank result against the references."""
    sources, worst = [], None
    for metric, value in outputs(case, fn, result).items():
        for source, ref in refs.get(metric, []):
            if metric == "counts":
                diff = float(max(abs(int(a) - int(b)) for a, b in zip(value, ref)))
            else:
                diff = abs(float(value) - float(ref))
            sources.append(source)
            worst = diff if worst is None else max(worst, diff)
    return sorted(set(sources)), worst


def fmt_diff(diff: float | None) -> str:
    if diff is None:
        return "no peer"
    text = "0" if diff == 0 else f"{diff:.1e}"
    return text if diff <= ANSWER_TOL else text + " MISMATCH"


def jsonable(value):
    if isinstance(value, streamrank.PairCounts):
        return {k: getattr(value, k) for k in ("concordant", "discordant", "tied_score",
                                                "tied_label", "tied_both", "n")}
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --------------------------------------------------------------------------- runs
def repeats_for(n: int, args) -> int:
    if args.repeats:
        return args.repeats
    return 3 if n >= 10**7 else 5


def extrapolate(peer: str, t0: float, n0: int, n: int) -> float:
    """Time of a slow peer at ``n`` from its time at ``n0``: ``n log n`` for the merge-sort
    prototype, ``n^2`` for scipy's somersd (its cost is quadratic in the contingency table's
    cells, which grow as n with continuous scores)."""
    if peer == "prototype":
        return t0 * (n * math.log(n)) / (n0 * math.log(n0))
    return t0 * (n / n0) ** 2


def run_small_n(case: Case, args) -> list[dict]:
    """The slow peers at their small n, side by side with the streamrank function whose
    answer they give; checked exactly (seed) or to ANSWER_TOL (somersd)."""
    rows = []
    jobs = []
    if peer_applies("prototype", case):
        jobs.append(("prototype", args.mergesort_n, "pair_counts"))
    if peer_applies("somersd", case):
        jobs.append(("somersd", args.somersd_n, "somers_d"))
    for peer, n0, fn in jobs:
        d = make_data(case, n0, args.seed, args.groups)
        calls = {**peer_calls(case, d, [peer]), fn: streamrank_calls(case, d)[fn]}
        log(f"  small n: {case.key} {peer} vs {fn} at n={fmt_n(n0)}")
        timings = side_by_side(calls, repeats_for(n0, args), budget_s=args.slow_budget,
                               budgeted=SLOW_PEERS, progress=log if args.verbose else None)
        refs = references(case, d, {peer: timings[peer].result})
        _, diff = check(case, fn, timings[fn].result, refs)
        rows.append({"case": case.key, "peer": peer, "n": n0, "function": fn,
                     "peer_s": timings[peer].median, "peer_reps": timings[peer].reps,
                     "streamrank_s": timings[fn].median, "streamrank_reps": timings[fn].reps,
                     "max_abs_diff": diff})
    return rows


def run_case(case: Case, n: int, args, small: dict) -> dict:
    """Time every streamrank function and every applicable peer on one case at one n."""
    d = make_data(case, n, args.seed, args.groups)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    peers, skipped = [], {}
    for p in PEERS:
        if not peer_applies(p, case):
            continue
        if p == "lifelines" and n > args.lifelines_max:
            skipped[p] = f"n > {fmt_n(args.lifelines_max)}"
        elif p == "prototype" and n > args.mergesort_max:
            skipped[p] = f"n > {fmt_n(args.mergesort_max)}: extrapolated"
        elif p == "somersd" and n > args.somersd_n:
            skipped[p] = f"n > {fmt_n(args.somersd_n)}: extrapolated"
        else:
            peers.append(p)
    calls = {**{f"peer:{p}": c for p, c in peer_calls(case, d, peers).items()},
             **streamrank_calls(case, d)}
    reps = repeats_for(n, args)
    log(f"n={fmt_n(n)} {case.key}: {len(calls)} methods x {reps} runs")
    timings = side_by_side(calls, reps, budget_s=args.slow_budget,
                           budgeted={f"peer:{p}" for p in SLOW_PEERS},
                           progress=log if args.verbose else None)
    peer_t = {p: timings[f"peer:{p}"] for p in peers}
    refs = references(case, d, {p: t.result for p, t in peer_t.items() if p not in ("argsort", "np.sort")})

    peer_rows = {}
    for p in PEERS:
        if not peer_applies(p, case):
            continue
        if p in peer_t:
            peer_rows[p] = {"median_s": peer_t[p].median, "reps": peer_t[p].reps,
                            "times_s": peer_t[p].times, "extrapolated": False}
        elif p in ("prototype", "somersd") and (case.key, p) in small:
            sm = small[(case.key, p)]
            peer_rows[p] = {"median_s": extrapolate(p, sm["peer_s"], sm["n"], n), "reps": 0,
                            "extrapolated": True, "from_n": sm["n"], "note": skipped.get(p)}
        else:
            peer_rows[p] = {"median_s": None, "reps": 0, "extrapolated": False,
                            "note": skipped.get(p, "not run")}

    fn_rows = {}
    for fn in case.functions:
        t = timings[fn]
        sources, diff = check(case, fn, t.result, refs)
        fn_rows[fn] = {"median_s": t.median, "reps": t.reps, "times_s": t.times,
                       "value": jsonable(t.result), "checked_vs": sources, "max_abs_diff": diff}
    return {"n": n, "case": case.key, "title": case.title, "peers": peer_rows,
            "functions": fn_rows, "load_average_1min": load}


def run_memory(case: Case, n: int, args, record: dict) -> None:
    """Peak extra memory of every streamrank function (and of argsort, sklearn, kendalltau
    for context), one call each, into ``record``."""
    d = make_data(case, n, args.seed, args.groups)
    log(f"memory n={fmt_n(n)} {case.key}")
    for fn, call in streamrank_calls(case, d).items():
        m = measure_memory(call)
        record["functions"][fn]["memory_traced_bytes"] = m.traced
        record["functions"][fn]["memory_rss_bytes"] = m.rss
    ctx = [p for p in ("argsort", "sklearn", "kendalltau") if peer_applies(p, case)]
    for p, call in peer_calls(case, d, ctx).items():
        m = measure_memory(call)
        record["peers"][p]["memory_traced_bytes"] = m.traced
        record["peers"][p]["memory_rss_bytes"] = m.rss


# --------------------------------------------------------------------------- goals
def evaluate_goals(record: dict) -> None:
    """Attach ``goals``: ``{goal_id: {"pass": bool, "value": float, "official": bool}}``
    to every function row of one (n, case) record."""
    case = CASE_BY_KEY[record["case"]]
    n = record["n"]
    peers = record["peers"]

    def peer_time(p):
        row = peers.get(p)
        return None if row is None else row.get("median_s")

    t_arg = peer_time("argsort")
    for fn, row in record["functions"].items():
        t = row["median_s"]
        goals = {}
        official = n == GOAL_N

        def put(gid, value, ok, official=official):
            goals[gid] = {"pass": bool(ok), "value": value, "official": official}

        if case.labels == "binary" and not case.weighted and fn in ("pair_counts",
                                                                     "roc_auc_score"):
            put("G1a", t / t_arg, t / t_arg <= 1.0)
            if peer_time("sklearn"):
                put("G1b", peer_time("sklearn") / t, peer_time("sklearn") / t >= 5.0)
        if case.labels == "ordinal" and not case.weighted:
            put("G2a", t / t_arg, t / t_arg <= 3.0)
            if peer_time("kendalltau"):
                put("G2b", peer_time("kendalltau") / t, peer_time("kendalltau") / t >= 3.0)
        if case.labels == "continuous" and peer_time("kendalltau"):
            put("G3", peer_time("kendalltau") / t, peer_time("kendalltau") / t >= 1.0)
        ll = peers.get("lifelines", {})
        if ll.get("median_s") and not ll.get("extrapolated"):
            put("G4", ll["median_s"] / t, ll["median_s"] / t >= 20.0,
                official=n == GOAL_LIFELINES_N)
        if row.get("memory_traced_bytes") is not None:
            bps = row["memory_traced_bytes"] / n
            put("G5", bps, bps <= MEMORY_LIMIT)
        row["goals"] = goals


def fmt_goals(goals: dict) -> str:
    parts = []
    for gid, g in goals.items():
        verdict = "PASS" if g["pass"] else "FAIL"
        parts.append(f"{gid} {verdict}" + ("" if g["official"] else "*"))
    return ", ".join(parts) or "—"


# --------------------------------------------------------------------------- report
RATIO_PEERS = ("sklearn", "kendalltau", "somersd", "lifelines", "prototype")


def speedup_cell(record: dict, fn: str, peer: str) -> str:
    if fn == "group_auc_score" and peer == "sklearn":
        peer = "sklearn/group"
    row = record["peers"].get(peer)
    if not row or not row.get("median_s"):
        return "—"
    cell = fmt_ratio(row["median_s"] / record["functions"][fn]["median_s"],
                     approx=row.get("extrapolated", False))
    return cell + ("†" if peer == "sklearn/group" else "")


def markdown_report(result: dict) -> str:
    args = result["params"]
    out = ["# streamrank batch benchmark", ""]
    out.append(f"Command: `{result['command']}`")
    if result.get("rendered_from_json"):
        out.append("")
        out.append("(This report was rendered from the run's saved JSON with `--from-json`; "
                   "the measurements are those of the run.)")
    out.append("")
    out.append("## Machine")
    out.append("")
    out.append(machine_markdown(result["machine"]))
    if result.get("load_average_end") is not None:
        out.append(f"- Load average at end (1/5/15 min): {result['load_average_end']}")
    out.append("")
    out.append("## Method")
    out.append("")
    out += [
        f"- Median wall time of round-robin runs: {args['repeats'] or '5 (3 at n >= 1e7)'} "
        f"per method; the slow peers ({', '.join(sorted(SLOW_PEERS))}) stop repeating once "
        f"their runs add up to {args['slow_budget']:g} s (the `runs` columns). "
        "gc collected before and disabled during each call; "
        "one warm-up call of everything at n=2000 first. Seed "
        f"{args['seed']}.",
        "- `t/argsort`: streamrank time / `np.argsort(y_score)` time (the floor). "
        "`X×` columns: peer time / streamrank time, i.e. how many times faster streamrank is; "
        "`~` marks a peer time extrapolated from its small-n run (see below).",
        "- `max abs diff`: largest difference between the streamrank result and every peer "
        "result of the same run listed under `checked vs` (`(derived)`: through an exact "
        "identity with tie counts from `np.unique`; `prototype`: the exact integer counts C, D, P). "
        f"Above {ANSWER_TOL:g} is flagged MISMATCH.",
        "- `B/sample`: peak extra memory of one call / n, tracemalloc / peak RSS (one call, "
        "after all timings; tracemalloc does not see numpy's sort scratch buffers, RSS does; "
        f"RSS shown from n = {fmt_n(RSS_MIN_N)}, below which freed heap pages stay resident "
        "and it under-counts).",
        "- Data: binary 30% positives, `s = N(0,1) + y`; ordinal = a normal latent cut at its "
        "quintiles (5 levels), `s = latent + N(0,1)`; continuous `y ~ N(0,1)`, `s = y + N(0,1)`; "
        "survival: exponential times, `s = log t + N(0,1)`, 30% censored (lifelines' "
        "direction). 50% tied: a random half of the scores rounded to a 0.1 grid. Weights "
        f"U(0, 2). GAUC: {args['groups']} groups drawn uniformly. Labels int64 (binary, "
        "ordinal) or float64; scores float64.",
    ]
    out.append("")

    legend = ("Goals (issue 2): " + "; ".join(f"**{k}** {v}" for k, v in GOALS.items())
              + ". A `*` marks a goal checked at an n other than the one it is stated at "
              "(1e7; 1e6 for G4): information only. † GAUC against a per-group loop of "
              "sklearn roc_auc_score.")
    for n in result["sizes"]:
        recs = [r for r in result["records"] if r["n"] == n]
        out.append(f"## n = {fmt_n(n)}")
        out.append("")
        out.append("### streamrank")
        out.append("")
        headers = ["case", "function", "runs", "median s", "t/argsort"] + \
                  [f"{p}×" for p in RATIO_PEERS] + ["checked vs", "max abs diff",
                                                   "B/sample", "goals"]
        rows = []
        for r in recs:
            t_arg = r["peers"]["argsort"]["median_s"]
            for fn, fr in r["functions"].items():
                mem = "—"
                if fr.get("memory_traced_bytes") is not None:
                    rss = fr.get("memory_rss_bytes") if n >= RSS_MIN_N else None
                    mem = (fmt_bytes_per_sample(fr["memory_traced_bytes"], n) + " / "
                           + fmt_bytes_per_sample(rss, n))
                rows.append([r["title"], fn, fr["reps"], fmt_seconds(fr["median_s"]),
                             fmt_ratio(fr["median_s"] / t_arg)]
                            + [speedup_cell(r, fn, p) for p in RATIO_PEERS]
                            + [", ".join(fr["checked_vs"]) or "—", fmt_diff(fr["max_abs_diff"]),
                               mem, fmt_goals(fr.get("goals", {}))])
        out.append(markdown_table(headers, rows, "llrrr" + "r" * len(RATIO_PEERS) + "lrrl"))
        out.append("")
        out.append(legend)
        out.append("")
        out.append("### Peers (median s, runs in parentheses; `~`: extrapolated)")
        out.append("")
        headers = ["case"] + list(PEERS) + ["load"]
        rows = []
        for r in recs:
            row = [r["title"]]
            for p in PEERS:
                pr = r["peers"].get(p)
                if pr is None:
                    row.append("n/a")
                elif pr.get("median_s") is None:
                    row.append("skipped")
                elif pr.get("extrapolated"):
                    row.append("~" + fmt_seconds(pr["median_s"]))
                else:
                    cell = f"{fmt_seconds(pr['median_s'])} ({pr['reps']})"
                    if pr.get("memory_traced_bytes") is not None:
                        cell += f" [{pr['memory_traced_bytes'] / n:.0f} B]"
                    row.append(cell)
            load = r.get("load_average_1min")
            rows.append(row + ["—" if load is None else f"{load:.1f}"])
        out.append(markdown_table(headers, rows, "l" + "r" * (len(PEERS) + 1)))
        out.append("")
        out.append("`[k B]`: peak extra bytes per sample of the peer (tracemalloc). `n/a`: the "
                   "peer does not apply (no weights in scipy kendalltau/somersd, lifelines and "
                   "the prototype; sklearn is for binary labels). `skipped`: see notes. `load`: "
                   f"the 1-minute load average when the case started ({result['machine']['cores_usable']} "
                   "cores; above that, other processes were competing for the CPU).")
        out.append("")

    if result["small_n"]:
        out.append("## Slow peers at small n (measured; the source of the `~` extrapolations)")
        out.append("")
        headers = ["case", "peer", "n", "peer s (runs)", "streamrank function", "streamrank s",
                   "speedup", "max abs diff"]
        rows = [[CASE_BY_KEY[s["case"]].title, PEERS[s["peer"]], fmt_n(s["n"]),
                 f"{fmt_seconds(s['peer_s'])} ({s['peer_reps']})", s["function"],
                 fmt_seconds(s["streamrank_s"]), fmt_ratio(s["peer_s"] / s["streamrank_s"]),
                 fmt_diff(s["max_abs_diff"])] for s in result["small_n"]]
        out.append(markdown_table(headers, rows, "lllrlrrr"))
        out.append("")
        out.append("Extrapolation: prototype time × (n ln n)/(n0 ln n0); somersd time × (n/n0)², "
                   "since scipy's somersd builds the label × score contingency table (cells "
                   "grow as n with continuous scores) and sums a sub-block per cell, which is "
                   "quadratic in the cells (measured: ×10 per ×3 in n).")
        out.append("")

    out.append("## Goals (issue 2)")
    out.append("")
    out += goal_summary(result)
    out.append("")
    out.append("## Notes")
    out.append("")
    ll = [(r["n"], r["peers"]["lifelines"]["median_s"]) for r in result["records"]
          if r["peers"].get("lifelines", {}).get("median_s")]
    if ll:
        n_ll = max(n for n, _ in ll)
        times = [t for n, t in ll if n == n_ll]
        ll_text = (f"it took {min(times):.3g}-{max(times):.3g} s per call at n = {fmt_n(n_ll)} "
                   "here; it walks a pure-Python order-statistic tree (an insert and a rank "
                   "query per sample, O(n log n) Python steps), i.e. minutes per call at 10x "
                   "that n")
    else:
        ll_text = "it was not run at these sizes"
    loads = [r["load_average_1min"] for r in result["records"]
             if r.get("load_average_1min") is not None]
    if loads:
        out.append(f"- Shared machine: the 1-minute load average was {min(loads):.1f}-"
                   f"{max(loads):.1f} on {result['machine']['cores_usable']} cores while the "
                   "cases ran (other processes competing for the CPU), so single runs vary by "
                   "up to about ±40% at 1e7; every run's time is in the JSON output (`--json`). "
                   "Ratios compare methods timed round-robin on the same case, which cancels "
                   "part of that noise, not all of it.")
    out += [
        f"- lifelines' concordance_index is run up to n = {fmt_n(args['lifelines_max'])} "
        f"only: {ll_text}; G4 is stated at 1e6. For group_auc_score the lifelines column "
        "compares with lifelines on the same (y, s) without groups (the same pair counting).",
        f"- The prototype's pure-Python merge sort is run up to n = {fmt_n(args['mergesort_max'])}; "
        f"above, its time is extrapolated from its run at n = {fmt_n(args['mergesort_n'])} "
        "(table above).",
        "- scipy's somersd is never run on continuous labels (its contingency table would be "
        "n × n); on binary/ordinal labels it is timed at n = "
        f"{fmt_n(args['somersd_n'])} and extrapolated.",
        "- Weighted case: scipy kendalltau/somersd, lifelines and the prototype take no weights, "
        "so its answers are checked against sklearn with `sample_weight` (tau-b through the "
        "identity above).",
    ]
    return "\n".join(out) + "\n"


def goal_summary(result: dict) -> list[str]:
    lines = []
    official_n = {g: (GOAL_LIFELINES_N if g == "G4" else GOAL_N) for g in GOALS}
    for gid, text in GOALS.items():
        entries = []
        for r in result["records"]:
            for fn, fr in r["functions"].items():
                g = fr.get("goals", {}).get(gid)
                if g is not None:
                    entries.append((r, fn, g))
        off = [e for e in entries if e[2]["official"]]
        use = off or entries
        if not use:
            lines.append(f"- **{gid}** ({text}): not evaluated at these sizes.")
            continue
        fails = [e for e in use if not e[2]["pass"]]
        verdict = "PASS" if not fails else "FAIL"
        where = "" if off else (" (information only: n = "
                                + ", ".join(sorted({fmt_n(e[0]['n']) for e in use}))
                                + f", not the stated {fmt_n(official_n[gid])})")
        worst_text = ""
        if gid in ("G1a", "G2a", "G5"):
            worst = max(use, key=lambda e: e[2]["value"])
            unit = " B/sample" if gid == "G5" else "x argsort"
            worst_text = (f"; worst {worst[2]['value']:.2f}{unit} ({worst[1]}, "
                          f"{worst[0]['title']}, n = {fmt_n(worst[0]['n'])})")
        else:
            worst = min(use, key=lambda e: e[2]["value"])
            worst_text = (f"; worst {worst[2]['value']:.2f}x faster ({worst[1]}, "
                          f"{worst[0]['title']}, n = {fmt_n(worst[0]['n'])})")
        fail_text = ""
        if fails:
            fail_text = "; failing: " + "; ".join(
                f"{fn} on {r['title']} at {fmt_n(r['n'])} ({g['value']:.2f})"
                for r, fn, g in fails)
        lines.append(f"- **{gid} {verdict}**{where}: {text}{worst_text}{fail_text}.")
    mism = [(r, fn) for r in result["records"] for fn, fr in r["functions"].items()
            if fr["max_abs_diff"] is not None and fr["max_abs_diff"] > ANSWER_TOL]
    mism += [(s, s["function"]) for s in result["small_n"]
             if s["max_abs_diff"] is not None and s["max_abs_diff"] > ANSWER_TOL]
    unchecked = [(r, fn) for r in result["records"] for fn, fr in r["functions"].items()
                 if fr["max_abs_diff"] is None]
    lines.append(f"- **Answers**: {'all agree with the peers to ' + format(ANSWER_TOL, 'g') if not mism else 'MISMATCH in ' + str(len(mism)) + ' results'}"
                 + (f"; {len(unchecked)} result(s) had no peer at their n: "
                    + ", ".join(f"{fn} on {r['title']} at {fmt_n(r['n'])}" for r, fn in unchecked)
                    if unchecked else "") + ".")
    return lines


# --------------------------------------------------------------------------- main
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", nargs="+", default=["1e6", "1e7"], type=str,
                   help="sample counts (default: 1e6 1e7)")
    p.add_argument("--repeats", type=int, default=None,
                   help="runs per method (default: 3 at n >= 1e7, 5 below)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the data (default 0)")
    p.add_argument("--cases", nargs="+", choices=[c.key for c in CASES],
                   default=[c.key for c in CASES], help="subset of the cases")
    p.add_argument("--slow-budget", type=float, default=20.0,
                   help="stop repeating a slow peer (lifelines, seed, somersd, per-group "
                        "sklearn) once its runs add up to this many seconds (default 20)")
    p.add_argument("--lifelines-max", type=str, default="1e6",
                   help="largest n at which lifelines runs (default 1e6)")
    p.add_argument("--mergesort-max", type=str, default="1e5",
                   help="largest n at which the prototype merge sort runs (default 1e5)")
    p.add_argument("--mergesort-n", type=str, default="1e5",
                   help="n of the prototype's measured run for extrapolation (default 1e5)")
    p.add_argument("--somersd-n", type=str, default="1e4",
                   help="n at which scipy somersd is timed, and the largest it runs at")
    p.add_argument("--groups", type=int, default=1000, help="GAUC groups (default 1000)")
    p.add_argument("--no-memory", action="store_true", help="skip the memory measurements")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.add_argument("--output", "-o", help="also write the report to this file")
    p.add_argument("--save-json", help="also write the JSON results to this file")
    p.add_argument("--verbose", "-v", action="store_true", help="log every run to stderr")
    p.add_argument("--from-json", metavar="PATH",
                   help="do not run: render the report of a run saved with --save-json")
    args = p.parse_args(argv)
    args.sizes = [parse_size(x) for x in args.n]
    args.lifelines_max = parse_size(args.lifelines_max)
    args.mergesort_max = parse_size(args.mergesort_max)
    args.mergesort_n = parse_size(args.mergesort_n)
    args.somersd_n = parse_size(args.somersd_n)
    return args


def warm_up(cases, args) -> None:
    """One call of everything at a small n: imports, first-call caches."""
    for case in cases:
        d = make_data(case, 2000, args.seed, min(args.groups, 50))
        peers = [p for p in PEERS if peer_applies(p, case)]
        for call in list(peer_calls(case, d, peers).values()) + list(
                streamrank_calls(case, d).values()):
            call()


def emit(result: dict, args) -> None:
    """Print the report (Markdown, or JSON with --json) and write the requested files."""
    as_json = json.dumps(result, indent=1, default=jsonable)
    text = as_json if args.json else markdown_report(result)
    if args.save_json:
        with open(args.save_json, "w") as f:
            f.write(as_json)
    write_report(text, args.output)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.from_json:
        with open(args.from_json) as f:
            result = json.load(f)
        for rec in result["records"]:  # goals as this version of the script states them
            evaluate_goals(rec)
        result["rendered_from_json"] = True
        emit(result, args)
        return 0
    cases = [CASE_BY_KEY[k] for k in args.cases]
    info = machine_info(repo=REPO)
    log("machine: " + info["cpu"]["model"] + f", {info['cores_usable']} cores, load "
        + str(info["load_average_1_5_15min"]))
    warnings.simplefilter("ignore", category=FutureWarning)
    warm_up(cases, args)

    small = {}
    small_rows = []
    need_prototype = any(n > args.mergesort_max for n in args.sizes)
    need_somersd = any(n > args.somersd_n for n in args.sizes)
    for case in cases:
        for row in run_small_n(case, args):
            if (row["peer"] == "prototype" and need_prototype) or (row["peer"] == "somersd" and need_somersd):
                small[(case.key, row["peer"])] = row
                small_rows.append(row)

    records = []
    for n in args.sizes:
        for case in cases:
            records.append(run_case(case, n, args, small))

    if not args.no_memory:
        exact = make_rss_accounting_exact()
        log(f"memory phase (glibc mmap threshold fixed: {exact})")
        for rec in records:
            run_memory(CASE_BY_KEY[rec["case"]], rec["n"], args, rec)
    for rec in records:
        evaluate_goals(rec)

    load_end = load_average()
    result = {
        "command": "python benchmarks/bench_batch.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "machine": info,
        "load_average_end": load_end,
        "params": {k: v for k, v in vars(args).items() if k not in ("n",)},
        "sizes": args.sizes,
        "small_n": small_rows,
        "records": records,
        "goals": GOALS,
    }
    emit(result, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
