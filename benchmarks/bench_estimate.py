"""The cost of the label-free figures: `Monitor(estimate=True)` and `Monitor(score_drift=
True)` against the same monitor without them, per event; and the estimate against
NannyML's CBPE.

The stream: probabilities drawn uniformly, each label drawn from its probability (a
calibrated model), every prediction with its label; a report every ``--every`` events.
For each window size ``W``, the window is filled and one more block of ``--every``
events is fed and reported (not timed: the scores' reference of ``score_drift``, the
first ``W`` predictions, freezes at the first eviction); then ``--events`` events are
timed, fed by ``observe`` one at a time and by ``observe_many`` in blocks of
``--every``, in four settings run round-robin for ``--repeats`` rounds: off; the
estimate only; the score drift only; both. The table gives the medians and the ratios to
off (the goal: at most 1.5x). Each run checks its answer: the final
`Report.estimated_auc` equals scikit-learn's AUC of the window's predictions duplicated
with weights ``p`` and ``1 - p``; `Report.score_shift` equals scikit-learn's AUC of the
reference's scores (class 0) against the window's (class 1); `Report.ks` equals
``scipy.stats.ks_2samp``'s statistic (``|diff| <= 1e-9`` each).

``--nannyml PYTHON``: also compare the estimate with NannyML's CBPE (its ``roc_auc``),
run by ``PYTHON`` (a venv with nannyml) in a child process that stays up, so that its
rounds alternate with streamrank's. For each ``W``: a labeled reference chunk of ``W``
rows and ``--chunks`` analysis chunks of ``W`` rows, drawn as above. NannyML fits CBPE
on the reference and estimates the analysis chunks (``chunk_size=W``); streamrank feeds
the chunks' scores (no labels) into a `Monitor(window=W, estimate=True)` with
``observe_many``, one chunk at a time, and reads `Report.estimated_auc` after each
(the window then holds exactly that chunk). The values are compared chunk by chunk, with
CBPE's default calibration (isotonic, when its ``needs_calibration`` test on the
reference says so) and with calibration off (``NoopCalibrator``); the times are
NannyML's fit + estimate and its estimate alone against streamrank's whole pass.

    python benchmarks/bench_estimate.py --windows 1e3 1e4 --events 1e5 --repeats 3 \\
        --nannyml PYTHON    # PYTHON: a venv's interpreter with nannyml and statsmodels
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from _common import (load_average, log, machine_info, markdown_table, parse_size,
                     report_head, time_call, write_report)
from streamrank.monitor import Monitor

# (name, estimate, score_drift): the settings timed side by side, off first.
SETTINGS = (("off", False, False), ("estimate", True, False),
            ("score drift", False, True), ("estimate + score drift", True, True))


def stream(n, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(float)


def run(window, n, every, estimate, drift, many, p, y):
    """Seconds per event of the timed part, and the monitor."""
    start = window + every                  # filled, one block slid: the reference frozen
    keys = list(range(start + n))
    m = Monitor(window=window, estimate=estimate, score_drift=drift)
    m.observe_many(keys[:window], score=p[:window], label=y[:window])
    m.observe_many(keys[window:start], score=p[window:start], label=y[window:start])
    m.report()
    assert not drift or m.score_reference_frozen
    pl, yl = p.tolist(), y.tolist()

    def timed():
        if many:
            for lo in range(start, start + n, every):
                hi = min(lo + every, start + n)
                m.observe_many(keys[lo:hi], score=p[lo:hi], label=y[lo:hi])
                m.report()
        else:
            for i in range(start, start + n):
                m.observe(i, score=pl[i], label=yl[i])
                if (i - start) % every == every - 1:
                    m.report()

    seconds, _ = time_call(timed)
    return seconds / n, m


def report_cost(m, reports=21):
    """Seconds of one `Monitor.report` of an unchanged window: the median of ``reports``
    in a row (the garbage collector disabled, as in `time_call`)."""
    def reads():
        out = []
        for _ in range(reports):
            t0 = time.perf_counter()
            m.report()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)

    return time_call(reads)[1]


def check(m, p, window, estimate, drift):
    """The final report against scikit-learn and SciPy on the final window (the last
    ``window`` scores) and the scores' reference (the first ``window``)."""
    r = m.report()
    s, ref = p[p.size - window:], p[:window]
    if estimate:
        rows = np.r_[np.ones(s.size), np.zeros(s.size)]
        want = roc_auc_score(rows, np.r_[s, s], sample_weight=np.r_[s, 1 - s])
        assert abs(r.estimated_auc - want) <= 1e-9, (r.estimated_auc, want)
    if drift:
        want = roc_auc_score(np.r_[np.zeros(ref.size), np.ones(s.size)], np.r_[ref, s])
        assert abs(r.score_shift - want) <= 1e-9, (r.score_shift, want)
        want = ks_2samp(s, ref).statistic
        assert abs(r.ks - want) <= 1e-9, (r.ks, want)


