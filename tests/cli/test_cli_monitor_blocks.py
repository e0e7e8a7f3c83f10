"""``streamrank monitor`` reading blocks (plain CSV parsed at once, fed to
``observe_many``) gives what reading row by row gives: the output, the messages of bad
rows, the checkpoints taken inside blocks, and the runs resumed from them."""

import random

import pytest
from test_cli_monitor import run

from streamrank.io import _blockread
from streamrank.io.events import EventParser
from streamrank.cli import monitor as cli_monitor
from streamrank.monitor import _runs
from streamrank.monitor.checkpoint import read_checkpoint, write_checkpoint


def _csv(path, n, seed, crlf=False):
    """Ids with late labels and re-scores, and bad rows: a non-number, a third label, a
    negative weight, a short row, an empty id."""
    rng = random.Random(seed)
    lines = ["id,score,label,w"]
    for i in range(n):
        k = f"k{rng.randrange(n // 3 + 1)}"
        r = rng.random()
        if r < 0.01:
            lines.append(rng.choice([f"{k},abc,1,1", f"{k},0.5,2,1", f"{k},0.5,1,-1",
                                     f"{k},0.5", ",0.5,1,1"]))
        elif r < 0.3:
            lines.append(f"{k},,{rng.randrange(2)},")
        else:
            lines.append(f"{k},{rng.randrange(20) / 19},{rng.choice(['', '0', '1'])},"
                         f"{rng.choice(['', '1', '2'])}")
    end = "\r\n" if crlf else "\n"
    path.write_bytes((end.join(lines) + end).encode())
    return path


def _run_both(monkeypatch, tmp_path, args):
    """The command's result, every checkpoint it wrote (its rows, offset and state) and
    the last one, with blocks and row by row."""
    out = {}
    for mode in ("blocks", "rows"):
        saved = []

        def write(path, state, meta, saved=saved):
            saved.append((meta["rows"], meta["offset"], meta["skipped"], state))
            return write_checkpoint(path, state, meta)

        with monkeypatch.context() as m:
            if mode == "rows":
                m.setattr(EventParser, "block", lambda self, body: None)
            m.setattr(cli_monitor, "write_checkpoint", write)
            ckpt = tmp_path / "ck"
            res = run([*args, "--checkpoint", ckpt])
            meta, state = read_checkpoint(ckpt)
            ckpt.unlink()
            out[mode] = (res.exit_code, res.stdout, res.stderr, meta, state, saved)
    return out


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("on_error", ["skip", "fail"])
def test_blocks_equal_rows_with_bad_rows_reports_and_checkpoints(monkeypatch, tmp_path,
                                                                  crlf, on_error):
    monkeypatch.setattr(_blockread, "BLOCK_BYTES", 4001)    # many blocks
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 100)
    path = _csv(tmp_path / "e.csv", 6000, 3, crlf)
    args = [path, "--window", 200, "--every", 333, "--labels", "binary", "--weight", "w",
            "--on-error", on_error, "--checkpoint-every", 157, "--format", "csv"]
    got = _run_both(monkeypatch, tmp_path, args)
    assert got["blocks"] == got["rows"]
    assert got["rows"][0] == (0 if on_error == "skip" else 2)
    assert "skipped" in got["rows"][2] or on_error == "fail"
    assert len(got["rows"][-1]) > 30 or on_error == "fail"     # checkpoints in blocks


def test_a_run_stopped_inside_a_block_checkpoints_before_its_row(monkeypatch, tmp_path):
    """--on-error fail stops at a bad row inside a block: the checkpoint is taken just
    before it, as row by row."""
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 100)
    lines = ["id,score,label"] + [f"k{i},{(i * 7) % 10 / 10},{i % 2}" for i in range(3000)]
    lines[2001] = "k2000,oops,1"
    path = tmp_path / "e.csv"
    path.write_text("\n".join(lines) + "\n")
    results = {}
    for mode in ("blocks", "rows"):
        with monkeypatch.context() as m:
            if mode == "rows":
                m.setattr(EventParser, "block", lambda self, body: None)
            ckpt = tmp_path / f"ck-{mode}"
            first = run([path, "--window", 100, "--every", 500, "--checkpoint", ckpt])
            assert first.exit_code == 2 and "line 2002 (row 2001)" in first.stderr
            meta, _ = read_checkpoint(ckpt)
            assert meta["rows"] == 2000
            results[mode] = meta
    assert results["blocks"] == results["rows"]


def _shaped_csv(path, n, seed, segments):
    """Predictions with both models' scores and a segment, late labels (with or without
    the segment), re-scores, a label for an id never predicted, and bad rows: what the
    command's compiled runs take and what they hand to ``observe``."""
    rng = random.Random(seed)
    lines = ["id,score,challenger,segment,label"]
    seg = {}
    for i in range(n):
        k = f"k{rng.randrange(n // 2 + 1)}"
        g = seg.setdefault(k, f"s{rng.randrange(segments)}")
        r = rng.random()
        if r < 0.005:
            lines.append(rng.choice([f"{k},abc,0.5,{g},1", f"{k},0.5,0.5,{g},2",
                                     f"{k},0.5,0.5,{g}"]))
        elif r < 0.25:
            lines.append(f"{k},,,{rng.choice([g, ''])},{rng.randrange(2)}")
        elif r < 0.27:
            lines.append(f"never{i},,,,1")
        else:
            s = rng.randrange(20) / 19
            y = rng.choice(["", "0", "1"])
            lines.append(f"{k},{s},{(s + rng.random()) / 2},{g},{y}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("shape", ["plain", "challenger", "segments",
                                   "segments x challenger"])
def test_blocks_through_the_compiled_runs_equal_rows(monkeypatch, tmp_path, shape):
    """Columns without weights or times go through the monitor's compiled runs (every
    shape): the output, the skipped rows and every checkpoint equal reading row by row."""
    monkeypatch.setattr(_blockread, "BLOCK_BYTES", 3001)
    monkeypatch.setattr(_blockread, "HEAD_BYTES", 100)
    path = _shaped_csv(tmp_path / "e.csv", 8000, 5, 4)
    args = [path, "--window", 60, "--every", 411, "--labels", "binary", "--on-error",
            "skip", "--checkpoint-every", 233, "--format", "json"]
    if "challenger" in shape:
        args += ["--challenger-score", "challenger"]
    if "segments" in shape:
        args += ["--segment", "segment", "--max-segments", 3]
    taken = []          # (events a compiled run took, with blocks)
    for name, at in (("window_run", 4), ("route_run", 5)):    # (where ``start`` is)
        def counted(*a, _run=getattr(_runs, name), _at=at):
            out = _run(*a)
            taken.append((out[0] if type(out) is tuple else out) - a[_at])
            return out
        monkeypatch.setattr(_runs, name, counted)
    got = _run_both(monkeypatch, tmp_path, args)
    assert got["blocks"] == got["rows"]
    assert got["rows"][0] == 0 and "skipped" in got["rows"][2]
    assert len(got["rows"][-1]) > 30
    assert sum(taken) > 1000        # most events went through the runs
