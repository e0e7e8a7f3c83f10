"""``streamrank monitor --checkpoint PATH``: what may be at PATH, and what a file that is
not a checkpoint (or not this streamrank's) is called.

Only a regular file, or a new path, is ever written: a named pipe, a directory, a
socket, a device node (made inside the test's folder, never under /dev) or a symbolic
link to one of them is refused with exit 2 before any row is read, and left as it was; a
symbolic link to a regular file (or a dangling one) keeps the link and has its target
written, atomically. Reading never unpickles: a file that is not a checkpoint says so,
and a damaged one (cut short, or its state cut short inside a well-formed archive) is
called damaged.
"""

import hashlib
import io
import json
import os
import pickle
import socket
import stat
import zipfile

import numpy as np
import pytest
from test_cli_monitor import last_json, run

from streamrank.monitor import Monitor
from streamrank.monitor.checkpoint import (VERSION, CheckpointError, check_meta,
                                           load_checkpoint, read_checkpoint,
                                           write_checkpoint)

ROWS = "id,score,label\n" + "".join(f"e{i},0.{i % 10}{i % 7},{i % 2}\n" for i in range(40))


@pytest.fixture
def events(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text(ROWS)
    return path


def _refused_before_any_row(res, message):
    """Exit 2 with ``message``, no traceback, and nothing read: no report (one is due at
    every event) and no summary."""
    assert res.exit_code == 2, res.output
    assert message in res.stderr, res.stderr
    assert res.stdout == "" and "events," not in res.stderr
    assert "Traceback" not in res.output


# --------------------------------------------------------------------------- what is at PATH
def _fifo(path):
    os.mkfifo(path)


def _socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


def _device(path):
    """A character device with /dev/null's numbers, made inside the test's folder."""
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root")


@pytest.mark.parametrize("make,kind", [
    (_fifo, "a named pipe (FIFO)"), (_socket, "a socket"), (_device, "a character device"),
])
def test_a_checkpoint_path_that_is_not_a_regular_file_is_refused(tmp_path, events, make,
                                                                 kind):
    ckpt = tmp_path / "state.ckpt"
    keep = make(ckpt)      # noqa: F841 (a socket must stay bound)
    before = os.lstat(ckpt)
    for resume in ([], ["--resume"]):
        res = run([events, "--every", 1, "--checkpoint", ckpt, *resume])
        _refused_before_any_row(res, f"{ckpt}: {kind}, not a regular file: a checkpoint "
                                     "replaces only a regular file or creates a new one")
    after = os.lstat(ckpt)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode,
                                                            before.st_rdev)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.csv", "state.ckpt"]
    # the library refuses it too
    with pytest.raises(CheckpointError, match="not a regular file"):
        write_checkpoint(ckpt, b"state", {"rows": 1})


def test_a_directory_at_the_checkpoint_path_is_refused(tmp_path, events):
    ckpt = tmp_path / "state.ckpt"
    ckpt.mkdir()
    res = run([events, "--every", 1, "--checkpoint", ckpt])
    assert res.exit_code == 2 and res.stdout == "" and "is a directory" in res.stderr
    assert ckpt.is_dir() and not any(ckpt.iterdir())
    with pytest.raises(CheckpointError, match="a directory, not a regular file"):
        write_checkpoint(ckpt, b"state", {"rows": 1})


def test_a_symbolic_link_keeps_the_link_and_its_target_is_written(tmp_path, events):
    target = tmp_path / "volume" / "state.ckpt"
    target.parent.mkdir()
    target.write_bytes(b"an old checkpoint")
    link = tmp_path / "state.ckpt"
    link.symlink_to(target)
    res = run([events, "--format", "json", "--checkpoint", link])
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    meta, _ = read_checkpoint(target)
    assert meta["rows"] == 40
    # the temporary file went beside the target, and nothing was left behind
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.ckpt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.csv", "state.ckpt",
                                                          "volume"]
    # a resumed run reads and writes through the link
    with open(events, "a") as f:
        f.write("x1,0.5,1\n")
    res = run([events, "--format", "json", "--checkpoint", link, "--resume"])
    assert res.exit_code == 0 and last_json(res.stdout)["events"] == 41, res.output
    assert link.is_symlink() and read_checkpoint(target)[0]["rows"] == 41


