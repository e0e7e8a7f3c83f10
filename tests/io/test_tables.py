"""`streamrank.io.tables.read_columns`: every format, only the requested columns, every bad row
located (file, row, column, value), ``on_error="skip"`` counts, batch boundaries."""

import gzip
import io
import json
import re
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, strategies as st

import streamrank.io._arrow as _arrow
import streamrank.io._collect as _collect
import streamrank.io._csv as _csvr
import streamrank.io._jsonl as _jsonl
import streamrank.io._parquet as _pqr
import streamrank.io.tables as T
from streamrank.io.tables import Columns, TableError, detect_format, read_columns

SEED = 20240611


# ============================================================================ helpers
def _frame(n=200, seed=SEED):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": np.arange(n),
        "label": rng.integers(0, 2, n),
        "score": np.round(rng.random(n), 3),
        "user": rng.choice(["ann", "bob", "cy", "dee"], n),
        "qid": rng.integers(100, 110, n),
        "junk": rng.choice(["x", "1", ""], n),      # never requested: never checked
    })


def _write(df, path, fmt):
    """``df`` as a file of format ``fmt`` (csv, csv.gz, tsv, parquet, pqdir, jsonl,
    jsonl.gz); returns the path to read."""
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "csv.gz":
        df.to_csv(path, index=False, compression="gzip")
    elif fmt == "tsv":
        df.to_csv(path, index=False, sep="\t")
    elif fmt == "parquet":
        df.to_parquet(path, row_group_size=37)
    elif fmt == "pqdir":
        path.mkdir()
        cuts = [0, len(df) // 3, 2 * len(df) // 3, len(df)]
        for i in range(3):
            df.iloc[cuts[i]:cuts[i + 1]].to_parquet(path / f"part-{i}.parquet")
    elif fmt in ("jsonl", "jsonl.gz"):
        text = df.to_json(orient="records", lines=True)
        if fmt == "jsonl":
            path.write_text(text)
        else:
            path.write_bytes(gzip.compress(text.encode()))
    return str(path)


FORMATS = {"csv": "d.csv", "csv.gz": "d.csv.gz", "tsv": "d.tsv", "parquet": "d.parquet",
           "pqdir": "parts", "jsonl": "d.jsonl", "jsonl.gz": "d.jsonl.gz"}


@pytest.fixture
def small_blocks(monkeypatch):
    """Batches of a few rows, so that every test crosses batch boundaries."""
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 64)
    monkeypatch.setattr(_jsonl, "_JSON_BLOCK", 50)
    monkeypatch.setattr(_pqr, "_PARQUET_BATCH", 7)


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _row_of(message: str) -> int:
    """The row a message names: ``line L (row R)`` (CSV), ``line L`` (JSON lines, whose
    row is its line) or ``row R`` (Parquet)."""
    m = re.search(r", line \d+ \(row (\d+)\)|, (?:row|line) (\d+)[ ,:]", message)
    return int(m.group(1) or m.group(2))


def _err(path, **kw) -> TableError:
    kw.setdefault("progress", False)
    with pytest.raises(TableError) as info:
        read_columns(path, **kw)
    return info.value


# ============================================================================ formats
@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("blocks", ["default", "small"])
def test_every_format_reads_the_requested_columns(tmp_path, fmt, blocks, request):
    if blocks == "small":
        request.getfixturevalue("small_blocks")
    df = _frame()
    path = _write(df, tmp_path / FORMATS[fmt], fmt)
    cols = read_columns(path, numeric=["label", "score"], keys=["user", "qid"], progress=False)
    assert isinstance(cols, Columns)
    assert set(cols.data) == {"label", "score", "user", "qid"}
    assert cols.n_rows == len(df) and cols.skipped == 0 and cols.first_errors == []
    assert cols.data["label"].dtype == np.float64
    np.testing.assert_array_equal(cols.data["label"], df["label"].to_numpy(float))
    np.testing.assert_array_equal(cols.data["score"], df["score"].to_numpy())
    assert cols.data["qid"].dtype == np.int64
    np.testing.assert_array_equal(cols.data["qid"], df["qid"].to_numpy())
    assert cols.data["user"].dtype.kind == "U"
    np.testing.assert_array_equal(cols.data["user"], df["user"].to_numpy(str))


