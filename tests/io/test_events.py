"""`streamrank.io.events.EventSource`: complete lines only, on every stop path; positions;
blank lines; compressed input; the fingerprint a checkpoint keeps."""

import gzip
import hashlib
import io

import pytest

from streamrank.io.events import (HEAD_BYTES, Columns, EventError, EventParser, EventSource,
                               InputMismatch, LocatedError, Position, StopGate)


def rows_of(src):
    return [(row, rec) for row, rec in src]


class Requested(StopGate):
    """A gate whose stop was requested before the reading starts (as a SIGTERM that
    arrived between two rows): the source must end at its next wait."""

    def __init__(self):
        super().__init__()
        self.requested = True


@pytest.mark.parametrize("stop", ["idle", "requested"])
@pytest.mark.parametrize("fmt,text,tail", [
    ("csv", b"id,score\na,0.5\nb,0.25\n", b"c,0.1"),
    ("jsonl", b'{"id": "a", "score": 0.5}\n{"id": "b", "score": 0.25}\n',
     b'{"id": "c", "sc'),
    # a quoted field that holds a line break, cut after it: a whole line but half a row
    ("csv", b"id,score\na,0.5\nb,0.25\n", b'"c\nd",0.1'),
])
def test_follow_never_reads_a_half_written_line(tmp_path, fmt, text, tail, stop):
    path = tmp_path / f"live.{fmt}"
    path.write_bytes(text + tail)
    gate = Requested() if stop == "requested" else None
    src = EventSource(path, follow=True, poll=0.01, max_idle=0.05, gate=gate)
    got = rows_of(src)
    assert [r for r, _ in got] == [1, 2]
    assert src.stopped
    assert src.position == Position(2, len(text))
    src.close()
    # the producer completes the line; a resumed source reads it whole
    rest = b"23\n" if fmt == "csv" and b'"' not in tail else (
        b'ore": 0.125}\n' if fmt == "jsonl" else b"\n")
    with open(path, "ab") as f:
        f.write(rest)
    src = EventSource(path, follow=True, poll=0.01, max_idle=0.05, start=src.position)
    (row, rec), = rows_of(src)
    parse = EventParser(src, Columns(label=None))
    assert row == 3
    key, score = parse(row, rec)[:2]
    assert (key, score) == {b"c,0.1": ("c", 0.123), b'"c\nd",0.1': ("c\nd", 0.1)}.get(
        tail, ("c", 0.125))
    assert src.position == Position(3, len(text + tail + rest))


def test_at_a_real_end_the_last_line_is_a_row(tmp_path):
    path = tmp_path / "e.csv"
    path.write_bytes(b"id,score\na,0.5\nb,0.25")       # no newline at the end
    src = EventSource(path)
    assert [r for r, _ in rows_of(src)] == [1, 2] and not src.stopped
    assert src.position == Position(2, path.stat().st_size)
    # a closed pipe (a stream that is not a file): the same
    src = EventSource(io.BytesIO(b'{"id": "a", "score": 1}\n{"id": "b", "score": 2}'),
                      fmt="jsonl")
    assert [rec for _, rec in src][-1] == {"id": "b", "score": 2}


def test_blank_csv_lines_are_no_rows_and_json_rows_are_lines(tmp_path):
    # As `read_columns` numbers them: a CSV row is a data record, a JSON row its line.
    path = tmp_path / "b.csv"
    path.write_bytes(b"id,score\r\na,0.5\r\n\r\n  \t\nb,0.25\r\n\n")
    src = EventSource(path)
    seen = []
    for row, rec in src:
        seen.append((row, src.line, rec))
    assert seen == [(1, 2, ["a", "0.5"]), (2, 5, ["b", "0.25"])]
    assert src.position == Position(2, path.stat().st_size)   # past the trailing blank
    src = EventSource(io.BytesIO(b'{"id": "a", "score": 1}\n\n   \n{"id": "b", "score": 2}\n'),
                      fmt="jsonl")
    assert [(r, src.line) for r, _ in src] == [(1, 1), (4, 4)]


def test_errors_name_the_line_and_the_row_as_read_columns_does(tmp_path):
    from streamrank.io.tables import TableError, read_columns

    path = tmp_path / "m.csv"
    # a blank line, then a quoted field over two lines, then the bad row
    path.write_bytes(b'id,score\na,0.5\n\n"b\nb",0.25\nc,abc\n')
    src = EventSource(path)
    parse = EventParser(src, Columns(label=None))
    with pytest.raises(EventError) as info:
        for row, rec in src:
            parse(row, rec)
    err = info.value
    assert (err.file, err.line, err.row, err.column) == (str(path), 6, 3, "score")
    assert str(err) == f"{path}, line 6 (row 3), column 'score': 'abc': not a score"
    with pytest.raises(TableError) as table:
        read_columns(path, numeric=["score"], progress=False)
    assert (table.value.line, table.value.row) == (6, 3)
    assert str(table.value).startswith(f"{path}, line 6 (row 3), column 'score'")
    # one error type for both readers
    assert isinstance(err, LocatedError) and isinstance(table.value, LocatedError)