# --------------------------------------------------------------------------- NannyML
# The child process: reads one JSON command a line on stdin, answers one JSON line on the
# stdout it started with (NannyML's own output goes to stderr).
NANNYML_CHILD = r'''
import gc, json, os, sys, time
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"
import warnings
warnings.filterwarnings("ignore")
try:
    import numpy as np, pandas as pd
    import nannyml as nml
    from nannyml.calibration import NoopCalibrator
    from nannyml.performance_estimation.confidence_based import metrics as cbpe_metrics
    from sklearn.metrics import auc
except Exception as e:
    out.write(json.dumps({"error": f"{type(e).__name__}: {e}".splitlines()[0]}) + "\n")
    out.flush()
    sys.exit(0)
from importlib import metadata
out.write(json.dumps({"versions": {d: metadata.version(d) for d in (
    "nannyml", "pandas", "numpy", "scikit-learn")}}) + "\n")
out.flush()


def timed(fn):
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        result = fn()
        return time.perf_counter() - t0, result
    finally:
        gc.enable()


def unrounded(p):
    """estimate_roc_auc without its np.round(., 5) of the cumulative sums."""
    p = np.asarray(p)[np.argsort(p)[::-1]]
    tps = np.r_[0, np.cumsum(p)]
    fps = np.r_[0, 1 + np.arange(p.size) - np.cumsum(p)]
    return auc(fps / fps[-1], tps / tps[-1])


data = None
for line in sys.stdin:
    cmd = json.loads(line)
    if cmd["do"] == "load":
        z = np.load(cmd["path"])
        W = int(cmd["chunk"])
        ref = pd.DataFrame({"p": z["ref_p"], "yhat": (z["ref_p"] >= 0.5).astype(int),
                            "y": z["ref_y"].astype(int)})
        ana = pd.DataFrame({"p": z["ana_p"], "yhat": (z["ana_p"] >= 0.5).astype(int)})
        data = (W, ref, ana)
        reply = {"ok": True}
    elif cmd["do"] == "run":
        W, ref, ana = data

        def make(**kw):
            return nml.CBPE(metrics=["roc_auc"], y_pred_proba="p", y_pred="yhat",
                            y_true="y", problem_type="classification_binary",
                            chunk_size=W, **kw)

        def values(result):
            df = result.filter(period="analysis").to_df()
            return df[("roc_auc", "value")].astype(float).tolist()

        est = make()
        fit_s, _ = timed(lambda: est.fit(ref))
        est_s, res = timed(lambda: est.estimate(ana))
        reply = {"fit_s": fit_s, "estimate_s": est_s, "values": values(res),
                 "needs_calibration": bool(est.needs_calibration)}
        if cmd.get("details"):
            noop = make(calibrator=NoopCalibrator())
            noop.fit(ref)
            reply["values_noop"] = values(noop.estimate(ana))
            chunks = [ana["p"].to_numpy()[i:i + W] for i in range(0, len(ana), W)]
            reply["values_unrounded"] = [unrounded(c) for c in chunks]
            reply["values_direct"] = [float(cbpe_metrics.estimate_roc_auc(c, c))
                                      for c in chunks]
    else:
        break
    out.write(json.dumps(reply) + "\n")
    out.flush()
'''