def test_format_from_name_or_option(tmp_path):
    assert detect_format("a.CSV") == "csv" and detect_format("a.tsv.gz") == "tsv"
    assert detect_format("a.json") == "jsonl" and detect_format("a.parquet") == "parquet"
    assert detect_format(str(tmp_path)) == "parquet"           # a directory
    assert detect_format("a.dat", "json") == "jsonl"
    with pytest.raises(ValueError, match="'format' parameter of detect_format must be one of"):
        detect_format("a.csv", "xlsx")
    # A CSV file with another extension, read by format=.
    path = _csv(tmp_path, "a\tb\n1\t2\n", "t.txt")
    assert read_columns(path, numeric=["b"], format="tsv", progress=False).data["b"] == [2.0]


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a,b\n1,2\n3,x\n5,6\n")))
    cols = read_columns("-", numeric=["a", "b"], on_error="skip", progress=False)
    assert cols.data["b"].tolist() == [2.0, 6.0] and cols.skipped == 1
    assert cols.first_errors == ["<stdin>, row 2, column 'b': 'x' is not a number"]


def test_other_columns_are_never_read(tmp_path, monkeypatch):
    """Parquet: only the requested columns reach pyarrow's reader; CSV: an unrequested
    column full of garbage (and of the wrong field type) changes nothing."""
    df = _frame(50)
    path = _write(df, tmp_path / "d.parquet", "parquet")
    seen = []
    real = pq.ParquetFile.iter_batches

    def spy(self, *args, **kw):
        seen.append(kw.get("columns"))
        return real(self, *args, **kw)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    read_columns(path, numeric=["score"], progress=False)
    assert seen == [["score"]]
    csv = _csv(tmp_path, "a,junk,b\n1,\"x,y\",2\n3,,4\n")
    cols = read_columns(csv, numeric=["a", "b"], progress=False)
    assert cols.data["a"].tolist() == [1.0, 3.0] and cols.data["b"].tolist() == [2.0, 4.0]


def test_numbers_as_written(tmp_path):
    path = _csv(tmp_path, "v\n1\n-2.5e3\n +4 \n.5\nTRUE\nfalse\ninf\n-Infinity\nNaN\n")
    cols = read_columns(path, numeric=["v"], finite=False, progress=False)
    assert cols.data["v"][:6].tolist() == [1, -2500, 4, 0.5, 1, 0]
    assert cols.data["v"][6] == np.inf and cols.data["v"][7] == -np.inf
    assert np.isnan(cols.data["v"][8])


def test_parquet_types(tmp_path):
    t = pa.table({
        "b": pa.array([True, False, True]),
        "i": pa.array([1, 2, 3], pa.int8()),
        "d": pa.array(["1.5", "2", "x"]).dictionary_encode(),
        "ts": pa.array([3, 1, 2], pa.timestamp("s")),
        "k": pa.array(["u", "v", "u"]),
        "kb": pa.array([True, False, True]),
    })
    pq.write_table(t, tmp_path / "t.parquet")
    cols = read_columns(tmp_path / "t.parquet", numeric=["b", "i", "d", "ts"], keys=["k", "kb"],
                        on_error="skip", progress=False)
    assert cols.data["b"].tolist() == [1.0, 0.0] and cols.data["i"].tolist() == [1.0, 2.0]
    assert cols.data["d"].tolist() == [1.5, 2.0]
    # Times read as their integer ticks (Parquet stores seconds as milliseconds).
    assert cols.data["ts"].tolist() == [3000.0, 1000.0]
    assert cols.data["k"].tolist() == ["u", "v"] and cols.data["kb"].tolist() == [1, 0]
    assert cols.skipped == 1 and "row 3, column 'd': 'x' is not a number" in cols.first_errors[0]


