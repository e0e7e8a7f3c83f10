"""``streamrank epochs``: every epoch's counts equal `pair_counts`, churn equals the O(n^2)
count of flipped pairs, in every output format and input format; every error path exits 2
with a message naming the file, the row and the value; ``--on-error skip`` drops an item
from every epoch; the plot is a PNG.

Generated runs: scores on a coarse grid (heavy ties), some epochs changing every score (a
full ``step``), some changing one score (``step_partial``), rows shuffled per file."""

from __future__ import annotations

import csv
import io
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from oracle import pair_counts_brute
from streamrank import pair_counts
from streamrank.cli import main

FIELDS = ("concordant", "discordant", "tied_score")


# --------------------------------------------------------------------------- data
def _write(path: Path, columns: dict) -> Path:
    """Write columns (name -> list) as CSV, Parquet or JSON lines, by the suffix."""
    names = list(columns)
    n = len(columns[names[0]])
    if path.suffix == ".parquet":
        pq.write_table(pa.table(columns), path)
    elif path.suffix == ".jsonl":
        with open(path, "w") as f:
            for i in range(n):
                f.write(json.dumps({c: columns[c][i] for c in names}) + "\n")
    else:
        with open(path, "w") as f:
            f.write(",".join(names) + "\n")
            for i in range(n):
                f.write(",".join(_text(columns[c][i]) for c in names) + "\n")
    return path


