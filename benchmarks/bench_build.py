"""What each compiled module costs to build: Cython time, generated C, C compile time.

For every module in setup.py's `MODULES`, translated alone into a scratch directory:

* **Cython s**: CPU time (user + sys) of ``python -m cython`` on the module, once with the
  runtime support in the module (``own``) and once importing it from setup.py's shared
  utility module (``shared``);
* **C MB** and where it comes from: ``utility`` is Cython's runtime support (the
  utility-code sections plus the memoryview implementation, the ``View.MemoryView`` code),
  ``own`` the functions generated from the module's own ``.pyx``/``.pxi`` lines, the rest
  the module's type, constant and init tables;
* **gcc s**: CPU time of compiling the C file to an object, with Python's own flags
  (``sysconfig``'s CC, CFLAGS, CCSHARED: ``-g -O3`` on this Python) followed by each
  variant's flags (the last ``-O`` wins), for the module with its own runtime support and
  with the shared one; the shared utility module itself is the last row.

CPU times, not wall times, so that other load on a shared machine counts less; ``--jobs``
compiles run at once (default: the cores). The totals are what one build does on one core;
divide by the cores for the wall time of a parallel build.

    python benchmarks/bench_build.py
    python benchmarks/bench_build.py --modules streamrank.batch._ccurves --flags="-O2 -g0"
"""

from __future__ import annotations

import argparse
import os
import re
import runpy
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _common import (REPO, fmt_seconds, load_average, log, machine_info, markdown_table,
                     report_head, write_report)

DEFAULT_FLAGS = ["-O3", "-O2", "-O2 -g0"]
SECTION = re.compile(r"^/\* #### Code section: (\w+) ### \*/$", re.M)
TOP_SOURCE = re.compile(r'^/\* "([^"]+)":\d+', re.M)   # a function's source line, column 0


def setup_config() -> dict:
    """setup.py's module list, shared utility name and directives (setup() is not run)."""
    return runpy.run_path(os.path.join(REPO, "setup.py"), run_name="bench_build")


def run_cpu(cmd: list[str], cwd: str) -> float:
    """Run ``cmd`` to completion; its CPU time (user + sys, seconds). Raises on failure."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{shlex.join(cmd)} failed:\n{err.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def cython_cmd(cfg: dict, source: str, out: Path, shared: bool) -> list[str]:
    cmd = [sys.executable, "-m", "cython", "-3", "-o", str(out), source]
    cmd += [f"-X{k}={v}" for k, v in cfg["DIRECTIVES"].items()]
    return cmd + (["--shared", cfg["CYTHON_UTILITY"]] if shared else [])


def c_breakdown(text: str) -> dict:
    """Bytes of a generated C file: runtime ``utility``, the module's ``own`` code, total."""
    parts = SECTION.split(text)
    utility = own = 0
    for name, body in zip(parts[1::2], parts[2::2]):
        if name.startswith("utility_code"):
            utility += len(body)
        elif name == "module_code":
            chunks = TOP_SOURCE.split(body)   # [before, source1, chunk1, source2, ...]
            for source, chunk in zip(chunks[1::2], chunks[2::2]):
                if source.startswith("View."):
                    utility += len(chunk)
                else:
                    own += len(chunk)
    return {"utility": utility, "own": own, "total": len(text)}


def gcc_cmd(c_file: Path, flags: str) -> list[str]:
    cc = shlex.split(sysconfig.get_config_var("CC"))
    base = shlex.split(sysconfig.get_config_var("CFLAGS")) + shlex.split(
        sysconfig.get_config_var("CCSHARED"))
    include = ["-I" + sysconfig.get_paths()["include"]]
    return cc + base + include + shlex.split(flags) + [
        "-c", str(c_file), "-o", str(c_file.with_suffix(f".{abs(hash(flags))}.o"))]