def test_a_dangling_symbolic_link_creates_its_target(tmp_path, events):
    target = tmp_path / "volume" / "state.ckpt"
    target.parent.mkdir()
    link = tmp_path / "state.ckpt"
    link.symlink_to(target)
    res = run([events, "--checkpoint", link, "--resume"])   # nothing to resume yet
    assert res.exit_code == 0 and "starting from the beginning" in res.stderr, res.output
    assert link.is_symlink() and read_checkpoint(target)[0]["rows"] == 40
    # a link into a folder that does not exist: refused before any row
    gone = tmp_path / "gone.ckpt"
    gone.symlink_to(tmp_path / "missing" / "state.ckpt")
    res = run([events, "--every", 1, "--checkpoint", gone])
    _refused_before_any_row(res, f"{gone} (a symbolic link to {tmp_path}/missing/state."
                                 f"ckpt): the folder '{tmp_path}/missing' does not exist")


def test_a_symbolic_link_to_a_named_pipe_is_refused(tmp_path, events):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "state.ckpt"
    link.symlink_to(fifo)
    res = run([events, "--every", 1, "--checkpoint", link])
    _refused_before_any_row(res, f"{link} (a symbolic link to {fifo}): a named pipe "
                                 "(FIFO), not a regular file")
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)
    loop = tmp_path / "loop.ckpt"
    loop.symlink_to(loop)
    res = run([events, "--every", 1, "--checkpoint", loop])
    _refused_before_any_row(res, "cannot be checked (Too many levels of symbolic links)")


# --------------------------------------------------------------------------- what PATH holds
def _npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _checkpoint_bytes(tmp_path, events):
    ckpt = tmp_path / "real.ckpt"
    assert run([events, "--checkpoint", ckpt]).exit_code == 0
    return ckpt.read_bytes()


