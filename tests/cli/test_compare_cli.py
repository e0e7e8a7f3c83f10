"""`streamrank compare` through click's CliRunner, the figures, and the drift example."""

import csv
import gzip
import io
import json
import os
import runpy
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from streamrank.cli._common import format_records
from streamrank.compare import (GSDFront, cardinal, gsd_front, gsd_test, ordinal,
                                performance_table)
from streamrank.cli._compare_output import comparison_report, pair_records
from streamrank.cli.compare import compare, parse_metric
from streamrank.plot import plot_comparison
from paths import ROOT

PMLB = ROOT / "tests" / "data" / "gsd" / "pmlb_gsd_input.csv"
PNG = b"\x89PNG\r\n\x1a\n"
PMLB_ARGS = [str(PMLB), "--model-col", "classifier", "--dataset-col", "dataset_index",
             "--cardinal", "results_clean_stacked", "--ordinal", "results_noisy_x_stacked:4",
             "--ordinal", "results_noisy_y_stacked:larger:4"]


def _small_csv(tmp_path, rows=None):
    path = tmp_path / "perf.csv"
    rows = rows or [
        "model,dataset,acc,time,grade",
        "a,d1,0.80,3.0,low", "a,d2,0.90,1.0,high", "a,d3,0.70,2.0,mid",
        "b,d1,0.70,1.0,mid", "b,d2,0.75,2.0,low", "b,d3,0.65,2.5,low",
        "c,d1,0.90,5.0,high", "c,d2,0.60,4.0,high", "c,d3,0.85,6.0,mid",
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_pmlb_front_and_test_with_plot(tmp_path):
    out = tmp_path / "gsd.png"
    res = CliRunner().invoke(compare, PMLB_ARGS + [
        "--model", "cre", "--competitor", "J48", "--competitor", "ranger",
        "-B", "20", "--seed", "0", "--contamination", "0,2", "--bonferroni", "--plot", str(out)])
    assert res.exit_code == 0, res.output
    assert "Strict dominances: ranger > cre" in res.output
    assert "GSD front:    svmRadial, J48, ranger, knn, glmnet" in res.output
    assert "Pareto front: cre, svmRadial, J48, ranger, knn, glmnet" in res.output
    assert "level=0.025, Bonferroni" in res.output
    assert "p_value_k2" in res.output
    assert "cre is NOT shown to be in the GSD front" in res.output
    assert "   0.0476" in res.output  # ranger over cre, natural scale
    assert out.read_bytes().startswith(PNG)


def test_cli_small_file_front_only(tmp_path):
    path = _small_csv(tmp_path)
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "acc",
                                       "--ordinal", "time:smaller",
                                       "--ordinal", "grade:low<mid<high"])
    assert res.exit_code == 0, res.output
    assert "3 models x 3 data sets" in res.output
    assert "GSD front:" in res.output and "Permutation" not in res.output


