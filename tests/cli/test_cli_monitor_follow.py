"""``streamrank monitor --follow --checkpoint`` stopped while its producer is mid-line.

A real subprocess follows a file whose last line is half written; it is stopped (SIGKILL,
SIGTERM or SIGINT) while it waits for the rest of the line; the producer then completes
the line and goes on; a resumed run must end exactly as one uninterrupted run does (the
same last report and summary), and the stopped run's checkpoint must point before the
half-written line, never into it.
"""

import os
import signal
import time

import pytest
from test_cli_monitor import (_wait_for_checkpoint, cli, csv_text, last_json, make_events,
                              run, spawn)

from streamrank.monitor.checkpoint import read_checkpoint

EVERY = 100


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    rows, _ = make_events(1500, 31, window=200)
    data = csv_text(rows).encode()
    args = ["--window", 200, "--every", EVERY, "--format", "json", "--time", "ts",
            "--detector", "adwin"]
    full = tmp_path_factory.mktemp("full") / "full.csv"
    full.write_bytes(data)
    want = run([full, *args])
    assert want.exit_code == 0, want.output
    return data, args, want


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT,
                                 signal.SIGHUP],
                         ids=["SIGKILL", "SIGTERM", "SIGINT", "SIGHUP"])
def test_stopped_mid_line_then_resumed_equals_one_run(tmp_path, stream, sig):
    data, args, want = stream
    lines = data.splitlines(keepends=True)
    rows_done = 8 * EVERY                          # complete rows before the cut
    cut = sum(map(len, lines[:rows_done + 1]))     # + the header
    nxt = lines[rows_done + 1]
    half = cut + len(nxt) // 2                     # the next line, half written
    assert b"," in data[cut:half] and not data[cut:half].endswith(b"\n")
    live = tmp_path / "live.csv"
    live.write_bytes(data[:half])
    ckpt = tmp_path / "live.ckpt"
    proc = spawn(live, *args, "--follow", "--poll", 0.02, "--checkpoint", ckpt,
                 "--checkpoint-every", EVERY)
    try:
        meta = _wait_for_checkpoint(ckpt, rows_done, proc)
        assert meta["rows"] == rows_done
        time.sleep(0.3)                 # it is polling for the rest of the line now
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 0, err
        name = signal.Signals(sig).name        # the signal by its name
        assert f"stopped by {name}".encode() in err and b"Traceback" not in err
        assert (b" (Ctrl-C); " in err) == (sig == signal.SIGINT)
        assert f"{rows_done} events".encode() in err
    meta, _ = read_checkpoint(ckpt)
    assert (meta["rows"], meta["offset"]) == (rows_done, cut)   # before the fragment
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    with open(live, "ab") as f:         # the producer completes the line and goes on
        f.write(data[half:])
    res = cli(live, *args, "--follow", "--poll", 0.02, "--max-idle", 0.2, "--checkpoint",
              ckpt, "--resume", text=True)
    assert res.returncode == 0, res.stderr
    assert last_json(res.stdout) == last_json(want.stdout)
    assert res.stderr.splitlines() == want.stderr.splitlines()
    assert read_checkpoint(ckpt)[0]["rows"] == len(lines) - 1


def _wait_until_open(proc, path, timeout=60):
    """Wait until ``proc`` holds ``path`` open (its descriptors in /proc): a fixed sleep
    fails on a loaded machine, where start-up alone can take longer."""
    fds, want = f"/proc/{proc.pid}/fd", os.path.realpath(path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if any(os.path.realpath(os.path.join(fds, fd)) == want for fd in os.listdir(fds)):
                return
        except OSError:         # a descriptor closed while listing
            pass
        time.sleep(0.02)
    raise AssertionError(f"{path} was not opened in time")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_a_signal_while_waiting_for_the_header_stops_cleanly(tmp_path):
    live = tmp_path / "live.csv"
    live.write_bytes(b"id,sco")
    proc = spawn(live, "--follow", "--poll", 0.02, "--checkpoint", tmp_path / "c.ckpt")
    try:
        _wait_until_open(proc, live)    # its signal handlers are set before it opens it
        time.sleep(0.1)                 # waiting for the header's newline
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert b"stopped by SIGTERM; 0 events" in err
    assert b"Traceback" not in err
    assert not (tmp_path / "c.ckpt").exists()
