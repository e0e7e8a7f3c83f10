"""`streamrank.io.tables.read_columns` on damaged, odd and hostile files: every one is read
right or refused with a `TableError` naming the file, the row and its line (as an editor
numbers lines, the header being line 1), the column and the value; ``streamrank eval`` and
``epochs`` exit 2 on them with that message, never a traceback.

Every file is generated here, in ``tmp_path``."""

import csv
import gzip
import io
import json
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

import streamrank.io._csv as _csvr
import streamrank.io._jsonl as _jsonl
from streamrank.cli import main
from streamrank.io.tables import TableError, read_columns


def _file(tmp_path, name, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _read(path, **kw):
    kw.setdefault("progress", False)
    return read_columns(path, **kw)


def _err(path, **kw) -> TableError:
    with pytest.raises(TableError) as info:
        _read(path, **kw)
    return info.value


def _where(e: TableError):
    return e.row, e.line, e.column, e.value


# ============================================================================ line ends
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_lf_crlf_and_cr_line_ends_read_alike(tmp_path, end):
    """CR alone is a line end, as pyarrow reads it (and a quoted field may span lines):
    the same rows and the same lines whatever the line ends."""
    lines = [b"y,s,note", b"0,0.1,a", b'1,0.9,"two', b'lines"', b"", b"1,0.4,b", b"0,x,c"]
    path = _file(tmp_path, "e.csv", end.join(lines) + end)
    e = _err(path, numeric=["y", "s"])
    assert _where(e) == (4, 7, "s", "x")
    assert str(e) == f"{path}, line 7 (row 4), column 's': 'x' is not a number"
    cols = _read(path, numeric=["y", "s"], keys=["note"], on_error="skip")
    assert cols.data["s"].tolist() == [0.1, 0.9, 0.4]
    sep = end.decode()
    assert cols.data["note"].tolist() == ["a", f"two{sep}lines", "b"]


def test_header_without_a_line_end(tmp_path):
    assert _read(_file(tmp_path, "h.csv", b"y,s"), numeric=["y", "s"]).n_rows == 0
    cols = _read(_file(tmp_path, "r.csv", b"y,s\n0,0.1\n1,0.9"), numeric=["y", "s"])
    assert cols.data["s"].tolist() == [0.1, 0.9]
    e = _err(_file(tmp_path, "u.csv", b"y,s"), numeric=["score"])
    assert (e.column, e.line) == ("score", None) and "no such column" in e.reason


def test_a_quoted_field_spanning_lines_across_blocks(tmp_path, monkeypatch):
    """Values with line breaks, batches cut anywhere: every value and every line right."""
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 64)
    rows = [f'{i},"first\nsecond {i}",{i / 10}' for i in range(40)]
    rows[33] = '33,"x\ny",oops'
    path = _file(tmp_path, "m.csv", ("id,note,s\n" + "\n".join(rows) + "\n").encode())
    e = _err(path, numeric=["s"], keys=["note"])
    assert _where(e) == (34, 2 + 2 * 33, "s", "oops")
    cols = _read(path, numeric=["s"], keys=["note"], on_error="skip")
    assert cols.data["note"].tolist()[:2] == ["first\nsecond 0", "first\nsecond 1"]
    assert cols.data["s"].size == 39


# ============================================================================ blank lines
_BLANKS = [b"", b"   ", b"\t", b" \t ", b"\r"]   # each line: skipped, never a row


@pytest.mark.parametrize("fmt, columns", [
    ("csv", ["s"]), ("tsv", ["s"]), ("tsv", ["s", "t"]), ("csv1", ["s"]), ("jsonl", ["s"])])
