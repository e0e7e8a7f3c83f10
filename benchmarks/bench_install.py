"""What an install of streamrank weighs, and what its imports cost: the core against ``all``.

One wheel of this checkout (``pip wheel . --no-deps``, or ``--wheel FILE``) is installed
into two fresh virtual environments: the core (``pip install streamrank.whl``: numpy,
scipy, sortedcontainers) and everything (``pip install "streamrank.whl[all]"``: River, the
command line's click, tqdm, pyarrow and prometheus_client, matplotlib, Dask). For each:

* **size**: the bytes of its ``site-packages`` (the packages it installed; pip and its
  setuptools included in both, so the difference is what the extras add);
* **import**: the wall time of a fresh interpreter importing a module (``python -c
  "import M"``), minus that of one importing nothing, median of ``--repeats`` runs, the two
  environments run alternately: ``streamrank``, ``streamrank.monitor``,
  ``streamrank.ranking``, and in the full environment ``streamrank.metrics`` (River)
  and ``streamrank --help`` (the script: click, no command imported).

    python benchmarks/bench_install.py [--wheel dist/streamrank-0.1.0-*.whl] [-o FILE]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, load_average, log, machine_info, markdown_table, report_head, \
    write_report

IMPORTS = ["streamrank", "streamrank.monitor", "streamrank.ranking"]
FULL_ONLY = ["streamrank.metrics"]


def build_wheel(out: str) -> str:
    log("building the wheel (pip wheel . --no-deps)")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--wheel-dir", out, str(REPO)], check=True)
    return glob.glob(os.path.join(out, "streamrank-*.whl"))[0]


def make_env(path: str, requirement: str) -> str:
    """A fresh venv at ``path`` with ``requirement`` installed; its python."""
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    python = os.path.join(path, "bin", "python")
    log(f"installing {requirement} into {path}")
    subprocess.run([python, "-m", "pip", "install", "--quiet", requirement], check=True)
    return python


def site_bytes(python: str) -> int:
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], check=True, capture_output=True,
                          text=True).stdout.strip()
    return sum(f.stat().st_size for f in Path(site).rglob("*") if f.is_file()
               and not f.is_symlink())


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", help="a built wheel of streamrank (default: build one)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or build_wheel(tmp)
        envs = {"core": make_env(os.path.join(tmp, "core"), wheel),
                "all": make_env(os.path.join(tmp, "all"), f"{wheel}[all]")}
        sizes = {name: site_bytes(py) for name, py in envs.items()}
        cases = [(name, f"import {m}", [py, "-c", f"import {m}"])
                 for m in IMPORTS + FULL_ONLY for name, py in envs.items()
                 if m not in FULL_ONLY or name == "all"]
        cases.append(("all", "streamrank --help", [envs["all"], "-m", "streamrank",
                                                   "--help"]))
        times: dict = {(env, what): [] for env, what, _ in cases}
        base = {env: [] for env in envs}
        for _ in range(args.repeats):          # alternately, so that load hits all
            for env, py in envs.items():
                base[env].append(wall([py, "-c", "pass"]))
            for env, what, cmd in cases:
                times[env, what].append(wall(cmd))
    rows = [[env, f"{sizes[env] / 2 ** 20:,.0f} MB", what,
             f"{1e3 * (statistics.median(t) - statistics.median(base[env])):,.0f} ms"]
            for (env, what), t in times.items()]
    result = {"command": "python benchmarks/bench_install.py " + " ".join(argv or sys.argv[1:]),
              "machine": machine_info(), "load_average_end": load_average()}
    text = "\n".join(report_head("### The core install against `[all]`", result) + [
        f"Median of {args.repeats} fresh interpreters, minus an empty one's "
        f"(core {1e3 * statistics.median(base['core']):.0f} ms, all "
        f"{1e3 * statistics.median(base['all']):.0f} ms).", "",
        markdown_table(["install", "site-packages", "import", "time"], rows), ""])
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
