"""Per-change cost of the compiled core, side by side with another source tree.

Times `PairCounter` single inserts, removals and score updates, and `update_many` of ``k``
keys (the median of 5 calls), at each ``n`` held, against a full `pair_counts` recount of
the same ``n``: binary labels, or with ``--labels`` labels of that many levels
(``--labels 2 5`` times binary, then five levels: the level counter's trees) or
``continuous`` (distinct real labels: the 2-D dominance counter). With ``--against PATH``
(another checkout of streamrank, e.g. the commit before the compiled core) both trees are
timed in alternating subprocess rounds of one
run, and the table gives their ratio. Medians over ``--rounds``.

    python benchmarks/bench_core.py --against ../streamrank-old
    python benchmarks/bench_core.py --n 1e4 1e6 --labels 2 5 continuous --rounds 1
    python benchmarks/bench_core.py --n 1e6 --keys sequential random strided --against ..
    python benchmarks/bench_core.py --footprint --against ../streamrank-old
    python benchmarks/bench_core.py --floor --n 1e4 1e6 --labels 2 5 continuous

``--footprint`` instead prints the memory per held item (resident-set growth while a
`PairEngine`, then a `PairCounter`, takes ``n`` binary-labelled items with distinct scores,
then a continuous `PairEngine` ``n`` items with distinct labels and scores) and the
start-up wall times of ``import streamrank`` and ``streamrank --help`` (medians).
``--floor`` prints the compiled floor of a change: `PairEngine.add` / `remove` (one Python
call each, no key lookup) and the engine's C loop over a batch (`add_many` /
`remove_many`), per change.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

WORKER = r"""
import json, sys, time
import numpy as np
import streamrank as sr
n, ops, ks, seed = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
labels, kind = sys.argv[5], sys.argv[6]
rng = np.random.default_rng(seed)
def draw_keys(k):      # k distinct int keys: the held ones first, then the inserted ones
    if kind == "sequential":
        return list(range(k))
    if kind == "strided":          # multiples of 2**40 (of every table size), negative too
        return [(i - k // 2) << 40 for i in range(k)]
    got = np.unique(rng.integers(-2**63, 2**63 - 1, k + 64, dtype=np.int64))[:k]
    return rng.permutation(got).tolist()       # random int64 keys
all_keys = draw_keys(n + ops); held, new_keys = all_keys[:n], all_keys[n:]
def draw_y(k):
    if labels == "continuous":
        return rng.random(k)
    return rng.integers(0, int(labels), k).astype(float)
y = draw_y(n); s = rng.random(n)
pc = sr.PairCounter(labels="continuous" if labels == "continuous" else "auto")
pc.insert_many(held, y, s)
out = {}
t0 = time.perf_counter(); sr.pair_counts(y, s); out["recount"] = time.perf_counter() - t0
new_y = draw_y(ops); new_s = rng.random(ops)
t0 = time.perf_counter()
for i in range(ops):
    pc.insert(new_keys[i], new_y[i], new_s[i])
out["insert"] = (time.perf_counter() - t0) / ops
t0 = time.perf_counter()
for i in range(ops):
    pc.remove(new_keys[i])
out["remove"] = (time.perf_counter() - t0) / ops
keys = [held[j] for j in rng.integers(0, n, ops)]; upd = rng.random(ops)
t0 = time.perf_counter()
for i in range(ops):
    pc.update(keys[i], score=upd[i])
out["update"] = (time.perf_counter() - t0) / ops
for k in ks:            # the median of 5 calls, each on fresh keys
    times = []
    for _ in range(5):
        kk = [held[j] for j in rng.choice(n, k, replace=False)]; ss = rng.random(k)
        t0 = time.perf_counter(); pc.update_many(kk, scores=ss)
        times.append(time.perf_counter() - t0)
    out[f"update_many k={k}"] = sorted(times)[2]
print(json.dumps(out))
"""


def run(tree: Path, n: int, ops: int, ks, seed: int, labels: str = "2",
        keys: str = "sequential") -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    got = subprocess.run([sys.executable, "-c", WORKER, str(n), str(ops), json.dumps(ks),
                          str(seed), labels, keys], env=env, cwd=tree, capture_output=True,
                         text=True, check=True)
    return json.loads(got.stdout)


MEMORY = r"""
import gc, json, os, sys
import numpy as np, psutil
import streamrank as sr
from streamrank.engine import PairEngine
n = int(sys.argv[1]); rng = np.random.default_rng(0)
y = rng.integers(0, 2, n).astype(float); s = rng.random(n)
proc = psutil.Process(os.getpid()); gc.collect(); r0 = proc.memory_info().rss
e = PairEngine(); e.add_many(y, s, None); gc.collect(); r1 = proc.memory_info().rss
pc = sr.PairCounter(); pc.insert_many(range(n), y, s); gc.collect(); r2 = proc.memory_info().rss
del e, pc; gc.collect(); r3 = proc.memory_info().rss
c = PairEngine("continuous"); c.add_many(rng.random(n), rng.random(n), None); gc.collect()
r4 = proc.memory_info().rss
print(json.dumps({"engine": (r1 - r0) / n, "counter": (r2 - r1) / n,
                  "continuous": (r4 - r3) / n}))
"""


def footprint(trees: dict, n: int, rounds: int) -> None:
    """Memory per held item and start-up times of each tree (see the module docstring)."""
    print(f"# bench_core --footprint: n={n:.0e}, rounds={rounds}\n")
    print("| tree | PairEngine B/item | PairCounter B/item | continuous PairEngine B/item "
          "| import streamrank s | streamrank --help s |")
    print("|---|---|---|---|---|---|")
    for name, tree in trees.items():
        env = dict(os.environ, PYTHONPATH=str(tree))
        mem = json.loads(subprocess.run([sys.executable, "-c", MEMORY, str(n)], env=env,
                                        cwd=tree, capture_output=True, text=True,
                                        check=True).stdout)
        times = {}
        for label, cmd in (("import", [sys.executable, "-c", "import streamrank"]),
                           ("help", [sys.executable, "-m", "streamrank.cli", "--help"])):
            runs = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                subprocess.run(cmd, env=env, cwd="/", capture_output=True, check=True)
                runs.append(time.perf_counter() - t0)
            times[label] = statistics.median(runs)
        print(f"| {name} | {mem['engine']:.0f} | {mem['counter']:.0f} | "
              f"{mem['continuous']:.0f} | {times['import']:.2f} | {times['help']:.2f} |")


FLOOR = r"""
import json, sys, time
import numpy as np
from streamrank.engine import PairEngine
n, ops, labels = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0)
def draw_y(k):
    return rng.random(k) if labels == "continuous" else rng.integers(0, int(labels), k) * 1.0
e = PairEngine("continuous" if labels == "continuous" else "auto")
e.add_many(draw_y(n), rng.random(n), None)
y, s = draw_y(ops).tolist(), rng.random(ops).tolist()
out = {}
t0 = time.perf_counter()
for i in range(ops):
    e.add(y[i], s[i])
out["PairEngine.add"] = (time.perf_counter() - t0) / ops
t0 = time.perf_counter()
for i in range(ops):
    e.remove(y[i], s[i])
out["PairEngine.remove"] = (time.perf_counter() - t0) / ops
ya, sa = np.array(y), np.array(s)
t0 = time.perf_counter(); e.add_many(ya, sa, None); out["C loop, add"] = (time.perf_counter() - t0) / ops
t0 = time.perf_counter(); e.remove_many(ya, sa, None)
out["C loop, remove"] = (time.perf_counter() - t0) / ops
print(json.dumps(out))
"""


def floor(tree: Path, ns, ops: int, labels, rounds: int) -> None:
    """The compiled floor: per change through `PairEngine` (one Python call, no key
    lookup) and in one C loop (a batch of ``ops`` changes, sorted by score inside)."""
    print(f"# bench_core --floor: ops={ops}, rounds={rounds}\n")
    print("| n | labels | PairEngine.add | PairEngine.remove | C loop, add | C loop, remove |")
    print("|---|---|---|---|---|---|")
    env = dict(os.environ, PYTHONPATH=str(tree))
    for lab in labels:
        for n in ns:
            runs = [json.loads(subprocess.run([sys.executable, "-c", FLOOR, str(n), str(ops),
                                               lab], env=env, cwd=tree, capture_output=True,
                                              text=True, check=True).stdout)
                    for _ in range(rounds)]
            med = {m: statistics.median(r[m] for r in runs) for m in runs[0]}
            print(f"| {n:.0e} | {lab} | " + " | ".join(f"{v * 1e6:.2f} us" for v in med.values())
                  + " |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, nargs="+", default=[1e4, 1e5, 1e6])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--k", type=int, nargs="+", default=[100, 10_000])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--against", type=Path, help="another streamrank source tree")
    ap.add_argument("--labels", nargs="+", default=["2"],
                    help="label levels of the items timed (2: binary labels), or "
                         "'continuous' (distinct real labels)")
    ap.add_argument("--keys", nargs="+", default=["sequential"],
                    choices=["sequential", "random", "strided"],
                    help="the int keys held and inserted: 0, 1, 2, ... (sequential), "
                         "random int64, or multiples of 2**40 around 0 (strided)")
    ap.add_argument("--footprint", action="store_true",
                    help="memory per item and start-up times instead")
    ap.add_argument("--floor", action="store_true",
                    help="the compiled floor instead: PairEngine calls and its C loop")
    args = ap.parse_args(argv)
    trees = {"this": HERE.parent}
    if args.against:
        trees["other"] = args.against.resolve()
    if args.footprint:
        footprint(trees, int(max(args.n)), args.rounds)
        return 0
    if args.floor:
        floor(HERE.parent, [int(n) for n in args.n], args.ops, args.labels, args.rounds)
        return 0
    load = os.getloadavg()[0]
    print(f"# bench_core: labels={' '.join(args.labels)}, keys={' '.join(args.keys)}, rounds={args.rounds}, ops={args.ops}, "
          f"load average {load:.2f}\n")
    head = "| n | measure | this | " + ("other | other / this | " if args.against else "")
    print(head + "this / recount |")
    print("|" + "---|" * (head.count("|") ))
    for lab in args.labels:
        if lab != "continuous" and not (lab.isdigit() and int(lab) >= 2):
            ap.error(f"--labels: a number of levels >= 2 or 'continuous', not {lab!r}")
    for n, labels, kind in ((n, lab, kind) for lab in args.labels for kind in args.keys
                            for n in map(int, args.n)):
        results = {name: [] for name in trees}
        for r in range(args.rounds):            # alternate the trees in each round
            for name, tree in trees.items():
                results[name].append(run(tree, n, args.ops, [k for k in args.k if k < n], r,
                                         labels, kind))
        med = {name: {m: statistics.median(x[m] for x in rs) for m in rs[0]}
               for name, rs in results.items()}
        this = med["this"]
        for m, v in this.items():
            if m == "recount":
                continue
            unit = (f"{v * 1e6:.2f} us" if not m.startswith("update_many")
                    else f"{v * 1e3:.2f} ms")
            what = m if labels == "2" else (f"{m}, continuous" if labels == "continuous"
                                             else f"{m}, {labels} levels")
            what += "" if kind == "sequential" else f", {kind} keys"
            row = f"| {n:.0e} | {what} | {unit} | "
            if args.against:
                o = med["other"][m]
                ounit = (f"{o * 1e6:.2f} us" if not m.startswith("update_many")
                         else f"{o * 1e3:.2f} ms")
                row += f"{ounit} | {o / v:.1f}x | "
            print(row + f"{v / this['recount']:.2%} |")
        print(f"| {n:.0e} | pair_counts recount | {this['recount'] * 1e3:.1f} ms | "
              + ("| | " if args.against else "") + "100% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
