"""streamrank is typed: user code calling the README's examples passes ``mypy --strict``,
and no ``Any`` comes out of a streamrank call.

The checks run mypy on a snippet written to a temporary folder, with the source tree on
``MYPYPATH`` (so the package under test is this checkout, not an installed copy) and
``--follow-imports=silent``, which reports errors in the user's file only, as mypy does for
an installed, typed package; the `streamrank.dask` snippet needs dask (the 'dask' extra).
The last test checks that the type information ships: the ``py.typed`` marker and the
stubs of the compiled modules are package data.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "streamrank"

needs_mypy = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (it is in the 'test' extra: pip install -e '.[test]')")

# The README's examples of the batch metrics, PairCounter, the windows, EpochTracker (and a
# run of epochs at once), the River metrics, the ranking metrics and the Monitor of a live
# model, as a user's module (the doctests' outputs dropped).
README_EXAMPLES = '''
import threading

import numpy as np
import streamrank as sr
import streamrank.metrics
from river import datasets, evaluate, linear_model, metrics, preprocessing
from streamrank import (EpochTracker, PairCounter, SlidingPairCounter, SnapshotError,
                        TimeSlidingPairCounter)
from streamrank.epochs import early_stopping, natural_key, summarize_epochs
from streamrank.monitor import Monitor
from streamrank.ranking import (NDCG, RankingState, lambdarank_gradients, map_score,
                                ndcg_at_k, pairwise_errors)

# Batch metrics
y = np.array([0, 0, 1, 1]); s = np.array([0.1, 0.4, 0.35, 0.8])
pc = sr.pair_counts(y, s)
print(pc.concordant, pc.discordant, pc.tied_score, pc.comparable, pc.total)
print(pc.auc, pc.somers_d, round(pc.tau_b, 4))
print(sr.roc_auc_score(y, s, sample_weight=[1, 2, 1, 1]))
print(sr.kendall_tau([1, 2, 3, 4], [1, 3, 2, 4], variant="b"))
print(sr.concordance_index([5, 1, 3], [4.0, 1.0, 2.0], event_observed=[1, 1, 0]))
print(sr.group_auc_score([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.4], groups=["a", "a", "b", "b"]))
r = sr.group_auc_score([1, 0, 1, 0], [0.9, 0.1, 0.1, 0.9], [1, 1, "1", "1"],
                       return_details=True)
print(r.n_groups, r.score, r.groups.tolist())

# A keyed counter
counter = PairCounter()
counter.insert_many(["u1", "u2", "u3", "u4"], [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
counter.update("u2", score=0.2)
print(counter.counts.auc, counter.counts.discordant)
counter.remove("u4"); counter.insert("u5", 1, 0.05, w=2.0)
snapshot = counter.to_bytes()
assert PairCounter.from_bytes(snapshot).counts == counter.counts
try:
    PairCounter.from_bytes(snapshot[:100])
except SnapshotError as exc:
    print(str(exc))
lock = threading.Lock()
with lock:
    counter.insert(7, 1, 0.3)

# Windows
win = SlidingPairCounter(window_size=3)
for label, score in [(1, 0.9), (0, 0.1), (1, 0.2), (0, 0.8), (1, 0.7)]:
    win.push(label, score)
print(len(win), win.counts.auc, list(win))
hourly = TimeSlidingPairCounter(period=3600.0)
for t, label, score in [(0, 1, 0.9), (1800, 0, 0.2), (3000, 1, 0.4), (3700, 0, 0.95)]:
    hourly.push(label, score, t=t)
print(len(hourly), round(hourly.counts.auc, 4))

# Training epochs
tracker = EpochTracker([0, 0, 1, 1, 1])
print(tracker.step([0.1, 0.6, 0.4, 0.5, 0.9]).auc)
print(tracker.step_partial([1], [0.3]).auc)
leaf = np.array([0, 0, 1, 1, 1])
print(tracker.step_additive(np.array([0.5, 0.0]), leaf).auc)
print(tracker.churn, [round(c.auc, 2) for c in tracker.history])
epochs = [[0.1, 0.6, 0.4, 0.5, 0.9], [0.1, 0.3, 0.4, 0.5, 0.9], [0.6, 0.3, 0.4, 0.5, 0.9]]
summary = summarize_epochs([0, 0, 1, 1, 1], epochs, names=["e1", "e2", "e3"], patience=1)
print(summary["best_epoch"], summary["stop_epoch"], tracker.churn_history)
print(early_stopping([0.70, 0.75, 0.74, 0.76], patience=2),
      sorted(["e10.csv", "e2.csv"], key=natural_key))

# Monitor a live model (late labels joined by id)
mon = Monitor(window=100, reference=4, min_window=2, detector="adwin")
for i, (label, score) in enumerate([(1, 0.9), (0, 0.2), (1, 0.7), (0, 0.4), (1, 0.3)]):
    mon.observe(f"p{i}", score=score)
    mon.observe(f"p{i}", label=label)
    report = mon.report()
print(report.auc, report.reference_auc, report.p_value, report.alert, report.counts.auc)
print(mon.history[-1].as_dict(), len(mon.alerts), mon.stats["late"], mon.clock, "p1" in mon)
print([key for key, held, _, _, _ in mon.items() if held is None])
assert Monitor.from_bytes(mon.to_bytes()).counts == mon.counts

# River metrics
model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
rivers = metrics.ROCAUC()  # type: ignore[no-untyped-call]  # (River's constructor)
evaluate.progressive_val_score(datasets.Phishing(), model, streamrank.metrics.ROCAUC() + rivers)
exact = streamrank.metrics.RollingROCAUC(window_size=3)
for yt, p in [(1, 0.9), (0, 0.1), (1, 0.5), (0, 0.5)]:
    exact.update(yt, p)
print(exact.get())
kt = streamrank.metrics.KendallTau()
kt.update(1.0, 2.0); kt.revert(1.0, 2.0)
print(kt.get())

# Learning to rank
q = [1, 1, 1, 1, 2, 2, 2]
rel = [3, 0, 1, 0, 0, 2, 1]
sc = [0.9, 0.8, 0.8, 0.1, 0.3, 0.2, 0.5]
print(round(ndcg_at_k(q, rel, sc, k=3), 4), map_score(q, rel, sc))
print(ndcg_at_k(q, rel, sc, k=3, return_per_query=True).values.round(4))
pe = pairwise_errors(q, rel, sc)
print(pe.discordant.tolist(), pe.tied.tolist(), pe.comparable.tolist())
grad, hess = lambdarank_gradients([1, 1, 1, 2, 2], [2, 0, 1, 1, 0],
                                  [0.2, 0.9, 0.4, 0.1, 0.3], k=10)
print(grad.round(3).tolist())
st = RankingState(k=10)
st.set("q1", "a", 1, 0.2); st.set("q1", "b", 0, 0.9); st.set("q2", "c", 1, 0.5)
print(st.mean("mrr"))
m = NDCG(k=3)
m.update([3, 0, 1], [0.9, 0.8, 0.1]); m.update([0, 2], [0.5, 0.4])
print(round(m.get(), 4))
'''

# Each line: reveal_type(<streamrank call>)  # <the type mypy must reveal>, builtins
# unqualified. ``ndarray`` stands for any numpy array (its shape and dtype parameters are
# numpy's business).
REVEALS = '''
import numpy as np
import streamrank as sr
import streamrank.metrics
from streamrank import EpochTracker, PairCounter, SlidingPairCounter, TimeSlidingPairCounter
from streamrank.epochs import early_stopping, natural_key, summarize_epochs
from streamrank.monitor import Monitor
from streamrank.monitor.drift import delong_placements, delong_test, hanley_mcneil_test
from streamrank.ranking import (NDCG, RankingState, lambdarank_gradients, map_score,
                                ndcg_at_k, pairwise_errors)

y = np.array([0, 0, 1, 1]); s = np.array([0.1, 0.4, 0.35, 0.8])
pc = sr.pair_counts(y, s)
reveal_type(pc)  # streamrank.counts.PairCounts
reveal_type(pc.concordant)  # int | float
reveal_type(pc.comparable)  # int | float
reveal_type(pc.total)  # int | float
reveal_type(pc.auc)  # float
reveal_type(pc.tau_b)  # float
reveal_type(pc.weighted)  # bool
reveal_type(pc.as_dict())  # dict[str, int | float]
reveal_type(sr.roc_auc_score(y, s, sample_weight=[1, 2, 1, 1]))  # float
reveal_type(sr.kendall_tau([1, 2, 3, 4], [1, 3, 2, 4], variant="b"))  # float
reveal_type(sr.somers_d(y, s))  # float
reveal_type(sr.goodman_kruskal_gamma(y, s))  # float
reveal_type(sr.concordance_index([5, 1, 3], [4.0, 1.0, 2.0], [1, 1, 0]))  # float
reveal_type(sr.group_auc_score(y, s, ["a", "a", "b", "b"]))  # float
r = sr.group_auc_score(y, s, ["a", "a", "b", "b"], return_details=True)
reveal_type(r)  # streamrank.batch.auc.GroupAUCResult
reveal_type(r.n_groups)  # int
reveal_type(r.groups)  # ndarray

counter = PairCounter()
counter.insert_many(["u1", "u2"], [0, 1], [0.1, 0.4])
reveal_type(counter.counts)  # streamrank.counts.PairCounts
reveal_type(counter.get("u1"))  # tuple[float, float, int | float]
reveal_type(len(counter))  # int
reveal_type("u1" in counter)  # bool
reveal_type(counter.labels)  # str
reveal_type(counter.to_bytes())  # bytes
reveal_type(PairCounter.from_bytes(counter.to_bytes()))  # streamrank.counter.PairCounter
reveal_type(counter.update("u1", score=0.2))  # None

win = SlidingPairCounter(window_size=3)
reveal_type(win.push(1, 0.9))  # None
reveal_type(win.counts)  # streamrank.counts.PairCounts
reveal_type(list(win))  # list[tuple[float, float, int | float]]
hourly = TimeSlidingPairCounter(period=3600.0)
reveal_type(hourly.push(1, 0.9, t=0))  # None
reveal_type(hourly.counts)  # streamrank.counts.PairCounts

tracker = EpochTracker([0, 0, 1, 1, 1])
reveal_type(tracker.step([0.1, 0.6, 0.4, 0.5, 0.9]))  # streamrank.counts.PairCounts
reveal_type(tracker.step_partial([1], [0.3]))  # streamrank.counts.PairCounts
reveal_type(tracker.step_additive(np.array([0.5, 0.0]), np.array([0, 0, 1, 1, 1])))  # streamrank.counts.PairCounts
reveal_type(tracker.churn)  # int | float | None
reveal_type(tracker.counts)  # streamrank.counts.PairCounts | None
reveal_type(tracker.history)  # list[streamrank.counts.PairCounts]
reveal_type(tracker.churn_history)  # list[int | float | None]
reveal_type(summarize_epochs([0, 1], [[0.2, 0.1], [0.1, 0.2]], patience=1))  # dict[str, object]
reveal_type(early_stopping([0.7, 0.8, 0.75], patience=1))  # tuple[int | None, int | None]
reveal_type(natural_key("epoch_10.csv"))  # tuple[tuple[int | str, ...], str]

mon = Monitor(window=100, min_window=2)
reveal_type(mon.observe("p1", score=0.9))  # None
reveal_type(mon.observe("p1", label=1))  # None
reveal_type(mon.report())  # streamrank.monitor._report.Report
reveal_type(mon.history)  # collections.deque[streamrank.monitor._report.Report]
reveal_type(mon.alerts)  # collections.deque[streamrank.monitor._report.Report]
reveal_type(mon.history[-1].auc)  # float
reveal_type(mon.history[-1].time)  # float | None
reveal_type(mon.history[-1].counts)  # streamrank.counts.PairCounts
reveal_type(mon.history[-1].as_dict())  # dict[str, object]
reveal_type(mon.stats)  # dict[str, int]
reveal_type(mon.clock)  # float | None
reveal_type(mon.reference_counts)  # streamrank.counts.PairCounts | None
reveal_type(list(mon.items()))  # list[tuple[typing.Hashable, float | None, float, int | float, float | None]]
reveal_type("p1" in mon)  # bool
reveal_type(Monitor.from_bytes(mon.to_bytes()))  # streamrank.monitor._monitor.Monitor
reveal_type(hanley_mcneil_test(0.7, 40, 60, reference_auc=0.8, reference_n_pos=50, reference_n_neg=50).p_value)  # float
reveal_type(delong_test(y, s, y, s[::-1]))  # streamrank.monitor.drift.AUCComparison
reveal_type(delong_placements(y, s))  # tuple[ndarray, ndarray]

roc = streamrank.metrics.ROCAUC()
reveal_type(roc.update(1, 0.9))  # None
reveal_type(roc.revert(1, 0.9))  # None
reveal_type(roc.get())  # float
rolling = streamrank.metrics.RollingROCAUC(window_size=3)
reveal_type(rolling.update(True, {True: 0.8, False: 0.2}))  # None
reveal_type(rolling.get())  # float
gauc = streamrank.metrics.GroupAUC()
reveal_type(gauc.update(1, (0.8, "u1")))  # None
reveal_type(gauc.get())  # float
cindex = streamrank.metrics.ConcordanceIndex(censoring=True)
reveal_type(cindex.update((3.0, True), 2.0))  # None
reveal_type(cindex.get())  # float
reveal_type(streamrank.metrics.KendallTau(variant="a").get())  # float

q = [1, 1, 2, 2]; rel = [1, 0, 0, 2]; sc = [0.9, 0.8, 0.3, 0.5]
reveal_type(ndcg_at_k(q, rel, sc, k=3))  # float
reveal_type(ndcg_at_k(q, rel, sc, k=3, return_per_query=True))  # tuple[float, ndarray, ndarray, fallback=streamrank.ranking._layout.PerQuery]
reveal_type(ndcg_at_k(q, rel, sc, empty="skip"))  # float
reveal_type(map_score(q, rel, sc))  # float
reveal_type(map_score(q, rel, sc, k=2, empty=1, return_per_query=True).values)  # ndarray
reveal_type(pairwise_errors(q, rel, sc).error_rate)  # float
reveal_type(lambdarank_gradients(q, rel, sc, k=10))  # tuple[ndarray, ndarray]
st = RankingState(k=10)
reveal_type(st.set("q1", "a", 1, 0.2))  # None
reveal_type(st.mean("mrr"))  # float
reveal_type(st.query("q1").ndcg())  # float | None
n = NDCG(k=3)
reveal_type(n.update([3, 0, 1], [0.9, 0.8, 0.1]))  # None
reveal_type(n.get())  # float
reveal_type(NDCG(k=3, empty="skip").skipped)  # int
reveal_type(st.skipped("ap"))  # int
'''

# The README's Dask example (in a function: it connects to a cluster if called; mypy checks
# it all the same) and the types of the streamrank.dask calls. Dask's own constructors are
# untyped, so a strict user module marks them, as it marks River's.
DASK = '''
import dask.array as da
import dask.dataframe as dd
import numpy as np
from dask.distributed import Client
from streamrank import dask as srd


def on_a_cluster() -> None:
    client = Client("tcp://scheduler:8786")  # type: ignore[no-untyped-call]  # (Dask's)
    ddf = dd.read_parquet("s3://bucket/preds/*.parquet", columns=["label", "score", "user"],
                          split_row_groups=True)
    pc = srd.pair_counts(ddf, label="label", score="score")
    print(pc.auc, pc.tau_b, pc.concordant, pc.discordant, pc.tied_score)
    print(srd.group_auc_score(ddf, label="label", score="score", group="user"))
    print(srd.evaluate_file("s3://bucket/preds/", label="label", score="score",
                            scheduler=client))


y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)  # type: ignore[no-untyped-call]
s = da.from_array(np.array([0.1, 0.4, 0.35, 0.8]), chunks=2)  # type: ignore[no-untyped-call]
g = da.from_array(np.array([1, 1, 2, 2]), chunks=2)  # type: ignore[no-untyped-call]
reveal_type(srd.pair_counts(y, s, npartitions=2, scheduler="sync"))  # streamrank.counts.PairCounts
reveal_type(srd.roc_auc_score(y, s, pos_label=1))  # float
reveal_type(srd.kendall_tau(y, s, variant="c"))  # float
reveal_type(srd.concordance_index(s, y, y))  # float
reveal_type(srd.group_auc_score(y, s, g, weighting="pairs"))  # float
reveal_type(srd.group_auc_score(y, s, g, return_details=True))  # streamrank.batch.auc.GroupAUCResult
reveal_type(srd.ndcg_at_k(g, y, s, k=3, gain="linear"))  # float
reveal_type(srd.ndcg_at_k(g, y, s, return_per_query=True))  # tuple[float, ndarray, ndarray, fallback=streamrank.ranking._layout.PerQuery]
reveal_type(srd.map_score(g, y, s, ties="optimistic"))  # float
reveal_type(srd.map_score(g, y, s, return_per_query=True).mean)  # float
reveal_type(srd.evaluate_file("preds.parquet", label="label", score="score"))  # dict[str, object]
'''

_REVEALED = re.compile(r'^.*?:(\d+): note: Revealed type is "(.*)"$')


def _collapse_arrays(t: str) -> str:
    """Every ``numpy.ndarray[...]`` in a revealed type as ``ndarray``."""
    out, i = [], 0
    while True:
        j = t.find("numpy.ndarray[", i)
        if j < 0:
            out.append(t[i:])
            return "".join(out)
        out.append(t[i:j] + "ndarray")
        depth, k = 0, j + len("numpy.ndarray")
        while True:
            depth += {"[": 1, "]": -1}.get(t[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


@pytest.fixture(scope="module")
def run_mypy(tmp_path_factory):
    """``run(source, *flags)``: mypy's ``(exit code, output)`` on ``source`` as a user's
    module, the checkout's ``streamrank`` first on the path; one cache for the module."""
    folder = tmp_path_factory.mktemp("typing")
    cache = folder / "cache"

    def run(name: str, source: str, *flags: str) -> tuple[int, str]:
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        env = {**os.environ, "MYPYPATH": str(ROOT)}
        env.pop("PYTHONPATH", None)
        proc = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
             "--no-error-summary", "--show-absolute-path", "--cache-dir", str(cache),
             "--python-executable", sys.executable, *flags, str(path)],
            cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        return proc.returncode, proc.stdout + proc.stderr

    return run