def test_blank_lines_are_skipped_alike_in_every_text_format(tmp_path, fmt, columns,
                                                            monkeypatch):
    """Blank lines are no rows in CSV, TSV and JSON lines: the same values, counts and
    row numbers, and a message names the line an editor shows. pyarrow takes a line of
    only tabs in a TSV file (and of spaces in a one-column file, ``csv1``) for a row of
    empty cells: it is dropped too, whether every column is read or not. Small blocks,
    so that batches cut between the lines."""
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 48)
    monkeypatch.setattr(_jsonl, "_JSON_BLOCK", 48)
    s = ["0.5", "0.25", "0.75", "abc", "1.5", "2"]
    sep = "\t" if fmt == "tsv" else ","
    if fmt == "jsonl":
        lines = [json.dumps({"s": v, "t": 1}).encode() for v in s]
    elif fmt == "csv1":
        lines = [b"s"] + [v.encode() for v in s]
    else:
        lines = [sep.join(r).encode() for r in [["s", "t"]] + [[v, "1"] for v in s]]
    data = []
    for i, line in enumerate(lines):
        data += [line, _BLANKS[i % 5], _BLANKS[(i + 2) % 5]] if i else [line]
    path = _file(tmp_path, "b." + fmt[:5].rstrip("1"), b"\n".join(data) + b"\n\n  \n")
    bad = lines.index(next(x for x in lines if b"abc" in x))
    line = 1 + [x.strip(b"\r") for x in data].index(lines[bad])
    e = _err(path, numeric=columns)
    assert (e.row, e.line, e.column) == (line if fmt == "jsonl" else 4, line, "s")
    cols = _read(path, numeric=columns, on_error="skip")
    assert cols.data["s"].tolist() == [0.5, 0.25, 0.75, 1.5, 2.0]
    assert (cols.n_rows, cols.skipped) == (6, 1)
    assert cols.first_errors == [str(e)]


def test_blank_lines_on_standard_input(monkeypatch):
    """Standard input is not read again: its messages name the row, its blank lines are
    skipped as in a file."""
    data = b"s,t\n0.5,1\n\n   \n\t\nx,1\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    e = _err("-", numeric=["s"])
    assert _where(e) == (2, None, "s", "x") and str(e).startswith("<stdin>, row 2, column")
    data = b"s\n0.5\n  \n0.25\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert _read("-", numeric=["s"]).data["s"].tolist() == [0.5, 0.25]


def test_leading_empty_lines_and_a_blank_header(tmp_path):
    path = _file(tmp_path, "l.csv", b"\n\r\ns\n1\nx\n")
    assert _where(_err(path, numeric=["s"])) == (2, 5, "s", "x")
    e = _err(_file(tmp_path, "b.csv", b"  \ns\n1\n"), numeric=["s"])
    assert (e.line, e.row) == (1, None) and "blank line where the header" in e.reason


# ============================================================================ headers
def test_a_column_named_twice_in_the_header(tmp_path):
    path = _file(tmp_path, "d.csv", b"id,s,y,s\n1,0.1,0,0.2\n")
    e = _err(path, numeric=["s"], on_error="skip")
    assert (e.column, e.line, e.row) == ("s", 1, None)
    assert str(e) == (f"{path}, line 1, column 's': the header has 2 columns of this name "
                      "(columns 2 and 4): which one to read is ambiguous; rename them")
    assert _read(path, numeric=["y"]).data["y"].tolist() == [0.0]   # not read: no matter
    pq.write_table(pa.Table.from_arrays([pa.array([1.0]), pa.array([2.0])], ["s", "s"]),
                   tmp_path / "d.parquet")
    e = _err(tmp_path / "d.parquet", numeric=["s"])
    assert e.column == "s" and "the file has 2 columns of this name (columns 1 and 2)" in str(e)


