"""``streamrank eval`` on binary labels: ``--ci``, ``--compare-score``, ``--curve``/``--plot``
and ``--fail-below``, each output parsed back against the library functions called on the
same arrays, and every bad combination an exit 2 without a traceback."""

import csv
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import streamrank as sr
from streamrank.cli import main

SEED = 11


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(SEED)
    n = 240
    p = rng.integers(0, 25, n) / 25                      # heavy ties
    return pd.DataFrame({
        "y": (rng.random(n) < p).astype(int),
        "p": p,
        "p_new": np.round(np.clip(p + rng.normal(0, 0.25, n), 0, 1), 2),
        "w": rng.integers(1, 4, n),
        "grade": rng.integers(0, 4, n),
        "g": rng.choice(["a", "b", "c"], n),
        "t": rng.integers(1, 9, n),
        "cls": rng.choice(["pos", "neg"], n),
    })


@pytest.fixture
def path(frame, tmp_path):
    file = tmp_path / "preds.csv"
    frame.to_csv(file, index=False)
    return str(file)


def run(*args, code=0):
    res = CliRunner().invoke(main, ["eval", *map(str, args)])
    assert res.exit_code == code, (res.output, res.exception)
    assert "Traceback" not in res.output
    return res


def run_json(path, *args):
    return json.loads(run(path, "--label", "y", "--score", "p", "--format", "json",
                          *args).stdout)


def _csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# ============================================================================ --ci
@pytest.mark.parametrize("method", ["delong", "hanley-mcneil"])
@pytest.mark.parametrize("level", [None, 0.9])
def test_ci_equals_roc_auc_ci(frame, path, method, level):
    args = ["--ci", "--ci-method", method] + ([] if level is None else ["--level", level])
    rec = run_json(path, *args)
    ref = sr.roc_auc_ci(frame.y, frame.p, method=method, level=level or 0.95)
    assert rec["auc"] == ref.auc
    assert (rec["auc_low"], rec["auc_high"], rec["auc_se"]) == (ref.low, ref.high, ref.se)
    assert (rec["ci_method"], rec["ci_level"]) == (method, level or 0.95)
    assert ref.low < ref.auc < ref.high
    keys = list(rec)
    assert keys[keys.index("auc") + 1:keys.index("auc") + 6] == [
        "auc_low", "auc_high", "auc_se", "ci_method", "ci_level"]


def test_ci_bootstrap_is_repeatable_and_equals_the_library(frame, path):
    rec = run_json(path, "--ci", "--ci-method", "bootstrap", "--resamples", 200)
    ref = sr.roc_auc_ci(frame.y, frame.p, method="bootstrap", n_resamples=200,
                        random_state=0)
    assert (rec["auc_low"], rec["auc_high"], rec["auc_se"]) == (ref.low, ref.high, ref.se)
    other = run_json(path, "--ci", "--ci-method", "bootstrap", "--resamples", 200,
                     "--random-state", 5)
    ref5 = sr.roc_auc_ci(frame.y, frame.p, method="bootstrap", n_resamples=200,
                         random_state=5)
    assert (other["auc_low"], other["auc_high"]) == (ref5.low, ref5.high)


def test_ci_with_weights_and_pos_label(frame, path):
    rec = run_json(path, "--ci", "--weight", "w")
    ref = sr.roc_auc_ci(frame.y, frame.p, sample_weight=frame.w)
    assert (rec["auc"], rec["auc_low"], rec["auc_high"]) == (ref.auc, ref.low, ref.high)
    out = json.loads(run(path, "--label", "cls", "--pos-label", "pos", "--score", "p",
                         "--ci", "--format", "json").stdout)
    ref = sr.roc_auc_ci(frame.cls == "pos", frame.p)
    assert (out["auc"], out["auc_low"], out["auc_se"]) == (ref.auc, ref.low, ref.se)


def test_ci_csv_and_table(frame, path):
    ref = sr.roc_auc_ci(frame.y, frame.p)
    rows = _csv_rows(run(path, "--label", "y", "--score", "p", "--ci", "--format",
                         "csv").stdout)
    got = {r["metric"]: r["value"] for r in rows}
    assert float(got["auc_low"]) == ref.low and float(got["auc_se"]) == ref.se
    assert got["ci_method"] == "delong" and float(got["ci_level"]) == 0.95
    table = run(path, "--label", "y", "--score", "p", "--ci").stdout
    line = next(x for x in table.splitlines() if x.startswith("auc_high"))
    assert float(line.split()[1]) == pytest.approx(ref.high, rel=1e-5)