@needs_mypy
def test_readme_examples_pass_mypy_strict(run_mypy):
    code, out = run_mypy("readme_examples", README_EXAMPLES)
    assert code == 0, f"mypy --strict on the README's examples:\n{out}"
    assert "error" not in out, out


def _check_reveals(run_mypy, name: str, source: str) -> None:
    """mypy --strict passes on ``source`` and reveals, line by line, the types that its
    ``reveal_type(...)  # <type>`` lines name; no ``Any`` of streamrank's."""
    code, out = run_mypy(name, source)
    assert code == 0, out
    expected = {}
    for number, line in enumerate(textwrap.dedent(source).splitlines(), start=1):
        if line.startswith("reveal_type("):
            expected[number] = line.split("  # ", 1)[1]
    revealed = {}
    for line in out.splitlines():
        match = _REVEALED.match(line)
        if match:
            revealed[int(match.group(1))] = _collapse_arrays(
                match.group(2).replace("builtins.", ""))   # (older mypy prints the prefix)
    assert sorted(revealed) == sorted(expected), out
    wrong = {n: (revealed[n], expected[n]) for n in expected if revealed[n] != expected[n]}
    assert not wrong, "\n".join(f"line {n}: revealed {got!r}, expected {want!r}"
                                for n, (got, want) in sorted(wrong.items()))
    # numpy's own Any (array shapes, dtypes) is collapsed above: anything left is ours.
    assert not [t for t in revealed.values() if "Any" in t]