# ============================================================================ keys
def test_keys_int_text_and_codes(tmp_path):
    path = _csv(tmp_path, "a,b,c\n10,007,u2\n-3,7,u10\n10,7,u2\n")
    cols = read_columns(path, keys=["a", "b", "c"], progress=False)
    assert cols.data["a"].dtype == np.int64 and cols.data["a"].tolist() == [10, -3, 10]
    # "007" and "7" are different ids: the column stays text.
    assert cols.data["b"].tolist() == ["007", "7", "7"]
    coded = read_columns(path, keys=["b", "c"], key_codes=True, progress=False)
    assert coded.levels["c"].tolist() == ["u10", "u2"]
    assert coded.data["c"].tolist() == [1, 0, 1]
    assert coded.levels["b"][coded.data["b"]].tolist() == ["007", "7", "7"]
    with pytest.raises(ValueError, match="both numeric and a key"):
        read_columns(path, numeric=["a"], keys=["a"], progress=False)


def test_missing_key_is_a_bad_row(tmp_path):
    path = _csv(tmp_path, "g,v\nx,1\n,2\ny,3\n")
    e = _err(path, numeric=["v"], keys=["g"])
    assert (e.row, e.column, e.value) == (2, "g", "")
    assert str(e) == f"{path}, line 3 (row 2), column 'g': missing value (empty cell)"


# ============================================================================ errors
def test_unknown_column_lists_the_columns(tmp_path):
    for fmt in ("csv", "parquet", "jsonl", "pqdir"):
        path = _write(_frame(5), tmp_path / FORMATS[fmt], fmt)
        for on_error in ("fail", "skip"):
            e = _err(path, numeric=["score", "scroe"], on_error=on_error)
            assert e.column == "scroe" and e.row is None
            assert "no such column; the file has the columns 'id', 'label', 'score'" in str(e)


@pytest.mark.parametrize("text, row, column, value, reason", [
    ("y,s\n0,0.1\n1,abc\n", 2, "s", "abc", "'abc' is not a number"),
    ("y,s\n0,0.1\n1,NA\n", 2, "s", "NA", "'NA' is not a number"),
    ("y,s\n0,0.1\n1,0.2\nyes,0.3\n", 3, "y", "yes", "'yes' is not a number"),
    ("y,s\n0,nan\n", 1, "s", "nan", "'nan' is not finite (NaN or infinity)"),
    ("y,s\n0,0.5\n1,-inf\n", 2, "s", "-inf", "'-inf' is not finite (NaN or infinity)"),
    ("y,s\n0,0.5\n,0.2\n", 2, "y", "", "missing value (empty cell)"),
    ("y,s\n0,0.5\n1,0.2,7\n", 2, None, "1,0.2,7", "expected 2 fields, got 3: '1,0.2,7'"),
    ("y,s\n0,0.5\n1\n", 2, None, "1", "expected 2 fields, got 1: '1'"),
])
def test_csv_bad_rows(tmp_path, text, row, column, value, reason):
    path = _csv(tmp_path, text)
    e = _err(path, numeric=["y", "s"])
    assert (e.file, e.row, e.column, e.value, e.reason) == (path, row, column, value, reason)
    assert e.line == row + 1
    where = f"{path}, line {row + 1} (row {row})" + (f", column {column!r}" if column else "")
    assert str(e) == f"{where}: {reason}"
    cols = read_columns(path, numeric=["y", "s"], on_error="skip", progress=False)
    assert cols.skipped == 1 and cols.n_rows == text.count("\n") - 1
    assert cols.first_errors == [str(e)]


def test_finite_false_keeps_nan(tmp_path):
    path = _csv(tmp_path, "s\n0.5\nnan\ninf\n")
    cols = read_columns(path, numeric=["s"], finite=False, progress=False)
    assert cols.skipped == 0 and np.isnan(cols.data["s"][1])