@pytest.mark.parametrize("data, reason", [
    (b"", "empty file: no header row"),
    (b"\n\n\r\n", "empty file: no header row"),
    (b"y,s\x00\n1,2\n", "the header holds a NUL byte: not a text file"),
    (b"y,caf\xe9\n1,2\n", "the header is not UTF-8 text (byte 0xe9 at byte 6)"),
    (bytes(np.random.default_rng(5).integers(0, 256, 4000, dtype=np.uint8)),
     "the header is not UTF-8 text (byte 0xa8 at byte 1): not a UTF-8 CSV file"),
])
def test_header_that_is_not_a_csv_header(tmp_path, data, reason):
    e = _err(_file(tmp_path, "g.csv", data), numeric=["s"])
    assert reason in e.reason and e.row is None
    assert e.line == (None if not data.strip() else 1)


def test_a_header_field_longer_than_the_csv_modules_limit(tmp_path):
    """Python's ``csv`` module refuses fields over 131072 characters by default: a header
    (and a quoted value, found again for its line) may be longer."""
    name = "n" * 200_000
    big = "v" * 200_000
    limit = csv.field_size_limit()
    path = _file(tmp_path, "h.csv", f'{name},s\n1,0.5\n"{big}\n",x\n'.encode())
    cols = _read(path, numeric=["s"], keys=[name], on_error="skip")
    assert cols.data["s"].tolist() == [0.5] and cols.data[name].tolist() == [1]
    e = _err(path, numeric=["s"])
    assert _where(e) == (2, 3, "s", "x")
    assert csv.field_size_limit() == limit     # put back


def test_header_only_file(tmp_path):
    cols = _read(_file(tmp_path, "h.csv", b"y,s\n\n  \n"), numeric=["y", "s"])
    assert cols.n_rows == 0 and cols.data["s"].size == 0


# ============================================================================ values
def test_cells_that_are_not_utf8(tmp_path):
    path = _file(tmp_path, "u.csv", b"y,g,note\n1,a,caf\xe9\n0,b\xe9,x\n1,c,y\n")
    cols = _read(path, numeric=["y"])                    # "note" is never decoded
    assert cols.data["y"].tolist() == [1.0, 0.0, 1.0]
    e = _err(path, numeric=["y"], keys=["g"])
    assert _where(e) == (2, 3, "g", b"b\xe9")
    assert e.reason == "b'b\\xe9' is not UTF-8 text"
    cols = _read(path, numeric=["y"], keys=["g"], on_error="skip")
    assert cols.data["g"].tolist() == ["a", "c"] and cols.skipped == 1
    pq.write_table(pa.table({"s": pa.array([b"1", b"\xff2"], pa.binary())}),
                   tmp_path / "u.parquet")
    assert _where(_err(tmp_path / "u.parquet", numeric=["s"])) == (2, None, "s", b"\xff2")
    e = _err(_file(tmp_path, "u.jsonl", b'{"s": 1}\n{"s": "\xe9"}\n'), numeric=["s"])
    assert (e.row, e.line) == (2, 2) and e.reason.startswith("not UTF-8 text (byte 0xe9")


def test_nul_bytes(tmp_path):
    e = _err(_file(tmp_path, "n.csv", b"s\n1\n2\x003\n"), numeric=["s"])
    assert _where(e) == (2, 3, "s", "2\x003") and e.reason == "'2\\x003' is not a number"
    e = _err(_file(tmp_path, "n.jsonl", b'{"s": 1}\n{"s": 2}\x00\n'), numeric=["s"])
    assert (e.line, e.column) == (2, None) and e.reason.startswith("malformed JSON")


def test_numbers_beyond_float64(tmp_path):
    path = _file(tmp_path, "h.csv", b"s\n1\n1e400\n-1E999\n")
    e = _err(path, numeric=["s"])
    assert _where(e) == (2, 3, "s", "1e400")
    assert e.reason == ("'1e400' is not finite: beyond the float64 range (about 1.8e308), "
                        "it reads as infinity")
    assert _read(path, numeric=["s"], finite=False).data["s"].tolist() == [1, np.inf, -np.inf]
    big = "9" * 400
    e = _err(_file(tmp_path, "b.jsonl", f'{{"s": 1}}\n{{"s": {big}}}\n'.encode()), numeric=["s"])
    assert (e.line, e.column, e.value) == (2, "s", np.inf)
    assert "beyond the float64 range" in e.reason
    # The same lines in a block that pyarrow cannot parse: the number keeps its text.
    path = _file(tmp_path, "c.jsonl", f'{{"s": 1}}\n{{"s": 1e400}}\n{{"s": {big}}}\n[]\n'.encode())
    cols = _read(path, numeric=["s"], on_error="skip")
    assert [m.split(": ", 1)[1][:8] for m in cols.first_errors] == ["'1e400' ", "'9999999",
                                                                    "not a JS"]


