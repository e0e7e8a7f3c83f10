"""``streamrank monitor --follow`` on a log that rotates, and ``--resume`` after it did.

The oracle is one run over a file holding every row once, in the order written (no
rotation): a followed log that is truncated (``copytruncate``: the new content shorter, or
longer, than what was read) or renamed and created anew must end with the same final
report and summary, saying on stderr what happened. The polls of the in-process runs are
the writer's steps (no timing); the ``kill -9`` run is a real subprocess.
"""

import os
import signal

import pytest
from _rotation import append, copytruncate, polls, rename_and_create
from test_cli_monitor import (_wait_for_checkpoint, assert_counts, cli, csv_text, last_json,
                              make_events, oracle_counts, run, spawn)

from streamrank.monitor.checkpoint import read_checkpoint

N = 900
ARGS = ["--window", 200, "--every", 100, "--time", "ts", "--format", "json"]


@pytest.fixture(scope="module")
def rows():
    rows, last = make_events(N, 51, window=200)
    lines = csv_text(rows).encode().splitlines(keepends=True)
    return lines[0], lines[1:], last


def _oracle(tmp_path, header, lines):
    whole = tmp_path / "whole.csv"
    whole.write_bytes(header + b"".join(lines))
    res = run([whole, *ARGS])
    assert res.exit_code == 0, res.output
    return last_json(res.stdout), res.stderr.splitlines()


def follow_with_steps(args, steps):
    """``streamrank monitor ARGS --follow --max-idle 1`` in this process, running one of
    ``steps`` at each poll (`_rotation.polls`)."""
    with polls(steps):
        return run([*args, "--follow", "--poll", 0.01, "--max-idle", 1])


@pytest.mark.parametrize("case", ["shorter", "longer", "renamed"])
def test_a_followed_log_that_rotates_is_read_whole(tmp_path, rows, case):
    """The issue's three failures: the shorter new content of a ``copytruncate`` was
    never read (until ``--max-idle``), the longer one was read from the middle of a line
    (exit 2), a rename was not seen."""
    header, lines, last = rows
    live = tmp_path / "live.csv"
    first, steps, note = {
        "shorter": (600, [copytruncate(live, header + b"".join(lines[600:650])),
                          append(live, b"".join(lines[650:]))], "file truncated"),
        "longer": (300, [copytruncate(live, header + b"".join(lines[300:]))],
                   "file rewritten (its first bytes changed)"),
        "renamed": (500, [rename_and_create(live, b"".join(lines[500:550]),
                                             header + b"".join(lines[550:]))],
                    "has been replaced (the old file was read to its end)"),
    }[case]
    live.write_bytes(header + b"".join(lines[:first]))
    res = follow_with_steps([live, *ARGS], steps)
    assert res.exit_code == 0, res.output
    want, want_summary = _oracle(tmp_path, header, lines)
    got = last_json(res.stdout)
    assert got == want and got["events"] == len(lines)
    assert_counts(got, oracle_counts(last))
    notes = [ln for ln in res.stderr.splitlines() if ln.startswith(f"streamrank monitor: {live}")]
    assert notes == [f"streamrank monitor: {live}{' ' if case == 'renamed' else ': '}{note}; "
                     "reading the new content from its start"]
    assert [ln for ln in res.stderr.splitlines() if ln not in notes] == want_summary


def test_a_header_that_changed_at_a_rotation_is_exit_2(tmp_path, rows):
    header, lines, _ = rows
    live = tmp_path / "live.csv"
    live.write_bytes(header + b"".join(lines[:300]))
    ckpt = tmp_path / "m.ckpt"
    res = follow_with_steps([live, *ARGS, "--checkpoint", ckpt], [rename_and_create(
        live, b"", b"id,label,score,ts\n" + b"".join(lines[300:400]))])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert (f"Error: {live}, line 1: after it was replaced, its header ['id', 'label', "
            "'score', 'ts'] differs from the header ['id', 'score', 'label', 'ts']"
            in res.stderr), res.stderr
    meta, _ = read_checkpoint(ckpt)       # at the start of the new file
    assert (meta["rows"], meta["offset"], meta["source"]["inode"]) == (
        300, 0, os.stat(live).st_ino)


