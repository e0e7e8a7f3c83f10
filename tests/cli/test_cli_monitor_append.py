"""A resumed ``streamrank monitor`` run continues the previous run's output.

The oracle is one uninterrupted run over the whole input, its report lines in a file.
Appending the runs of an interrupted monitor to one file (``>> out``) must give exactly
that file, CSV and JSON lines alike: after a run that ended (its last report, made after
its last checkpoint, is cut and printed again at its place), after a resume that found
nothing new, and after a ``kill -9`` in the middle of a followed file. Written to a pipe
instead, a resumed run prints no header and no report it knows was printed. The summary
(reports, alerts) of the last run is the uninterrupted run's.
"""

import subprocess
import time

import pytest
from test_cli_monitor import (CMD, _env, _wait_for_checkpoint, csv_text, make_events, run,
                              write_csv)

ARGS = ["--window", 200, "--every", 150, "--time", "ts"]


@pytest.fixture(scope="module")
def data():
    rows, _ = make_events(1600, 41, window=200, collapse_at=900)
    return csv_text(rows).encode()


def monitor_into(out, *args, check=True):
    """``streamrank monitor ARGS >> out``; the completed process (stderr as text)."""
    with open(out, "ab") as f:
        res = subprocess.run(CMD + [str(a) for a in args], stdout=f, stderr=subprocess.PIPE,
                             env=_env(), timeout=120)
    if check:
        assert res.returncode in (0, 1), res.stderr.decode()
    return res.returncode, res.stderr.decode()


def _uninterrupted(tmp_path, data, fmt):
    full = tmp_path / "full.csv"
    full.write_bytes(data)
    want = tmp_path / f"want.{fmt}"
    rc, err = monitor_into(want, full, *ARGS, "--format", fmt)
    return want.read_bytes(), rc, err


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_runs_appended_to_one_file_are_the_uninterrupted_output(tmp_path, data, fmt):
    want, want_rc, want_err = _uninterrupted(tmp_path, data, fmt)
    lines = data.splitlines(keepends=True)
    live, ckpt, out = tmp_path / "live.csv", tmp_path / "m.ckpt", tmp_path / f"out.{fmt}"
    args = [live, *ARGS, "--format", fmt, "--checkpoint", ckpt, "--checkpoint-every", 400]
    live.write_bytes(b"".join(lines[:1 + 734]))      # ends between two reports
    monitor_into(out, *args)
    first = out.read_bytes()
    assert first.splitlines()[-1] not in want.splitlines()    # its own last report
    live.write_bytes(data)                                    # the file grew
    rc, err = monitor_into(out, *args, "--resume")
    assert out.read_bytes() == want
    assert (rc, err.splitlines()) == (want_rc, want_err.splitlines())
    # resumed again with nothing new: nothing printed, the same summary
    rc, err = monitor_into(out, *args, "--resume")
    assert out.read_bytes() == want
    assert (rc, err.splitlines()) == (want_rc, want_err.splitlines())


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_pipe_gets_no_header_and_no_report_twice(tmp_path, data, fmt):
    full = write_csv(tmp_path / "full.csv", [])       # (replaced below)
    full.write_bytes(data)
    want = run([full, *ARGS, "--format", fmt]).stdout.splitlines()
    lines = data.splitlines(keepends=True)
    live, ckpt = tmp_path / "live.csv", tmp_path / "m.ckpt"
    args = [live, *ARGS, "--format", fmt, "--checkpoint", ckpt]
    live.write_bytes(b"".join(lines[:1 + 734]))
    first = run(args).stdout.splitlines()
    live.write_bytes(data)
    again = run([*args, "--resume"])
    assert again.exit_code in (0, 1), again.output
    # the only line not in the uninterrupted output is the first run's last report, made
    # where it stopped; the resumed run prints the rest, without a header
    assert first[:-1] + again.stdout.splitlines() == want
    assert run([*args, "--resume"]).stdout == ""


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_kill_9_then_resume_appends_to_the_uninterrupted_output(tmp_path, data, fmt):
    want, want_rc, want_err = _uninterrupted(tmp_path, data, fmt)
    cut = len(data) // 2
    cut = data.index(b"\n", cut) + 1
    live, ckpt, out = tmp_path / "live.csv", tmp_path / "m.ckpt", tmp_path / f"out.{fmt}"
    live.write_bytes(data[:cut])
    args = [live, *ARGS, "--format", fmt, "--checkpoint", ckpt]
    rows = data[:cut].count(b"\n") - 1
    reports = want.splitlines(keepends=True)
    shown = b"".join(reports[:rows // 150 + (fmt == "csv")])  # the reports of those rows
    with open(out, "ab") as f:
        proc = subprocess.Popen(CMD + [str(a) for a in [*args, "--follow", "--poll", 0.02,
                                                         "--checkpoint-every", 500]],
                                stdout=f, stderr=subprocess.PIPE, env=_env())
    try:
        meta = _wait_for_checkpoint(ckpt, 500, proc)
        deadline = time.monotonic() + 60
        while out.read_bytes() != shown and time.monotonic() < deadline:
            assert proc.poll() is None
            time.sleep(0.05)
        proc.kill()                                   # SIGKILL, mid-run
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert out.read_bytes() == shown
    # its stdout is a file: the checkpoint recorded its size, before the reports printed
    # after it (they are cut and printed again by the resumed run)
    assert 0 < meta["output"]["file"][2] < len(shown)
    with open(live, "ab") as f:
        f.write(data[cut:])
    rc, err = monitor_into(out, *args, "--resume")
    assert out.read_bytes() == want
    assert (rc, err.splitlines()) == (want_rc, want_err.splitlines())