@pytest.mark.parametrize("args,message", [
    (["--cardinal", "nope"], "perf.csv, column 'nope': no such column; the file has the columns"),
    (["--cardinal", "acc", "--model-col", "who"], "perf.csv, column 'who': no such column"),
    (["--cardinal", "acc", "--model", "zzz"], "The '--model' parameter of compare must be one of"),
    (["--cardinal", "acc", "--model", "a", "--competitor", "q"],
     "The 'competitors' parameter of gsd_test"),
    (["--ordinal", "grade"], "perf.csv, line 2 (row 1), column 'grade': 'low' is not a number"),
    (["--ordinal", "grade:low<high"],
     "perf.csv, row 3, column 'grade': 'mid' is not one of the categories low < high"),
    (["--cardinal", "acc", "--cardinal", "acc"], "The 'metrics' parameter of "
     "read_performance_table must be metrics with distinct names"),
    (["--cardinal", "model"], "must be metric columns other than the model and data set"),
    ([], "Declare at least one metric"),
    (["--cardinal", "acc", "--contamination", "x"], "comma-separated ints"),
    (["--cardinal", "acc", "--contamination", "1,-1"], "comma-separated ints"),
    (["--cardinal", "acc", "--epsilon", "3"], "--epsilon"),
    (["--cardinal", "acc", "-B", "0"], "--permutations"),
    (["--cardinal", "acc", "--format", "xml"], "--format"),
    (["--cardinal", "acc", "--delimiter", ";"], "'--delimiter': expected ',' or a tab"),
    (["--cardinal", "acc", "--delimiter", ",", "--input-format", "tsv"], "disagree"),
    (["--cardinal", "acc", "--plot", "/no/such/folder/x.png"], "does not exist"),
])
def test_cli_usage_errors_exit_2(tmp_path, args, message):
    path = _small_csv(tmp_path)
    res = CliRunner().invoke(compare, [str(path)] + args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output
    assert isinstance(res.exception, SystemExit)


def _assert_input_error(res, *parts):
    """Exit code 2, the message on stderr naming every part of the location, no traceback."""
    assert res.exit_code == 2, res.output
    assert isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output
    for part in parts:
        assert part in res.stderr, res.stderr


def test_cli_input_errors_exit_2(tmp_path):
    runner = CliRunner()
    res = runner.invoke(compare, [str(tmp_path / "missing.csv"), "--cardinal", "acc"])
    assert res.exit_code == 2 and "does not exist" in res.output
    nan = _small_csv(tmp_path, ["model,dataset,acc", "a,1,0.5", "a,2,NaN", "b,1,0.7", "b,2,0.8"])
    _assert_input_error(runner.invoke(compare, [str(nan), "--cardinal", "acc"]),
                        f"{nan}, line 3 (row 2), column 'acc': 'NaN' is not finite")
    ragged = _small_csv(tmp_path, ["model,dataset,acc", "a,1,0.5,9"])
    _assert_input_error(runner.invoke(compare, [str(ragged), "--cardinal", "acc"]),
                        f"{ragged}, line 2 (row 1)", "'a,1,0.5,9'")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    _assert_input_error(runner.invoke(compare, [str(empty), "--cardinal", "acc"]),
                        f"{empty}: empty file")
    header_only = _small_csv(tmp_path, ["model,dataset,acc"])
    _assert_input_error(runner.invoke(compare, [str(header_only), "--cardinal", "acc"]),
                        f"{header_only}: no data rows")


def test_cli_bad_number_cell_names_file_row_column_value(tmp_path):
    path = _small_csv(tmp_path, ["model,dataset,acc,time", "a,d1,0.8,1", "a,d2,0.9,2",
                                 "b,d1,0.7,3", "b,d2,oops,4"])
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "acc", "--ordinal", "time"])
    _assert_input_error(res, f"{path}, line 5 (row 4), column 'acc': 'oops' is not a number")


def test_cli_duplicate_row_names_both_rows(tmp_path):
    path = _small_csv(tmp_path, ["model,dataset,acc", "a,d1,0.8", "a,d2,0.9", "b,d1,0.7",
                                 "a,d2,0.5", "b,d2,0.6"])
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "acc"])
    _assert_input_error(res, f"{path}, row 4: a second row for model 'a' and dataset 'd2' "
                             "(the first is row 2)")


def test_cli_missing_column_lists_the_columns(tmp_path):
    path = _small_csv(tmp_path)
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "accuracy"])
    _assert_input_error(res, f"{path}, column 'accuracy': no such column",
                        "'model', 'dataset', 'acc', 'time', 'grade'")


@pytest.mark.parametrize("name", ["garbage.csv", "garbage.parquet", "garbage.jsonl",
                                  "garbage.csv.gz"])
def test_cli_binary_garbage_exit_2_without_traceback(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(bytes(range(256)) * 8)
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "acc"])
    _assert_input_error(res, str(path))
    assert "codec can't decode" not in res.stderr


