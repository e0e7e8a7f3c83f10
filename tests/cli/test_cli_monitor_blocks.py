"""``streamrank monitor`` reading blocks (plain CSV parsed at once, fed to
``observe_many``) gives what reading row by row gives: the output, the messages of bad
rows, the checkpoints taken inside blocks, and the runs resumed from them."""

import random

import pytest
from test_cli_monitor import run

from streamrank.io import _blockread
from streamrank.io.events import EventParser
from streamrank.cli import monitor as cli_monitor
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
