"""The JSON-lines reader of `streamrank.io.tables.read_columns`: pyarrow's JSON reader on
blocks of whole lines, with a line-by-line fallback for a block it cannot read."""

from __future__ import annotations

import io
import json
import math
import os
import re
import sys
import zlib

import numpy as np
import pyarrow as pa

from ._arrow import _bools
from ._collect import TableError, _Collector, _gzip_error, _open_bytes, _Progress, _unknown
from ._located import shown as _shown

_JSON_BLOCK = 1 << 24       # bytes of whole lines per JSON block


def _read_jsonl(path, name, col: _Collector, progress):
    import pyarrow.json as pj

    wanted = list(dict.fromkeys(col.numeric + col.keys))
    gz = str(path).lower().endswith(".gz")
    if path == "-":
        f, total = sys.stdin.buffer, None
    else:
        f, total = _open_bytes(path), os.path.getsize(path)
    raw = f.fileobj if gz and path != "-" else f
    bar = _Progress(progress, total, "B", os.path.basename(name))
    line0 = 0   # lines before the current block
    rest = b""
    first = True
    try:
        while True:
            try:
                chunk = f.read(_JSON_BLOCK)
            except (OSError, EOFError, zlib.error) as exc:
                if not gz:
                    raise TableError(f"cannot read the file ({exc})", file=name) from None
                raise _gzip_error(name, exc) from None
            block = rest + chunk
            if chunk:
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    rest = block
                    continue
                block, rest = block[:cut], block[cut:]
            else:
                rest = b""
            if block:
                n_lines = block.count(b"\n") + (0 if block.endswith(b"\n") else 1)
                _json_block(pj, block, line0, name, col, wanted, first)
                first = False
                line0 += n_lines
                if total is not None:
                    bar.to(raw.tell())
            if not chunk:
                break
    finally:
        bar.close()
        if path != "-":
            f.close()


def _line_numbers(block: bytes, line0: int):
    """1-based line numbers of the non-blank lines of a block, and whether any is blank."""
    b = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if not block.endswith(b"\n"):
        ends = np.append(ends, b.size)
    starts = np.concatenate(([0], ends[:-1] + 1))
    # A line of only blanks (spaces, tabs, CR) is blank; pyarrow skips such lines.
    blank_byte = (b == 32) | (b == 9) | (b == 13) | (b == 10)
    cum = np.concatenate(([0], np.cumsum(~blank_byte)))
    nonblank = (cum[ends] - cum[starts]) > 0
    return line0 + 1 + np.flatnonzero(nonblank), bool((~nonblank).any())


def _json_block(pj, block, line0, name, col: _Collector, wanted, first):
    lines, _ = _line_numbers(block, line0)
    if lines.size == 0:
        return
    try:
        table = pj.read_json(io.BytesIO(block),
                             read_options=pj.ReadOptions(block_size=len(block) + 1))
        names = table.column_names
        if first:
            missing = [c for c in wanted if c not in names]
            if missing:
                raise _unknown(name, missing, names)
        cols = {c: (table.column(c).combine_chunks() if c in names
                    else pa.nulls(table.num_rows)) for c in wanted}
        if table.num_rows != lines.size:  # pragma: no cover - defensive
            raise pa.ArrowInvalid("row count mismatch")
        # pyarrow reads a line "null" as an object of nulls: rows without any wanted
        # value may be such lines, which the slow path names as not objects.
        empty = np.ones(table.num_rows, dtype=bool)
        for a in cols.values():
            empty &= _bools(a.is_null())
        if empty.any() and re.search(rb"(?m)^[ \t]*null[ \t\r]*$", block):
            raise pa.ArrowInvalid("a line that is not an object")
    except pa.ArrowInvalid:
        cols, lines = _json_block_slow(block, line0, name, col, wanted, first)
    col.add(cols, lambda idx: lines[np.asarray(idx, dtype=np.int64)])


def _json_float(text: str):
    value = float(text)
    return value if math.isfinite(value) else text


def _json_block_slow(block, line0, name, col: _Collector, wanted, first):
    """The fallback for a block pyarrow cannot read (a malformed line, a field whose type
    changes): one ``json.loads`` per line, to find the bad lines and read the others."""
    values = {c: [] for c in wanted}
    kept = []
    seen: set = set()
    pending = []
    for i, text in enumerate(block.split(b"\n")):
        if not text.strip(b" \t\r"):     # a blank line, as `_line_numbers` says
            continue
        lineno = line0 + i + 1
        try:
            # A number beyond float64 keeps its text (for the message: "1e400", not inf).
            obj = json.loads(text, parse_float=_json_float)
            reason = None if isinstance(obj, dict) else "not a JSON object"
        except UnicodeDecodeError as exc:
            reason = (f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at byte "
                      f"{exc.start + 1})")
        except ValueError as exc:   # json's own "line 1 column c" would mislead
            reason = (f"malformed JSON ({exc.msg} at character {exc.colno})"
                      if isinstance(exc, json.JSONDecodeError) else f"malformed JSON ({exc})")
            if b"\r" in text.rstrip(b"\r"):
                reason += ("; the line holds a CR: JSON lines end with LF (or CRLF), not "
                           "with CR alone")
        if reason is not None:
            shown = text.decode("utf-8", "replace").rstrip("\r")
            pending.append(col.malformed(lineno, f"{reason}: {_shown(shown)}", shown))
            continue
        if first:
            seen.update(obj)
        kept.append(lineno)
        for c in wanted:
            v = obj.get(c)
            if v is None or isinstance(v, str):
                values[c].append(v)
            elif isinstance(v, bool):
                values[c].append("true" if v else "false")
            elif isinstance(v, (int, float)):
                values[c].append(repr(v))
            else:
                values[c].append(json.dumps(v))
    if first and kept:
        missing = [c for c in wanted if c not in seen]
        if missing:
            raise _unknown(name, missing, sorted(seen))
    if pending and col.on_error == "fail":
        # The earliest of the malformed lines and the bad values of the lines before it.
        stop = min(e.row for e in pending)
        head = [j for j, r in enumerate(kept) if r < stop]
        cols = {c: pa.array([values[c][j] for j in head], pa.string()) for c in wanted}
        if head:
            col.add(cols, lambda idx: np.asarray(kept)[np.asarray(idx, dtype=np.int64)])
        raise col.located(min(pending, key=lambda e: e.row))
    cols = {c: pa.array(values[c], pa.string()) for c in wanted}
    return cols, np.asarray(kept, dtype=np.int64)
