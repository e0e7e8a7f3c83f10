"""`read_columns` and ``streamrank eval`` on a directory: one data set of one format (CSV,
TSV or JSON-lines parts as well as Parquet ones), refused when its files are of several
formats; and the separator hint of a header read as one column (``id;y;p``).

Oracles: the rows written, concatenated in name order (Python's ``csv`` module and
``json`` on the same text), scikit-learn's AUC of them; the messages by their words.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from sklearn.metrics import roc_auc_score

import streamrank.io._csv as _csvr
from streamrank.cli import main
from streamrank.io.tables import TableError, read_columns


def _parts(d, fmt="csv", n_files=3, seed=0):
    """``n_files`` parts of ``(id, y, p)`` rows under ``d`` (one in a subdirectory, one
    gzipped), a ``_SUCCESS`` marker and a hidden ``.crc`` file beside them; the rows in
    the order a reader must give them (name order, the subdirectory's last)."""
    rng = np.random.default_rng(seed)
    d.mkdir()
    (d / "_SUCCESS").write_text("")
    (d / ".part-0.csv.crc").write_bytes(b"\x00\x01garbage")
    (d / "sub").mkdir()
    sep = "\t" if fmt == "tsv" else ","
    ext = {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl"}[fmt]
    names = [f"part-{i}.{ext}" for i in range(n_files - 1)] + [f"sub/part-9.{ext}.gz"]
    rows = []
    for k, name in enumerate(names):
        part = [(f"u{k}_{i}" if k % 2 else str(100 * k + i), int(rng.random() < 0.4),
                 round(float(rng.random()), 2)) for i in range(int(rng.integers(5, 40)))]
        rows += part
        if fmt == "jsonl":
            text = "".join(json.dumps({"id": a, "y": b, "p": c}) + "\n" for a, b, c in part)
        else:
            text = sep.join(("id", "y", "p")) + "\n" + "".join(
                sep.join(map(str, r)) + "\n" for r in part)
        data = text.encode()
        (d / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return rows


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_a_directory_of_text_parts_is_their_rows_in_name_order(tmp_path, fmt):
    rows = _parts(tmp_path / "d", fmt)
    cols = read_columns(tmp_path / "d", numeric=["y", "p"], keys=["id"], progress=False)
    assert cols.n_rows == len(rows) and cols.skipped == 0
    assert cols.data["y"].tolist() == [r[1] for r in rows]
    assert cols.data["p"].tolist() == [r[2] for r in rows]
    # ids of every file kept as their text: "100" of one file and "u1_0" of another
    assert cols.data["id"].tolist() == [r[0] for r in rows]
    coded = read_columns(tmp_path / "d", keys=["id"], key_codes=True, progress=False)
    assert coded.levels["id"][coded.data["id"]].tolist() == [r[0] for r in rows]


def test_a_directory_of_parts_reads_bad_rows_file_by_file(tmp_path, monkeypatch):
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.csv").write_text("y,p\n1,0.5\n0,x\n1,0.25\n")
    (d / "b.csv").write_text("y,p\n\n1,0.75\n0,\n")        # a blank line, then row 2
    e = pytest.raises(TableError, read_columns, d, numeric=["y", "p"], progress=False).value
    assert str(e).startswith(f"{d / 'a.csv'}, line 3 (row 2), column 'p': 'x' is not a")
    cols = read_columns(d, numeric=["y", "p"], on_error="skip", progress=False)
    assert cols.data["p"].tolist() == [0.5, 0.25, 0.75] and cols.skipped == 2
    assert [m.split(": ")[0] for m in cols.first_errors] == [
        f"{d / 'a.csv'}, line 3 (row 2), column 'p'",
        f"{d / 'b.csv'}, line 4 (row 2), column 'p'"]
    assert cols.line_of is None         # rows are numbered per file: no one line map
    # a row longer than a block in the second file: that file is read again with
    # larger blocks, the first one's rows kept once
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 64)
    (d / "b.csv").write_text("y,p\n1,0." + "7" * 200 + "\n0,0.5\n")
    cols = read_columns(d, numeric=["y", "p"], on_error="skip", progress=False)
    assert cols.data["y"].tolist() == [1, 1, 1, 0] and cols.n_rows == 5
    assert cols.skipped == 1 and len(cols.first_errors) == 1


def test_a_directory_of_several_formats_is_refused(tmp_path):
    d = tmp_path / "mixed"
    d.mkdir()
    pq.write_table(pa.table({"y": [0, 1], "p": [0.1, 0.9]}), d / "a.parquet")
    for name in ("b.csv", "c.csv", "d.csv"):
        (d / name).write_text("y,p\n1,0.5\n")
    e = pytest.raises(TableError, read_columns, d, numeric=["p"], progress=False).value
    assert str(e) == (f"{d}: files of several formats: 1 Parquet file (a.parquet); 3 CSV "
                      "files (b.csv, c.csv, ...). A directory is read as one data set of "
                      "one format: move the other files out, or read each file by itself")
    # a format given does not overrule the names; files without an extension are sniffed
    pytest.raises(TableError, read_columns, d, numeric=["p"], format="csv")
    (d / "a.parquet").rename(d / "part-0")
    assert "1 Parquet file (part-0)" in str(pytest.raises(
        TableError, read_columns, d, numeric=["p"], progress=False).value)
    (d / "part-0").unlink()
    assert read_columns(d, numeric=["p"], progress=False).data["p"].tolist() == [0.5] * 3


def test_a_directory_without_data_files(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    (d / "_SUCCESS").write_text("")
    (d / "_temporary").mkdir()
    (d / "_temporary" / "x.csv").write_text("y,p\n1,0.5\n")
    for fmt in (None, "csv", "parquet"):
        e = pytest.raises(TableError, read_columns, d, numeric=["p"], format=fmt).value
        assert e.reason == ("no data file in this directory (Parquet, CSV, TSV or JSON "
                            "lines; names starting with . or _ are skipped)")


@pytest.mark.parametrize("text, hint", [
    ("id;y;p\na;1;0.5\n", "the header seems to be separated by semicolons (';'), and the "
                          "file is read as comma-separated (streamrank reads CSV with "
                          "commas and TSV with tabs: convert the file to one of them)"),
    ("id|y|p\na|1|0.5\n", "the header seems to be separated by bars ('|'), and the file "
                          "is read as comma-separated (streamrank reads CSV with commas "
                          "and TSV with tabs: convert the file to one of them)"),
    ("id\ty\tp\na\t1\t0.5\n", "the header seems to be separated by tabs; read the file as "
                              "TSV (format 'tsv', --input-format tsv, or a name ending in "
                              ".tsv)"),
])
def test_a_header_of_one_column_gets_a_separator_hint(tmp_path, text, hint):
    path = tmp_path / "semi.csv"
    path.write_text(text)
    e = pytest.raises(TableError, read_columns, path, numeric=["p"], progress=False).value
    assert str(e) == (f"{path}, column 'p': no such column; the file has the columns "
                      f"{text.split(chr(10))[0]!r}: {hint}")


def test_a_csv_read_as_tsv_gets_the_hint_and_other_headers_none(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("id,y,p\na,1,0.5\n")
    e = pytest.raises(TableError, read_columns, path, numeric=["p"], progress=False).value
    assert str(e).endswith("the header seems to be separated by commas; read the file as "
                           "CSV (format 'csv', --input-format csv, or a name ending in .csv)")
    for text in ("id,y,q\n1,0,0.5\n", "a;b\n1\n"):   # several columns; one without "p"
        (tmp_path / "o.csv").write_text(text)
        e = pytest.raises(TableError, read_columns, tmp_path / "o.csv", numeric=["p"],
                          progress=False).value
        assert "seems to be separated" not in str(e) or text.startswith("a;b"), str(e)


# --------------------------------------------------------------------------- the command
def _eval(*args):
    return CliRunner().invoke(main, ["eval", *map(str, args)])


def test_eval_of_a_directory_of_csv_parts_equals_sklearn_on_their_rows(tmp_path):
    rows = _parts(tmp_path / "d", "csv", n_files=4, seed=3)
    res = _eval(tmp_path / "d", "--label", "y", "--score", "p", "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rows_read"] == len(rows) and out["n"] == len(rows)
    assert out["auc"] == pytest.approx(roc_auc_score([r[1] for r in rows],
                                                     [r[2] for r in rows]), rel=1e-12)


def test_eval_refuses_a_mixed_directory_and_hints_at_separators(tmp_path):
    d = tmp_path / "mixed"
    d.mkdir()
    pq.write_table(pa.table({"y": [0, 1], "p": [0.1, 0.9]}), d / "a.parquet")
    (d / "b.csv").write_text("y,p\n1,0.5\n")
    res = _eval(d, "--label", "y", "--score", "p")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert (f"Error: {d}: files of several formats: 1 Parquet file (a.parquet); 1 CSV "
            "file (b.csv)") in res.stderr
    semi = tmp_path / "semi.csv"
    semi.write_text("id;y;p\na;1;0.5\nb;0;0.25\n")
    res = _eval(semi, "--label", "y", "--score", "p")
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: {semi}, column 'p': no such column; the "
                                 "file has the columns 'id;y;p': the header seems to be "
                                 "separated by semicolons (';')")


def test_eval_on_dask_reads_a_directory_as_one_data_set_too(tmp_path):
    pytest.importorskip("dask.dataframe")
    rows = _parts(tmp_path / "d", "csv", n_files=3, seed=5)
    res = _eval(tmp_path / "d", "--label", "y", "--score", "p", "--format", "json",
                "--dask", "sync")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["auc"] == pytest.approx(
        roc_auc_score([r[1] for r in rows], [r[2] for r in rows]), rel=1e-12)
    pq.write_table(pa.table({"y": [0, 1], "p": [0.1, 0.9]}), tmp_path / "d" / "x.parquet")
    res = _eval(tmp_path / "d", "--label", "y", "--score", "p", "--dask", "sync")
    assert res.exit_code == 2 and "files of several formats: 3 CSV files" in res.stderr
    assert "; 1 Parquet file (x.parquet)." in res.stderr
