#!/usr/bin/env python
"""Benchmark of the incremental engine: `PairCounter` changes, `EpochTracker` epochs, memory.

Usage::

    python benchmarks/bench_incremental.py                    # n = 1e4 1e5 1e6, Markdown
    python benchmarks/bench_incremental.py --quick            # n = 1e3 1e4, fewer runs
    python benchmarks/bench_incremental.py --n 1e5 --ops 500  # a quick look at one size
    python benchmarks/bench_incremental.py --json > out.json

Four parts, in one run (the benchmark of issue 3), each checked against `pair_counts`:

1. **Single changes.** For binary, 5-level and continuous labels and every ``n`` of
   ``--n``: a `PairCounter` is built with ``insert_many`` (``n`` int keys, scores uniform
   in [0, 1), so no tied scores), then ``--ops`` single calls of each operation are timed
   in batches of ``--batch`` calls. ``insert`` of a new key and ``remove`` of a held key
   alternate batch by batch, so the counter holds between ``n`` and ``n + batch`` items
   throughout; then ``update(key, score=...)`` of held keys. The figure is the median over
   the batches of the *CPU time* per call (``time.process_time_ns``, garbage collector
   off, as ``bench_structures.py``): load from other processes on a shared machine is not
   counted. The speed-up divides the CPU time of one ``pair_counts`` of the ``n`` held
   items (median of ``--repeats`` runs) by the time per call: what recomputing after each
   change would cost.
2. **Batches.** ``update_many`` of ``k`` = 1e2, 1e3, 1e4 new scores of distinct held keys
   into a counter of ``N = max(--n)`` items, binary and 5-level labels, timed round-robin
   with a full ``pair_counts`` of the ``N`` items (`_common.side_by_side`: median wall
   time of ``--repeats`` runs; the CPU time of the same runs is recorded too).
3. **Training epochs.** `EpochTracker` on ``N`` samples, binary and 5-level labels:
   ``step_partial`` (``k = 1e3`` new scores), ``step_additive`` (31 groups, one shared move
   per group, as a 31-leaf tree of a boosting round) and ``step`` (every score plus
   Gaussian noise), each round-robin with ``pair_counts`` and ``scipy.stats.kendalltau``
   from scratch on the same score vector, for a tracker with ``track_churn=False`` and one
   with ``track_churn=True`` (the difference is the cost of churn). The first call after
   a ``step`` builds the per-level state (``step_partial``) or sorts (``step_additive``):
   it is timed apart, and the steady-state calls after it are the ones reported.
4. **Memory.** tracemalloc around ``PairCounter(...).insert_many(keys, y, s)`` of ``N``
   items: what stays allocated (and the peak), divided by ``N``. The key objects
   themselves exist before and are not counted (an int key costs 28 more bytes).

Every part checks its result: the counts after the timed operations equal
``pair_counts`` of the items held (tracked by the benchmark, independently of the
counter), churn equals the discordant pairs between consecutive score vectors, and
``kendalltau`` equals ``tau_b``. A failed check is printed and makes the exit status 1.
Then the goals of issue 3 are printed PASS/FAIL (judged at ``n = 1e6``; at another ``N``
the result is marked ``*``), and every failing operation is profiled (cProfile, a
separate run after the timings) with the calls that dominate it. Progress goes to
stderr; the report (Markdown, or JSON with ``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import sys
import time
import tracemalloc
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
    load_average, median, parse_size, side_by_side,
)

from streamrank import EpochTracker, PairCounter, pair_counts  # noqa: E402

GOAL_N = 10**6
# (name, PairCounter labels=, label generator)
LABELS = {
    "binary": ("binary", lambda rng, m: rng.integers(0, 2, m).astype(np.float64)),
    "5 levels": ("ordinal", lambda rng, m: rng.integers(0, 5, m).astype(np.float64)),
    "continuous": ("continuous", lambda rng, m: rng.random(m)),
}
SINGLE_GOAL_US = {"binary": 5.0, "5 levels": 15.0, "continuous": 40.0}
UPDATE_MANY_GOAL = 0.10       # update_many of k = 1e4, as a fraction of a pair_counts
EPOCH_GOALS = {"step_partial": 0.02, "step_additive": 0.5, "step": 1.1}
MEMORY_GOAL = 200.0           # bytes per keyed item


class Report:
    """What a run collects: checks, goals, profiles, and the JSON results."""

    def __init__(self):
        self.checks: list[tuple[str, bool, str]] = []
        self.goals: list[dict] = []
        self.profiles: list[tuple[str, str]] = []
        self.results: dict = {}

    def check(self, what: str, ok: bool, detail: str = "") -> bool:
        self.checks.append((what, bool(ok), detail))
        if not ok:
            log(f"CHECK FAILED: {what} {detail}")
        return bool(ok)

    def goal(self, goal: str, measured: str, ok: bool, n: int, extra: str = "") -> bool:
        self.goals.append({"goal": goal, "measured": measured, "pass": bool(ok),
                           "at_goal_n": n == GOAL_N, "n": n, "extra": extra})
        return bool(ok)


def counts_equal(report, what, got, expected) -> bool:
    return report.check(what, got == expected,
                        "" if got == expected else f"got {got}, expected {expected}")


# --------------------------------------------------------------------------- timing
def per_call_batches(run_batch, n_batches):
    """Per-call CPU and wall seconds of each batch: ``run_batch(b)`` runs batch ``b`` and
    returns its number of calls. Garbage collector collected first, off during."""
    cpu, wall = [], []
    gc.collect()
    gc.disable()
    try:
        for b in range(n_batches):
            c0, w0 = time.process_time_ns(), time.perf_counter_ns()
            calls = run_batch(b)
            c1, w1 = time.process_time_ns(), time.perf_counter_ns()
            cpu.append((c1 - c0) / calls / 1e9)
            wall.append((w1 - w0) / calls / 1e9)
    finally:
        gc.enable()
    return cpu, wall


def round_robin(funcs, repeats, budget_s):
    """`side_by_side` (median wall time, round-robin) that also records the CPU time of
    every run. Returns ``{name: {"wall": [...], "cpu": [...], "result": ...}}``."""
    cpu = {name: [] for name in funcs}

    def with_cpu(name, fn):
        def run():
            t0 = time.process_time()
            out = fn()
            cpu[name].append(time.process_time() - t0)
            return out
        return run

    timed = side_by_side({name: with_cpu(name, fn) for name, fn in funcs.items()}, repeats,
                         budget_s=budget_s, progress=None)
    return {name: {"wall": t.times, "cpu": cpu[name], "result": t.result}
            for name, t in timed.items()}


def med(t, clock="cpu"):
    return median(t[clock])


def fmt_us(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e6:.1f}"


def profile(report, title, fn, calls=1, top=8):
    """Run ``fn()`` (``calls`` operations) under cProfile; keep the call tree from the
    streamrank entry point down to the callees that take >= 5% of it, and a table of the
    functions with the most own time."""
    prof = cProfile.Profile()
    gc.collect()
    gc.disable()  # as in the timings
    try:
        prof.enable()
        fn()
        prof.disable()
    finally:
        gc.enable()
    # {(file, line, func): (primitive calls, calls, own s, cumulative s, {caller: edge})}
    stats = pstats.Stats(prof).stats
    total = sum(v[2] for v in stats.values())
    n_calls = sum(v[1] for v in stats.values())

    def label(key):
        path, line, func = key
        if path.startswith(REPO):
            return f"`{func}` {os.path.relpath(path, REPO)}:{line}"
        return f"`{func}`" + (f" {os.path.basename(path)}" if path != "~" else "")

    def callees(key):
        out = []
        for other, v in stats.items():
            edge = v[4].get(key)  # (primitive calls, calls, own s, cumulative s) from key
            if edge is not None:
                out.append((other, edge[1], edge[3]))
        return sorted(out, key=lambda e: -e[2])

    package = os.path.join(REPO, "streamrank")
    root = max((k for k in stats if k[0].startswith(package)), key=lambda k: stats[k][3])
    root_cum = stats[root][3]
    lines = [f"- {label(root)}: {root_cum * 1e3:.1f} ms cumulative, "
             f"{stats[root][1]:,} calls"]

    seen = {root}

    def walk(key, depth):
        if depth > 4:
            return
        for other, ncalls, cum in callees(key):
            if cum < 0.05 * root_cum:
                continue
            again = other in seen
            lines.append(f"{'  ' * depth}- {label(other)}: {100 * cum / root_cum:.0f}% "
                         f"({cum * 1e3:.1f} ms, {ncalls:,} calls)"
                         + (" (its callees: above)" if again else ""))
            if not again:
                seen.add(other)
                walk(other, depth + 1)

    walk(root, 1)
    rows = []
    for key, (_, ncalls, tottime, cumtime, _) in sorted(stats.items(),
                                                         key=lambda kv: -kv[1][2])[:top]:
        rows.append([label(key), f"{ncalls:,}", f"{tottime * 1e3:.1f}", f"{cumtime * 1e3:.1f}",
                     f"{100 * tottime / total:.0f}%"])
    table = markdown_table(["function, by own time", "calls", "own ms", "cum ms", "share"],
                           rows, "lrrrr")
    head = (f"Under cProfile: {total * 1e3:.1f} ms for {calls:,} operation(s), "
            f"{n_calls:,} function calls ({n_calls / calls:,.0f} per operation, "
            f"{total / calls * 1e6:,.1f} us per operation with the profiler's overhead).")
    report.profiles.append((title, "\n".join([
        head, "", "Call tree (share of the entry point's cumulative time, callees >= 5%; "
        "cProfile keeps one edge per caller-callee pair, so a function reached from two "
        "places shows its callees once, with all their calls from it):", ""]
        + lines + ["", table])))


# --------------------------------------------------------------------------- 1. single changes
def single_changes(args, report):
    rows, results = [], {}
    for name, (kind, make_labels) in LABELS.items():
        for n in args.n:
            log(f"single changes: {name}, n={fmt_n(n)}")
            rng = np.random.default_rng([args.seed, n, len(name)])
            ops, batch = args.ops, args.batch
            y_all = np.concatenate((make_labels(rng, n), make_labels(rng, 2 * ops)))
            s_all = rng.random(n + 2 * ops)
            held = np.zeros(n + 2 * ops, dtype=bool)
            held[:n] = True
            counter = PairCounter(labels=kind)
            t0 = time.perf_counter()
            counter.insert_many(list(range(n)), y_all[:n], s_all[:n])
            build = time.perf_counter() - t0

            # insert new keys n..n+ops-1; remove held keys; batch by batch
            new = list(range(n, n + ops))
            ins = list(zip(new, y_all[n:n + ops].tolist(), s_all[n:n + ops].tolist()))
            victims = rng.choice(n, ops, replace=False).tolist()
            n_batches = -(-ops // batch)
            insert, remove = counter.insert, counter.remove
            t_ins_cpu, t_ins_wall, t_rem_cpu, t_rem_wall = [], [], [], []
            gc.collect()
            gc.disable()
            try:
                for b in range(n_batches):
                    chunk = ins[b * batch:(b + 1) * batch]
                    c0, w0 = time.process_time_ns(), time.perf_counter_ns()
                    for key, yi, si in chunk:
                        insert(key, yi, si)
                    c1, w1 = time.process_time_ns(), time.perf_counter_ns()
                    t_ins_cpu.append((c1 - c0) / len(chunk) / 1e9)
                    t_ins_wall.append((w1 - w0) / len(chunk) / 1e9)
                    chunk = victims[b * batch:(b + 1) * batch]
                    c0, w0 = time.process_time_ns(), time.perf_counter_ns()
                    for key in chunk:
                        remove(key)
                    c1, w1 = time.process_time_ns(), time.perf_counter_ns()
                    t_rem_cpu.append((c1 - c0) / len(chunk) / 1e9)
                    t_rem_wall.append((w1 - w0) / len(chunk) / 1e9)
            finally:
                gc.enable()
            held[n:n + ops] = True
            held[victims] = False

            # score updates of held keys
            held_keys = np.flatnonzero(held)
            upd_keys = rng.choice(held_keys, ops, replace=ops > held_keys.size).tolist()
            upd_scores = rng.random(ops).tolist()
            update = counter.update

            def update_batch(b):
                lo, hi = b * batch, min((b + 1) * batch, ops)
                for k, v in zip(upd_keys[lo:hi], upd_scores[lo:hi]):
                    update(k, score=v)
                return hi - lo

            t_upd_cpu, t_upd_wall = per_call_batches(update_batch, n_batches)
            for k, v in zip(upd_keys, upd_scores):
                s_all[k] = v

            # a from-scratch recount of the held items, the cost of "recompute each time"
            y_held, s_held = y_all[held], s_all[held]
            recount = round_robin({"pair_counts": lambda: pair_counts(y_held, s_held)},
                                  args.repeats, budget_s=10.0)["pair_counts"]
            counts_equal(report, f"single changes, {name}, n={fmt_n(n)}: counts after "
                         f"{ops} inserts, {ops} removes, {ops} updates == pair_counts",
                         counter.counts, recount["result"])
            report.check(f"single changes, {name}, n={fmt_n(n)}: len == n",
                         len(counter) == n, f"len {len(counter)}")

            t = {"insert": median(t_ins_cpu), "remove": median(t_rem_cpu),
                 "update": median(t_upd_cpu)}
            t_pc = med(recount)
            results.setdefault(name, {})[str(n)] = {
                "build_insert_many_s": build, "pair_counts_cpu_s": t_pc,
                "pair_counts_wall_s": med(recount, "wall"),
                **{f"{op}_cpu_s": v for op, v in t.items()},
                "insert_wall_s": median(t_ins_wall), "remove_wall_s": median(t_rem_wall),
                "update_wall_s": median(t_upd_wall),
                "batches_cpu_s": {"insert": t_ins_cpu, "remove": t_rem_cpu,
                                  "update": t_upd_cpu}}
            rows.append([name, fmt_n(n), fmt_us(t["insert"]), fmt_us(t["remove"]),
                         fmt_us(t["update"]), fmt_seconds(t_pc * 1e3),
                         " / ".join(fmt_ratio(t_pc / t[op]) for op in t),
                         fmt_seconds(build)])

            if n == max(args.n):
                goal_us = SINGLE_GOAL_US[name]
                bad = [op for op in t if t[op] * 1e6 > goal_us]
                report.goal(f"single insert / remove / update, {name}, <= {goal_us:g} us",
                            " / ".join(f"{fmt_us(t[op])} us" for op in t), not bad, n,
                            "" if not bad else "over: " + ", ".join(bad))
                if bad and not args.no_profile:
                    _profile_single(report, counter, name, n, args, rng, held, y_all, s_all)
                    counts_equal(report, f"single changes, {name}, n={fmt_n(n)}: counts "
                                 "after the profiled calls == pair_counts", counter.counts,
                                 pair_counts(y_all[held], s_all[held]))
            del counter
            gc.collect()
    table = markdown_table(
        ["labels", "n held", "insert (us)", "remove (us)", "update (us)",
         "pair_counts (ms)", "speed-up vs recount: insert / remove / update",
         "build by insert_many (s)"], rows, "llrrrrrr")
    return table, results


def _profile_single(report, counter, name, n, args, rng, held, y_all, s_all):
    """cProfile ``ops`` more inserts (keys ``n + ops ...``), removals and updates."""
    ops = args.ops
    new = list(range(n + ops, n + 2 * ops))
    ins = list(zip(new, y_all[n + ops:].tolist(), s_all[n + ops:].tolist()))
    victims = rng.choice(np.flatnonzero(held), ops, replace=False).tolist()
    upd_keys = new  # held once inserted
    upd_scores = rng.random(ops).tolist()
    for op, fn in (
            ("insert", lambda: [counter.insert(*a) for a in ins]),
            ("remove", lambda: [counter.remove(k) for k in victims]),
            ("update", lambda: [counter.update(k, score=v)
                                for k, v in zip(upd_keys, upd_scores)])):
        profile(report, f"{ops} x PairCounter.{op}, {name} labels, n = {fmt_n(n)}", fn,
                calls=ops)
    held[n + ops:] = True
    held[victims] = False
    s_all[upd_keys] = upd_scores


# --------------------------------------------------------------------------- 2. batches
def batch_updates(args, report, N):
    rows, results = [], {}
    ks = [k for k in (10**2, 10**3, 10**4) if k <= N // 10]
    for name in ("binary", "5 levels"):
        kind, make_labels = LABELS[name]
        log(f"update_many: {name}, n={fmt_n(N)}")
        rng = np.random.default_rng([args.seed, N, 2, len(name)])
        y, s = make_labels(rng, N), rng.random(N)
        counter = PairCounter(labels=kind)
        counter.insert_many(list(range(N)), y, s)
        batches = {k: [(rng.choice(N, k, replace=False), rng.random(k))
                       for _ in range(args.repeats + 1)] for k in ks}
        key_lists = {k: [idx.tolist() for idx, _ in batches[k]] for k in ks}
        done = []  # (k, i) in the order applied, to replay on the benchmark's own copy
        nxt = {k: 0 for k in ks}

        def update_many(k):
            def run():
                i = nxt[k]
                nxt[k] += 1
                counter.update_many(key_lists[k][i], scores=batches[k][i][1])
                done.append((k, i))
            return run

        s_ref = s.copy()
        funcs = {"pair_counts": lambda: pair_counts(y, s_ref)}
        funcs.update({f"update_many k={fmt_n(k)}": update_many(k) for k in ks})
        timed = round_robin(funcs, args.repeats, budget_s=args.budget)
        for k, i in done:
            idx, v = batches[k][i]
            s[idx] = v
        pc = timed["pair_counts"]
        res = {"pair_counts": {c: pc[c] for c in ("cpu", "wall")}}
        for k in ks:
            t = timed[f"update_many k={fmt_n(k)}"]
            res[str(k)] = {c: t[c] for c in ("cpu", "wall")}
            ratio, ratio_wall = med(t) / med(pc), med(t, "wall") / med(pc, "wall")
            rows.append([name, fmt_n(k), fmt_seconds(med(t) * 1e3),
                         f"{med(t) / k * 1e6:.2f}", fmt_seconds(med(pc) * 1e3),
                         f"{100 * ratio:.1f}%", f"{100 * ratio_wall:.1f}%", len(t["cpu"])])
            if k == 10**4 or (k == ks[-1] and N < GOAL_N):
                ok = report.goal(f"update_many k={fmt_n(k)} into n={fmt_n(N)}, {name}: "
                                 f"<= {100 * UPDATE_MANY_GOAL:.0f}% of pair_counts",
                                 f"{100 * ratio:.1f}% (wall {100 * ratio_wall:.1f}%)",
                                 ratio <= UPDATE_MANY_GOAL, N)
                if not ok and not args.no_profile:
                    extra = (rng.choice(N, k, replace=False), rng.random(k))
                    keys = extra[0].tolist()
                    profile(report, f"one update_many of k = {fmt_n(k)} into n = {fmt_n(N)}, "
                                    f"{name} labels",
                            lambda: counter.update_many(keys, scores=extra[1]))
                    s[extra[0]] = extra[1]
        counts_equal(report, f"update_many, {name}, n={fmt_n(N)}: counts after {len(done)} "
                     "batches == pair_counts", counter.counts, pair_counts(y, s))
        results[name] = res
        del counter
        gc.collect()
    table = markdown_table(["labels", "k", "update_many (ms)", "per changed item (us)",
                            "pair_counts (ms)", "ratio (CPU)", "ratio (wall)", "runs"],
                           rows, "lrrrrrrr")
    return table, results


# --------------------------------------------------------------------------- 3. epochs
def epochs(args, report, N):
    from scipy.stats import kendalltau

    rows, results = [], {}
    k_partial = min(10**3, N // 10)
    n_groups = 31
    R = args.repeats
    for name in ("binary", "5 levels"):
        _, make_labels = LABELS[name]
        rng = np.random.default_rng([args.seed, N, 3, len(name)])
        y = make_labels(rng, N)
        s = rng.random(N)
        trackers = {False: EpochTracker(y, track_churn=False),
                    True: EpochTracker(y, track_churn=True)}
        for trk in trackers.values():
            trk.step(s)
        groups = rng.integers(0, n_groups, N)
        res = {}

        # the score vectors of every epoch, made before the timings
        def noisy(prev):
            return prev + rng.normal(0.0, 0.01, N)

        def additive(prev):
            d = rng.normal(0.0, 0.01, n_groups)
            return prev + d[groups], (d, groups)

        def partial(prev):
            idx = rng.choice(N, k_partial, replace=False)
            v = rng.random(k_partial)
            out = prev.copy()
            out[idx] = v
            return out, (idx, v)

        for mode in ("step", "step_additive", "step_partial"):
            log(f"epochs: {name}, {mode}, n={fmt_n(N)}")
            first = {}
            if mode != "step":  # the first call after a step builds state: timed apart
                nxt = additive(s) if mode == "step_additive" else partial(s)
                for churn, trk in trackers.items():
                    t0 = time.process_time()
                    _call(trk, mode, nxt)
                    first[churn] = time.process_time() - t0
                s = nxt[0]
            vectors, prev = [], s
            for _ in range(R):
                nxt = noisy(prev) if mode == "step" else \
                    additive(prev) if mode == "step_additive" else partial(prev)
                vectors.append(nxt)
                prev = nxt if mode == "step" else nxt[0]
            pos = {name_: 0 for name_ in ("pc", "kt", False, True)}

            def scores_of(v):
                return v if mode == "step" else v[0]

            def scratch(which, fn):
                def run():
                    i = pos[which]
                    pos[which] += 1
                    return fn(y, scores_of(vectors[i]))
                return run

            def tracked(churn):
                def run():
                    i = pos[churn]
                    pos[churn] += 1
                    return _call(trackers[churn], mode, vectors[i])
                return run

            funcs = {"pair_counts": scratch("pc", pair_counts),
                     "kendalltau": scratch("kt", kendalltau),
                     "tracker": tracked(False), "tracker + churn": tracked(True)}
            timed = round_robin(funcs, R, budget_s=args.budget)

            # the trackers must have run the same epochs to stay comparable: finish them
            last = max(pos[False], pos[True], pos["pc"])
            for churn in (False, True):
                while pos[churn] < last:
                    tracked(churn)()
            final = scores_of(vectors[last - 1])
            truth = pair_counts(y, final)
            for churn, trk in trackers.items():
                counts_equal(report, f"EpochTracker {mode}, {name}, track_churn={churn}: "
                             f"counts after {len(trk.history)} epochs == pair_counts",
                             trk.counts, truth)
                report.check(f"EpochTracker {mode}, {name}, track_churn={churn}: scores",
                             np.array_equal(trk.scores, final))
            # churn of one more epoch against the flipped pairs, counted from scratch
            before = trackers[True].scores.copy()
            extra = noisy(before) if mode == "step" else \
                additive(before) if mode == "step_additive" else partial(before)
            _call(trackers[True], mode, extra)
            _call(trackers[False], mode, extra)
            after = scores_of(extra)
            flipped = pair_counts(before, after).discordant
            report.check(f"EpochTracker {mode}, {name}: churn == flipped pairs",
                         trackers[True].churn == flipped,
                         f"churn {trackers[True].churn}, flipped {flipped}")
            kt = timed["kendalltau"]["result"]
            tau_b = pair_counts(y, scores_of(vectors[pos["kt"] - 1])).tau_b
            report.check(f"EpochTracker {mode}, {name}: scipy kendalltau == tau_b",
                         abs(kt.statistic - tau_b) <= 1e-9,
                         f"{kt.statistic} vs {tau_b}")
            s = after

            pc, tr, trc, ktt = (timed[x] for x in ("pair_counts", "tracker",
                                                    "tracker + churn", "kendalltau"))
            ratio, ratio_wall = med(tr) / med(pc), med(tr, "wall") / med(pc, "wall")
            churn_cost = med(trc) - med(tr)
            res[mode] = {x: {c: timed[x][c] for c in ("cpu", "wall")} for x in timed}
            res[mode]["first_call_cpu_s"] = {str(c): v for c, v in first.items()}
            goal = EPOCH_GOALS[mode]
            what = {"step": "step (noise on every score)",
                    "step_additive": f"step_additive ({n_groups} groups)",
                    "step_partial": f"step_partial (k={fmt_n(k_partial)})"}[mode]
            rows.append([name, what, fmt_seconds(med(pc) * 1e3), fmt_seconds(med(ktt) * 1e3),
                         fmt_seconds(med(tr) * 1e3), fmt_ratio(ratio), fmt_ratio(ratio_wall),
                         f"<= {goal:g}x", fmt_seconds(churn_cost * 1e3),
                         fmt_ratio(med(ktt) / med(tr)),
                         fmt_seconds(first[False] * 1e3) if first else "—",
                         len(tr["cpu"])])
            ok = report.goal(f"EpochTracker.{what}, {name}, n={fmt_n(N)}: <= {goal:g}x "
                             "pair_counts from scratch",
                             f"{fmt_ratio(ratio)} (wall {fmt_ratio(ratio_wall)})",
                             ratio <= goal, N)
            if not ok and not args.no_profile:
                nxt = noisy(s) if mode == "step" else \
                    additive(s) if mode == "step_additive" else partial(s)
                profile(report, f"one EpochTracker.{mode}, track_churn=False, {name} labels, "
                                f"n = {fmt_n(N)}", lambda: _call(trackers[False], mode, nxt))
                _call(trackers[True], mode, nxt)
                s = scores_of(nxt)
                counts_equal(report, f"EpochTracker {mode}, {name}: counts after the "
                             "profiled epoch == pair_counts", trackers[False].counts,
                             pair_counts(y, s))
        results[name] = res
        del trackers
        gc.collect()
    table = markdown_table(
        ["labels", "epoch", "pair_counts (ms)", "kendalltau (ms)",
         "tracker, no churn (ms)", "/ pair_counts (CPU)", "/ pair_counts (wall)", "goal",
         "churn adds (ms)", "speed-up vs kendalltau", "first call (ms)", "runs"],
        rows, "llrrrrrlrrrr")
    return table, results


def _call(tracker, mode, v):
    """One epoch of ``mode`` with the prepared argument ``v``: the new scores for ``step``,
    ``(scores, (delta, groups))`` or ``(scores, (indices, values))`` for the others."""
    if mode == "step":
        return tracker.step(v)
    if mode == "step_additive":
        return tracker.step_additive(*v[1])
    return tracker.step_partial(*v[1])


# --------------------------------------------------------------------------- 4. memory
def memory(args, report, N):
    rows, results = [], {}
    for name, (kind, make_labels) in LABELS.items():
        log(f"memory: {name}, n={fmt_n(N)}")
        rng = np.random.default_rng([args.seed, N, 4, len(name)])
        keys, y, s = list(range(N)), make_labels(rng, N), rng.random(N)
        gc.collect()
        tracemalloc.start()
        counter = PairCounter(labels=kind)
        counter.insert_many(keys, y, s)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        counts_equal(report, f"memory, {name}, n={fmt_n(N)}: counts == pair_counts",
                     counter.counts, pair_counts(y, s))
        del counter
        gc.collect()
        per_item = current / N
        results[name] = {"retained_bytes": current, "peak_bytes": peak}
        rows.append([name, f"{per_item:.0f}", f"{peak / N:.0f}"])
        report.goal(f"memory per keyed item, {name}, n={fmt_n(N)}: <= {MEMORY_GOAL:.0f} B",
                    f"{per_item:.0f} B", per_item <= MEMORY_GOAL, N)
    table = markdown_table(["labels", "retained bytes / item", "peak during build / item"],
                           rows, "lrr")
    return table, results


# --------------------------------------------------------------------------- main
def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", nargs="+", type=parse_size, default=None,
                   help="sizes held (default 1e4 1e5 1e6; 1e3 1e4 with --quick); parts 2-4 "
                        "use the largest")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: n = 1e3 1e4, --ops 400, --repeats 3")
    p.add_argument("--ops", type=int, default=None, help="single calls per operation (2000)")
    p.add_argument("--batch", type=int, default=100, help="calls per timed batch (100)")
    p.add_argument("--repeats", type=int, default=None,
                   help="round-robin runs of the large calls (7; 3 with --quick)")
    p.add_argument("--budget", type=float, default=30.0,
                   help="seconds after which a method stops repeating (30)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the data (0)")
    p.add_argument("--no-profile", action="store_true", help="do not profile failing goals")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.add_argument("--save-json", help="also write the JSON results to this file")
    args = p.parse_args(argv)
    if args.n is None:
        args.n = [10**3, 10**4] if args.quick else [10**4, 10**5, 10**6]
    args.n = sorted(set(args.n))
    if args.ops is None:
        args.ops = 400 if args.quick else 2000
    if args.repeats is None:
        args.repeats = 3 if args.quick else 7
    if args.ops > min(args.n):
        p.error(f"--ops ({args.ops}) must not exceed the smallest n ({min(args.n)})")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)
    report = Report()
    info = machine_info(repo=REPO)
    N = max(args.n)
    t_start = time.perf_counter()
    parts = {}
    parts["single"] = single_changes(args, report)
    parts["batch"] = batch_updates(args, report, N)
    parts["epochs"] = epochs(args, report, N)
    parts["memory"] = memory(args, report, N)
    elapsed = time.perf_counter() - t_start
    load_end = load_average()

    all_ok = all(ok for _, ok, _ in report.checks)
    result = {"machine": info, "load_average_at_end": load_end, "elapsed_s": elapsed,
              "args": {k: v for k, v in vars(args).items()},
              "results": {k: v[1] for k, v in parts.items()},
              "checks": [{"what": w, "ok": ok, "detail": d} for w, ok, d in report.checks],
              "goals": report.goals,
              "profiles": [{"title": t, "markdown": m} for t, m in report.profiles]}
    as_json = json.dumps(result, indent=1, default=float)
    if args.save_json:
        with open(args.save_json, "w") as f:
            f.write(as_json)
    if args.json:
        print(as_json)
    else:
        print(markdown_report(args, info, parts, report, elapsed, load_end, N))
    return 0 if all_ok else 1


def markdown_report(args, info, parts, report, elapsed, load_end, N) -> str:
    star = "" if N == GOAL_N else "*"
    goal_rows = [[g["goal"], g["measured"],
                  ("PASS" if g["pass"] else "FAIL") + ("" if g["at_goal_n"] else "*"),
                  g["extra"]] for g in report.goals]
    failed = [c for c in report.checks if not c[1]]
    checks = (f"All {len(report.checks)} checks passed: after the timed operations every "
              "count equals `pair_counts` of the items held, every churn equals the flipped "
              "pairs counted from scratch, and `scipy.stats.kendalltau` equals `tau_b`."
              if not failed else
              f"**{len(failed)} of {len(report.checks)} checks FAILED:**\n\n" +
              "\n".join(f"- {w}: {d}" for w, _, d in failed))
    out = [
        "## Incremental engine: PairCounter, EpochTracker (issue 3)",
        "",
        machine_markdown(info),
        f"- Load average at end (1/5/15 min): {load_end}; whole run {elapsed:.0f} s",
        "",
        f"Method: see the docstring of `benchmarks/bench_incremental.py`. Single changes: "
        f"{args.ops} calls per operation in batches of {args.batch}, median CPU time per "
        f"call; large calls: {args.repeats} round-robin runs (fewer past a {args.budget:g} s "
        f"budget), median; seed {args.seed}; streamrank {streamrank.__version__}. "
        f"Scores uniform in [0, 1); labels binary, 5 levels (uniform) or uniform "
        f"(continuous).",
        "",
        "### 1. Single changes: median CPU time per call",
        "",
        parts["single"][0],
        "",
        "Speed-up: one `pair_counts` of the items held divided by the time of the change "
        "(what recounting after every change would cost).",
        "",
        f"### 2. `update_many` of k new scores into n = {fmt_n(N)} held items",
        "",
        parts["batch"][0],
        "",
        f"### 3. `EpochTracker`, n = {fmt_n(N)}: one epoch, against a count from scratch",
        "",
        parts["epochs"][0],
        "",
        "Tracker times are with `track_churn=False`; *churn adds* is the median of the "
        "`track_churn=True` tracker minus that (same epochs, same runs). *First call*: the "
        "first `step_partial` / `step_additive` after a `step` (builds the per-level runs / "
        "sorts once), not in the median.",
        "",
        f"### 4. Memory per keyed item, n = {fmt_n(N)} (tracemalloc)",
        "",
        parts["memory"][0],
        "",
        "### Correctness",
        "",
        checks,
        "",
        "### Goals of issue 3",
        "",
        markdown_table(["goal", "measured", "result", "note"], goal_rows, "llll"),
    ]
    if star:
        out += ["", f"\\* measured at n = {fmt_n(N)}; the goals are defined at n = 1e6."]
    if report.profiles:
        out += ["", "### Profiles of the failing goals (cProfile, separate runs after the "
                "timings)"]
        for title, text in report.profiles:
            out += ["", f"#### {title}", "", text]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
