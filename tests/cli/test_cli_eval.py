"""``streamrank eval``: every evaluation, every output format parsed back against the numpy
functions (exact ints equal, floats to 1e-12), every error path with its exit code and
message, ``--on-error skip`` counts, the Dask route, and the real console entry."""

import csv
import io
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import streamrank as sr
from streamrank import ranking as rk
from streamrank.cli import main

SEED = 7


# ============================================================================ helpers
def _data(n=300, seed=SEED):
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 40, n) / 40            # heavy ties
    return pd.DataFrame({
        "id": np.arange(n),
        "label": (rng.random(n) < score).astype(int),
        "grade": rng.integers(0, 4, n),
        "real": np.round(rng.standard_normal(n) + score, 3),
        "score": score,
        "w": rng.integers(1, 4, n).astype(float),
        "user": rng.choice(["u1", "u2", "u3", "u4", "u5", "u6"], n),
        "qid": rng.integers(0, 25, n),
        "time": rng.integers(1, 30, n),
        "event": rng.integers(0, 2, n),
        "note": rng.choice(["ok", "x,y", ""], n),
    })


def _write(df, tmp_path, fmt):
    path = tmp_path / {"csv": "d.csv", "tsv": "d.tsv", "parquet": "d.parquet",
                       "jsonl": "d.jsonl", "csv.gz": "d.csv.gz"}[fmt]
    if fmt == "parquet":
        df.to_parquet(path, row_group_size=70)
    elif fmt == "jsonl":
        path.write_text(df.to_json(orient="records", lines=True))
    else:
        df.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",")
    return str(path)


def run(*args, ok=True):
    res = CliRunner().invoke(main, ["eval", *map(str, args)])
    if ok:
        assert res.exit_code == 0, (res.output, res.exception)
    return res


def as_json(*args) -> dict:
    return json.loads(run(*args, "--format", "json").stdout)


def as_csv(*args) -> dict:
    rows = list(csv.reader(io.StringIO(run(*args, "--format", "csv").stdout)))
    assert rows[0] == ["metric", "value"]
    return {k: v for k, v in rows[1:]}


def as_table(*args) -> dict:
    lines = run(*args).stdout.splitlines()
    assert lines[0].split() == ["metric", "value"]
    return dict(line.split(None, 1) for line in lines[1:])


def close(a, b, tol=1e-12):
    if b is None or (isinstance(b, float) and math.isnan(b)):
        return a in (None, "nan") or (isinstance(a, float) and math.isnan(a))
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


def check_counts(out, pc_dict, keys):
    for k in keys:
        v = pc_dict[k]
        if isinstance(v, int):
            assert out[k] == v and isinstance(out[k], int), (k, out[k], v)
        else:
            assert close(out[k], v), (k, out[k], v)


COUNTS = ("concordant", "discordant", "tied_score", "comparable", "tied_label", "tied_both",
          "total", "right", "wrong")


# ============================================================================ binary
@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl", "csv.gz"])
def test_binary_json_equals_numpy_and_sklearn(tmp_path, fmt):
    from sklearn.metrics import roc_auc_score as sk_auc

    df = _data()
    path = _write(df, tmp_path, fmt)
    out = as_json(path, "--label", "label", "--score", "score")
    y, s = df["label"].to_numpy(), df["score"].to_numpy()
    pc = sr.pair_counts(y, s)
    assert out["file"] == path and out["rows_read"] == len(df) and out["rows_skipped"] == 0
    assert out["label_kind"] == "binary" and out["n"] == len(df)
    assert out["positives"] == int(y.sum()) and out["negatives"] == int((1 - y).sum())
    check_counts(out, pc.as_dict(), COUNTS + ("auc", "pairwise_accuracy", "pairwise_error",
                                              "right_wrong_ratio"))
    assert out["concordant"] + out["discordant"] + out["tied_score"] == out["comparable"]
    assert close(out["auc"], sk_auc(y, s)) and close(out["auc"], sr.roc_auc_score(y, s))
    assert close(out["gini"], 2 * sk_auc(y, s) - 1)