def test_checks(tmp_path):
    path = _csv(tmp_path, "w\n1\n-2\n0\n")
    checks = {"w": (lambda w: w >= 0, "is not a weight (must be >= 0)")}
    e = _err(path, numeric=["w"], checks=checks)
    assert str(e) == f"{path}, line 3 (row 2), column 'w': '-2' is not a weight (must be >= 0)"
    with pytest.raises(ValueError, match="'checks' parameter of read_columns must name"):
        read_columns(path, keys=["w"], checks=checks)


def test_first_error_wins_across_kinds_and_batches(tmp_path, small_blocks):
    """Under "fail" the earliest bad row is reported, a malformed row included, wherever
    the batches cut; under "skip" rows after malformed ones keep their numbers."""
    rows = [f"{i % 2},{i / 100}" for i in range(60)]
    rows[40] = "1,oops"
    rows[25] = "1,0.3,extra"
    rows[50] = "1"
    path = _csv(tmp_path, "y,s\n" + "\n".join(rows) + "\n")
    e = _err(path, numeric=["y", "s"])
    assert (e.row, e.column) == (26, None)
    cols = read_columns(path, numeric=["y", "s"], on_error="skip", progress=False)
    assert cols.n_rows == 60 and cols.skipped == 3 and cols.data["s"].size == 57
    assert [_row_of(m) for m in cols.first_errors] == [26, 41, 51]
    assert "'oops' is not a number" in cols.first_errors[1]
    # The numbering in "fail" mode after a skipped... row 41 is found once 26 is fixed.
    rows[25] = "1,0.3"
    path = _csv(tmp_path, "y,s\n" + "\n".join(rows) + "\n", "u.csv")
    assert _err(path, numeric=["y", "s"]).row == 41


def test_skip_keeps_first_few_messages(tmp_path):
    path = _csv(tmp_path, "s\n" + "x\n" * 20 + "1\n")
    cols = read_columns(path, numeric=["s"], on_error="skip", progress=False)
    assert cols.skipped == 20 and cols.data["s"].tolist() == [1.0]
    assert len(cols.first_errors) == T.MAX_FIRST_ERRORS
    assert cols.first_errors[0].startswith(f"{path}, line 2 (row 1), column 's'")


def test_jsonl_errors(tmp_path, small_blocks):
    lines = ['{"y": 1, "s": 0.5, "g": "a"}', "", '{"y": 0, "s": null, "g": "a"}',
             '{"y": 0, "g": "b"}', '[1, 2]', '{"y": 1, "s": "abc", "g": 3}',
             '{"y": 1, "s": 0.25, "g": "c"', '{"y": true, "s": 0.75, "g": "c"}']
    path = tmp_path / "e.jsonl"
    path.write_text("\n".join(lines) + "\n")
    e = _err(path, numeric=["y", "s"], keys=["g"])
    assert (e.row, e.column, e.value) == (3, "s", None)
    assert str(e) == f"{path}, line 3, column 's': missing value (null or absent field)"
    cols = read_columns(path, numeric=["y", "s"], keys=["g"], on_error="skip", progress=False)
    assert cols.data["s"].tolist() == [0.5, 0.75] and cols.data["y"].tolist() == [1.0, 1.0]
    assert cols.data["g"].tolist() == ["a", "c"]
    assert cols.n_rows == 7 and cols.skipped == 5   # line 2 is blank: not a row
    assert [_row_of(m) for m in cols.first_errors] == [3, 4, 5, 6, 7]
    assert "line 5: not a JSON object: '[1, 2]'" in cols.first_errors[2]
    assert "line 7: malformed JSON (" in cols.first_errors[4]
    # A malformed line stops a "fail" read at that line (after the good lines before it).
    path.write_text(lines[0] + "\n{oops\n" + lines[2] + "\n")
    e = _err(path, numeric=["y", "s"])
    assert e.row == 2 and e.column is None and e.value == "{oops"