def test_resume_after_a_rotation_while_stopped(tmp_path, rows):
    """The monitor was stopped; the log was rotated meanwhile (rows written to the old file
    after the checkpoint, then a new file). Resuming on the new file is refused, naming
    what changed and where the old file went; resuming on the renamed old file is exact
    (the same file); then ``--force-resume`` reads the new file from its start."""
    header, lines, last = rows
    live, ckpt = tmp_path / "live.csv", tmp_path / "m.ckpt"
    live.write_bytes(header + b"".join(lines[:400]))
    base = [*ARGS, "--checkpoint", ckpt]
    assert run([live, *base]).exit_code == 0
    old = os.stat(live)
    rename_and_create(live, b"".join(lines[400:450]), header + b"".join(lines[450:]))()
    new = os.stat(live)
    saved = ckpt.read_bytes()
    res = run([live, *base, "--resume"])
    assert res.exit_code == 2 and res.stdout == "", res.output
    assert (f"{live} is another file (device {new.st_dev}, inode {new.st_ino}) than the one "
            f"the checkpoint was taken on (device {old.st_dev}, inode {old.st_ino}, read up "
            f"to row 400, byte {old.st_size}): it was replaced or rotated since; that file "
            f"is now {live}.1: resume on it first (the rows it got after the checkpoint), "
            f"then --force-resume on {live} reads it from its start" in res.stderr), \
        res.stderr
    assert ckpt.read_bytes() == saved
    res = run([f"{live}.1", *base, "--resume"])
    assert res.exit_code == 0, res.output
    assert (f"{live}.1 is the checkpoint's file (device {old.st_dev}, inode "
            f"{old.st_ino}), renamed: it was {live}" in res.stderr)
    assert last_json(res.stdout)["events"] == 450
    res = run([live, *base, "--resume"])
    assert res.exit_code == 2 and "is another file" in res.stderr
    res = run([live, *base, "--force-resume"])
    assert res.exit_code == 0, res.output
    assert (f"--force-resume: reading {live} from its start (as a new file, after a "
            "rotation)" in res.stderr)
    want, want_summary = _oracle(tmp_path, header, lines)
    assert last_json(res.stdout) == want
    assert_counts(want, oracle_counts(last))


def test_force_resume_after_a_copytruncate_while_stopped(tmp_path, rows):
    """Truncated and written again while the monitor was stopped (the same file, other
    first bytes): ``--resume`` is refused; ``--force-resume`` reads it from its start
    rather than from the middle of a line."""
    header, lines, last = rows
    live, ckpt = tmp_path / "live.csv", tmp_path / "m.ckpt"
    live.write_bytes(header + b"".join(lines[:300]))
    base = [*ARGS, "--checkpoint", ckpt]
    assert run([live, *base]).exit_code == 0
    copytruncate(live, header + b"".join(lines[300:]))()    # longer than what was read
    res = run([live, *base, "--resume"])
    assert res.exit_code == 2 and "bytes differ from those of the input" in res.stderr
    res = run([live, *base, "--force-resume"])
    assert res.exit_code == 0, res.output
    assert f"--force-resume: reading {live} from its start" in res.stderr
    want, _ = _oracle(tmp_path, header, lines)
    assert last_json(res.stdout) == want
    assert_counts(want, oracle_counts(last))


def test_kill_9_after_a_rotation_resumes_exactly(tmp_path, rows):
    """A checkpoint is written when the followed file's new content is opened: killed
    after the rotation and before any scheduled checkpoint, the resumed run is exact."""
    header, lines, last = rows
    live, ckpt = tmp_path / "live.csv", tmp_path / "m.ckpt"
    live.write_bytes(header + b"".join(lines[:400]))
    proc = spawn(live, *ARGS, "--follow", "--poll", 0.02, "--checkpoint", ckpt,
                 "--checkpoint-every", 100_000, text=True)
    try:
        line = ""
        while '"events": 400,' not in line:       # it has read the old file
            line = proc.stdout.readline()
            assert line, proc.communicate()
        rename_and_create(live, b"".join(lines[400:450]), header + b"".join(lines[450:700]))()
        inode = os.stat(live).st_ino
        while '"events": 700,' not in line:       # and the new one, to its end
            line = proc.stdout.readline()
            assert line, proc.communicate()
        meta = _wait_for_checkpoint(ckpt, 450, proc)
        assert (meta["rows"], meta["offset"], meta["source"]["inode"]) == (450, 0, inode)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    with open(live, "ab") as f:
        f.write(b"".join(lines[700:]))
    res = cli(live, *ARGS, "--checkpoint", ckpt, "--resume", text=True)
    assert res.returncode == 0, res.stderr
    want, want_summary = _oracle(tmp_path, header, lines)
    assert last_json(res.stdout) == want
    assert res.stderr.splitlines() == want_summary
    assert_counts(want, oracle_counts(last))
