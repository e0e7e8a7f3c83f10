"""Per-event cost of a sliding window that keeps DeLong's placement moments, against one that
does not.

Each round (the modes alternate inside one process) fills a `SlidingPairCounter` of
``W`` binary events (scores on a grid of ``W / --ties`` values), then times ``--ops`` more
pushes, each followed by:

* ``update``: the engine taking the push (`streamrank.windows.sync`: one removal and one
  insert), no moments kept -- the window update alone;
* ``update, kept``: the same with the moments kept (turned on before the timing): what
  keeping them costs;
* ``+ counts``: `counts` read instead, no moments (the usual per-event AUC read);
* ``+ moments``: `placement_moments` read instead, moments kept (what a live DeLong
  interval needs per event);
* ``+ auc_ci``: `SlidingPairCounter.auc_ci` read instead (the DeLong interval itself,
  an `AUCInterval` from the moments: validation, variance, logit interval).

It also times the compiled floor, `PairEngine.add` / `remove` holding ``--window`` samples,
with and without the moments. With ``--against PATH`` (another checkout, e.g. the commit
before the moments) it times instead the default path -- no moments asked for -- of both
trees in alternating subprocesses: `PairEngine.add` / `remove` and `PairCounter.insert` /
`remove` holding ``W`` binary items with distinct scores (as ``bench_core.py --labels 2``),
the ratio this / other per measure. Times are the process's CPU time (`time.process_time`), which
a busy shared machine disturbs less than wall time. The table gives medians over
``--rounds`` and each mode's ratio to ``update``; the goal is ``+ moments`` at most 2x
``update``.

    python benchmarks/bench_window_ci.py
    python benchmarks/bench_window_ci.py --window 1e4 1e6 --rounds 7
    python benchmarks/bench_window_ci.py --window 1e4 1e6 --rounds 9 --against ../base
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamrank import SlidingPairCounter  # noqa: E402
from streamrank.engine import PairEngine  # noqa: E402
from streamrank.windows import sync  # noqa: E402

MODES = ("update", "update, kept", "+ counts", "+ moments", "+ auc_ci")
HERE = Path(__file__).resolve().parent

DEFAULT_PATH = r"""
import json, sys, time
import numpy as np
from streamrank import PairCounter
from streamrank.engine import PairEngine
n, ops, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
y = rng.integers(0, 2, n + ops).astype(float); s = rng.random(n + ops)
yl, sl = y[n:].tolist(), s[n:].tolist()
e = PairEngine(); e.add_many(y[:n], s[:n], None)
out = {}
t0 = time.process_time()
for i in range(ops): e.add(yl[i], sl[i])
t1 = time.process_time()
for i in range(ops): e.remove(yl[i], sl[i])
t2 = time.process_time()
out["PairEngine.add"], out["PairEngine.remove"] = (t1 - t0) / ops, (t2 - t1) / ops
pc = PairCounter(); pc.insert_many(range(n), y[:n], s[:n])
t0 = time.process_time()
for i in range(ops): pc.insert(n + i, yl[i], sl[i])
t1 = time.process_time()
for i in range(ops): pc.remove(n + i)
t2 = time.process_time()
out["PairCounter.insert"], out["PairCounter.remove"] = (t1 - t0) / ops, (t2 - t1) / ops
print(json.dumps(out))
"""


def default_path(other: Path, windows, ops: int, rounds: int) -> None:
    """The default path (no moments asked for) of this tree against ``other``."""
    trees = {"this": HERE.parent, "other": other.resolve()}
    print(f"# bench_window_ci --against: ops={ops}, rounds={rounds}, CPU time, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| n | per change | other | this | this / other |")
    print("|---|---|---|---|---|")
    for n in windows:
        runs = {name: [] for name in trees}
        for r in range(rounds):
            order = list(trees.items())
            for name, tree in (order if r % 2 == 0 else order[::-1]):
                got = subprocess.run([sys.executable, "-c", DEFAULT_PATH, str(n), str(ops),
                                      str(r)], cwd=tree, capture_output=True, text=True,
                                     env=dict(os.environ, PYTHONPATH=str(tree)), check=True)
                runs[name].append(json.loads(got.stdout))
        for m in runs["this"][0]:
            a, b = (statistics.median(x[m] for x in runs[k]) for k in ("this", "other"))
            print(f"| {n:.0e} | {m} | {b * 1e6:.3f} us | {a * 1e6:.3f} us | {a / b:.3f} |")


def _events(n: int, grid: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).tolist()
    s = (rng.integers(0, grid, n) / grid).tolist()
    return y, s


def window_round(mode: str, window: int, ops: int, grid: int, seed: int) -> float:
    """CPU seconds per event of ``ops`` pushes, each with the read of ``mode``, after the
    window is full."""
    y, s = _events(window + ops, grid, seed)
    win = SlidingPairCounter(window)
    if mode in ("update, kept", "+ moments", "+ auc_ci"):
        win.placement_moments()             # on from the empty window: kept from here
    for i in range(window):
        win.push(y[i], s[i])
    win.counts  # noqa: B018 - the filling reaches the engine
    push, ring, engine = win.push, win._win, win._engine
    t0 = time.process_time()
    if mode == "+ moments":
        read = win.placement_moments
        for i in range(window, window + ops):
            push(y[i], s[i])
            read()
    elif mode == "+ auc_ci":
        ci = win.auc_ci
        for i in range(window, window + ops):
            push(y[i], s[i])
            ci()
    elif mode == "+ counts":
        for i in range(window, window + ops):
            push(y[i], s[i])
            win.counts  # noqa: B018
    else:
        for i in range(window, window + ops):
            push(y[i], s[i])
            sync(ring, engine, "bench")
    return (time.process_time() - t0) / ops


def engine_round(on: bool, n: int, ops: int, grid: int, seed: int) -> tuple:
    """Seconds per `PairEngine.add` and per `remove` holding ``n`` samples."""
    y, s = _events(n + ops, grid, seed)
    e = PairEngine()
    if on:
        e.placement_moments()
    e.add_many(np.array(y[:n], float), np.array(s[:n]), None)
    add, remove = e.add, e.remove
    t0 = time.process_time()
    for i in range(n, n + ops):
        add(y[i], s[i])
    t1 = time.process_time()
    for i in range(n, n + ops):
        remove(y[i], s[i])
    t2 = time.process_time()
    return (t1 - t0) / ops, (t2 - t1) / ops


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=float, nargs="+", default=[1e4])
    ap.add_argument("--ops", type=int, default=20_000)
    ap.add_argument("--ties", type=int, default=10,
                    help="events per distinct score value (the grid is W / ties)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--against", type=Path, help="another streamrank source tree: time "
                    "the default path of both instead")
    args = ap.parse_args(argv)
    if args.against:
        default_path(args.against, [int(w) for w in args.window], args.ops, args.rounds)
        return 0
    print(f"# bench_window_ci: ops={args.ops}, ties={args.ties}, rounds={args.rounds}, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| W | per event | " + " | ".join(MODES)
          + " | kept / update | + moments / update | + auc_ci / update |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for window in map(int, args.window):
        grid = max(1, window // args.ties)
        runs = {m: [] for m in MODES}
        floor = {on: [] for on in (False, True)}
        for r in range(args.rounds):
            for m in MODES:                     # alternate the modes in each round
                runs[m].append(window_round(m, window, args.ops, grid, r))
            for on in (False, True):
                floor[on].append(engine_round(on, window, args.ops, grid, r))
        med = {m: statistics.median(v) for m, v in runs.items()}
        print(f"| {window:.0e} | SlidingPairCounter.push | "
              + " | ".join(f"{med[m] * 1e6:.2f} us" for m in MODES)
              + f" | {med['update, kept'] / med['update']:.2f}x | "
                f"{med['+ moments'] / med['update']:.2f}x | "
                f"{med['+ auc_ci'] / med['update']:.2f}x |")
        for j, name in enumerate(("PairEngine.add", "PairEngine.remove")):
            off = statistics.median(x[j] for x in floor[False])
            on = statistics.median(x[j] for x in floor[True])
            print(f"| {window:.0e} | {name} | {off * 1e6:.2f} us | {on * 1e6:.2f} us | | | | "
                  f"{on / off:.2f}x | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