def test_cli_parquet_garbage_in_a_subprocess(tmp_path):
    """The installed entry point: exit 2, one line naming the file, no traceback."""
    path = tmp_path / "results.parquet"
    path.write_bytes(b"PAR1" + bytes(range(256)) * 4)
    proc = subprocess.run([sys.executable, "-m", "streamrank.cli", "compare", str(path),
                           "--cardinal", "acc"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and str(path) in proc.stderr
    assert proc.stdout == ""


# ------------------------------------------------------------------ formats of the input
def _write_formats(tmp_path, rows: dict) -> dict:
    """The same table as CSV, CSV.gz, TSV, Parquet, a Parquet directory and JSON lines."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = list(rows)
    n = len(rows[names[0]])
    lines = [",".join(names)] + [",".join(str(rows[c][i]) for c in names) for i in range(n)]
    paths = {"csv": tmp_path / "t.csv", "gz": tmp_path / "t.csv.gz", "tsv": tmp_path / "t.tsv",
             "parquet": tmp_path / "t.parquet", "dir": tmp_path / "parts",
             "jsonl": tmp_path / "t.jsonl"}
    paths["csv"].write_text("\n".join(lines) + "\n")
    with gzip.open(paths["gz"], "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    paths["tsv"].write_text("\n".join(line.replace(",", "\t") for line in lines) + "\n")
    table = pa.table(rows)
    pq.write_table(table, paths["parquet"])
    paths["dir"].mkdir()
    pq.write_table(table.slice(0, n // 2), paths["dir"] / "part-0.parquet")
    pq.write_table(table.slice(n // 2), paths["dir"] / "part-1.parquet")
    paths["jsonl"].write_text("\n".join(
        json.dumps({c: rows[c][i] for c in names}) for i in range(n)) + "\n")
    return paths


SMALL = {"model": ["a"] * 4 + ["b"] * 4 + ["c"] * 4, "dataset": [1, 2, 3, 4] * 3,
         "acc": [.80, .90, .70, .85, .70, .75, .65, .72, .90, .60, .85, .80],
         "time": [3.0, 1.0, 2.0, 2.5, 1.0, 2.0, 2.5, 1.5, 5.0, 4.0, 6.0, 5.5],
         "grade": ["low", "high", "mid", "mid", "mid", "low", "low", "mid", "high", "high",
                   "mid", "low"]}
SMALL_ARGS = ["--cardinal", "acc", "--ordinal", "time:smaller", "--ordinal", "grade:low<mid<high",
              "--model", "a", "-B", "30", "--seed", "3", "--contamination", "0,1"]


def _json_out(args):
    res = CliRunner().invoke(compare, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    doc.pop("file")
    return doc


def test_cli_reads_parquet_and_every_format_alike(tmp_path):
    paths = _write_formats(tmp_path, SMALL)
    ref = _json_out([str(paths["csv"])] + SMALL_ARGS + ["--format", "json"])
    assert ref["models"] == ["a", "b", "c"] and ref["datasets"] == 4
    assert len(ref["pairs"]) == 6 and ref["test"]["model"] == "a"
    for kind in ("gz", "tsv", "parquet", "dir", "jsonl"):
        assert _json_out([str(paths[kind])] + SMALL_ARGS + ["--format", "json"]) == ref, kind
    # the library on the same columns gives the same front
    table = performance_table(SMALL, metrics=[cardinal("acc"), ordinal("time", "smaller"),
                                              ordinal("grade", categories=["low", "mid", "high"])])
    front = gsd_front(table)
    assert ref["gsd_front"] == list(front.front)
    assert ref["strict_dominances"] == [list(e) for e in front.edges]


def test_cli_parquet_input_table_output(tmp_path):
    paths = _write_formats(tmp_path, SMALL)
    res = CliRunner().invoke(compare, [str(paths["parquet"])] + SMALL_ARGS)
    assert res.exit_code == 0, res.output
    assert "3 models x 4 data sets" in res.output
    assert "Permutation tests of H0 'competitor dominates a'" in res.output


def test_cli_stdin_and_old_delimiter(tmp_path):
    text = _small_csv(tmp_path).read_text()
    args = ["--cardinal", "acc", "--format", "json"]
    ref = _json_out([str(_small_csv(tmp_path))] + args)
    res = CliRunner().invoke(compare, ["-"] + args, input=text)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["file"] == "<stdin>"
    tsv = tmp_path / "perf.txt"
    tsv.write_text(text.replace(",", "\t"))
    assert _json_out([str(tsv), "--delimiter", "\t"] + args) == ref
    assert _json_out([str(tsv), "--input-format", "tsv"] + args) == ref


def test_cli_numeric_labels_and_categories(tmp_path):
    """Model labels and category labels read as numbers still match the command line."""
    path = _small_csv(tmp_path, ["model,dataset,acc,grade", "1,d1,0.8,1", "1,d2,0.9,3",
                                 "2,d1,0.7,2", "2,d2,0.75,1", "3,d1,0.6,1", "3,d2,0.7,2"])
    res = CliRunner().invoke(compare, [str(path), "--cardinal", "acc", "--ordinal",
                                       "grade:1<2<3.0", "--model", "1", "--competitor", "3",
                                       "-B", "9", "--seed", "0", "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["models"] == [1, 2, 3] and doc["test"]["model"] == 1
    assert [t["competitor"] for t in doc["test"]["tests"]] == [3]
    assert "categories=('1', '2', '3.0')" in doc["metrics"][0]


# ------------------------------------------------------------------ formats of the output
def test_cli_format_json_is_valid_and_complete(tmp_path):
    out = tmp_path / "g.png"
    res = CliRunner().invoke(compare, PMLB_ARGS + [
        "--model", "cre", "-B", "20", "--seed", "0", "--contamination", "0,2",
        "--format", "json", "--plot", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)            # stdout holds the JSON only
    assert "Plot written to" in res.stderr and out.read_bytes().startswith(PNG)
    assert doc["file"] == str(PMLB) and doc["datasets"] == 63 and len(doc["models"]) == 6
    assert doc["rows"] == 6 * 63
    assert doc["strict_dominances"] == [["ranger", "cre"]]
    assert doc["gsd_front"] == ["svmRadial", "J48", "ranger", "knn", "glmnet"]
    assert len(doc["pairs"]) == 30
    pair = next(p for p in doc["pairs"] if p["model"] == "cre" and p["competitor"] == "ranger")
    assert pair["competitor_dominates"] and pair["strictly"] and not pair["pareto"]
    assert pair["statistic"] == pytest.approx(0.047619, abs=1e-6)
    test = doc["test"]
    assert (test["model"], test["permutations"], test["seed"]) == ("cre", 20, 0)
    assert test["in_front"] is False and test["robust_in_front"] == {"2": False}
    # the same numbers as the library
    table = performance_table(
        [dict(r) for r in csv.DictReader(open(PMLB, newline=""))], model="classifier",
        dataset="dataset_index", metrics=[cardinal("results_clean_stacked"),
                                          ordinal("results_noisy_x_stacked", bins=4),
                                          ordinal("results_noisy_y_stacked", bins=4)])
    r = gsd_test(table, "cre", permutations=20, seed=0, contamination=[0, 2])
    assert [t["p_value"] for t in test["tests"]] == [t.p_value for t in r.tests]
    assert [t["p_value_k2"] for t in test["tests"]] == [t.robust_p_values[2] for t in r.tests]


def test_cli_format_csv_one_line_per_ordered_pair(tmp_path):
    res = CliRunner().invoke(compare, PMLB_ARGS + ["--model", "cre", "-B", "20", "--seed", "0",
                                                   "--contamination", "0,2", "--format", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(rows) == 30
    assert list(rows[0]) == ["model", "competitor", "statistic", "competitor_dominates",
                             "strictly", "pareto", "p_value", "n_le", "n_below", "rejected",
                             "p_value_k2"]
    tested = [r for r in rows if r["model"] == "cre"]
    assert len(tested) == 5 and all(r["p_value"] != "" for r in tested)
    assert all(r["p_value"] == "" for r in rows if r["model"] != "cre")
    ranger = next(r for r in tested if r["competitor"] == "ranger")
    assert ranger["strictly"] == "True" and float(ranger["p_value"]) == 1.0
    # without --model: the relation only, as docs/compare.md shows it
    res = CliRunner().invoke(compare, PMLB_ARGS + ["--format", "csv"])
    assert list(next(csv.reader(io.StringIO(res.stdout)))) == [
        "model", "competitor", "statistic", "competitor_dominates", "strictly", "pareto"]
    shown = _docs_block("The first lines of the CSV of the example")
    assert res.stdout.splitlines()[:len(shown)] == shown


def _docs_block(after: str) -> list:
    """The lines of the first code block after the text ``after`` in docs/compare.md."""
    text = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    rest = text[text.index(after):]
    start = rest.index("```\n") + 4
    return rest[start:rest.index("```", start)].rstrip("\n").splitlines()


def test_docs_example_output_is_the_commands(tmp_path):
    """The relation and fronts of the example run in docs/compare.md, as the command prints
    them (the test section depends on B and is checked against the library elsewhere)."""
    shown = _docs_block("\nprints\n")
    shown = shown[:next(i for i, line in enumerate(shown) if line.startswith("Pareto front:")) + 1]
    res = CliRunner().invoke(compare, PMLB_ARGS)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == shown


def test_report_non_finite_numbers_are_strings():
    """A statistic that is not finite (an LP that failed) is the string "nan" or "inf" in
    JSON (strict JSON: no NaN literal), the same text in CSV."""
    models = ("a", "b")
    d = np.array([[np.nan, np.inf], [np.nan, np.nan]])
    no = np.zeros((2, 2), dtype=bool)
    front = GSDFront(models, d, no, no, models, no, models)
    recs = pair_records(front)
    assert [r["statistic"] for r in recs] == ["nan", "inf"]
    json.loads(json.dumps(comparison_report(_table_ab(), front), allow_nan=False))
    assert format_records(recs, "csv").splitlines()[1] == "a,b,nan,False,False,False"


def _table_ab():
    return performance_table({"model": ["a", "b"], "dataset": [1, 1], "acc": [.5, .6]},
                             metrics=[cardinal("acc")])


def test_cli_help():
    res = CliRunner().invoke(compare, ["--help"])
    assert res.exit_code == 0 and "--ordinal" in res.output and "--plot" in res.output


def test_parse_metric_specs():
    assert parse_metric("acc:smaller", "cardinal").direction == "smaller"
    m = parse_metric("t:smaller:10", "ordinal")
    assert (m.bins, m.direction) == (10, "smaller")
    assert parse_metric("a:b", "cardinal").name == "a:b"  # unknown suffix stays in the name


def test_plot_comparison_png_and_validation(tmp_path):
    rng = np.random.default_rng(0)
    t = performance_table({"model": np.repeat(list("abc"), 8), "dataset": np.tile(range(8), 3),
                           "acc": rng.integers(0, 9, 24) / 8, "speed": rng.integers(1, 4, 24)},
                          metrics=[cardinal("acc"), ordinal("speed")])
    front = gsd_front(t)
    test = gsd_test(t, "a", permutations=10, seed=0)
    out = tmp_path / "both.png"
    fig = plot_comparison(front, test, path=out)
    assert out.read_bytes().startswith(PNG)
    assert len(fig.axes) == 3
    fig = plot_comparison(test=test, path=tmp_path / "test.png")
    assert len(fig.axes) == 2
    with pytest.raises(ValueError, match="The 'front' parameter of plot_comparison"):
        plot_comparison()
    with pytest.raises(TypeError, match="The 'test' parameter of plot_comparison"):
        plot_comparison(front, test="x")


def test_drift_example_runs(capsys):
    module = runpy.run_path(str(ROOT / "examples" / "gsd_drift.py"))
    module["main"](permutations=99, seed=0)
    out = capsys.readouterr().out
    assert "2 models x 14 data sets" in out
    assert "Degradation: last week does not GSD-dominate the previous week." in out
