"""Shared helpers of the benchmark scripts: timing, memory, machine description, tables.

Every ``benchmarks/bench_*.py`` script uses the same method, so that their numbers can be
put side by side:

* **Timing** (`side_by_side`): wall time (``time.perf_counter``) of one call, with the
  garbage collector collected before and disabled during the call (as ``timeit`` does).
  The methods being compared run *round-robin* -- repeat 1 of every method, then repeat
  2 of every method, ... -- so that a burst of load from another process on a shared
  machine hits all of them alike instead of one method's whole series. The reported time
  is the median of the repeats. A method whose repeats add up to more than a time budget
  stops repeating early (at least one run); the number of runs is always reported.
* **Memory** (`measure_memory`): peak *extra* memory of one call, two ways.
  ``tracemalloc`` sees every Python object and every numpy data buffer (numpy reports them
  to tracemalloc), but not the scratch buffers that numpy's C sorts ``malloc`` directly
  (timsort's merge buffer, radix sort's copy). The peak resident set size (``VmHWM`` after
  resetting it through ``/proc/self/clear_refs``, Linux only) sees those too, and is exact
  once `make_rss_accounting_exact` has made glibc ``mmap`` (and so return to the OS) every
  block above 128 KiB; call that after the timings, since it changes allocation costs.
* **Machine** (`machine_info`): CPU model and flags, cores, memory, OS, Python, package
  versions, BLAS (threadpoolctl), numpy's SIMD extensions, the thread and OpenBLAS
  environment variables, the load average, and the git commit benchmarked.

Nothing here imports streamrank, so the helpers time any library; importing this module
puts the repository on ``sys.path`` when streamrank is not installed (`REPO`), so a script
runs from a source tree as well.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import streamrank  # noqa: F401
except ImportError:  # run from a source tree without installing
    sys.path.insert(0, REPO)

__all__ = [
    "REPO", "MemoryPeak", "load_average", "write_report", "Timing", "fmt_bytes_per_sample", "fmt_n", "fmt_ratio", "fmt_seconds", "log",
    "machine_info", "machine_markdown", "make_rss_accounting_exact", "markdown_table",
    "measure_memory", "median", "parse_size", "rss_accounting_available", "side_by_side",
    "time_call",
]


# --------------------------------------------------------------------------- sizes
def load_average() -> list[float] | None:
    """The 1/5/15-minute load averages, rounded (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def write_report(text: str, output: str | None) -> None:
    """Print a report, and also write it to ``output`` when one is given."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if output:
        with open(output, "w") as f:
            f.write(text)


def parse_size(text: str | int | float) -> int:
    """``"1e6"``, ``"1_000_000"``, ``"250000"`` or a number -> an ``int`` sample count."""
    if isinstance(text, str):
        text = text.replace("_", "").replace(",", "").strip()
    value = float(text)
    if value < 1 or value != int(value):
        raise ValueError(f"a sample count must be a positive integer, got {text!r}")
    return int(value)


def fmt_n(n: int) -> str:
    """``10**7`` -> ``"1e7"``, ``300000`` -> ``"3e5"``, ``123456`` -> ``"123,456"``."""
    exp = int(math.floor(math.log10(n))) if n > 0 else 0
    mant = n / 10**exp
    if n >= 1000 and mant == int(mant):
        return f"{int(mant)}e{exp}" if mant != 1 else f"1e{exp}"
    return f"{n:,}"


# --------------------------------------------------------------------------- timing
def median(values) -> float:
    """The median of a non-empty sequence (mean of the two middle values when even)."""
    return float(statistics.median(values))


def time_call(fn: Callable[[], Any]) -> tuple[float, Any]:
    """``(seconds, result)`` of one call of ``fn()``: gc collected before, disabled during."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - t0
    finally:
        if was_enabled:
            gc.enable()
    return elapsed, result


@dataclass
class Timing:
    """The runs of one method: every wall time, and the result of its last call."""

    name: str
    times: list[float] = field(default_factory=list)
    result: Any = None

    @property
    def median(self) -> float:
        return median(self.times)

    @property
    def reps(self) -> int:
        return len(self.times)

    def as_dict(self) -> dict:
        return {"median_s": self.median, "reps": self.reps, "times_s": self.times}


def side_by_side(funcs: dict[str, Callable[[], Any]], repeats: int, *,
                 budget_s: float | None = None, budgeted=None,
                 progress: Callable[[str], None] | None = None) -> dict[str, Timing]:
    """Time several zero-argument callables round-robin, ``repeats`` runs each.

    Round ``r`` runs every method once, in the given order, before round ``r + 1`` starts:
    a slow period of a shared machine then affects every method, and the ratios between
    methods stay meaningful. A method whose runs add up to more than ``budget_s`` seconds
    is not run again (so a 20 s peer costs one or two runs, not five); it always runs at
    least once. ``budgeted``: the names the budget applies to (default: all).

    Returns ``{name: Timing}`` in the order of ``funcs``.
    """
    out = {name: Timing(name) for name in funcs}
    for r in range(repeats):
        for name, fn in funcs.items():
            timing = out[name]
            if (r > 0 and budget_s is not None and sum(timing.times) >= budget_s
                    and (budgeted is None or name in budgeted)):
                continue
            elapsed, timing.result = time_call(fn)
            timing.times.append(elapsed)
            if progress is not None:
                progress(f"    {name}: {elapsed:.4f} s (run {r + 1})")
    return out


# --------------------------------------------------------------------------- memory
@dataclass
class MemoryPeak:
    """Peak extra bytes of one call: as seen by tracemalloc, and as resident memory."""

    traced: int
    rss: int | None  # None where /proc/self/clear_refs is not available
    result: Any = None


def _proc_status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # reported in kB
    raise KeyError(key)


def rss_accounting_available() -> bool:
    """True when the peak RSS can be reset (Linux ``/proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # 5 = reset the peak RSS (VmHWM) to the current RSS
        _proc_status("VmHWM")
        return True
    except OSError:
        return False
    except KeyError:
        return False


def make_rss_accounting_exact() -> bool:
    """Make glibc serve every allocation of 128 KiB or more with its own ``mmap``.

    glibc raises its mmap threshold after large frees (up to 32 MiB), after which large
    arrays come from the heap and, once freed, stay resident: a later call reuses those
    pages and its peak RSS under-counts. Fixing the threshold makes every large array a
    fresh mapping that is unmapped when freed, so ``VmHWM - VmRSS`` is the call's peak.
    It also makes large allocations slower (fresh pages are zeroed), so call it only after
    the timings. Returns False where there is no glibc ``mallopt``.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        ok = libc.mallopt(m_mmap_threshold, 128 * 1024) == 1
        ok &= libc.mallopt(m_trim_threshold, 128 * 1024) == 1
        libc.malloc_trim(0)
        return bool(ok)
    except (OSError, AttributeError):
        return False


def measure_memory(fn: Callable[[], Any], *, rss: bool = True) -> MemoryPeak:
    """Peak extra memory of one call of ``fn()`` beyond what was allocated before it.

    ``traced``: the tracemalloc peak of the allocations made during the call (numpy's data
    buffers included; numpy's sort scratch buffers not, see the module docstring).
    ``rss``: the rise of the peak resident set size over the resident size before the call
    (``None`` if unavailable). Inputs that exist before the call are not counted.
    """
    gc.collect()
    use_rss = rss and rss_accounting_available()  # also resets VmHWM
    base_rss = _proc_status("VmRSS") if use_rss else 0
    if tracemalloc.is_tracing():
        raise RuntimeError("measure_memory needs tracemalloc to be off before the call")
    tracemalloc.start()
    try:
        result = fn()
        _, traced_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss_peak = max(0, _proc_status("VmHWM") - base_rss) if use_rss else None
    return MemoryPeak(traced_peak, rss_peak, result)


# --------------------------------------------------------------------------- machine
def _cpu_description() -> dict:
    info: dict[str, Any] = {"model": platform.processor() or platform.machine()}
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return info
    fields: dict[str, str] = {}
    for line in text.split("\n\n")[0].splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    info["model"] = fields.get("model name", info["model"])
    info["vendor"] = fields.get("vendor_id")
    info["family_model_stepping"] = "/".join(
        fields.get(k, "?") for k in ("cpu family", "model", "stepping"))
    flags = set(fields.get("flags", "").split())
    info["simd_flags"] = [f for f in ("sse4_2", "avx", "avx2", "avx512f", "avx512bw",
                                      "avx512vl", "avx512_vbmi2") if f in flags]
    info["hypervisor"] = "hypervisor" in flags
    for key in ("cache size",):
        if key in fields:
            info["cache_size"] = fields[key]
    return info


def _memory_total() -> str | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return None


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _blas() -> list[str]:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return ["(threadpoolctl not installed)"]
    out = []
    for pool in threadpool_info():
        where = os.path.basename(os.path.dirname(pool.get("filepath", "")))
        desc = f"{pool.get('internal_api')} {pool.get('version') or ''}".strip()
        extra = ", ".join(str(x) for x in (pool.get("architecture"),
                                           f"{pool.get('num_threads')} threads",
                                           pool.get("threading_layer")) if x)
        out.append(f"{desc} ({extra}) from {where}")
    return out


def _numpy_simd() -> dict:
    try:
        try:
            from numpy._core._multiarray_umath import (
                __cpu_baseline__, __cpu_dispatch__, __cpu_features__)
        except ImportError:  # numpy < 2
            from numpy.core._multiarray_umath import (
                __cpu_baseline__, __cpu_dispatch__, __cpu_features__)
    except ImportError:
        return {}
    return {
        "baseline": list(__cpu_baseline__),
        "found": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
        "not_found": [f for f in __cpu_dispatch__ if not __cpu_features__.get(f)],
    }


def _git(path: str) -> str | None:
    try:
        head = subprocess.run(["git", "-C", path, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


_ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
             "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES")


def machine_info(packages=("numpy", "scipy", "scikit-learn", "lifelines", "streamrank"),
                 repo: str | None = None) -> dict:
    """A description of the machine and software a benchmark ran on (JSON-serializable).

    ``packages``: distributions whose versions to record; ``repo``: a git work tree whose
    commit (and whether it has uncommitted changes) to record.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    load = load_average()
    return {
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_description(),
        "cores_logical": os.cpu_count(),
        "cores_usable": usable,
        "memory": _memory_total(),
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": {p: _version(p) for p in packages},
        "blas": _blas(),
        "numpy_simd": _numpy_simd(),
        "env": {k: os.environ.get(k, "unset") for k in _ENV_VARS},
        "load_average_1_5_15min": load,
        "git": _git(repo) if repo else None,
    }


def report_head(title: str, result: dict) -> list:
    """The opening lines of a results section: its heading, the command that made it,
    the machine and the load average at the end."""
    return [title, "", f"`{result['command']}`", "", machine_markdown(result["machine"]),
            f"- Load average at end: {result['load_average_end']}", ""]


def machine_markdown(info: dict) -> str:
    """`machine_info` as a Markdown bullet list."""
    cpu = info["cpu"]
    cpu_line = cpu.get("model", "?")
    if cpu.get("vendor"):
        cpu_line += f" ({cpu['vendor']}, family/model/stepping {cpu.get('family_model_stepping')}"
        cpu_line += ", virtual machine)" if cpu.get("hypervisor") else ")"
    if cpu.get("simd_flags"):
        cpu_line += "; flags " + " ".join(cpu["simd_flags"])
    simd = info.get("numpy_simd") or {}
    pk = ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v)
    lines = [
        f"- Date: {info['date_utc']}",
        f"- CPU: {cpu_line}",
        f"- Cores: {info['cores_logical']} logical, {info['cores_usable']} usable; "
        f"memory {info['memory']}",
        f"- OS: {info['os']}; {info['python']}",
        f"- Packages: {pk}",
        f"- numpy SIMD: baseline {' '.join(simd.get('baseline', [])) or '?'}; "
        f"dispatched {' '.join(simd.get('found', [])) or 'none'}",
        "- BLAS: " + ("; ".join(info["blas"]) or "none found"),
        "- Environment: " + ", ".join(f"{k}={v}" for k, v in info["env"].items()),
        f"- Load average at start (1/5/15 min): {info['load_average_1_5_15min']}",
    ]
    if info.get("git"):
        lines.append(f"- Commit benchmarked: {info['git']}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- tables
def fmt_seconds(t: float | None) -> str:
    """Seconds with 3 significant digits (``0.0123``, ``1.23``, ``123``); ``—`` for None."""
    if t is None or (isinstance(t, float) and math.isnan(t)):
        return "—"
    if t >= 100:
        return f"{t:.0f}"
    return f"{t:.3g}" if t >= 0.001 else f"{t:.2e}"


def fmt_ratio(x: float | None, *, approx: bool = False) -> str:
    """``3.14`` -> ``"3.1x"``; ``approx`` prefixes ``~`` (an extrapolated ratio)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    text = f"{x:.2f}x" if x < 10 else f"{x:.3g}x" if x < 1000 else f"{x:,.0f}x"
    return ("~" + text) if approx else text


def fmt_bytes_per_sample(nbytes: int | None, n: int) -> str:
    if nbytes is None:
        return "—"
    return f"{nbytes / n:.1f}"


def markdown_table(headers: list[str], rows: list[list[Any]],
                   align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table; ``align`` is one letter per column (``l``/``r``)."""
    align = align or "l" * len(headers)
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values):
        out = []
        for v, w, a in zip(values, widths, align):
            out.append(v.rjust(w) if a == "r" else v.ljust(w))
        return "| " + " | ".join(out) + " |"

    sep = "| " + " | ".join(("-" * (w - 1) + ":") if a == "r" else "-" * w
                            for w, a in zip(widths, align)) + " |"
    return "\n".join([line(headers), sep] + [line(r) for r in cells])


def log(message: str) -> None:
    """Progress to stderr, so stdout carries only the report."""
    print(message, file=sys.stderr, flush=True)


def json_under(tree: str, script: str, args: list[str]) -> dict:
    """The JSON a benchmark ``script`` prints with ``args`` (its ``--json`` mode), run in
    a subprocess with the streamrank of ``tree`` first on the path: the same measurement
    under another checkout (its extensions built), for figures side by side."""
    import json

    env = dict(os.environ, PYTHONPATH=tree)
    res = subprocess.run([sys.executable, os.path.abspath(script), "--json", *args],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout)