def test_json_integer_ids_beyond_2_53(tmp_path):
    """A JSON integer beyond int64 makes pyarrow read its block as floats, where distinct
    ids past 2**53 collide: refused, not merged."""
    path = _file(tmp_path, "k.jsonl", b'{"g": 1, "s": 0}\n{"g": 9007199254740993, "s": 1}\n'
                 b'{"g": 123456789012345678901234567890, "s": 1}\n')
    e = _err(path, numeric=["s"], keys=["g"])
    assert (e.line, e.column) == (2, "g") and "is an id beyond 2**53 read as a float" in e.reason
    small = _file(tmp_path, "ok.jsonl", b'{"g": 9007199254740993, "s": 1}\n')
    assert _read(small, numeric=["s"], keys=["g"]).data["g"].tolist() == [9007199254740993]


@pytest.mark.parametrize("line", [b"[1, 2]", b"17", b'"text"', b"null"])
def test_json_line_that_is_not_an_object(tmp_path, line):
    e = _err(_file(tmp_path, "o.jsonl", b'{"s": 1}\n\n' + line + b"\n"), numeric=["s"])
    assert (e.row, e.line, e.column) == (3, 3, None)
    assert e.reason == f"not a JSON object: {line.decode()!r}"


def test_json_lines_with_cr_line_ends_are_refused(tmp_path):
    e = _err(_file(tmp_path, "cr.jsonl", b'{"s": 1}\r{"s": 2}\r'), numeric=["s"])
    assert e.line == 1 and "the line holds a CR: JSON lines end with LF (or CRLF)" in e.reason


def test_long_values_are_shortened_in_messages(tmp_path):
    path = _file(tmp_path, "v.csv", b"s\n1\n" + b"7x" * 50_000 + b"\n")
    e = _err(path, numeric=["s"])
    # (The message, not counting the file's name: tmp_path grows with pytest's runs.)
    assert len(e.value) == 100_000
    assert str(e) == (f"{path}, line 3 (row 2), column 's': '{'7x' * 30}'... "
                      "(100,000 characters) is not a number")


# ============================================================================ long rows
def test_a_5_mb_field(tmp_path):
    """A row longer than the 1 MiB block: the read starts over with larger blocks."""
    big = b"x" * 5_000_000
    path = _file(tmp_path, "f.csv", b"note,s\na,0.5\n" + big + b",0.25\nb,q\n")
    e = _err(path, numeric=["s"])
    assert _where(e) == (3, 4, "s", "q")
    cols = _read(path, numeric=["s"], keys=["note"], on_error="skip")
    assert cols.data["s"].tolist() == [0.5, 0.25] and cols.data["note"][1] == big.decode()


def test_a_row_longer_than_the_longest_block(tmp_path, monkeypatch):
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 64)
    monkeypatch.setattr(_csvr, "_CSV_BLOCK_MAX", 4096)
    path = _file(tmp_path, "f.csv", b"note,s\na,0.5\n" + b"x" * 20_000 + b",0.25\n")
    e = _err(path, numeric=["s"], on_error="skip")
    assert e.reason.startswith("a row is longer than 4,096 bytes, the longest the CSV reader")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(open(path, "rb").read())))
    e = _err("-", numeric=["s"])
    assert e.file == "<stdin>" and "the longest row read from standard input" in e.reason