def _text(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def _scores(rng, n, epochs):
    """Score vectors with heavy ties; epochs alternate between moving every score and
    moving one score (the incremental path) or none."""
    grid = np.linspace(0, 1, 6)
    s = rng.choice(grid, n)
    out = [s]
    for e in range(1, epochs):
        s = s.copy()
        if e % 3 == 1:
            s = np.clip(s + rng.choice([-0.2, 0.0, 0.2], n), 0, 1).round(1)
        elif e % 3 == 2:
            s[rng.integers(n)] = rng.choice(grid)
        out.append(s)
    return out


def _labels(rng, kind, n):
    if kind == "binary":
        return rng.integers(0, 2, n)
    if kind == "ordinal":
        return rng.integers(0, 4, n)
    return rng.normal(size=n).round(2)


def _make_run(tmp_path, *, ext=".csv", kind="binary", n=120, epochs=5, seed=0,
              shuffle=True, weighted=False, id_kind="text"):
    """A label file and one score file per epoch; returns the truth in item order."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, kind, n)
    ids = [f"item{i:03d}" if id_kind == "text" else 1000 + i for i in range(n)]
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    cols = {"id": ids, "y": [v.item() for v in y]}
    if weighted:
        cols["w"] = w.tolist()
    labels = _write(tmp_path / f"labels{ext}", cols)
    scores = _scores(rng, n, epochs)
    files = []
    for e, s in enumerate(scores, start=1):
        order = rng.permutation(n) if shuffle else np.arange(n)
        files.append(_write(tmp_path / f"epoch_{e}{ext}",
                            {"extra": ["x"] * n, "id": [ids[i] for i in order],
                             "p": [float(s[i]) for i in order]}))
    return {"y": y, "w": w, "ids": ids, "scores": scores, "labels": labels, "files": files}


def _run(args, expect=0):
    result = CliRunner().invoke(main, ["epochs", *map(str, args)])
    assert result.exit_code == expect, (result.output, result.exception)
    return result


def _json(args):
    return json.loads(_run([*args, "--format", "json"]).stdout)


def _churn_oracle(old, new, w=None):
    """Pairs whose order flipped strictly, by the O(n^2) sign matrix."""
    d_old = np.sign(old[:, None] - old[None, :])
    d_new = np.sign(new[:, None] - new[None, :])
    flipped = np.triu(d_old * d_new < 0, k=1)
    if w is None:
        return int(flipped.sum())
    return float((np.outer(w, w) * flipped).sum())


def _check_report(doc, run, metric):
    y, w = run["y"], run["w"]
    assert doc["items"] == len(y) and doc["metric"] == metric
    previous = None
    for record, s in zip(doc["epochs"], run["scores"], strict=True):
        ref = pair_counts(y, s, sample_weight=w)
        for f in FIELDS:
            assert record[f] == pytest.approx(getattr(ref, f), rel=1e-12), f
            if w is None:
                assert record[f] == getattr(ref, f)  # exact integers
        assert record[metric] == pytest.approx(getattr(ref, metric), rel=1e-12)
        if metric == "c_index":
            assert record["tau_b"] == pytest.approx(ref.tau_b, rel=1e-12)
        assert record["right_wrong"] == pytest.approx(ref.right_wrong_ratio, rel=1e-12)
        if previous is None:
            assert record["churn"] is None and record["changed"] is None
            assert record["d_" + metric] is None
        else:
            churn = _churn_oracle(previous, s, w)
            assert record["churn"] == pytest.approx(churn, rel=1e-12)
            assert record["churn_rate"] == pytest.approx(churn / ref.total, rel=1e-12)
            assert record["changed"] == int((previous != s).sum())
            assert record["d_" + metric] == pytest.approx(
                getattr(ref, metric) - getattr(pair_counts(y, previous, sample_weight=w),
                                               metric), abs=1e-12)
        previous = s
    values = [getattr(pair_counts(y, s, sample_weight=w), metric) for s in run["scores"]]
    assert doc["best_epoch"] == int(np.argmax(values)) + 1


# --------------------------------------------------------------------------- results
@pytest.mark.parametrize("ext", [".csv", ".parquet", ".jsonl"])
@pytest.mark.parametrize("kind,metric", [("binary", "auc"), ("ordinal", "c_index"),
                                         ("continuous", "c_index")])
def test_every_epoch_matches_pair_counts_and_churn_oracle(tmp_path, ext, kind, metric):
    run = _make_run(tmp_path, ext=ext, kind=kind, seed=len(ext) + len(kind))
    doc = _json([*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
                 "--id", "id"])
    _check_report(doc, run, metric)
    assert [r["file"] for r in doc["epochs"]] == [str(f) for f in run["files"]]
    assert doc["rows_skipped"] == {} and doc["dropped_items"] == 0


def test_weights_and_integer_ids(tmp_path):
    run = _make_run(tmp_path, ext=".parquet", kind="ordinal", weighted=True, id_kind="int")
    doc = _json([*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
                 "--id", "id", "--weight", "w"])
    assert doc["weighted"] is True
    _check_report(doc, run, "c_index")


def test_ids_match_across_formats(tmp_path):
    """Integer ids in a Parquet label file match the same ids in CSV and JSON-lines."""
    run = _make_run(tmp_path, ext=".parquet", id_kind="int", epochs=3)
    csv_file = tmp_path / "e_csv.csv"
    jsonl_file = tmp_path / "e_jsonl.jsonl"
    table = pq.read_table(run["files"][1]).to_pydict()
    _write(csv_file, table)
    _write(jsonl_file, table)
    doc = _json([run["files"][0], csv_file, jsonl_file, "--order", "given", "--labels",
                 run["labels"], "--label", "y", "--score", "p", "--id", "id"])
    run["scores"] = [run["scores"][0], run["scores"][1], run["scores"][1]]
    _check_report(doc, run, "auc")


def test_small_case_against_the_brute_force_oracle(tmp_path):
    y = [0, 1, 1, 0, 2, 2, 1]
    epochs = [[0.5, 0.5, 0.7, 0.1, 0.9, 0.9, 0.5], [0.5, 0.2, 0.7, 0.1, 0.9, 0.3, 0.5]]
    _write(tmp_path / "y.csv", {"y": y})
    files = [_write(tmp_path / f"s{i}.csv", {"p": e}) for i, e in enumerate(epochs)]
    doc = _json([*files, "--labels", tmp_path / "y.csv", "--label", "y", "--score", "p"])
    for record, s in zip(doc["epochs"], epochs):
        ref = pair_counts_brute(y, s)
        assert (record["concordant"], record["discordant"], record["tied_score"]) == \
            (ref.C, ref.D, ref.T)
        assert record["c_index"] == pytest.approx(float(ref.C + ref.T / 2) / ref.P)
    assert doc["epochs"][1]["churn"] == _churn_oracle(np.array(epochs[0]),
                                                      np.array(epochs[1]))


def test_position_alignment_equals_id_alignment(tmp_path):
    run = _make_run(tmp_path, shuffle=False, kind="ordinal")
    base = [*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p"]
    by_position = _json(base)
    by_id = _json([*base, "--id", "id"])
    assert by_position["epochs"] == by_id["epochs"]
    _check_report(by_position, run, "c_index")


def test_labels_default_to_the_first_epoch_file(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 50)
    scores = _scores(rng, 50, 3)
    files = [_write(tmp_path / f"e{i}.jsonl", {"y": y.tolist(), "p": s.tolist()})
             for i, s in enumerate(scores)]
    doc = _json([*files, "--label", "y", "--score", "p"])
    assert doc["labels_file"] == str(files[0])
    _check_report(doc, {"y": y, "w": None, "scores": scores}, "auc")


def test_output_formats_agree(tmp_path):
    run = _make_run(tmp_path, epochs=4)
    base = [*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
            "--id", "id"]
    doc = _json(base)
    rows = list(csv.DictReader(io.StringIO(_run([*base, "--format", "csv"]).stdout)))
    assert len(rows) == len(doc["epochs"])
    for row, rec in zip(rows, doc["epochs"]):
        assert set(row) == set(rec)
        for key, value in rec.items():
            if value is None:
                assert row[key] == ""
            elif isinstance(value, str):
                assert row[key] == value
            else:
                assert float(row[key]) == pytest.approx(value, rel=1e-15)
    table = _run(base).stdout
    lines = table.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith("epoch "))
    header = lines[header_at].split()
    # the table's titles: the records' keys, the pair counts as C, D, T (the legend says)
    short = {"C": "concordant", "D": "discordant", "T": "tied_score"}
    assert [short.get(h, h) for h in header] == list(doc["epochs"][0])
    assert "C, D, T: concordant, discordant, tied-score pairs" in table
    for line, rec in zip(lines[header_at + 1:], doc["epochs"]):
        cells = dict(zip(header, line.split()))
        assert cells["file"] == Path(rec["file"]).name
        assert int(cells["C"]) == rec["concordant"]
        assert int(cells["D"]) == rec["discordant"]
        assert float(cells["auc"]) == pytest.approx(rec["auc"], rel=1e-5)
    assert f"best epoch: {doc['best_epoch']}" in table
    assert f"{len(run['y'])} items" in lines[0]


def test_natural_order_by_default_given_order_on_request(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 30)
    _write(tmp_path / "y.csv", {"y": y.tolist()})
    scores = {k: rng.random(30).round(2) for k in (1, 2, 10)}
    files = {k: _write(tmp_path / f"epoch_{k}.csv", {"p": s.tolist()})
             for k, s in scores.items()}
    glob_order = sorted(map(str, files.values()))  # what a shell glob gives: 1, 10, 2
    base = ["--labels", tmp_path / "y.csv", "--label", "y", "--score", "p"]
    natural = _json([*glob_order, *base])
    assert [r["file"] for r in natural["epochs"]] == [str(files[k]) for k in (1, 2, 10)]
    given = _json([*glob_order, *base, "--order", "given"])
    assert [r["file"] for r in given["epochs"]] == glob_order
    assert given["epochs"][1]["auc"] == pytest.approx(pair_counts(y, scores[10]).auc)


def test_best_epoch_and_early_stopping_hint(tmp_path):
    y = [0, 0, 0, 1, 1, 1]
    # AUC by epoch: 5/9, 7/9, 7/9, 6/9, 9/9 (strictly improving only at 2 and 5).
    epochs = [[1, 2, 3, 1, 2, 3], [1, 2, 3, 2, 3, 4], [1, 2, 3, 3, 2, 4],
              [1, 2, 3, 2, 2, 3], [1, 2, 3, 4, 5, 6]]
    _write(tmp_path / "y.csv", {"y": y})
    files = [_write(tmp_path / f"e{i}.csv", {"p": [float(v) for v in e]})
             for i, e in enumerate(epochs, start=1)]
    aucs = [pair_counts(y, e).auc for e in epochs]
    assert aucs[1] == aucs[2] > aucs[3] > aucs[0] and aucs[4] == 1.0
    base = [*files, "--labels", tmp_path / "y.csv", "--label", "y", "--score", "p"]
    doc = _json([*base, "--patience", "2"])
    assert (doc["best_epoch"], doc["stop_epoch"], doc["keep_epoch"]) == (5, 4, 2)
    doc = _json([*base, "--patience", "3"])
    assert (doc["stop_epoch"], doc["keep_epoch"]) == (None, 5)
    text = _run([*base, "--patience", "2"]).stdout
    assert "best epoch: 5" in text and "stops after epoch 4, keeps epoch 2" in text


# --------------------------------------------------------------------------- plot
def test_plot_is_a_png_of_sensible_size(tmp_path):
    run = _make_run(tmp_path, kind="ordinal", epochs=4)
    out = tmp_path / "epochs.png"
    result = _run([*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
                   "--id", "id", "--plot", out, "--patience", "1"])
    assert f"plot written to {out}" in result.stdout
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert 400 <= width <= 2000 and 400 <= height <= 2000
    assert 10_000 < len(data) < 2_000_000


def test_plot_to_an_unwritable_path_is_an_input_error(tmp_path):
    run = _make_run(tmp_path, epochs=2)
    result = _run([*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
                   "--plot", tmp_path / "no" / "such" / "dir.png"], expect=2)
    assert "--plot" in result.output and "does not exist" in result.output


# --------------------------------------------------------------------------- errors
def _base(run, *extra):
    return [*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
            "--id", "id", *extra]


def _error(args, *fragments):
    result = _run(args, expect=2)
    for fragment in fragments:
        assert fragment in result.output, result.output
    return result.output


def test_missing_file(tmp_path):
    run = _make_run(tmp_path, epochs=2)
    _error([*_base(run), tmp_path / "epoch_9.csv"], "epoch_9.csv", "does not exist")
    _error([run["files"][0], "--labels", tmp_path / "nope.csv", "--label", "y", "--score",
            "p"], "nope.csv", "does not exist")


@pytest.mark.parametrize("option,column", [("--score", "prob"), ("--label", "target"),
                                           ("--id", "key"), ("--weight", "wt")])
def test_unknown_column(tmp_path, option, column):
    run = _make_run(tmp_path, epochs=2)
    args = _base(run)
    if option == "--weight":
        args += ["--weight", column]
    else:
        args[args.index(option) + 1] = column
    _error(args, f"column {column!r}: no such column", "the file has the columns")


def test_missing_extra_and_repeated_ids(tmp_path):
    run = _make_run(tmp_path, epochs=2, shuffle=False)
    ids, s = run["ids"], run["scores"][1]
    bad = tmp_path / "epoch_2.csv"
    _write(bad, {"id": ids[:-1], "p": s[:-1].tolist()})
    _error(_base(run), f"{bad} lacks 1 of the 120 ids of {run['labels']}: 'item119'")
    _write(bad, {"id": ids[:-1] + ["ghost"], "p": s.tolist()})
    _error(_base(run), f"{bad}, line 121 (row 120), column 'id': 'ghost' is not an id of "
                       f"{run['labels']}")
    _write(bad, {"id": ids + ["item007"], "p": s.tolist() + [0.5]})
    _error(_base(run), f"{bad}, lines 9 and 122 (rows 8 and 121), column 'id': id 'item007' "
                       "appears more than once")
    _write(run["labels"], {"id": ids[:5] + ["item002"], "y": [0, 1, 0, 1, 0, 1]})
    _error(_base(run), f"{run['labels']}: id 'item002' appears more than once")


def test_length_mismatch_without_ids(tmp_path):
    run = _make_run(tmp_path, epochs=2, shuffle=False)
    _write(run["files"][1], {"p": run["scores"][1][:-3].tolist()})
    out = _error([*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p"],
                 f"{run['files'][1]} has 117 rows but {run['labels']} has 120")
    assert "--id" in out


@pytest.mark.parametrize("ext", [".csv", ".jsonl", ".parquet"])
def test_nan_score_names_file_row_and_value(tmp_path, ext):
    run = _make_run(tmp_path, ext=ext, epochs=3, shuffle=False)
    s = run["scores"][2].tolist()
    s[41] = float("nan")
    if ext == ".jsonl":  # JSON has no NaN literal: a JSON null is a missing value
        s[41] = None
    _write(run["files"][2], {"id": run["ids"], "p": s})
    where = "line 43 (row 42)" if ext == ".csv" else "row 42"   # Parquet: no lines
    expected = (f"{run['files'][2]}, {where}, column 'p': nan (id 'item041') is not a "
                f"finite number"
                if ext != ".jsonl" else
                f"{run['files'][2]}, line 42, column 'p': missing value")
    _error(_base(run), expected)


def test_non_numeric_values(tmp_path):
    run = _make_run(tmp_path, epochs=2, shuffle=False)
    with open(run["labels"]) as f:
        lines = f.read().splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ",positive"
    Path(run["labels"]).write_text("\n".join(lines) + "\n")
    _error(_base(run), f"{run['labels']}, line 4 (row 3), column 'y': 'positive' is not a "
                       "number")
    _make_run(tmp_path, epochs=2, shuffle=False)  # rewrite clean files
    lines = Path(run["files"][1]).read_text().splitlines()
    lines[10] = lines[10].rsplit(",", 1)[0] + ",0.3x"
    Path(run["files"][1]).write_text("\n".join(lines) + "\n")
    _error(_base(run), f"{run['files'][1]}, line 11 (row 10), column 'p': '0.3x' is not a "
                       "number")


def test_bad_weight(tmp_path):
    run = _make_run(tmp_path, epochs=2, shuffle=False, weighted=True)
    w = run["w"].tolist()
    w[4] = 0.0
    _write(run["labels"], {"id": run["ids"], "y": run["y"].tolist(), "w": w})
    _error(_base(run, "--weight", "w"),
           f"{run['labels']}, line 6 (row 5), column 'w': 0.0 (id 'item004') is not a "
           "positive finite weight")


def _csv_file(path: Path, header, rows) -> Path:
    """A CSV file by the csv module (a field with a newline is quoted, its record spans
    lines)."""
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *rows])
    return path


def test_errors_name_the_line_after_a_multiline_record(tmp_path):
    """The messages about rows the reader read (a NaN label or score, an unknown or
    repeated id, a row without a label row) name the line where the row starts, counted
    as an editor does (header = line 1) past a quoted record that spans three lines."""
    n = 10
    ids = [f"item{i:03d}" for i in range(n)]
    note = ["", "a\nb\nc"] + [""] * (n - 2)   # row 2 spans lines 3-5: row r >= 3 is line r + 3
    labels = tmp_path / "labels.csv"
    epochs = [tmp_path / "e1.csv", tmp_path / "e2.csv"]

    def write(label_rows=None, epoch_rows=None):
        y = [i % 2 for i in range(n)]
        _csv_file(labels, ["id", "y", "note"], label_rows or
                  [[ids[i], y[i], note[i]] for i in range(n)])
        for k, path in enumerate(epochs):
            _csv_file(path, ["id", "p", "note"], (epoch_rows if k == 1 and epoch_rows else
                      [[ids[i], (i * (k + 3)) % 7 / 7, note[i]] for i in range(n)]))

    def rows(**changes):
        out = [[ids[i], i / n, note[i]] for i in range(n)]
        for row, (column, value) in changes.items():
            out[int(row[1:]) - 1][column] = value
        return out

    args = [*epochs, "--labels", labels, "--label", "y", "--score", "p", "--id", "id"]
    write()
    assert _json(args)["items"] == n    # clean files: the multi-line records read fine
    write(epoch_rows=rows(r6=(1, "nan")))
    _error(args, f"{epochs[1]}, line 9 (row 6), column 'p': nan (id 'item005') is not a "
                 "finite number")
    doc = _json([*args, "--on-error", "skip"])
    assert doc["dropped_items"] == 1
    assert any(f"{epochs[1]}, line 9 (row 6), column 'p'" in m for m in doc["first_errors"])
    write(epoch_rows=rows(r6=(0, "ghost")))
    _error(args, f"{epochs[1]}, line 9 (row 6), column 'id': 'ghost' is not an id of {labels}")
    write(epoch_rows=rows(r6=(0, "item001")))
    _error(args, f"{epochs[1]}, lines 3 and 9 (rows 2 and 6), column 'id': id 'item001' "
                 "appears more than once")
    write(label_rows=[[ids[i], "nan" if i == 6 else i % 2, note[i]] for i in range(n)])
    _error(args, f"{labels}, line 10 (row 7), column 'y': nan (id 'item006') is not a "
                 "finite number")
    # Without --id the rows match by position: a row past the label rows has no item.
    write(epoch_rows=rows() + [["item010", 0.5, ""]])
    _error([*args[:-2], "--on-error", "skip"],
           f"{epochs[1]}, line 14 (row 11): {labels} has no such row")


# --------------------------------------------------------------------------- --on-error skip
def _expected_after_dropping(run, drop):
    keep = np.ones(len(run["y"]), dtype=bool)
    keep[list(drop)] = False
    return {"y": run["y"][keep], "w": None if run["w"] is None else run["w"][keep],
            "scores": [s[keep] for s in run["scores"]]}


def test_skip_drops_an_item_from_every_epoch(tmp_path):
    run = _make_run(tmp_path, kind="ordinal", epochs=4)
    # epoch 3: item 7 gets a NaN score, item 30 a non-numeric one (the reader drops that
    # row: matched back through the ids); labels: item 50's label is not a number.
    pos = {name: i for i, name in enumerate(_csv_ids(run["files"][2]))}
    lines = Path(run["files"][2]).read_text().splitlines()
    for item, value in ((7, "nan"), (30, "oops")):
        row = pos[run["ids"][item]] + 1
        lines[row] = lines[row].rsplit(",", 1)[0] + "," + value
    Path(run["files"][2]).write_text("\n".join(lines) + "\n")
    label_lines = Path(run["labels"]).read_text().splitlines()
    label_lines[51] = label_lines[51].rsplit(",", 1)[0] + ",unknown"
    Path(run["labels"]).write_text("\n".join(label_lines) + "\n")

    base = _base(run)
    _run(base, expect=2)  # the default is to fail
    doc = _json([*base, "--on-error", "skip"])
    assert doc["items"] == len(run["y"]) - 3
    assert doc["dropped_items"] == 2
    assert doc["rows_skipped"] == {str(run["labels"]): 1, str(run["files"][2]): 2}
    assert any("'unknown' is not a number" in n for n in doc["first_errors"])
    assert any("nan (id 'item007') is not a finite number" in n for n in doc["first_errors"])
    _check_report(doc, _expected_after_dropping(run, {7, 30, 50}), "c_index")
    for fmt in ("table", "csv"):
        result = _run([*base, "--on-error", "skip", "--format", fmt])
        assert "skipped rows: 3" in result.stderr
        assert "items dropped from every epoch: 2" in result.stderr
        assert "skipped" not in result.stdout


def _csv_ids(path):
    return [line.split(",")[1] for line in Path(path).read_text().splitlines()[1:]]


def test_skip_by_position_drops_nan_items_but_needs_ids_for_unreadable_rows(tmp_path):
    run = _make_run(tmp_path, epochs=3, shuffle=False)
    base = [*run["files"], "--labels", run["labels"], "--label", "y", "--score", "p",
            "--on-error", "skip"]
    s = run["scores"][1].tolist()
    s[12] = float("inf")
    _write(run["files"][1], {"id": run["ids"], "p": s})
    doc = _json(base)
    assert doc["dropped_items"] == 1
    _check_report(doc, _expected_after_dropping(run, {12}), "auc")
    s[12] = "bad"
    _write(run["files"][1], {"id": run["ids"], "p": s})
    _error(base, f"{run['files'][1]}: 1 unreadable row(s) skipped", "pass --id")


def test_skip_still_rejects_ids_missing_beyond_the_unreadable_rows(tmp_path):
    run = _make_run(tmp_path, epochs=2, shuffle=False)
    _write(run["files"][1], {"id": run["ids"][:-2], "p": run["scores"][1][:-2].tolist()})
    _error(_base(run, "--on-error", "skip"), "lacks 2 of the 120 ids")


# --------------------------------------------------------------------------- entry point
def test_subprocess_entry_point(tmp_path):
    run = _make_run(tmp_path, ext=".parquet", kind="binary", epochs=3)
    proc = subprocess.run(
        [sys.executable, "-m", "streamrank.cli", "epochs", *map(str, _base(run)),
         "--format", "csv", "--no-progress"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [int(r["concordant"]) for r in rows] == \
        [pair_counts(run["y"], s).concordant for s in run["scores"]]
    proc = subprocess.run(
        [sys.executable, "-m", "streamrank.cli", "epochs", str(run["files"][0]),
         "--labels", str(run["labels"]), "--label", "y", "--score", "nope"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "column 'nope': no such column" in proc.stderr


def test_skip_with_labels_in_the_first_epoch_file(tmp_path, monkeypatch):
    """Rows of the first file count once although it is read for labels and scores; with
    no room to keep the scores between the two passes the files are read again, same
    result."""
    rng = np.random.default_rng(11)
    n = 60
    y = rng.integers(0, 3, n)
    ids = [f"k{i}" for i in range(n)]
    scores = _scores(rng, n, 3)
    first_y = [str(v) for v in y.tolist()]
    first_p = [repr(float(v)) for v in scores[0]]
    first_y[4] = "nan"      # a NaN label: item 4 is dropped
    first_p[9] = "?"        # an unreadable score: the reader drops row 10, item 9 with it
    lines = ["id,y,p"] + [f"{ids[i]},{first_y[i]},{first_p[i]}" for i in range(n)]
    (tmp_path / "e1.csv").write_text("\n".join(lines) + "\n")
    files = [tmp_path / "e1.csv"] + [
        _write(tmp_path / f"e{k}.csv", {"id": ids, "p": s.tolist()})
        for k, s in enumerate(scores[1:], start=2)]
    args = [*files, "--label", "y", "--score", "p", "--id", "id", "--on-error", "skip"]
    doc = _json(args)
    assert doc["rows_skipped"] == {str(files[0]): 2} and doc["dropped_items"] == 0
    expected = _expected_after_dropping({"y": y, "w": None, "scores": scores}, {4, 9})
    _check_report(doc, expected, "c_index")
    from streamrank.cli import _epoch_files

    monkeypatch.setattr(_epoch_files, "_CACHE_BYTES", 0)
    assert _json(args) == doc


def test_one_label_level_gives_undefined_metrics(tmp_path):
    _write(tmp_path / "y.csv", {"y": [1, 1, 1]})
    files = [_write(tmp_path / f"e{i}.csv", {"p": p})
             for i, p in enumerate([[0.1, 0.5, 0.5], [0.2, 0.5, 0.1]])]
    base = [*files, "--labels", tmp_path / "y.csv", "--label", "y", "--score", "p"]
    doc = _json(base)
    assert doc["best_epoch"] is None and doc["comparable_pairs"] == 0
    assert doc["epochs"][0]["c_index"] == "nan" and doc["epochs"][1]["churn"] == 1
    assert "best epoch: none" in _run(base).stdout


def test_empty_label_file(tmp_path):
    (tmp_path / "y.csv").write_text("y\n")
    f = _write(tmp_path / "e.csv", {"p": [0.5]})
    _error([f, "--labels", tmp_path / "y.csv", "--label", "y", "--score", "p"],
           f"{tmp_path / 'y.csv'} has no data rows")


# --------------------------------------------------------------------------- review fixes
@pytest.mark.parametrize("extra, message", [
    (["--labels", "L", "--label", "y", "--score", "p", "--id", "y"], "--label and --id"),
    (["--labels", "L", "--label", "y", "--score", "p", "--weight", "y"], "--label and --weight"),
    (["--labels", "L", "--label", "y", "--score", "id", "--id", "id"], "--score and --id"),
    (["--label", "p", "--score", "p"], "--label and --score"),   # labels in epoch file 1
])
def test_one_column_for_two_options_is_a_usage_error(tmp_path, extra, message):
    run = _make_run(tmp_path, epochs=2)
    extra = [run["labels"] if a == "L" else a for a in extra]
    out = _error([*run["files"], *extra], message, "name the same column")
    assert "Traceback" not in out


def test_json_float_ids_match_csv_integer_ids(tmp_path):
    """JSON lines written by pandas hold ``17.0`` for an id that a CSV file writes ``17``."""
    y = [0, 1, 0, 1]
    _write(tmp_path / "y.csv", {"id": [10, 11, 12, 13], "y": y})
    p = [0.1, 0.9, 0.4, 0.3]
    _write(tmp_path / "e1.jsonl", {"id": [13.0, 12.0, 11.0, 10.0], "p": p[::-1]})
    doc = _json([tmp_path / "e1.jsonl", "--labels", tmp_path / "y.csv", "--label", "y",
                 "--score", "p", "--id", "id"])
    ref = pair_counts(y, p)
    assert [doc["epochs"][0][f] for f in FIELDS] == [getattr(ref, f) for f in FIELDS]