def test_parquet_null_and_rows_in_directory(tmp_path, small_blocks):
    d = tmp_path / "parts"
    d.mkdir()
    pq.write_table(pa.table({"s": [0.1, 0.2]}), d / "a.parquet")
    pq.write_table(pa.table({"s": [0.3, None, float("nan")]}), d / "b.parquet")
    e = _err(d, numeric=["s"])
    # In a directory the file is named and its rows counted from 1.
    assert e.file == str(d / "b.parquet") and e.row == 2 and e.reason == "missing value (null)"
    cols = read_columns(d, numeric=["s"], on_error="skip", progress=False)
    assert cols.data["s"].tolist() == [0.1, 0.2, 0.3] and cols.skipped == 2
    assert cols.first_errors[1].endswith("row 3, column 's': nan is not finite (NaN or infinity)")


def test_empty_files(tmp_path):
    e = _err(_csv(tmp_path, ""), numeric=["s"])
    assert "empty file" in str(e)
    cols = read_columns(_csv(tmp_path, "s,y\n", "h.csv"), numeric=["s"], keys=["y"],
                        progress=False)
    assert cols.n_rows == 0 and cols.data["s"].size == 0 and cols.data["y"].size == 0
    with pytest.raises(FileNotFoundError):
        read_columns(tmp_path / "nope.csv", numeric=["s"])
    with pytest.raises(ValueError, match="'on_error' parameter"):
        read_columns(tmp_path / "h.csv", numeric=["s"], on_error="ignore")


def test_cast_bisect_finds_every_rejected_value():
    vals = ["1", "2", "x1", "3", "4", "5", "--", "6"]
    v, rejected = _arrow._cast_bisect(pa.array(vals))
    assert rejected.tolist() == [False, False, True, False, False, False, True, False]
    assert v[~rejected].tolist() == [1, 2, 3, 4, 5, 6]


def test_progress_bar(tmp_path, capsys, monkeypatch):
    from tqdm import tqdm

    monkeypatch.setattr(_collect._Progress, "__init__", _eager_progress(tqdm))
    path = _write(_frame(30), tmp_path / "d.csv", "csv")
    read_columns(path, numeric=["score"], progress=True)
    assert "d.csv" in capsys.readouterr().err
    read_columns(path, numeric=["score"], progress=False)
    assert capsys.readouterr().err == ""


def _eager_progress(tqdm):
    def init(self, show, total, unit, desc):
        self.pos = 0
        self.bar = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr) if show else None
    return init


# ============================================================================ property
_BAD = {  # kind -> (csv cell or row, jsonl line)
    "text": lambda: ("1,abc", '{"y": 1, "s": "abc"}'),
    "nan": lambda: ("0,nan", '{"y": 0, "s": NaN}'),
    # (A field absent from every line of the first block is an unknown column.)
    "empty": lambda: (",0.5", '{"y": null, "s": 0.5}'),
    "fields": lambda: ("1,0.5,9", '{"y": 1, "s": 0.5'),
}


@given(n=st.integers(1, 40), data=st.data(), fmt=st.sampled_from(["csv", "jsonl"]),
       block=st.sampled_from([16, 64, 1 << 20]))