def test_binary_csv_and_table_outputs(tmp_path):
    df = _data()
    path = _write(df, tmp_path, "csv")
    ref = sr.pair_counts(df["label"], df["score"]).as_dict()
    got = as_csv(path, "--label", "label", "--score", "score")
    assert got["label_kind"] == "binary"
    for k in COUNTS:
        assert int(got[k]) == ref[k]
    assert close(float(got["auc"]), ref["auc"])
    table = as_table(path, "--label", "label", "--score", "score")
    for k in COUNTS:
        assert int(table[k]) == ref[k]
    assert abs(float(table["auc"]) - ref["auc"]) < 1e-6   # 6 significant digits
    # The summary goes to stderr, not into the table or the CSV.
    res = run(path, "--label", "label", "--score", "score", "--format", "csv")
    assert res.stderr == f"{path}: {len(df):,} rows read\n"


def test_weights_pos_label_and_partial_auc(tmp_path):
    from sklearn.metrics import roc_auc_score as sk_auc

    df = _data()
    df["cls"] = np.where(df["label"] == 1, "spam", "ham")
    path = _write(df, tmp_path, "parquet")
    y, s, w = df["label"].to_numpy(), df["score"].to_numpy(), df["w"].to_numpy()
    out = as_json(path, "--label", "label", "--score", "score", "--weight", "w",
                  "--max-fpr", "0.3")
    pc = sr.pair_counts(y, s, sample_weight=w)
    check_counts(out, pc.as_dict(), COUNTS + ("auc",))
    assert close(out["weight_sum"], w.sum()) and close(out["positives"], w[y == 1].sum())
    assert close(out["auc"], sk_auc(y, s, sample_weight=w))
    assert close(out["partial_auc"], sk_auc(y, s, sample_weight=w, max_fpr=0.3))
    # Text labels with --pos-label; the integer weights equal repeating rows.
    txt = as_json(path, "--label", "cls", "--score", "score", "--pos-label", "spam")
    num = as_json(path, "--label", "label", "--score", "score")
    for k in COUNTS + ("auc", "positives", "negatives"):
        assert txt[k] == num[k]
    rep = df.loc[df.index.repeat(df["w"].astype(int))]
    rpath = _write(rep, tmp_path, "csv")
    assert close(as_json(rpath, "--label", "label", "--score", "score")["auc"], out["auc"])
    # --pos-label picks one class of several: one against the rest.
    one = as_json(path, "--label", "grade", "--score", "score", "--pos-label", "3")
    assert one["label_kind"] == "binary"
    assert close(one["auc"], sk_auc(df["grade"] == 3, s))


def test_group_auc(tmp_path):
    df = _data()
    path = _write(df, tmp_path, "csv")
    y, s, g = df["label"], df["score"], df["user"]
    for weighting in ("impressions", "pairs", "uniform"):
        out = as_json(path, "--label", "label", "--score", "score", "--group", "user",
                      "--weighting", weighting)
        ref = sr.group_auc_score(y, s, g, weighting=weighting, return_details=True)
        assert close(out["group_auc"], ref.score)
        assert out["groups"] == ref.n_groups + ref.n_skipped
        assert out["groups_skipped"] == ref.n_skipped
    # Integer group ids, and a group with one class only is skipped.
    df2 = df.copy()
    df2.loc[df2["qid"] == 3, "label"] = 1
    path2 = _write(df2, tmp_path, "parquet")
    out = as_json(path2, "--label", "label", "--score", "score", "--group", "qid")
    ref = sr.group_auc_score(df2["label"], s, df2["qid"], return_details=True)
    assert close(out["group_auc"], ref.score) and out["groups_skipped"] == ref.n_skipped >= 1


# ============================================================================ other labels
@pytest.mark.parametrize("col, kind", [("grade", "ordinal"), ("real", "continuous")])
def test_ordinal_and_continuous_labels(tmp_path, col, kind):
    from scipy.stats import kendalltau

    df = _data()
    path = _write(df, tmp_path, "jsonl")
    out = as_json(path, "--label", col, "--score", "score")
    y, s = df[col].to_numpy(), df["score"].to_numpy()
    pc = sr.pair_counts(y, s)
    assert out["label_kind"] == kind and out["label_levels"] == pc.n_label_levels
    check_counts(out, pc.as_dict(), COUNTS + ("c_index", "tau_a", "tau_b", "tau_c", "gamma",
                                              "somers_d"))
    assert close(out["tau_b"], kendalltau(y, s).statistic)
    assert close(out["gamma"], sr.goodman_kruskal_gamma(y, s))
    assert close(out["somers_d"], sr.somers_d(y, s))
    assert "auc" not in out