def measure(modules: list[str], flags: list[str], jobs: int) -> list[dict]:
    """One row per module (and one for the shared utility module) of every measure."""
    cfg = setup_config()
    rows = {m: {"module": m} for m in modules}
    with tempfile.TemporaryDirectory(prefix="bench_build_") as tmp, \
            ThreadPoolExecutor(jobs) as pool:
        out = {kind: Path(tmp, kind) for kind in ("own", "shared")}
        for d in out.values():
            d.mkdir()
        shared_c = out["shared"] / (cfg["CYTHON_UTILITY"].rsplit(".", 1)[-1] + ".c")
        util = cfg["CYTHON_UTILITY"]
        rows[util] = {"module": util + " (shared)"}

        log("cython ...")
        jobs_cython = {(m, kind): pool.submit(
            run_cpu, cython_cmd(cfg, m.replace(".", "/") + ".pyx",
                                out[kind] / (m.rsplit(".", 1)[-1] + ".c"), kind == "shared"),
            REPO) for m in modules for kind in out}
        gen = pool.submit(run_cpu, [sys.executable, "-m", "cython", "--generate-shared",
                                    str(shared_c)], REPO)
        for (m, kind), fut in jobs_cython.items():
            rows[m][f"cython {kind}"] = fut.result()
        rows[util]["cython shared"] = gen.result()

        for m in modules:
            c_file = out["own"] / (m.rsplit(".", 1)[-1] + ".c")
            rows[m].update(c_breakdown(c_file.read_text()))
            rows[m]["shared total"] = (out["shared"] / c_file.name).stat().st_size
        rows[util]["shared total"] = shared_c.stat().st_size

        log("gcc ...")
        compiles = {}
        for m in modules:
            name = m.rsplit(".", 1)[-1] + ".c"
            for f in flags:
                for kind in out:
                    compiles[m, kind, f] = pool.submit(run_cpu, gcc_cmd(out[kind] / name, f), tmp)
        for f in flags:
            compiles[util, "shared", f] = pool.submit(run_cpu, gcc_cmd(shared_c, f), tmp)
        for (m, kind, f), fut in compiles.items():
            rows[m][f"gcc {kind} {f}"] = fut.result()
    return list(rows.values())


def table(rows: list[dict], flags: list[str]) -> str:
    def mb(x):
        return "" if x is None else f"{x / 1e6:.2f}"

    def pct(row, key):
        return f"{100 * row[key] / row['total']:.0f}%" if key in row else ""

    def total(key):
        return sum(r.get(key, 0) for r in rows)

    heads = ["module", "Cython s own", "Cython s shared", "C MB own", "utility", "own code",
             "C MB shared"] + [f"gcc s {kind} {f}" for f in flags for kind in ("own", "shared")]
    keys = [f"gcc {kind} {f}" for f in flags for kind in ("own", "shared")]
    body = [[r["module"], fmt_seconds(r.get("cython own")), fmt_seconds(r.get("cython shared")),
             mb(r.get("total")), pct(r, "utility"), pct(r, "own"), mb(r.get("shared total"))]
            + [fmt_seconds(r.get(k)) for k in keys] for r in rows]
    body.append(["**total**", fmt_seconds(total("cython own")), fmt_seconds(total("cython shared")),
                 mb(total("total")), f"{100 * total('utility') / total('total'):.0f}%",
                 f"{100 * total('own') / total('total'):.0f}%", mb(total("shared total"))]
                + [fmt_seconds(total(k)) for k in keys])
    return markdown_table(heads, body, "l" + "r" * (len(heads) - 1))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", nargs="+", help="module names (default: setup.py's MODULES)")
    ap.add_argument("--flags", nargs="+", default=DEFAULT_FLAGS,
                    help="C flag variants after Python's own (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="compiles at once")
    ap.add_argument("--output", help="also write the report to this file")
    args = ap.parse_args(argv)
    modules = args.modules or setup_config()["MODULES"]
    info = machine_info(packages=("Cython", "setuptools"), repo=REPO)
    rows = measure(modules, args.flags, args.jobs)
    result = {"command": "python benchmarks/bench_build.py " + shlex.join(argv or sys.argv[1:]),
              "machine": info, "load_average_end": load_average()}
    cc = sysconfig.get_config_var("CC")
    text = "\n".join(report_head("## Building the compiled core: what each module costs", result)
                     + [f"CPU seconds (user + sys); {cc} with Python's flags "
                        f"`{sysconfig.get_config_var('CFLAGS')}` then each variant's.", "",
                        table(rows, args.flags), ""])
    write_report(text, args.output)


if __name__ == "__main__":
    main()