@needs_mypy
def test_streamrank_calls_reveal_precise_types(run_mypy):
    _check_reveals(run_mypy, "reveals", REVEALS)


@needs_mypy
@pytest.mark.skipif(importlib.util.find_spec("dask") is None,
                    reason="dask is not installed (the 'dask' extra)")
def test_dask_calls_pass_mypy_strict_and_reveal_precise_types(run_mypy):
    """The README's `streamrank.dask` example type-checks, and the dask functions reveal
    the types of their numpy counterparts (the overloads on ``return_details`` and
    ``return_per_query`` included)."""
    _check_reveals(run_mypy, "dask_calls", DASK)


def test_type_information_is_package_data():
    """``py.typed`` and one ``.pyi`` per compiled module exist and are package data, so
    ``pip install .`` ships them (a type checker ignores an installed package without
    ``py.typed``, and cannot read a compiled module without its stub)."""
    try:
        import tomllib
    except ImportError:                      # Python 3.10
        tomllib = pytest.importorskip("tomli")

    with open(ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert (PACKAGE / "py.typed").is_file()
    compiled = sorted(PACKAGE.rglob("*.pyx"))
    assert len(compiled) >= 6
    shipped = [PACKAGE / "py.typed"]
    for pyx in compiled:
        stub = pyx.with_suffix(".pyi")
        assert stub.is_file(), f"{pyx.relative_to(ROOT)} has no stub {stub.name}"
        shipped.append(stub)
    for path in shipped:
        package = ".".join(path.parent.relative_to(ROOT).parts)
        patterns = data.get(package, []) + data.get("*", [])
        assert any(fnmatch.fnmatch(path.name, p) for p in patterns), \
            f"{path.relative_to(ROOT)} is not package data of {package}"