class NannyChild:
    """The NannyML child process (`NANNYML_CHILD`) run by ``python``."""

    def __init__(self, python):
        env = dict(os.environ, NML_DISABLE_USAGE_LOGGING="1", PYTHONWARNINGS="ignore")
        try:
            self.proc = subprocess.Popen([python, "-c", NANNYML_CHILD],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, env=env)
        except OSError as e:
            self.proc, self.hello = None, {"error": f"{type(e).__name__}: {e}"}
            return
        self.hello = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            return {"error": f"the child exited with {self.proc.wait()}"}
        return json.loads(line)

    def ask(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"do": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def streamrank_chunks(window, chunks):
    """The estimate of each chunk from a Monitor(window, estimate=True) fed the chunks'
    scores (no labels) one chunk at a time."""
    m = Monitor(window=window, estimate=True)
    out = []
    for k, c in enumerate(chunks):
        m.observe_many(range(k * window, (k + 1) * window), score=c)
        out.append(m.report().estimated_auc)
    return out


def nannyml_part(python, windows, n_chunks, repeats, seed):
    """The comparison with NannyML's CBPE: (text lines, versions) or the error line."""
    child = NannyChild(python)
    if "error" in child.hello:
        child.close()
        return None, child.hello["error"]
    rows, notes = [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for w in windows:
                W = parse_size(w)
                p, y = stream(W * (n_chunks + 1), seed)
                ana_p, ana_y = p[W:], y[W:]
                chunks = [ana_p[k * W:(k + 1) * W] for k in range(n_chunks)]
                path = os.path.join(tmp, f"data_{W}.npz")
                np.savez(path, ref_p=p[:W], ref_y=y[:W], ana_p=ana_p)
                child.ask(do="load", path=path, chunk=W)
                sr_t, fit_t, est_t, nn = [], [], [], None
                for r in range(repeats):
                    reply = child.ask(do="run", details=(r == 0))
                    fit_t.append(reply["fit_s"])
                    est_t.append(reply["estimate_s"])
                    if nn is None:
                        nn = reply
                    log(f"  nannyml W={w} round {r + 1}: fit {reply['fit_s']:.4f} s, "
                        f"estimate {reply['estimate_s']:.4f} s")
                    t, sr = time_call(lambda: streamrank_chunks(W, chunks))
                    sr_t.append(t)
                    log(f"  streamrank W={w} round {r + 1}: {t:.4f} s")
                sr = np.array(sr)
                weighted = np.array([roc_auc_score(
                    np.r_[np.ones(W), np.zeros(W)], np.r_[c, c],
                    sample_weight=np.r_[c, 1 - c]) for c in chunks])
                realized = np.array([roc_auc_score(ana_y[k * W:(k + 1) * W], c)
                                     for k, c in enumerate(chunks)])
                assert np.abs(sr - weighted).max() <= 1e-9
                d_default = np.abs(sr - np.array(nn["values"])).max()
                d_noop = np.abs(sr - np.array(nn["values_noop"])).max()
                d_direct = np.abs(sr - np.array(nn["values_direct"])).max()
                d_unrounded = np.abs(sr - np.array(nn["values_unrounded"])).max()
                fit_m, est_m, sr_m = (statistics.median(x) for x in (fit_t, est_t, sr_t))
                rows.append([
                    w, f"{d_default:.2e} ({'isotonic' if nn['needs_calibration'] else 'none'})",
                    f"{d_noop:.1e}", f"{d_unrounded:.1e}",
                    f"{(np.array(nn['values']) - realized).mean():+.4f} / "
                    f"{(sr - realized).mean():+.4f}",
                    f"{1e3 * fit_m:.1f} + {1e3 * est_m:.1f}", f"{1e3 * sr_m:.2f}",
                    f"{(fit_m + est_m) / sr_m:.2f}x", f"{est_m / sr_m:.2f}x"])
                notes.append(f"W = {w}: direct `estimate_roc_auc` |diff| max {d_direct:.1e}")
    finally:
        child.close()
    versions = child.hello["versions"]
    return (rows, notes, versions), None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--windows", nargs="+", default=["1e3", "1e4"])
    ap.add_argument("--events", default="1e5")
    ap.add_argument("--every", default="100")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--nannyml", metavar="PYTHON",
                    help="a Python with nannyml: compare the estimate with its CBPE")
    ap.add_argument("--chunks", type=int, default=10,
                    help="analysis chunks of W rows for the NannyML comparison")
    ap.add_argument("--no-settings", action="store_true",
                    help="skip the per-event table (only the NannyML comparison)")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    n, every = parse_size(args.events), parse_size(args.every)
    rows, report_times = [], collections.defaultdict(list)
    for w in [] if args.no_settings else args.windows:
        window = parse_size(w)
        p, y = stream(window + every + n, args.seed)
        for many in (False, True):
            times = {name: [] for name, _, _ in SETTINGS}
            for r in range(args.repeats):
                for name, estimate, drift in SETTINGS:
                    t, m = run(window, n, every, estimate, drift, many, p, y)
                    times[name].append(t)
                    check(m, p, window, estimate, drift)
                    if many:
                        report_times[w, name].append(report_cost(m))
                    log(f"  W={w} {'observe_many' if many else 'observe'} {name} "
                        f"round {r + 1}: {1e6 * t:.2f} us/event")
            med = {name: statistics.median(times[name]) for name in times}
            off = med["off"]
            rows.append([w, "observe_many" if many else "observe"]
                        + [f"{1e6 * med[name]:.2f}" for name, _, _ in SETTINGS]
                        + [f"{med[name] / off:.2f}x" for name, _, _ in SETTINGS[1:]])
    result = {"command": "python benchmarks/bench_estimate.py " + " ".join(
        argv if argv is not None else sys.argv[1:]), "machine": machine_info(
        ("numpy", "scipy", "scikit-learn", "streamrank")), "load_average_end": None}
    lines = []
    if rows:
        lines += [
            f"{n:,} events timed after the window fills, a report every {every}; µs per "
            f"event, median of {args.repeats} round-robin rounds; ratios to off.", "",
            markdown_table(["W", "fed by", "off", "estimate", "score drift",
                            "estimate + score drift", "estimate / off",
                            "score drift / off", "both / off"], rows,
                           "ll" + "r" * 7), "",
            "One `report()` of an unchanged window (after the `observe_many` runs; median of "
            "21 reports, then of the rounds), µs:", "",
            markdown_table(["W"] + [name for name, _, _ in SETTINGS], [
                [w] + [f"{1e6 * statistics.median(report_times[w, name]):.0f}"
                       for name, _, _ in SETTINGS] for w in args.windows],
                "l" + "r" * len(SETTINGS)), ""]
    if args.nannyml:
        part, error = nannyml_part(args.nannyml, args.windows, args.chunks, args.repeats,
                                   args.seed)
        if error:
            lines += [f"NannyML CBPE: not measured ({error}).", ""]
        else:
            nrows, notes, versions = part
            lines += [
                f"NannyML CBPE against the estimate ({', '.join(f'{k} {v}' for k, v in versions.items())}"
                f" in `{args.nannyml}`): {args.chunks} chunks of W rows, a reference chunk of W; "
                f"median of {args.repeats} round-robin rounds.", "",
                markdown_table(["W", "max abs diff, CBPE default", "max abs diff, no calibration",
                                "max abs diff, unrounded", "bias vs realized, CBPE / streamrank",
                                "NannyML fit + estimate (ms)", "streamrank (ms)",
                                "ratio (fit + estimate)", "ratio (estimate)"], nrows,
                               "l" + "r" * 8), "", "; ".join(notes) + ".", ""]
    lines += ks_p_costs(args.repeats)
    result["load_average_end"] = load_average()
    text = "\n".join(report_head("### The label-free figures' cost per event", result)
                     + lines)
    write_report(text, args.output)
    return 0


def ks_p_costs(repeats) -> list:
    """The report lines of what one KS p-value costs: scipy's exact distribution at the
    effective size ``n`` (`scipy.stats.kstwo`, what ``ks_2samp(method="asymp")`` takes)
    against the monitor's (`streamrank.monitor._scores._ks_p_value`: scipy's below n = 30,
    Kolmogorov's limit with Stephens' correction from there), at ``d = 3.5 / sqrt(n)``
    (p near 1e-10, where kstwo is slowest); per call, over a loop of calls (one at
    n = 500,000), median of ``repeats`` loops."""
    from scipy.stats import kstwo

    from streamrank.monitor._scores import _ks_p_value

    def per_call(fn, k):
        return statistics.median(time_call(lambda: [fn() for _ in range(k)])[0] / k
                                 for _ in range(repeats))

    rows = []
    for n in (140, 5000, 500000):
        d = 3.5 / np.sqrt(n)
        scipy_s = per_call(lambda: kstwo.sf(d, n), 1 if n > 10**5 else 20)
        ours = per_call(lambda: _ks_p_value(d, 2 * n, 2 * n), 1000)
        rows.append([f"{n:,}", f"{1e6 * scipy_s:,.0f}", f"{1e6 * ours:,.1f}"])
    return ["One KS p-value at d = 3.5 / sqrt(n), µs (median of the rounds):", "",
            markdown_table(["n", "scipy kstwo.sf", "the monitor's"], rows, "lrr"), ""]


if __name__ == "__main__":
    sys.exit(main())
