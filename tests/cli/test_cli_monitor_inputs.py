"""``streamrank monitor``: input errors (exit 2, located, never a traceback), gzip input,
blank lines, and the checkpoint's identity checks, through click's CliRunner.

The follow-mode stops with a half-written line are here for ``--max-idle``; the signal
stops (SIGKILL, SIGTERM, SIGINT) are in ``test_cli_monitor_follow.py``.
"""

import gzip
import os

import pytest
from test_cli_monitor import csv_text, last_json, make_events, run, write_jsonl

from streamrank.monitor import Monitor
from streamrank.monitor.checkpoint import read_checkpoint, write_checkpoint

JSON = ["--format", "json"]


@pytest.fixture(scope="module")
def small():
    rows, _ = make_events(600, 21, window=100)
    return csv_text(rows)


def _no_traceback(res):
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output


# --------------------------------------------------------------------------- input errors
@pytest.mark.parametrize("name,data,where", [
    ("cr.csv", b"id,score,label\ra,0.5,1\rb,0.25,0\r",
     "line 1: the header line 'id,score,label\\ra,0.5,1\\rb,0.25,0': a carriage return (\\r) "
     "inside an unquoted field: are the line ends CR only (old Mac)?"),
    ("stray.csv", b"id,score,label\na,0.5,1\nb,0.25\r,0\n",
     "line 3 (row 2): 'b,0.25\\r,0': a carriage return (\\r) inside an unquoted field"),
    ("cr.jsonl", b'{"id": "a", "score": 1, "label": 1}\r{"id": "b", "score": 0}\r',
     "line 1: '{\"id\": \"a\", \"score\": 1, \"label\": 1}\\r{\"id\": \"b\", \"score\": 0}': "
     "not a JSON object (Extra data; it holds a carriage return (\\r): are the line ends "
     "CR only?)"),
    ("huge.csv", b"id,score,label,blob\na,0.5,1,x\nb,0.25,0," + b"y" * 200_000 + b"\n",
     "line 3 (row 2): 'b,0.25,0,yyyyyyyy"),
    ("big.jsonl", b'{"id": "a", "score": 0.5, "label": 1}\n{"id": "b", "score": 2%s}\n'
     % (b"0" * 400), "line 2, column 'score': '20000000000000000000...': a number too "
                     "large for a float (401 digits)"),
    ("dup.csv", b"id,score,label,score\na,0.5,1,0.7\n",
     "line 1: the header names column 'score' more than once (columns 2 and 4)"),
    ("dup.jsonl", b'{"id": "a", "score": 0.5, "label": 1, "score": 0.7}\n',
     "line 1, column 'score': the field is in the object more than once"),
    ("x.csv.bz2", b"BZh91AY&SY\x01\x02\x03", "bzip2-compressed: events must be plain or "
                                              "gzip-compressed text"),
    ("x.csv.zst", b"\x28\xb5\x2f\xfd\x00\x00", "zstd-compressed"),
    ("u16.csv", "id,score,label\n".encode("utf-16"), "UTF-16 text"),
    ("trunc.csv.gz", gzip.compress(csv_text(make_events(3000, 23)[0]).encode())[:9000],
     "row "),
])
def test_input_errors_exit_2_with_file_row_and_value(tmp_path, name, data, where):
    path = tmp_path / name
    path.write_bytes(data)
    res = run([path])
    _no_traceback(res)
    assert res.exit_code == 2, res.output
    assert f"Error: {path}: {where}" in res.stderr or f"Error: {path}, {where}" in \
        res.stderr, res.stderr
    if name == "huge.csv":
        assert "a field longer than 131072 characters (the CSV field limit)" in res.stderr
        assert last_json(run([path, *JSON, "--on-error", "skip"]).stdout)["events"] == 1
    if name == "trunc.csv.gz":
        assert "the compressed stream ends early: the file is truncated" in res.stderr
        assert "events" in res.stderr  # the summary of the rows before it