class _Pipe(io.RawIOBase):
    """Standard input as a slow pipe: notes when each read starts."""

    def __init__(self, data):
        self.data, self.starts = io.BytesIO(data), []

    def readable(self):
        return True

    def readinto(self, b):
        self.starts.append(time.perf_counter())
        time.sleep(0.002)
        return self.data.readinto(b)


@pytest.mark.parametrize("bad", ["bad value", "long row"])
def test_no_read_after_the_error(monkeypatch, bad):
    """pyarrow reads blocks ahead on a thread of its own (32 of them) and goes on after an
    error: the reader stops it before it returns (a file closed under such a read would
    give its descriptor, and a block of its bytes, to the next file opened). At most the
    read in progress when the error came ends later."""
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 4096)
    rows = [b"%d,0.5\n" % i for i in range(40_000)]
    # After the first 64 KiB (read with the header), so that the blocks come from the pipe.
    row = b"1,x\n" if bad == "bad value" else b"1," + b"9" * 10_000 + b"\n"
    pipe = _Pipe(b"y,s\n" + b"".join(rows[:15_000]) + row + b"".join(rows[15_000:]))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(pipe, 64)))
    e = _err("-", numeric=["s"])
    done = time.perf_counter()
    if bad == "bad value":
        assert (e.row, e.column, e.value) == (15_001, "s", "x")
    else:
        assert e.reason.startswith("a row is longer than 4,096 bytes, the longest row read")
    time.sleep(0.3)
    assert sum(t > done for t in pipe.starts) <= 1


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_the_file_is_closed_after_the_read(tmp_path, monkeypatch):
    """A failed read, its retry with larger blocks included, leaves no descriptor open
    (once the read in progress when it failed has returned), and the next file opened
    loses no byte to it."""
    monkeypatch.setattr(_csvr, "_CSV_BLOCK", 64)
    rows = b"".join(b"%d,0.5\n" % i for i in range(20_000))
    path = _file(tmp_path, "c.csv", b"y,s\n" + b"1," + b"7" * 300 + b"\n1,q\n" + rows)
    other = _file(tmp_path, "o.bin", b"z" * 4096)
    before = set(os.listdir("/proc/self/fd"))
    for _ in range(5):
        assert _where(_err(path, numeric=["s"])) == (2, 3, "s", "q")
        with open(other, "rb") as f:
            time.sleep(0.01)
            assert f.tell() == 0 and f.read() == b"z" * 4096
    deadline = time.monotonic() + 10
    while set(os.listdir("/proc/self/fd")) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(os.listdir("/proc/self/fd")) - before