def test_random_tables_with_injected_bad_rows(tmp_path_factory, n, data, fmt, block):
    """Good rows come back exactly, in order; each injected bad row is skipped and counted,
    its row named in the messages; under "fail" the first one is raised."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 3, n)
    s = np.round(rng.standard_normal(n), 4)
    bad_at = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
    kinds = [data.draw(st.sampled_from(sorted(_BAD))) for _ in bad_at]
    lines = []
    for i in range(n):
        if i in bad_at:
            csv_row, json_line = _BAD[kinds[bad_at.index(i)]]()
            lines.append(csv_row if fmt == "csv" else json_line)
        else:
            lines.append(f"{y[i]},{float(s[i])!r}" if fmt == "csv"
                         else json.dumps({"y": int(y[i]), "s": float(s[i])}))
    path = tmp_path_factory.mktemp("t") / f"r.{fmt}"
    path.write_text(("y,s\n" if fmt == "csv" else "") + "\n".join(lines) + "\n")
    old = _csvr._CSV_BLOCK, _jsonl._JSON_BLOCK
    _csvr._CSV_BLOCK, _jsonl._JSON_BLOCK = block, block
    try:
        cols = read_columns(path, numeric=["y", "s"], on_error="skip", progress=False)
        good = np.setdiff1d(np.arange(n), bad_at)
        np.testing.assert_array_equal(cols.data["y"], y[good])
        np.testing.assert_array_equal(cols.data["s"], s[good])
        assert (cols.n_rows, cols.skipped) == (n, len(bad_at))
        named = [_row_of(m) for m in cols.first_errors]
        assert named == [i + 1 for i in bad_at[:T.MAX_FIRST_ERRORS]]
        if bad_at:
            with pytest.raises(TableError) as info:
                read_columns(path, numeric=["y", "s"], progress=False)
            assert info.value.row == bad_at[0] + 1
            assert str(info.value) == cols.first_errors[0]
    finally:
        _csvr._CSV_BLOCK, _jsonl._JSON_BLOCK = old


def test_reading_never_imports_pandas(tmp_path):
    """pyarrow imports pandas (0.3 s, 50 MB) on any Python -> Arrow conversion; the reader
    converts through buffers, bad rows and keys included (benchmarks/bench_cli.py)."""
    import subprocess

    path = _csv(tmp_path, "y,s,g\n1,0.5,a\n0,x,b\n1,,c\n0,0.25,a\n")
    code = ("import sys; from streamrank.io.tables import read_columns; "
            f"c = read_columns({path!r}, numeric=['y', 's'], keys=['g'], on_error='skip', "
            "key_codes=True, progress=False); assert c.skipped == 2, c; "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ============================================================================ review fixes
def test_parse_number_reads_as_the_numeric_column_does(tmp_path):
    """`parse_number` (one value) and the reader (a column) accept the same texts and
    give the same numbers."""
    texts = ["1", "-2.5e3", " +4 ", ".5", "TRUE", "false", "inf", "-Infinity", "1e-3",
             "abc", "1_000", "0x10", "1.2.3", "--1", "NA", "yes"]
    path = _csv(tmp_path, "v\n" + "\n".join(texts) + "\n")
    cols = read_columns(path, numeric=["v"], finite=False, on_error="skip", progress=False)
    parsed = [T.parse_number(t) for t in texts]
    assert [v for v in parsed if v is not None] == cols.data["v"].tolist()
    assert sum(v is None for v in parsed) == cols.skipped == 7


def test_a_column_named_twice_is_read_once(tmp_path):
    path = _csv(tmp_path, "s,g\n0.5,a\n0.25,b\n")
    cols = read_columns(path, numeric=["s", "s"], keys=["g", "g"], progress=False)
    assert cols.data["s"].tolist() == [0.5, 0.25] and cols.data["g"].tolist() == ["a", "b"]


def test_whole_number_float_keys_are_integers(tmp_path):
    """JSON writes ``17.0`` where CSV writes ``17``: the same id either way."""
    path = tmp_path / "k.jsonl"
    path.write_text('{"a": 17.0, "b": 1.5}\n{"a": -3.0, "b": 2.0}\n')
    cols = read_columns(path, keys=["a", "b"], progress=False)
    assert cols.data["a"].dtype == np.int64 and cols.data["a"].tolist() == [17, -3]
    assert cols.data["b"].dtype == np.float64 and cols.data["b"].tolist() == [1.5, 2.0]


def test_first_errors_keep_file_order_in_a_parquet_directory(tmp_path):
    d = tmp_path / "parts"
    d.mkdir()
    pq.write_table(pa.table({"s": [0.1] * 9 + [None]}), d / "a.parquet")   # row 10
    pq.write_table(pa.table({"s": [None, 0.2]}), d / "b.parquet")          # row 1
    cols = read_columns(d, numeric=["s"], on_error="skip", progress=False)
    assert [m.split(",")[0] for m in cols.first_errors] == [str(d / "a.parquet"),
                                                            str(d / "b.parquet")]


def test_malformed_json_names_the_file_line_not_json_line_1(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"s": 1}\n{"s": 2}\n{"s": }\n')
    e = _err(path, numeric=["s"])
    assert e.row == 3 and "line 1" not in str(e)
    assert str(e) == (f"{path}, line 3: malformed JSON (Expecting value at character 7): "
                      "'{\"s\": }'")


# --------------------------------------------------------------------------- one detector
def test_the_detector_reads_names_then_first_bytes(tmp_path):
    from streamrank.io._detect import detect_format as detect

    assert detect is detect_format      # the one of `read_columns` and of the monitor
    (tmp_path / "t.txt").write_text("y\ts\n0\t0.1\n")
    (tmp_path / "j.log").write_text('{"y": 0, "s": 0.1}\n')
    (tmp_path / "c.dat").write_text("y,s\n0,0.1\n")
    pq.write_table(pa.table({"y": [0, 1], "s": [0.2, 0.7]}), tmp_path / "p.bin")
    (tmp_path / "g.txt.gz").write_bytes(gzip.compress(b"y\ts\n1\t0.5\n"))
    got = {n: detect_format(str(tmp_path / n)) for n in
           ("t.txt", "j.log", "c.dat", "p.bin", "g.txt.gz", "x.TAB", "x.tsv.gz", "x.ndjson")}
    assert got == {"t.txt": "tsv", "j.log": "jsonl", "c.dat": "csv", "p.bin": "parquet",
                   "g.txt.gz": "tsv", "x.TAB": "tsv", "x.tsv.gz": "tsv", "x.ndjson": "jsonl"}
    # and read_columns reads each as it detects it
    for n, want in (("t.txt", [0.1]), ("j.log", [0.1]), ("c.dat", [0.1]),
                    ("p.bin", [0.2, 0.7]), ("g.txt.gz", [0.5])):
        cols = read_columns(tmp_path / n, numeric=["s"], progress=False)
        assert cols.data["s"].tolist() == want, n


# --------------------------------------------------------------------------- Hive partitions
def _hive(tmp_path):
    base = tmp_path / "preds"
    parts = {("a", 2023): ([0, 1, 1], [0.1, 0.8, 0.3]), ("b", 2023): ([1, 0], [0.9, 0.2]),
             ("b", 2024): ([0, 1, 0], [0.6, 0.4, 0.5])}
    for (grp, year), (y, s) in parts.items():
        d = base / f"grp={grp}" / f"year={year}"
        d.mkdir(parents=True)
        pq.write_table(pa.table({"label": y, "score": s}), d / "part-0.parquet")
    return base, parts


def test_hive_partition_keys_are_columns(tmp_path):
    base, parts = _hive(tmp_path)
    cols = read_columns(base, numeric=["label", "score", "year"], keys=["grp"],
                        progress=False)
    want = [(g, yr, y, s) for (g, yr), (ys, ss) in sorted(parts.items())
            for y, s in zip(ys, ss)]
    got = list(zip(cols.data["grp"].tolist(), cols.data["year"].tolist(),
                   cols.data["label"].tolist(), cols.data["score"].tolist()))
    assert got == want
    # only partition columns: the rows of each file
    only = read_columns(base, keys=["grp"], progress=False)
    assert only.data["grp"].tolist() == [g for g, _, _, _ in want]
    with pytest.raises(TableError, match="no such column; the file has the columns "
                                         "'label', 'score', 'grp', 'year'"):
        read_columns(base, numeric=["scor"], progress=False)


def test_eval_groups_by_a_hive_partition_column(tmp_path):
    from click.testing import CliRunner

    from streamrank.cli import main

    base, parts = _hive(tmp_path)
    res = CliRunner().invoke(main, ["eval", str(base), "--label", "label", "--score",
                                    "score", "--group", "grp", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    # the same as the rows written to one CSV file with the group as a column
    flat = tmp_path / "flat.csv"
    flat.write_text("grp,label,score\n" + "".join(
        f"{g},{y},{s}\n" for (g, _), (ys, ss) in sorted(parts.items())
        for y, s in zip(ys, ss)))
    res2 = CliRunner().invoke(main, ["eval", str(flat), "--label", "label", "--score",
                                     "score", "--group", "grp", "--format", "json"])
    assert res2.exit_code == 0, res2.output
    ref = json.loads(res2.stdout)
    assert out["groups"] == ref["groups"] == 2 and out["n"] == 8
    for k in ("auc", "group_auc", "concordant", "discordant", "tied_score"):
        assert out[k] == ref[k], k


# --------------------------------------------------------------------------- ISO times
def test_times_columns_read_iso_timestamps_as_parse_time_does(tmp_path):
    from streamrank.io.tables import parse_time

    path = tmp_path / "t.csv"
    stamps = ["2024-01-01T00:00:00Z", "12.5", "2024-01-01 06:00:00", "2024-01-02",
              "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00Z"]
    path.write_text("t\n" + "\n".join(stamps) + "\n")
    cols = read_columns(path, numeric=["t"], times=["t"], progress=False)
    assert cols.data["t"].tolist() == [parse_time(s)[0] for s in stamps]
    path.write_text("t\n2024-01-01T00:00:00Z\nsoon\n")
    with pytest.raises(TableError, match=r"line 3 \(row 2\), column 't': 'soon' is not a "
                                         "number or an ISO 8601 timestamp"):
        read_columns(path, numeric=["t"], times=["t"], progress=False)
    with pytest.raises(TableError, match="'2024-01-01T00:00:00Z' is not a number"):
        read_columns(path, numeric=["t"], progress=False)      # not a times column


def test_columns_name_the_lines_of_their_rows(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text('id,s\na,1\n\n"b\nb",2\nc,3\n')
    cols = read_columns(path, numeric=["s"], keys=["id"], progress=False)
    assert cols.line_of([3, 1, 2]).tolist() == [6, 2, 4]
    js = tmp_path / "l.jsonl"
    js.write_text('{"s": 1}\n\n{"s": 2}\n')
    assert read_columns(js, numeric=["s"], progress=False).line_of([3]).tolist() == [3]
    pq.write_table(pa.table({"s": [1.0]}), tmp_path / "l.parquet")
    assert read_columns(tmp_path / "l.parquet", numeric=["s"], progress=False).line_of is None


def test_eval_reads_iso_times_as_the_monitor_does(tmp_path):
    from click.testing import CliRunner

    from streamrank.cli import main

    iso = tmp_path / "iso.csv"
    iso.write_text("t,e,s\n2024-01-01T00:00:00Z,1,0.9\n2024-01-03,0,0.1\n"
                   "2024-01-02T01:00:00+01:00,1,0.5\n2024-01-01T12:00:00Z,1,0.7\n")
    secs = tmp_path / "secs.csv"
    secs.write_text("t,e,s\n0,1,0.9\n172800,0,0.1\n86400,1,0.5\n43200,1,0.7\n")
    out = []
    for path in (iso, secs):
        res = CliRunner().invoke(main, ["eval", str(path), "--time", "t", "--event", "e",
                                        "--score", "s", "--format", "json"])
        assert res.exit_code == 0, res.output
        out.append({k: v for k, v in json.loads(res.stdout).items() if k != "file"})
    assert out[0] == out[1]