def test_gzip_input_gives_the_same_counts(tmp_path, small):
    plain = tmp_path / "ev.csv"
    plain.write_text(small)
    packed = tmp_path / "ev.csv.gz"
    packed.write_bytes(gzip.compress(small.encode()))
    want = last_json(run([plain, "--window", 100, *JSON]).stdout)
    res = run([packed, "--window", 100, *JSON])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    # standard input, and a gzip file under another name: by its first bytes
    res = run(["-", "--window", 100, *JSON], input=packed.read_bytes())
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    other = tmp_path / "events.log"
    other.write_bytes(packed.read_bytes())
    assert last_json(run([other, "--window", 100, *JSON]).stdout) == want
    # a checkpoint on a gzip file resumes by rows
    ckpt = tmp_path / "g.ckpt"
    lines = small.splitlines(keepends=True)
    part = tmp_path / "part.csv.gz"
    part.write_bytes(gzip.compress("".join(lines[:301]).encode()))
    res = run([part, "--window", 100, *JSON, "--checkpoint", ckpt])
    assert read_checkpoint(ckpt)[0]["offset"] is None
    part.write_bytes(packed.read_bytes())
    res = run([part, "--window", 100, *JSON, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    res = run([packed, "--follow"])
    assert res.exit_code == 2 and "a gzip-compressed file cannot be followed" in res.stderr


def test_blank_lines_are_skipped_as_eval_does(tmp_path, small):
    plain = tmp_path / "ev.csv"
    plain.write_text(small)
    want = last_json(run([plain, "--window", 100, *JSON]).stdout)
    lines = small.splitlines(keepends=True)
    blank = tmp_path / "blank.csv"
    blank.write_text("".join(lines[:50] + ["\n", "  \n"] + lines[50:] + ["\n"]))
    res = run([blank, "--window", 100, *JSON])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want and "0 rows skipped" in res.stderr
    jl = write_jsonl(tmp_path / "ev.jsonl", make_events(600, 21, window=100)[0])
    text = jl.read_text().splitlines(keepends=True)
    jl.write_text("".join(text[:10] + ["\n", " \r\n"] + text[10:]))
    res = run([jl, "--window", 100, *JSON])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    # blank lines are no rows (as in `streamrank eval`): the error after two blank lines
    # is on line 6, row 3
    bad = tmp_path / "bad.csv"
    bad.write_text("id,score,label\na,0.5,1\nb,0.25,0\n\n\nc,abc,1\n")
    res = run([bad])
    assert res.exit_code == 2 and f"{bad}, line 6 (row 3), column 'score': 'abc'" in res.stderr


def test_a_closed_pipe_reads_its_last_line_without_newline(small):
    want = last_json(run(["-", "--window", 100, *JSON], input=small).stdout)
    res = run(["-", "--window", 100, *JSON], input=small.rstrip("\n"))
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want


def test_tsv_and_a_named_pipe(tmp_path, small):
    want = last_json(run(["-", "--window", 100, *JSON], input=small).stdout)
    tsv = tmp_path / "ev.tsv"
    tsv.write_text(small.replace(",", "\t"))
    res = run([tsv, "--window", 100, *JSON])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    import threading

    def produce():
        with open(fifo, "w") as f:
            f.write(small)

    t = threading.Thread(target=produce)
    t.start()
    res = run([fifo, "--window", 100, *JSON])
    t.join(10)
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want
    res = run([fifo, "--follow"])
    assert res.exit_code == 2 and "--follow is for regular files" in res.stderr


# --------------------------------------------------------------------------- follow stops
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_idle_stop_leaves_a_half_written_line_for_the_next_run(tmp_path, fmt):
    rows, _ = make_events(800, 22, window=100)
    full = tmp_path / f"full.{fmt}"
    if fmt == "csv":
        full.write_text(csv_text(rows))
    else:
        write_jsonl(full, rows)
    args = ["--window", 100, "--every", 150, *JSON, "--detector", "adwin"]
    want = run([full, *args])
    assert want.exit_code == 0
    data = full.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    half = cut + (data.index(b"\n", cut) - cut) // 2     # the next line, half written
    live = tmp_path / f"live.{fmt}"
    live.write_bytes(data[:half])
    ckpt = tmp_path / "c.ckpt"
    follow = ["--follow", "--poll", 0.01, "--max-idle", 0.1, "--checkpoint", ckpt]
    res = run([live, *args, *follow])
    assert res.exit_code == 0, res.output
    meta, _ = read_checkpoint(ckpt)
    complete = data[:cut].count(b"\n") - (fmt == "csv")
    assert (meta["rows"], meta["offset"]) == (complete, cut)
    assert last_json(res.stdout)["events"] == complete
    live.write_bytes(data)      # the producer completes the line, and goes on
    res = run([live, *args, *follow, "--resume"])
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == last_json(want.stdout)
    assert res.stderr.splitlines() == want.stderr.splitlines()


def test_follow_waits_for_a_whole_header(tmp_path):
    live = tmp_path / "live.csv"
    live.write_bytes(b"id,sco")
    res = run([live, "--follow", "--poll", 0.01, "--max-idle", 0.05])
    _no_traceback(res)
    assert res.exit_code == 2
    assert "no complete header line after 0.05 s idle" in res.stderr


# --------------------------------------------------------------------------- checkpoints
def _checkpointed(tmp_path, text, *args, name="a.csv"):
    path = tmp_path / name
    path.write_text(text)
    ckpt = tmp_path / "c.ckpt"
    res = run([path, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt, *args])
    assert res.exit_code == 0, res.output
    return path, ckpt


def test_a_checkpoint_resumes_only_on_its_own_input(tmp_path, small):
    lines = small.splitlines(keepends=True)
    path, ckpt = _checkpointed(tmp_path, "".join(lines[:301]))
    saved = ckpt.read_bytes()
    # another file with the same header
    other = tmp_path / "b.csv"
    other.write_text("".join(lines[:1] + lines[150:]))
    res = run([other, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt,
               "--resume"])
    assert res.exit_code == 2, res.output
    assert f"the input is {os.path.realpath(other)}; the checkpoint was taken on " \
           f"{os.path.realpath(path)}" in res.stderr
    assert "first" in res.stderr and "bytes differ" in res.stderr
    assert "Use --force-resume" in res.stderr and res.stdout == ""
    # the same file with --score and --label swapped, or another --every / --window
    for extra, text in [(["--score", "label", "--label", "score"],
                         "--score is 'label'; the checkpoint's run read 'score'"),
                        (["--every", 7], "--every 7: the checkpoint's run reported every 200"),
                        (["--window", 50], "--window 50: the checkpoint's run has "
                                           "--window 100")]:
        res = run([path, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt,
                   "--resume", *extra])
        assert res.exit_code == 2 and text in res.stderr, (extra, res.output)
    # the same file rewritten in its first bytes
    path.write_text("".join(lines[:1] + [lines[2], lines[1]] + lines[3:301]))
    res = run([path, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt,
               "--resume"])
    assert res.exit_code == 2 and "bytes differ from those of the input" in res.stderr
    assert ckpt.read_bytes() == saved      # a refused resume leaves it as it was
    # --force-resume overrides, saying what differs: here the file was moved
    path.write_text("".join(lines[:301]))
    moved = tmp_path / "moved.csv"
    moved.write_text(small)
    want = last_json(run([moved, "--window", 100, *JSON]).stdout)
    res = run([moved, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt,
               "--resume"])
    assert res.exit_code == 2 and f"the input is {os.path.realpath(moved)}" in res.stderr
    res = run([moved, "--window", 100, "--every", 200, *JSON, "--checkpoint", ckpt,
               "--force-resume"])
    assert res.exit_code == 0, res.output
    assert f"--force-resume: the input is {os.path.realpath(moved)}" in res.stderr
    assert last_json(res.stdout) == want
    # a checkpoint made on standard input refuses another stream (checked as it is read)
    ckpt.unlink()
    res = run(["-", "--window", 100, *JSON, "--checkpoint", ckpt],
              input="".join(lines[:301]))
    saved = ckpt.read_bytes()
    res = run(["-", "--window", 100, *JSON, "--checkpoint", ckpt, "--resume"],
              input="".join(lines[:1] + lines[150:]))
    assert res.exit_code == 2 and "<stdin>: its first" in res.stderr
    assert ckpt.read_bytes() == saved
    res = run(["-", "--window", 100, *JSON, "--checkpoint", ckpt, "--resume"],
              input="".join(lines[:200]))
    assert res.exit_code == 2 and "it ends after 199 rows" in res.stderr
    want = last_json(run(["-", "--window", 100, *JSON], input=small).stdout)
    res = run(["-", "--window", 100, *JSON, "--checkpoint", ckpt, "--resume"], input=small)
    assert res.exit_code == 0, res.output
    assert last_json(res.stdout) == want


def test_resume_keeps_the_checkpoints_every_when_not_given(tmp_path, small):
    path = tmp_path / "a.csv"
    path.write_text(small)
    want = run([path, "--window", 100, "--every", 70, *JSON]).stdout.splitlines()
    lines = small.splitlines(keepends=True)
    path.write_text("".join(lines[:301]))
    ckpt = tmp_path / "c.ckpt"
    first = run([path, "--window", 100, "--every", 70, *JSON, "--checkpoint", ckpt])
    path.write_text(small)
    res = run([path, *JSON, "--checkpoint", ckpt, "--resume"])
    assert res.exit_code == 0, res.output
    got = first.stdout.splitlines()[:-1] + res.stdout.splitlines()  # less the stop's
    assert got == want


def test_a_monitor_state_that_does_not_load_is_exit_2(tmp_path, monkeypatch):
    path = tmp_path / "a.csv"
    path.write_text("id,score,label\na,0.5,1\n")
    ckpt = tmp_path / "c.ckpt"
    assert run([path, "--checkpoint", ckpt]).exit_code == 0

    def broken(data):
        raise IndexError("index 7 is out of bounds")

    monkeypatch.setattr(Monitor, "from_bytes", staticmethod(broken))
    res = run([path, "--checkpoint", ckpt, "--resume"])
    _no_traceback(res)
    assert res.exit_code == 2
    assert f"{ckpt}: a damaged checkpoint (IndexError: index 7 is out of bounds)" in \
        res.stderr


def test_output_folders_are_checked_before_any_work(tmp_path, small):
    path = tmp_path / "a.csv"
    path.write_text(small)
    for opt in ("--checkpoint", "--plot"):
        res = run([path, *JSON, opt, tmp_path / "missing" / "out"])
        assert res.exit_code == 2 and res.stdout == ""   # not a single report first
        assert f"Invalid value for '{opt}'" in res.stderr and "does not exist" in res.stderr
    res = run([path, "--checkpoint", path])
    assert res.exit_code == 2 and "is the input file" in res.stderr
    assert path.read_text() == small
    res = run([path, "--checkpoint", tmp_path / "x", "--plot", tmp_path / "x"])
    assert res.exit_code == 2 and "name the same file" in res.stderr
    res = run([path, "--score", "label"])
    assert res.exit_code == 2 and "--score and --label name the same column" in res.stderr


def test_stale_temp_files_are_removed_on_the_next_write(tmp_path):
    target = tmp_path / "m.ckpt"
    dead = tmp_path / ".m.ckpt.4999999.k3j2.tmp"       # beyond any pid: a dead writer
    alive = tmp_path / f".m.ckpt.{os.getppid()}.a1b2.tmp"   # a running process's
    other = tmp_path / ".n.ckpt.4999999.zz.tmp"        # another checkpoint's
    for p in (dead, alive, other):
        p.write_bytes(b"half")
    write_checkpoint(target, b"state", {"rows": 1})
    assert not dead.exists() and alive.exists() and other.exists()
    assert read_checkpoint(target)[1] == b"state"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [alive.name, other.name, "m.ckpt"])


def test_help_documents_force_resume():
    from click.testing import CliRunner

    from streamrank.cli import main

    res = CliRunner().invoke(main, ["monitor", "--help"])
    assert "--force-resume" in res.stdout and "--resume" in res.stdout