def test_censored_c_index(tmp_path):
    from lifelines.utils import concordance_index as ll_cindex

    df = _data()
    path = _write(df, tmp_path, "csv")
    t, s, e = df["time"].to_numpy(), df["score"].to_numpy(), df["event"].to_numpy()
    out = as_json(path, "--time", "time", "--event", "event", "--score", "score")
    assert out["label_kind"] == "survival"
    assert (out["events"], out["censored"]) == (int(e.sum()), int((1 - e).sum()))
    assert close(out["c_index"], sr.concordance_index(t, s, e))
    assert close(out["c_index"], ll_cindex(t, s, e))
    assert out["comparable"] == out["concordant"] + out["discordant"] + out["tied_score"]
    # No --event: every event observed.
    allobs = as_json(path, "--time", "time", "--score", "score")
    assert close(allobs["c_index"], sr.concordance_index(t, s))
    # Weighted.
    w = df["w"].to_numpy()
    wout = as_json(path, "--time", "time", "--event", "event", "--score", "score",
                   "--weight", "w")
    assert close(wout["c_index"], sr.concordance_index(t, s, e, sample_weight=w))


def test_ranking_metrics_per_query(tmp_path):
    df = _data()
    df.loc[df["qid"] < 3, "grade"] = 0              # queries without a relevant document
    path = _write(df, tmp_path, "parquet")
    q, y, s = df["qid"].to_numpy(), df["grade"].to_numpy(), df["score"].to_numpy()
    for k in (None, 5):
        args = [path, "--query", "qid", "--label", "grade", "--score", "score"]
        if k is not None:
            args += ["--k", k]
        out = as_json(*args)
        at = "" if k is None else f"@{k}"
        nd = rk.ndcg_at_k(q, y, s, k=k, return_per_query=True)
        assert out["label_kind"] == "relevance" and out["queries"] == nd.values.size
        # counted as 0 (the default empty=0) in every mean, not left out
        assert out["queries_without_relevant"] == 3 and "queries_skipped" not in out
        assert not np.isnan(nd.values).any() and (nd.values[:3] == 0).all()
        assert close(out[f"ndcg{at}"], nd.mean)
        assert close(out[f"map{at}"], rk.map_score(q, y, s, k=k))
        assert close(out[f"mrr{at}"], rk.mrr_score(q, y, s, k=k))
        assert close(out[f"err{at}"], rk.err_score(q, y, s, k=k))
        assert close(out["r_precision"], rk.r_precision(q, y, s))
        if k is not None:
            assert close(out[f"precision@{k}"], rk.precision_at_k(q, y, s, k=k))
            assert close(out[f"recall@{k}"], rk.recall_at_k(q, y, s, k=k))
        pe = rk.pairwise_errors(q, y, s)
        assert out["discordant"] == pe.total_discordant
        assert out["comparable"] == pe.total_comparable
    lin = as_json(path, "--query", "qid", "--label", "grade", "--score", "score",
                  "--gain", "linear", "--ties", "pessimistic")
    assert close(lin["ndcg"], rk.ndcg_at_k(q, y, s, gain="linear", ties="pessimistic"))
    exp = as_json(path, "--query", "qid", "--label", "grade", "--score", "score",
                  "--gain", "exponential")
    assert close(exp["ndcg"], rk.ndcg_at_k(q, y, s, gain="exponential"))
    default = as_json(path, "--query", "qid", "--label", "grade", "--score", "score")
    assert rk.DEFAULT_GAIN == "linear" and exp["ndcg"] != default["ndcg"]
    assert close(default["ndcg"], rk.ndcg_at_k(q, y, s, gain="linear"))
    # and as scikit-learn's ndcg_score of the queries as rows, when they have one length
    from sklearn.metrics import ndcg_score as sk_ndcg

    n_q, L = 12, 8
    rng = np.random.default_rng(3)
    Y, S = rng.integers(0, 3, (n_q, L)), rng.integers(0, 4, (n_q, L)) / 4
    Y[:4] = 0
    square = pd.DataFrame({"qid": np.repeat(np.arange(n_q), L), "grade": Y.ravel(),
                           "score": S.ravel()})
    path = _write(square, tmp_path, "csv")
    for k in (None, 3):
        args = ["--k", k] if k is not None else []
        out = as_json(path, "--query", "qid", "--label", "grade", "--score", "score", *args)
        assert out["queries_without_relevant"] == 4
        assert close(out["ndcg" + ("" if k is None else f"@{k}")], sk_ndcg(Y, S, k=k))