# ============================================================================ compressed
def _gz_lines(fmt, n=20_000):
    if fmt == "csv":
        return b"s\n" + b"".join(b"%d\n" % i for i in range(n))
    return b"".join(b'{"s": %d}\n' % i for i in range(n))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("damage, reason", [
    ("fake", "not a gzip file, though its name ends in .gz"),
    ("truncated", "damaged or truncated gzip data"),
    ("flipped", "damaged or truncated gzip data"),
])
def test_damaged_gzip(tmp_path, fmt, damage, reason):
    text = _gz_lines(fmt)
    data = gzip.compress(text)
    if damage == "fake":
        data = text
    elif damage == "truncated":
        data = data[:len(data) // 2]
    else:
        data = bytearray(data)
        data[len(data) // 2] ^= 0xFF
        data = bytes(data)
    e = _err(_file(tmp_path, f"z.{fmt}.gz", data), numeric=["s"])
    assert e.reason.startswith(reason) and e.column is None


# ============================================================================ Parquet
def _parquet(tmp_path) -> bytes:
    pq.write_table(pa.table({"s": np.arange(5000) / 7}), tmp_path / "ok.parquet",
                   row_group_size=1000, compression="snappy")
    return (tmp_path / "ok.parquet").read_bytes()


def test_truncated_and_damaged_parquet(tmp_path):
    data = _parquet(tmp_path)
    e = _err(_file(tmp_path, "t.parquet", data[:len(data) // 2]), numeric=["s"])
    assert e.reason.startswith("not a readable Parquet file")
    damaged = bytearray(data)
    for i in range(200, len(data) // 2, 7):
        damaged[i] ^= 0x5A
    e = _err(_file(tmp_path, "d.parquet", bytes(damaged)), numeric=["s"])
    assert e.reason.startswith("a damaged Parquet file: the rows after row 0 cannot be read")
    e = _err(_file(tmp_path, "z.parquet", b""), numeric=["s"])
    assert e.reason.startswith("not a readable Parquet file")


def test_directories(tmp_path):
    """(tests/io/test_tables_folders.py: directories of every format, and of several)"""
    (tmp_path / "empty").mkdir()
    for fmt in (None, "csv"):
        e = _err(tmp_path / "empty", numeric=["s"], format=fmt)
        assert e.reason.startswith("no data file in this directory")


# ============================================================================ command line
_CASES = {  # name -> (file bytes, what the message says after the file name)
    "no_newline.csv": (b"label,score", ": nothing to evaluate: the file has no data rows"),
    "cr.csv": (b"label,score\r0,0.1\r\r1,x\r", ", line 4 (row 2), column 'score': 'x' is not"),
    "latin1.csv": (b"label,score\n0,0.1\n1,0.\xe99\n",
                   ", line 3 (row 2), column 'score': b'0.\\xe99' is not UTF-8 text"),
    "latin1_header.csv": (b"label,sc\xf6re\n0,0.1\n", ", line 1: the header is not UTF-8"),
    "dup.csv": (b"label,score,score\n0,0.1,0.2\n",
                ", line 1, column 'score': the header has 2 columns of this name"),
    "header_only.csv": (b"label,score\n", ": nothing to evaluate: the file has no data rows"),
    "empty.csv": (b"", ": empty file: no header row"),
    "garbage.csv": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", ", line 1: the header "),
    "huge.csv": (b"label,score\n0,0.1\n1,1e400\n",
                 ", line 3 (row 2), column 'score': '1e400' is not finite"),
    "nul.csv": (b"label,score\n0,0.1\n1,0.\x009\n", ", line 3 (row 2), column 'score': "),
    "fake.csv.gz": (b"label,score\n0,0.1\n", ": not a gzip file"),
    "truncated.csv.gz": (gzip.compress(b"label,score\n" + b"0,0.1\n1,0.9\n" * 40_000)[:600],
                         ": damaged or truncated gzip data"),
    "array.jsonl": (b'{"label": 0, "score": 0.1}\n[0, 0.2]\n', ", line 2: not a JSON object"),
    "big.jsonl": (b'{"label": 0, "score": 0.1}\n{"label": 1, "score": 1' + b"0" * 400 + b"}\n",
                  ", line 2, column 'score': inf is not finite"),
    "truncated.parquet": (b"PAR1" + b"\x00" * 64, ": not a readable Parquet file"),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_eval_exits_2_with_the_location(tmp_path, name):
    data, where = _CASES[name]
    path = _file(tmp_path, name, data)
    res = CliRunner().invoke(main, ["eval", path, "--label", "label", "--score", "score"])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output
    assert f"Error: {path}{where}" in res.stderr
    res = CliRunner().invoke(main, ["eval", path, "--label", "label", "--score", "score",
                                    "--on-error", "skip"])
    # a bad row is skipped (exit 0, the row named); a bad file stays an error
    skipped = name in _ROW_ERRORS
    assert res.exit_code == (0 if skipped else 2), res.output
    assert isinstance(res.exception, (type(None) if skipped else SystemExit))
    assert f"{'  skipped' if skipped else 'Error'}: {path}{where}" in res.stderr


# The cases of bad rows (the others are bad files, which no --on-error skips).
_ROW_ERRORS = {"array.jsonl", "big.jsonl", "cr.csv", "huge.csv", "latin1.csv", "nul.csv"}


def test_a_long_field_through_eval(tmp_path):
    path = _file(tmp_path, "long.csv", b"note,label,score\n" + b"n" * 3_000_000 + b",0,0.1\n"
                 b"b,1,0.9\n")
    res = CliRunner().invoke(main, ["eval", path, "--label", "label", "--score", "score",
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["auc"] == 1.0


def test_epochs_exits_2_with_the_location(tmp_path):
    labels = _file(tmp_path, "labels.csv", b"id,y\na,0\nb,1\n")
    epoch = _file(tmp_path, "e1.csv", b"id,p,p\na,0.1,0.2\nb,0.9,0.8\n")
    res = CliRunner().invoke(main, ["epochs", epoch, "--labels", labels, "--label", "y",
                                    "--score", "p", "--id", "id"])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert f"{epoch}, line 1, column 'p': the header has 2 columns of this name" in res.output
    epoch = _file(tmp_path, "e2.csv", b"id,p\na,0.1\r\r\nb,\xff\r")
    res = CliRunner().invoke(main, ["epochs", epoch, "--labels", labels, "--label", "y",
                                    "--score", "p", "--id", "id"])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert f"{epoch}, line 4 (row 2), column 'p': b'\\xff' is not UTF-8 text" in res.output


# ============================================================================ property
@settings(derandomize=True, max_examples=60, deadline=None)
@given(data=st.data(), sep=st.sampled_from([",", "\t"]),
       end=st.sampled_from(["\n", "\r\n", "\r"]), chunk=st.sampled_from([5, 64, 1 << 22]),
       block=st.sampled_from([32, 1 << 20]))
def test_lines_of_rows_in_random_files(tmp_path_factory, data, sep, end, chunk, block):
    """Quoted fields spanning lines, empty and blank lines, every line end: the line a
    message names is the line the bad row starts on, wherever the file is cut in blocks
    (pyarrow's) and chunks (the second read that finds the line)."""
    n = data.draw(st.integers(1, 30))
    bad = data.draw(st.integers(0, n - 1))
    text, line = ["a", "b", "s"], 1
    text = [sep.join(text), end]
    expected = None
    for i in range(n):
        for _ in range(data.draw(st.integers(0, 2))):       # empty and blank lines
            # (",," is a row of empty cells; "\t\t", the header's number of fields in a
            # TSV file, is a blank line that pyarrow reads as a row.)
            text += [data.draw(st.sampled_from(["", " ", " \t", "\t\t" if sep == "\t" else "\t"])),
                     end]
            line += 1
        if i == bad:
            expected = line + 1
        breaks = data.draw(st.integers(0, 2))
        a = data.draw(st.sampled_from(["x", f'"x{sep}y"', '"say ""hi"""']))
        if breaks:
            a = '"' + end.join(["p"] * (breaks + 1)) + '"'
        text += [sep.join([a, "b", "oops" if i == bad else str(i)]), end]
        line += 1 + breaks
    path = tmp_path_factory.mktemp("l") / ("r.tsv" if sep == "\t" else "r.csv")
    path.write_bytes("".join(text).encode())
    from streamrank.io import _csvtext

    old = _csvr._CSV_BLOCK, _csvtext.RecordLines.CHUNK
    _csvr._CSV_BLOCK, _csvtext.RecordLines.CHUNK = block, chunk
    try:
        e = _err(path, numeric=["s"])
        assert (e.row, e.line, e.value) == (bad + 1, expected, "oops")
        cols = _read(path, numeric=["s"], keys=["a"], on_error="skip")
        assert cols.data["s"].tolist() == [float(i) for i in range(n) if i != bad]
        assert (cols.n_rows, cols.skipped, cols.first_errors) == (n, 1, [str(e)])
    finally:
        _csvr._CSV_BLOCK, _csvtext.RecordLines.CHUNK = old
