"""`streamrank compare` through click's CliRunner, the figures, and the drift example."""

import runpy
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from streamrank.compare import cardinal, gsd_front, gsd_test, ordinal, performance_table
from streamrank.compare.cli import compare, parse_metric
from streamrank.plot import plot_comparison

ROOT = Path(__file__).resolve().parent.parent
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
    assert "p(k=2)" in res.output
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
    (["--cardinal", "nope"], "The 'metrics' parameter of performance_table must be a column"),
    (["--cardinal", "acc", "--model-col", "who"], "The 'model' parameter of performance_table"),
    (["--cardinal", "acc", "--model", "zzz"], "The '--model' parameter of compare must be one of"),
    (["--cardinal", "acc", "--model", "a", "--competitor", "q"],
     "The 'competitors' parameter of gsd_test"),
    (["--ordinal", "grade"], "numbers in the ordinal metric column 'grade'"),
    (["--ordinal", "grade:low<high"], "one of the categories ['low', 'high']"),
    ([], "Declare at least one metric"),
    (["--cardinal", "acc", "--contamination", "x"], "comma-separated ints"),
    (["--cardinal", "acc", "--epsilon", "3"], "--epsilon"),
    (["--cardinal", "acc", "-B", "0"], "--permutations"),
])
def test_cli_usage_errors_exit_2(tmp_path, args, message):
    path = _small_csv(tmp_path)
    res = CliRunner().invoke(compare, [str(path)] + args)
    assert res.exit_code == 2, res.output
    assert message in res.output


def test_cli_input_errors_exit_2(tmp_path):
    runner = CliRunner()
    res = runner.invoke(compare, [str(tmp_path / "missing.csv"), "--cardinal", "acc"])
    assert res.exit_code == 2 and "does not exist" in res.output
    nan = _small_csv(tmp_path, ["model,dataset,acc", "a,1,0.5", "a,2,NaN", "b,1,0.7", "b,2,0.8"])
    res = runner.invoke(compare, [str(nan), "--cardinal", "acc"])
    assert res.exit_code == 2
    assert "finite numbers in the cardinal metric column 'acc'. Got nan at row 1" in res.output
    ragged = _small_csv(tmp_path, ["model,dataset,acc", "a,1,0.5,9"])
    res = runner.invoke(compare, [str(ragged), "--cardinal", "acc"])
    assert res.exit_code == 2 and "line 2: 4 fields, expected 3" in res.output
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    res = runner.invoke(compare, [str(empty), "--cardinal", "acc"])
    assert res.exit_code == 2 and "is empty" in res.output


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