def test_a_resumed_file_names_the_lines_after_the_position(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"id,score\na,0.5\n\nb,0.25\nc,x\n")
    src = EventSource(path)
    it = iter(src)
    next(it), next(it)
    at = src.position
    src.close()
    src = EventSource(path, start=at)
    parse = EventParser(src, Columns(label=None))
    with pytest.raises(EventError, match=r"line 5 \(row 3\), column 'score': 'x'"):
        for row, rec in src:
            parse(row, rec)


def test_number_rules_are_those_of_read_columns(tmp_path):
    from streamrank.io.tables import parse_number, read_columns

    cells = ["1", " -2.5e3 ", "TRUE", "false", "inf", "-Infinity", "nan", "1e400", ".5",
             "1_000", "0x10", "NA", "\u0661", "1e", "+nan"]
    path = tmp_path / "n.csv"
    path.write_text("id,score\n" + "".join(f"r{i},{c}\n" for i, c in enumerate(cells)),
                    encoding="utf-8")
    cols = read_columns(path, numeric=["score"], keys=["id"], on_error="skip",
                        finite=False, progress=False)
    read = dict(zip(cols.data["id"].tolist(), cols.data["score"].tolist()))
    for i, c in enumerate(cells):
        want = read.get(f"r{i}")
        got = parse_number(c)
        assert (got is None) == (want is None), c
        if got is not None:
            assert got == want or (got != got and want != want), c
        # the monitor: the same numbers (finite ones), the same refusals
        src = EventSource(io.BytesIO(f"id,score\na,{c}\n".encode()), name="n.csv")
        parse = EventParser(src, Columns(label=None))
        row, rec = next(iter(src))
        if got is not None and got - got == 0:
            assert parse(row, rec)[1] == got
        else:
            with pytest.raises(EventError):
                parse(row, rec)


def test_gzip_is_read_as_text_and_resumes_by_rows(tmp_path):
    path = tmp_path / "e.csv.gz"
    text = b"id,score\na,0.5\nb,0.25\nc,0.125\n"
    path.write_bytes(gzip.compress(text))
    src = EventSource(path)
    assert src.format == "csv" and src.compression == "gzip" and not src.seekable
    got = rows_of(src)
    assert [rec[0] for _, rec in got] == ["a", "b", "c"]
    assert src.position == Position(3, None) and src.consumed == len(text)
    assert src.head() == (len(text), hashlib.sha256(text).hexdigest())
    src = EventSource(path, start=Position(2, None))
    assert rows_of(src) == [(3, ["c", "0.125"])]
    with pytest.raises(ValueError, match="cannot be followed"):
        EventSource(path, follow=True)


@pytest.mark.parametrize("data,match", [
    (b"BZh91AY&SY\x00\x00", "bzip2-compressed"),
    (b"\xfd7zXZ\x00\x00\x04", "xz-compressed"),
    (b"\xff\xfei\x00d\x00", "UTF-16 text"),
])
def test_other_compressions_and_encodings_are_refused(tmp_path, data, match):
    path = tmp_path / "e.csv"
    path.write_bytes(data)
    with pytest.raises(EventError, match=match):
        EventSource(path)


def test_expect_head_checks_a_file_now_and_a_stream_as_it_is_read(tmp_path):
    text = b"id,score\n" + b"".join(b"k%d,0.%d\n" % (i, i) for i in range(3000))
    path = tmp_path / "e.csv"
    path.write_bytes(text)
    n, digest = EventSource(path).head(100)
    assert n == 100 and digest == hashlib.sha256(text[:100]).hexdigest()
    EventSource(path).expect_head(n, digest)                   # the same file: fine
    other = tmp_path / "o.csv"
    other.write_bytes(text.replace(b"k1,", b"q1,", 1))
    with pytest.raises(InputMismatch, match="first 100 bytes differ"):
        EventSource(other).expect_head(n, digest)
    # a stream: checked once its first HEAD_BYTES are read, before any row past them
    big = min(HEAD_BYTES, len(text) - 1)
    n, digest = 20_000, hashlib.sha256(text[:20_000]).hexdigest()
    assert big > n
    src = EventSource(io.BytesIO(text.replace(b"k2999,", b"q2999,")), fmt="csv")
    src.expect_head(n, digest)          # the change is past the fingerprint: fine
    assert len(rows_of(src)) == 3000
    src = EventSource(io.BytesIO(text.replace(b"k100,", b"q100,")), fmt="csv")
    src.expect_head(n, digest)
    seen = []
    with pytest.raises(InputMismatch, match="first 20000 bytes differ"):
        for row, _ in src:
            seen.append(row)
    assert len(seen) < 20_000 // 8   # stopped within the fingerprinted bytes
    # a stream shorter than the fingerprint
    src = EventSource(io.BytesIO(text[:5000]), fmt="csv")
    src.expect_head(n, digest)
    with pytest.raises(InputMismatch, match="fewer than the 20000"):
        rows_of(src)


