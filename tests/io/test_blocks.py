"""`EventSource.blocks`: plain CSV stretches come as parsed blocks, everything else row by
row, and the rows, their values, lines and positions are those of reading row by row."""

import gzip
import io
import math
import random

import pytest

from streamrank.io import _blockread
from streamrank.io._blockread import Block
from streamrank.io.events import Columns, EventError, EventParser, EventSource, Position


def _rows_of(src, parser, blocks):
    """``(row, values or the error, position after, line)`` of every row."""
    out = []
    items = src.blocks(parser.block) if blocks else iter(src)
    for item in items:
        if type(item) is Block:
            keys, cols = item.columns
            names = ["score", "label", "weight", "time", "challenger", "segment"]
            cols = {c: list(v) if c == "segment" else v.tolist() for c, v in cols.items()}
            for i in range(item.n):
                vals = [keys[i]] + [None if c not in cols else cols[c][i] for c in names]
                vals = tuple(None if type(v) is float and math.isnan(v) else v
                             for v in vals)
                out.append((item.row(i), vals, item.position(i), item.consumed(i),
                            item.line(i)))
            continue
        row, rec = item
        try:
            v = list(parser(row, rec))
            vals = tuple(v[:5] + [v[5] if parser.columns.challenger else None]
                         + [v[-1] if parser.columns.segment else None])
        except EventError as exc:
            vals = str(exc)
        out.append((row, vals, src.position, src.consumed, src.line))
    return out


def _both(data, columns=Columns(), name="e.csv", start=None, header=None, path=None):
    def read(blocks):
        stream = path if path is not None else io.BytesIO(data)
        src = EventSource(stream, name=name, start=start, header=header)
        with src:
            return _rows_of(src, EventParser(src, columns), blocks)
    return read(True), read(False)


def _csv(n, seed, bad=()):
    rng = random.Random(seed)
    lines = [b"id,score,label,w,t,seg"]
    for i in range(n):
        y = rng.choice(["0", "1", "", "true"])
        lines.append(f"k{i % 50},{rng.randrange(9) / 8},{y},{rng.choice(['1', '2', ''])},"
                     f"{i},{rng.choice('ab')}".encode())
    for at, text in bad:
        lines[at] = text
    return b"\n".join(lines) + b"\n"


COLS = Columns(weight="w", time="t", segment="seg")


@pytest.mark.parametrize("bad", [
    (), [(5, b'k1,"0.5",1,1,5,a')], [(7, b"")], [(9, b"k,abc,1,1,9,a")],
    [(3, b"k,0.5,1,1,3")], [(4, b",0.5,1,1,4,a")], [(6, b"k,nan,1,1,6,a")],
    [(8, b"k,0.5,1,-1,8,a")], [(2, b"k,0.5,1,1,2020-01-01T00:00:00,a")],
    [(5, b"k,0.5,\xff,1,5,a")], [(3, b"k,0.5,1,1,3,a\r")]])
def test_blocks_read_what_rows_read(bad, monkeypatch):
    monkeypatch.setattr(_blockread, "BLOCK_BYTES", 97)     # many blocks, cut anywhere
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 40)
    data = _csv(300, 1, bad)
    fast, slow = _both(data, COLS)
    assert fast == slow and len(fast) >= 299


def test_crlf_tsv_gzip_and_a_resumed_position(monkeypatch, tmp_path):
    monkeypatch.setattr(_blockread, "BLOCK_BYTES", 211)
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 40)
    data = _csv(400, 2).replace(b"\n", b"\r\n")
    fast, slow = _both(data, COLS)
    assert fast == slow
    tsv = _csv(400, 3).replace(b",", b"\t")
    assert _both(tsv, COLS, name="e.tsv")[0] == _both(tsv, COLS, name="e.tsv")[1]
    gz = gzip.compress(_csv(400, 4))
    fast, slow = _both(gz, COLS, name="e.csv.gz")
    assert fast == slow
    path = tmp_path / "e.csv"
    path.write_bytes(_csv(400, 5))
    whole = _both(None, COLS, path=str(path))[1]
    at = whole[150]     # resume after row 151 (seek), the lines counted again
    fast, slow = _both(None, COLS, start=Position(at[0], at[3]), path=str(path),
                       header="id,score,label,w,t,seg".split(","))
    assert fast == slow == whole[151:]


def test_a_block_is_taken_only_after_the_head_and_declined_lines_are_read_once():
    data = _csv(5000, 6)
    src = EventSource(io.BytesIO(data), name="e.csv")
    parser = EventParser(src, COLS)
    kinds = [type(item) is Block for item in src.blocks(parser.block)]
    assert kinds[0] is False and any(kinds)     # the first 64 KiB row by row
    assert src.position.rows == 5000


def test_iso_times_are_read_in_blocks_as_row_by_row(monkeypatch):
    """A time column of ISO 8601 timestamps (a zone or none, a date, fractions; numbers
    among them) is parsed in blocks to the same POSIX seconds; a bad timestamp still sends
    its block back to the row-by-row reader, which names it."""
    monkeypatch.setattr(_blockread, "BLOCK_BYTES", 131)
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 40)
    rng = random.Random(7)
    forms = ["2024-03-01T12:00:{:02d}Z", "2024-03-01T13:00:{:02d}+01:00",
             "2024-03-01T12:00:{:02d}.250", "2024-03-0{}", "17093{:02d}000"]
    lines = [b"id,score,label,t"]
    for i in range(400):
        t = rng.choice(forms).format(i % 9 + 1)
        lines.append(f"k{i},{rng.randrange(9) / 8},{rng.choice('01')},{t}".encode())
    lines[250] = b"k250,0.5,1,2024-13-01T00:00:00Z"     # no 13th month
    data = b"\n".join(lines) + b"\n"
    cols = Columns(time="t")
    fast, slow = _both(data, cols)
    assert fast == slow
    assert "not a number or an ISO 8601 timestamp" in fast[249][1]
    src = EventSource(io.BytesIO(data), name="e.csv")
    parser = EventParser(src, cols)
    assert any(type(item) is Block for item in src.blocks(parser.block))
    assert parser.iso_time