# ============================================================================ --compare-score
@pytest.mark.parametrize("alternative", [None, "greater", "less"])
def test_compare_score_equals_delong_test(frame, path, alternative):
    args = ["--compare-score", "p_new"] + (
        [] if alternative is None else ["--alternative", alternative])
    rec = run_json(path, *args)
    ref = sr.delong_test(frame.y, frame.p, frame.p_new,
                         alternative=alternative or "two-sided")
    assert rec["auc"] == ref.auc_a and rec["auc_b"] == ref.auc_b
    for key, value in [("difference", ref.difference), ("difference_se", ref.se),
                       ("difference_low", ref.low), ("difference_high", ref.high),
                       ("z", ref.z), ("p_value", ref.p_value)]:
        assert rec[key] == value, key
    assert rec["alternative"] == (alternative or "two-sided")
    assert rec["compare_score"] == "p_new" and rec["difference_level"] == 0.95
    assert 0 < ref.p_value < 1 and ref.se > 0


def test_compare_score_level_weights_csv_and_ci_together(frame, path):
    rows = _csv_rows(run(path, "--label", "y", "--score", "p", "--compare-score", "p_new",
                         "--weight", "w", "--level", 0.8, "--ci", "--format",
                         "csv").stdout)
    got = {r["metric"]: r["value"] for r in rows}
    ref = sr.delong_test(frame.y, frame.p, frame.p_new, sample_weight=frame.w, level=0.8)
    ci = sr.roc_auc_ci(frame.y, frame.p, sample_weight=frame.w, level=0.8)
    assert float(got["difference_low"]) == ref.low
    assert float(got["difference_high"]) == ref.high
    assert float(got["p_value"]) == ref.p_value
    assert float(got["auc_low"]) == ci.low and float(got["ci_level"]) == 0.8


# ============================================================================ --curve
def test_roc_curve_points_csv(frame, path):
    res = run(path, "--label", "y", "--score", "p", "--curve", "roc", "--format", "csv")
    rows = _csv_rows(res.stdout)
    fpr, tpr, thr = sr.roc_curve(frame.y, frame.p)
    assert list(rows[0]) == ["fpr", "tpr", "threshold"]
    np.testing.assert_array_equal([float(r["fpr"]) for r in rows], fpr)
    np.testing.assert_array_equal([float(r["tpr"]) for r in rows], tpr)
    # The first point (0, 0) has no threshold (inf): an empty cell.
    assert rows[0]["threshold"] == "" and math.isinf(thr[0])
    np.testing.assert_array_equal([float(r["threshold"]) for r in rows[1:]], thr[1:])
    assert "rows read" in res.stderr


def test_pr_curve_points_csv_and_json(frame, path):
    rows = _csv_rows(run(path, "--label", "y", "--score", "p", "--curve", "pr",
                         "--format", "csv").stdout)
    prec, rec, thr = sr.precision_recall_curve(frame.y, frame.p)
    assert list(rows[0]) == ["precision", "recall", "threshold"]
    np.testing.assert_array_equal([float(r["precision"]) for r in rows], prec)
    np.testing.assert_array_equal([float(r["recall"]) for r in rows], rec)
    assert rows[-1]["threshold"] == ""     # the last point (recall 0): no threshold
    np.testing.assert_array_equal([float(r["threshold"]) for r in rows[:-1]], thr)
    points = run_json(path, "--curve", "pr", "--weight", "w")
    prec, rec, thr = sr.precision_recall_curve(frame.y, frame.p, sample_weight=frame.w)
    assert [p["precision"] for p in points] == prec.tolist()
    assert [p["recall"] for p in points] == rec.tolist()
    assert [p["threshold"] for p in points] == thr.tolist() + [None]


def test_roc_curve_json(frame, path):
    points = run_json(path, "--curve", "roc")
    fpr, tpr, thr = sr.roc_curve(frame.y, frame.p)
    assert [p["fpr"] for p in points] == fpr.tolist()
    assert [p["tpr"] for p in points] == tpr.tolist()
    assert [p["threshold"] for p in points] == [None] + thr[1:].tolist()


@pytest.mark.parametrize("curve,extra", [("roc", ["--ci"]), ("roc", []), ("pr", [])])
def test_plot_writes_a_png_and_prints_the_summary(frame, path, tmp_path, curve, extra):
    png = tmp_path / f"{curve}.png"
    res = run(path, "--label", "y", "--score", "p", "--curve", curve, "--plot", png,
              "--format", "json", *extra)
    data = png.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    rec = json.loads(res.stdout)
    assert rec["auc"] == sr.roc_auc_score(frame.y, frame.p)
    assert ("auc_low" in rec) == bool(extra)
    assert f"wrote {png}" in res.stderr