def _foreign_zip(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("README.txt", "another program's archive")


def _state_cut_inside_a_good_archive(path):
    """A checkpoint whose ``monitor`` array holds half the state, re-archived (every
    CRC right): only the recorded size tells."""
    mon = Monitor(window=5)
    mon.observe("a", score=0.5, label=1)
    write_checkpoint(path, mon.to_bytes(), {"rows": 1, "offset": None})
    with np.load(path) as z:        # (a trusted file: the test's own)
        meta, state = str(z["meta"]), z["monitor"]
    _npz(path, meta=np.array(meta), monitor=state[:len(state) // 2])


def _old_version(version):
    def make(path):
        meta = {"format": "streamrank.monitor.checkpoint", "version": version, "rows": 1,
                "offset": None}
        _npz(path, meta=np.array(json.dumps(meta)),
             monitor=np.frombuffer(Monitor(window=5).to_bytes(), dtype=np.uint8))
    return make


@pytest.mark.parametrize("make,message", [
    (lambda p: p.write_bytes(b""), "not a streamrank monitor checkpoint: an empty file"),
    (lambda p: p.write_text(ROWS), "not a streamrank monitor checkpoint: not a zip archive "
                                   "(it starts with b'id,score,label\\ne')"),
    (lambda p: _npz(p, meta=np.array([{"rows": 1}], dtype=object)),
     "not a streamrank monitor checkpoint: array 'meta' holds pickled Python objects, "
     "which streamrank never loads"),
    (lambda p: _npz(p, x=np.arange(3)), "not a streamrank monitor checkpoint: it holds the "
                                        "arrays ['x'], not 'meta' and 'monitor'"),
    (_foreign_zip, "not a streamrank monitor checkpoint: unexpected member 'README.txt'"),
    (lambda p: _npz(p, meta=np.array('{"format": "other"}'), monitor=np.zeros(2, np.uint8)),
     "not a streamrank monitor checkpoint: its 'meta' is not the metadata of a streamrank "
     "monitor checkpoint"),
    (_state_cut_inside_a_good_archive, "a damaged checkpoint (truncated, or changed since "
                                       "it was written): its monitor state has"),
    (_old_version(1), "a checkpoint of version 1, written by another streamrank (this one "
                      "reads version 6): start a new run (without --resume)"),
    (_old_version(2), "a checkpoint of version 2, written by another streamrank (this one "
                      "reads version 6)"),
    (_old_version(3), "a checkpoint of version 3, written by another streamrank (this one "
                      "reads version 6)"),
    (_old_version(4), "a checkpoint of version 4, written by another streamrank (this one "
                      "reads version 6)"),
    (_old_version(5), "a checkpoint of version 5, written by another streamrank (this one "
                      "reads version 6)"),
    (_old_version(7), "a checkpoint of version 7, written by another streamrank"),
    (_old_version(2.0), "a checkpoint of version 2.0, written by another streamrank"),
])
def test_what_is_not_a_checkpoint_says_so(tmp_path, events, make, message):
    ckpt = tmp_path / "c.ckpt"
    make(ckpt)
    saved = ckpt.read_bytes()
    for resume in ("--resume", "--force-resume"):
        res = run([events, "--every", 1, "--checkpoint", ckpt, resume])
        _refused_before_any_row(res, f"Error: {ckpt}: {message}")
        assert "allow_pickle" not in res.stderr and "got a" not in res.stderr
    assert ckpt.read_bytes() == saved          # a refused resume leaves it as it was
    with pytest.raises(CheckpointError) as err:
        read_checkpoint(ckpt)
    assert str(err.value).startswith(f"{ckpt}: {message}")


def test_a_checkpoint_cut_short_is_called_damaged(tmp_path, events):
    data = _checkpoint_bytes(tmp_path, events)
    ckpt = tmp_path / "c.ckpt"
    for size in (len(data) // 2, len(data) - 1, 600):
        ckpt.write_bytes(data[:size])
        res = run([events, "--every", 1, "--checkpoint", ckpt, "--resume"])
        _refused_before_any_row(res, f"{ckpt}: a damaged checkpoint (truncated, or changed "
                                     "since it was written): ")


def test_reading_a_checkpoint_never_unpickles(tmp_path, events, monkeypatch):
    """Neither numpy's loader nor pickle is reached, for a good checkpoint or for an
    archive of pickled objects."""
    ckpt = tmp_path / "c.ckpt"
    assert run([events, "--checkpoint", ckpt]).exit_code == 0

    def forbidden(*args, **kwargs):
        raise AssertionError("unpickling or np.load was called")

    for mod, name in ((np, "load"), (pickle, "load"), (pickle, "loads"),
                      (pickle, "Unpickler")):
        monkeypatch.setattr(mod, name, forbidden)
    meta, monitor = load_checkpoint(ckpt)
    assert meta["rows"] == 40 and monitor.stats["events"] == 40
    buf = io.BytesIO()
    np.savez(buf, meta=np.array(["x"], dtype=object), monitor=np.zeros(2, np.uint8))
    ckpt.write_bytes(buf.getvalue())
    with pytest.raises(CheckpointError, match="holds pickled Python objects"):
        read_checkpoint(ckpt)


def test_checkpoint_errors_of_the_library(tmp_path):
    """`streamrank.monitor.checkpoint` raises `CheckpointError` (a `ValueError`) naming
    the file, for what the command reports with exit 2."""
    ckpt = tmp_path / "c.ckpt"
    with pytest.raises(CheckpointError, match="missing.ckpt: cannot read the checkpoint"):
        read_checkpoint(tmp_path / "missing.ckpt")
    write_checkpoint(ckpt, b"not a monitor", {"rows": 1, "offset": None})
    assert read_checkpoint(ckpt) == (
        {"rows": 1, "offset": None, "version": VERSION, "state_bytes": 13,
         "format": "streamrank.monitor.checkpoint",
         "state_sha256": hashlib.sha256(b"not a monitor").hexdigest()}, b"not a monitor")
    with pytest.raises(CheckpointError, match="c.ckpt: a damaged checkpoint .*its state is "
                                              "not a streamrank monitor's snapshot"):
        load_checkpoint(ckpt)
    good = {"rows": 1, "offset": None, "source": {"head_bytes": 0, "head_sha256": "",
                                                  "device": None, "inode": None},
            "output": {"reported": None, "file": None}}
    check_meta(good, ckpt)
    for bad, what in [({"rows": -1}, r"'rows' is -1, not a count"),
                      ({"source": {"head_bytes": 0}}, r"'source' is \{'head_bytes': 0\}"),
                      ({"output": {"reported": "x", "file": None}}, "'output' is"),
                      ({"output": {"reported": 1, "file": [1, 2]}}, "'output' is")]:
        with pytest.raises(CheckpointError, match=rf"a damaged checkpoint \({what}"):
            check_meta(dict(good, **bad), ckpt)
    mon = Monitor(window=3)
    mon.observe("a", score=0.5, label=1)
    write_checkpoint(ckpt, mon.to_bytes(), {"rows": 1, "offset": None})
    meta, back = load_checkpoint(ckpt)
    assert back.to_bytes() == mon.to_bytes() and issubclass(CheckpointError, ValueError)