def test_booleans_are_labels(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("y,s\ntrue,0.9\nfalse,0.1\nTrue,0.4\nFALSE,0.6\n")
    out = as_json(path, "--label", "y", "--score", "s")
    assert out["auc"] == 0.75 and out["positives"] == 2   # 3 of 4 pairs ordered


# ============================================================================ bad input
def _bad_csv(tmp_path, rows, name="bad.csv"):
    path = tmp_path / name
    path.write_text("id,label,score,w\n" + "\n".join(rows) + "\n")
    return str(path)


GOOD = ["1,0,0.1,1", "2,1,0.8,1", "3,0,0.4,2", "4,1,0.35,1"]


@pytest.mark.parametrize("row, where, detail", [
    ("5,1,abc,1", "line 6 (row 5), column 'score'", "'abc' is not a number"),
    ("5,1,nan,1", "line 6 (row 5), column 'score'", "'nan' is not finite (NaN or infinity)"),
    ("5,1,,1", "line 6 (row 5), column 'score'", "missing value (empty cell)"),
    ("5,1,0.5", "line 6 (row 5)", "expected 4 fields, got 3: '5,1,0.5'"),
    ("5,1,0.5,-1", "line 6 (row 5), column 'w'", "'-1' is not a weight (must be >= 0)"),
    ("5,yes,0.5,1", "line 6 (row 5), column 'label'",
     "'yes' is not a number; labels must be numbers"),
])
def test_bad_rows_fail_with_exit_2_or_are_skipped(tmp_path, row, where, detail):
    path = _bad_csv(tmp_path, GOOD + [row] + GOOD)
    args = [path, "--label", "label", "--score", "score", "--weight", "w"]
    res = run(*args, ok=False)
    assert res.exit_code == 2
    assert f"Error: {path}, {where}: {detail}" in res.stderr
    assert res.stdout == ""
    out = json.loads(run(*args, "--on-error", "skip", "--format", "json").stdout)
    assert out["rows_read"] == 9 and out["rows_skipped"] == 1 and out["n"] == 8
    assert out["first_errors"][0] == f"{path}, {where}: {detail.split(';')[0]}"
    ref = as_json(_bad_csv(tmp_path, GOOD + GOOD, "good.csv"), "--label", "label",
                  "--score", "score", "--weight", "w")
    for k in COUNTS + ("auc",):
        assert out[k] == ref[k]
    # Table: the summary and the skipped rows on stderr.
    res = run(*args, "--on-error", "skip")
    assert res.stderr.startswith(f"{path}: 9 rows read, 1 skipped\n  skipped: {path}, {where}")


def test_unknown_column_and_missing_file(tmp_path):
    path = _bad_csv(tmp_path, GOOD)
    res = run(path, "--label", "label", "--score", "scroe", ok=False)
    assert res.exit_code == 2
    assert (f"{path}, column 'scroe': no such column; the file has the columns 'id', "
            "'label', 'score', 'w'") in res.stderr
    res = run(tmp_path / "nope.csv", "--label", "label", "--score", "score", ok=False)
    assert res.exit_code == 2 and "does not exist" in res.stderr


def test_bad_values_of_special_columns(tmp_path):
    df = _data(20)
    df.loc[7, "event"] = 2
    df.loc[3, "grade"] = -1
    path = _write(df, tmp_path, "csv")
    res = run(path, "--time", "time", "--event", "event", "--score", "score", ok=False)
    assert res.exit_code == 2
    assert "line 9 (row 8), column 'event': '2' is not an event flag" in res.stderr
    res = run(path, "--query", "qid", "--label", "grade", "--score", "score", ok=False)
    assert res.exit_code == 2
    assert ("line 5 (row 4), column 'grade': '-1' is not a relevance grade (must be >= 0)"
            in res.stderr)
    res = run(path, "--label", "grade", "--score", "score", "--group", "user", ok=False)
    assert res.exit_code == 2 and "--group needs binary labels" in res.stderr
    res = run(path, "--label", "user", "--score", "score", "--pos-label", "nobody", ok=False)
    assert res.exit_code == 2 and "no row has the label --pos-label 'nobody'" in res.stderr


def test_nothing_left_to_evaluate(tmp_path):
    path = _bad_csv(tmp_path, ["1,0,x,1", "2,1,y,1"])
    res = run(path, "--label", "label", "--score", "score", "--on-error", "skip", ok=False)
    assert res.exit_code == 2
    assert "nothing to evaluate: all 2 rows were skipped (first: " in res.stderr
    empty = _bad_csv(tmp_path, [], "empty.csv")
    res = run(empty, "--label", "label", "--score", "score", ok=False)
    assert res.exit_code == 2 and "the file has no data rows" in res.stderr


def test_undefined_metric_is_nan_with_a_warning(tmp_path):
    path = _bad_csv(tmp_path, ["1,1,0.1,1", "2,1,0.8,1"])
    res = run(path, "--label", "label", "--score", "score", "--format", "json")
    out = json.loads(res.stdout)
    assert out["auc"] == out["gini"] == "nan" and out["comparable"] == 0
    assert "note: undefined (nan): auc, gini, pairwise_accuracy" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["--score", "score"], "Missing option '--label'"),
    (["--label", "label"], "Missing option '--score'"),
    (["--time", "id", "--label", "label", "--score", "score"], "cannot be used with --label"),
    (["--event", "label", "--label", "label", "--score", "score"], "--event needs --time"),
    (["--label", "label", "--score", "score", "--group", "id", "--query", "id"], "exclusive"),
    (["--label", "label", "--score", "score", "--query", "id", "--weight", "w"],
     "--weight cannot be used with --query"),
    (["--label", "label", "--score", "score", "--k", "3"], "--k is the cut-off"),
    (["--label", "label", "--score", "score", "--dask", "sync", "--on-error", "skip"],
     "--on-error skip cannot be used with --dask"),
    (["--label", "label", "--score", "score", "--dask", "sync", "--max-fpr", "0.5"],
     "--max-fpr cannot be used with --dask"),
    (["--label", "label", "--score", "score", "--workers", "2"], "--workers is for --dask"),
    (["--label", "label", "--score", "score", "--k", "0", "--query", "id"], "--k"),
    (["--label", "label", "--score", "score", "--format", "xml"], "--format"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    res = run(_bad_csv(tmp_path, GOOD), *args, ok=False)
    assert res.exit_code == 2 and message in res.stderr, res.stderr


# ============================================================================ dask
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_dask_route_equals_numpy(tmp_path, fmt):
    pytest.importorskip("dask.dataframe")
    df = _data()
    df["empty_grade"] = np.where(df["qid"] < 3, 0, df["grade"])   # 3 queries without one
    path = _write(df, tmp_path, fmt)
    for extra in (["--label", "label", "--score", "score", "--group", "user"],
                  ["--label", "grade", "--score", "score", "--weight", "w"],
                  ["--label", "label", "--score", "score", "--pos-label", "0"],
                  ["--time", "time", "--event", "event", "--score", "score"],
                  ["--query", "qid", "--label", "grade", "--score", "score", "--k", "4"],
                  ["--query", "qid", "--label", "empty_grade", "--score", "score"]):
        ref = as_json(path, *extra)
        out = as_json(path, *extra, "--dask", "sync")
        assert out["rows_read"] == ref["rows_read"] and out["label_kind"] == ref["label_kind"]
        for k, v in out.items():
            if k in ("file", "first_errors"):
                continue
            if isinstance(v, int) and not isinstance(v, bool):
                assert v == ref[k], (extra, k)
            elif isinstance(v, float):
                assert close(v, ref[k]), (extra, k, v, ref[k])


def test_dask_bad_value_is_an_input_error(tmp_path):
    pytest.importorskip("dask.dataframe")
    path = _bad_csv(tmp_path, GOOD + ["5,1,0.5,-1"])
    res = run(path, "--label", "label", "--score", "score", "--weight", "w", "--dask", "sync",
              ok=False)
    assert res.exit_code == 2 and path in res.stderr and "non-negative" in res.stderr


def test_dask_local_cluster_one_worker(tmp_path):
    pytest.importorskip("distributed")
    df = _data(200)
    path = _write(df, tmp_path, "parquet")
    out = as_json(path, "--label", "label", "--score", "score", "--dask", "local",
                  "--workers", "1")
    check_counts(out, sr.pair_counts(df["label"], df["score"]).as_dict(), COUNTS + ("auc",))


# ============================================================================ entry point
def test_console_entry_point_and_stdin(tmp_path):
    df = _data(100)
    path = _write(df, tmp_path, "csv")
    ref = sr.pair_counts(df["label"], df["score"])
    cmd = [sys.executable, "-m", "streamrank.cli", "eval"]
    proc = subprocess.run(cmd + [path, "--label", "label", "--score", "score", "--format",
                                 "json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["concordant"], out["discordant"], out["tied_score"]) == (
        ref.concordant, ref.discordant, ref.tied_score)
    assert out["auc"] == ref.auc
    with open(path) as f:
        proc = subprocess.run(cmd + ["-", "--label", "label", "--score", "score", "--format",
                                     "csv"], stdin=f, capture_output=True, text=True,
                              timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"concordant,{ref.concordant}" in proc.stdout.splitlines()
    assert proc.stderr.startswith("<stdin>: 100 rows read")
    proc = subprocess.run(cmd + [path, "--label", "note", "--score", "score"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert f"{path}, line 2 (row 1), column 'note'" in proc.stderr


def test_help_lists_the_options():
    res = CliRunner().invoke(main, ["eval", "--help"])
    assert res.exit_code == 0
    for opt in ("--label", "--score", "--group", "--query", "--weight", "--time", "--event",
                "--format", "--on-error", "--progress", "--dask", "--workers", "--pos-label",
                "--max-fpr", "--k"):
        assert opt in res.output


# ============================================================================ review fixes
@pytest.mark.parametrize("args, first, second, column", [
    (["--label", "score", "--score", "score"], "label", "score", "score"),
    (["--label", "label", "--score", "score", "--weight", "score"], "score", "weight", "score"),
    (["--label", "label", "--score", "score", "--group", "label"], "label", "group", "label"),
    (["--label", "id", "--pos-label", "3", "--score", "score", "--group", "id"],
     "label", "group", "id"),
    (["--time", "score", "--score", "score"], "score", "time", "score"),
])
def test_one_column_for_two_options_is_a_usage_error(tmp_path, args, first, second, column):
    res = run(_bad_csv(tmp_path, GOOD), *args, ok=False)
    assert res.exit_code == 2 and res.stdout == ""
    assert (f"--{first} and --{second} name the same column {column!r}: each needs a column "
            "of its own.") in res.stderr


def test_one_label_class_counts_its_rows(tmp_path):
    """All labels 1 (or all --pos-label): every row is a positive, AUC undefined."""
    path = _bad_csv(tmp_path, ["1,1,0.1,1", "2,1,0.8,1", "3,1,0.5,1"])
    for extra in ([], ["--pos-label", "1"]):
        out = as_json(path, "--label", "label", "--score", "score", *extra)
        assert (out["positives"], out["negatives"], out["auc"]) == (3, 0, "nan")
    path = _bad_csv(tmp_path, ["1,0,0.1,1", "2,0,0.8,1"], "zeros.csv")
    out = as_json(path, "--label", "label", "--score", "score")
    assert (out["positives"], out["negatives"]) == (0, 2)


def test_pos_label_matches_every_spelling_of_the_number(tmp_path):
    """Text labels "1" and "1.0" (and "true") are all the positive label 1, as the reader
    reads them in a numeric column; "x" is another label."""
    path = tmp_path / "mixed.csv"
    path.write_text("y,s\n1,0.9\n1.0,0.8\ntrue,0.2\n0,0.1\nx,0.5\n")
    out = as_json(path, "--label", "y", "--score", "s", "--pos-label", "1")
    # Positives 0.9, 0.8, 0.2 against negatives 0.1, 0.5: 5 of 6 pairs ordered.
    assert (out["positives"], out["negatives"], out["concordant"]) == (3, 2, 5)


def test_pos_label_not_found_lists_some_labels(tmp_path):
    df = pd.DataFrame({"y": np.arange(12), "s": np.linspace(0, 1, 12)})
    path = _write(df, tmp_path, "csv")
    res = run(path, "--label", "y", "--score", "s", "--pos-label", "99", ok=False)
    assert res.exit_code == 2
    assert "no row has the label --pos-label '99' (labels: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...)" \
        in res.stderr


def test_dask_usage_errors_name_the_option(tmp_path):
    res = run("-", "--label", "label", "--score", "score", "--dask", "sync", ok=False)
    assert res.exit_code == 2 and "--dask reads files, not standard input" in res.stderr
    path = _bad_csv(tmp_path, GOOD)
    res = run(path, "--label", "label", "--score", "score", "--pos-label", "spam", "--dask",
              "sync", ok=False)
    assert res.exit_code == 2 and "--pos-label with text labels cannot be used" in res.stderr