def test_plot_curve_figure():
    from streamrank.plot import plot_curve

    y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]
    ci = sr.roc_auc_ci(y, s)
    fig = plot_curve("roc", *sr.roc_curve(y, s)[:2], area=ci.auc, interval=ci)
    ax = fig.axes[0]
    assert ax.get_legend().get_texts()[1].get_text() == (
        f"AUC = {ci.auc:.4f}, 95% CI [{ci.low:.4f}, {ci.high:.4f}] (delong)")
    assert ax.lines[0].get_xydata().tolist() == [[0, 0], [1, 1]]    # the diagonal
    prec, rec, _ = sr.precision_recall_curve(y, s)
    fig = plot_curve("pr", rec, prec, area=0.8)
    assert fig.axes[0].get_xlabel() == "recall"
    with pytest.raises(ValueError, match="'kind' parameter of plot_curve"):
        plot_curve("det", [0, 1], [0, 1])
    with pytest.raises(ValueError, match="'interval' parameter of plot_curve"):
        plot_curve("pr", rec, prec, interval=ci)


# ============================================================================ --fail-below
@pytest.mark.parametrize("use_ci", [False, True])
def test_fail_below(frame, path, use_ci):
    auc = sr.roc_auc_score(frame.y, frame.p)
    low = sr.roc_auc_ci(frame.y, frame.p).low
    value = low if use_ci else auc
    ci = ["--ci"] if use_ci else []
    base = [path, "--label", "y", "--score", "p", "--format", "json", *ci]
    above = run(*base, "--fail-below", round(value - 0.01, 4))
    assert json.loads(above.stdout)["auc"] == auc and "fail" not in above.stderr
    below = run(*base, "--fail-below", round(value + 0.01, 4), code=1)
    assert json.loads(below.stdout)["auc"] == auc    # the output comes first
    what = "lower bound of the 95% interval of the AUC" if use_ci else "the AUC is"
    assert what in below.stderr and "below --fail-below" in below.stderr


def test_fail_below_between_the_bound_and_the_auc(frame, path):
    auc = sr.roc_auc_score(frame.y, frame.p)
    low = sr.roc_auc_ci(frame.y, frame.p).low
    x = round((auc + low) / 2, 4)
    run(path, "--label", "y", "--score", "p", "--fail-below", x)
    run(path, "--label", "y", "--score", "p", "--fail-below", x, "--ci", code=1)


def test_fail_below_with_the_curve_and_an_undefined_auc(frame, path, tmp_path):
    run(path, "--label", "y", "--score", "p", "--curve", "roc", "--fail-below", 0.99,
        code=1)
    one = tmp_path / "one.csv"
    pd.DataFrame({"y": [1, 1, 1], "p": [0.2, 0.5, 0.9]}).to_csv(one, index=False)
    res = run(one, "--label", "y", "--score", "p", "--fail-below", 0.5, code=1)
    assert "undefined (nan)" in res.stderr


# ============================================================================ usage errors
@pytest.mark.parametrize("args,message", [
    (["--label", "grade", "--score", "p", "--ci"], "--ci needs binary labels"),
    (["--label", "grade", "--score", "p", "--curve", "roc"], "--curve needs binary labels"),
    (["--label", "grade", "--score", "p", "--compare-score", "p_new"],
     "--compare-score needs binary labels"),
    (["--label", "grade", "--score", "p", "--fail-below", 0.5],
     "--fail-below needs binary labels"),
    (["--time", "t", "--score", "p", "--ci"], "cannot be used with --time"),
    (["--query", "g", "--label", "grade", "--score", "p", "--curve", "pr"],
     "cannot be used with --query"),
    (["--label", "y", "--score", "p", "--ci", "--dask", "sync"],
     "--ci cannot be used with --dask"),
    (["--label", "y", "--score", "p", "--ci", "--group", "g"], "not defined for the group"),
    (["--label", "y", "--score", "p", "--compare-score", "missing"],
     "column 'missing': no such column"),
    (["--label", "y", "--score", "p", "--compare-score", "p"], "name the same column"),
    (["--label", "y", "--score", "p", "--ci", "--level", 1], "'--level'"),
    (["--label", "y", "--score", "p", "--ci", "--level", 0], "'--level'"),
    (["--label", "y", "--score", "p", "--level", 0.9], "--level is the level of --ci"),
    (["--label", "y", "--score", "p", "--ci-method", "delong"], "--ci-method needs --ci"),
    (["--label", "y", "--score", "p", "--ci", "--resamples", 10],
     "--resamples is for --ci --ci-method bootstrap"),
    (["--label", "y", "--score", "p", "--alternative", "less"],
     "--alternative needs --compare-score"),
    (["--label", "y", "--score", "p", "--plot", "x.png"], "give --curve"),
    (["--label", "y", "--score", "p", "--curve", "roc", "--plot", "/no/such/dir/r.png"],
     "does not exist"),
    (["--label", "y", "--score", "p", "--fail-below", 1.5], "'--fail-below'"),
    (["--label", "y", "--score", "p", "--ci", "--weight", "p_new"], "whole numbers"),
])
def test_usage_errors_exit_2(path, args, message):
    res = run(path, *args, code=2)
    assert message in res.output, res.output