def test_a_stream_shorter_than_the_position_is_an_error():
    src = EventSource(io.BytesIO(b"id,score\na,1\nb,2\n"), start=Position(5, None),
                      fmt="csv")
    with pytest.raises(InputMismatch, match="ends after 2 rows, before the checkpoint's "
                                            r"position \(row 5\)"):
        rows_of(src)


def test_parser_refuses_a_used_column_named_twice_and_json_duplicates():
    src = EventSource(io.BytesIO(b"id,score,label,score\na,1,0,2\n"), fmt="csv")
    with pytest.raises(EventError, match=r"column 'score' more than once \(columns 2 "
                                         r"and 4\)"):
        EventParser(src, Columns())
    src = EventSource(io.BytesIO(b"id,score,label,x,x\na,1,0,2,3\n"), fmt="csv")
    parse = EventParser(src, Columns())          # an unused column twice: no matter
    assert [parse(r, rec) for r, rec in src] == [("a", 1.0, 0.0, None, None)]
    src = EventSource(io.BytesIO(b'{"id": "a", "score": 1, "label": 0, "label": 1}\n'),
                      fmt="jsonl")
    parse = EventParser(src, Columns())
    (row, rec), = rows_of(src)
    with pytest.raises(EventError, match="line 1, column 'label': the field is in the "
                                         "object more than once"):
        parse(row, rec)


@pytest.mark.parametrize("line,match", [
    (b'{"id": "a", "score": 1%s}\n' % (b"0" * 400),
     r"column 'score': '10000000000000000000\.\.\.': a number too large for a float "
     r"\(401 digits\)"),
    (b'{"id": "a", "score": 0.5, "ts": 1%s}\n' % (b"0" * 400),
     "column 'ts': .*a number too large for a float"),
    (b'{"id": "a", "score": %s}\n' % (b"1" * 5000), "not a JSON object"),
    (b'{"id": "a", "score": %s1%s}\n' % (b"[" * 100_000, b"]" * 100_000),
     "not a JSON object"),
])
def test_huge_json_numbers_are_bad_rows(line, match):
    src = EventSource(io.BytesIO(line), fmt="jsonl")
    parse = EventParser(src, Columns(label=None, time="ts"))
    (row, rec), = rows_of(src)
    with pytest.raises(EventError, match=match):
        parse(row, rec)


def test_monitor_reads_the_tab_separated_file_that_eval_reads(tmp_path):
    import json

    from click.testing import CliRunner

    from streamrank.cli import main

    rows = [("a", 0.9, 1), ("b", 0.2, 0), ("c", 0.7, 0), ("d", 0.4, 1), ("e", 0.8, 1)]
    for name in ("x.tsv", "x.tab", "x.txt"):    # by the name, and sniffed (tabs, no comma)
        path = tmp_path / name
        path.write_text("id\tscore\tlabel\n" + "".join(f"{k}\t{s}\t{y}\n" for k, s, y in rows))
        ev = CliRunner().invoke(main, ["eval", str(path), "--label", "label", "--score",
                                       "score", "--format", "json"])
        assert ev.exit_code == 0, ev.output
        mon = CliRunner().invoke(main, ["monitor", str(path), "--format", "json"])
        assert mon.exit_code == 0, mon.output
        last = json.loads([ln for ln in mon.stdout.splitlines() if ln.startswith("{")][-1])
        assert last["n"] == json.loads(ev.stdout)["n"] == 5, name
        assert last["auc"] == json.loads(ev.stdout)["auc"], name
    # and a bad cell is located alike by both
    path = tmp_path / "bad.tsv"
    path.write_text("id\tscore\tlabel\na\t0.5\t1\n\nb\tabc\t0\n")
    ev = CliRunner().invoke(main, ["eval", str(path), "--label", "label", "--score", "score"])
    mon = CliRunner().invoke(main, ["monitor", str(path)])
    assert ev.exit_code == mon.exit_code == 2
    where = f"{path}, line 4 (row 2), column 'score': 'abc'"
    assert where in ev.stderr and where in mon.stderr
