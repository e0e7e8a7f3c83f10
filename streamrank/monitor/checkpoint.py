"""Crash-safe checkpoint files of a `streamrank.monitor.Monitor` (``streamrank monitor
--checkpoint``): the monitor's whole state and the metadata of the run (the input position
and identity, the columns, the options), in one file, replaced atomically.

`write_checkpoint` writes a temporary file ``.NAME.PID.XXXX.tmp`` in the same directory,
flushed and fsynced, then ``os.replace``-s it over ``NAME`` and fsyncs the directory; the
temporary files of writers that were killed are removed at the next write. A crash leaves
either the previous checkpoint or the new one, never half of one. Only a regular file (or
a new path) is ever replaced (`checkpoint_target`): a named pipe, a device, a directory or
a socket at the path is refused; a symbolic link is kept and the file it points to is
replaced (atomically, in that file's folder).

The file is an ``np.savez`` archive of two arrays, read back with the no-pickle archive
reader of `streamrank._snapshot` (never ``np.load``): ``meta`` (JSON: ``format``,
``version``, the size and SHA-256 of the state, the run's metadata) and ``monitor``
(`Monitor.to_bytes`). Version `VERSION` is written and is the only one read: the
earlier ones, written by development versions of streamrank (never released), are
refused, as a checkpoint of another version.

`read_checkpoint`, `load_checkpoint` and `check_meta` raise `CheckpointError` (a
`ValueError`) naming the file: "not a streamrank monitor checkpoint: ..." (empty, another
kind of file or archive), "a damaged checkpoint ..." (truncated, or changed since it was
written), "a checkpoint of version N ..." (another streamrank's), or unreadable.

>>> import os, tempfile
>>> from streamrank.monitor import Monitor
>>> m = Monitor(window=3)
>>> m.observe("a", score=0.9, label=1)
>>> path = os.path.join(tempfile.mkdtemp(), "mon.ckpt")
>>> write_checkpoint(path, m.to_bytes(), {"rows": 1, "offset": None})
>>> meta, restored = load_checkpoint(path)
>>> meta["rows"], meta["version"], restored.stats["events"]
(1, 6, 1)
>>> os.mkfifo(path + ".fifo")
>>> write_checkpoint(path + ".fifo", m.to_bytes(), {"rows": 1, "offset": None})
Traceback (most recent call last):
...
streamrank.monitor.checkpoint.CheckpointError: ....ckpt.fifo: a named pipe (FIFO), not a regular file: a checkpoint replaces only a regular file or creates a new one
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping

import numpy as np

from .._snapshot import read_archive
from ._format import kind_of
from ._monitor import Monitor
from ._paired import PairedMonitor
from ._segments import SegmentedMonitor

__all__ = ["FORMAT", "OLDEST", "VERSION", "CheckpointError", "check_meta", "checkpoint_target",
           "continue_from",
           "load_checkpoint", "read_checkpoint", "write_checkpoint"]

FORMAT = "streamrank.monitor.checkpoint"
#: The version written: 6 holds version 8 of ``"streamrank.Monitor"`` (with score
#: drift); 5 held its version 7 (with the estimates); 4 held the state in the one
#: snapshot format of every monitor (its version 6); 3 recorded the input's device and
#: inode, the output (the last report printed, standard output's file) and the size and
#: SHA-256 of the state.
VERSION = 6
#: The oldest version read (the earlier ones, of unreleased development versions, are
#: refused).
OLDEST = 6
#: How the format name is stored in the ``meta`` array (numpy's ``U``: UTF-32).
_FORMAT_TEXT = f'"format": "{FORMAT}"'.encode("utf-32-le")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: not a monitor checkpoint (empty, truncated,
    another archive), a newer version, damaged metadata or state, or unreadable. The
    message starts with the file's path and says which."""


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def checkpoint_target(path: str | os.PathLike[str]) -> str:
    """The file a checkpoint at ``path`` replaces: ``path`` itself, or the file a symbolic
    link there points to (the link is kept). A `CheckpointError` unless that is a
    regular file or a new path in a folder that exists: a named pipe (FIFO), a device, a
    directory, a socket or a loop of links is never written.
    """
    path = os.path.abspath(os.fspath(path))
    target = os.path.realpath(path)
    where = f"{path} (a symbolic link to {target})" if os.path.islink(path) else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        if not os.path.isdir(os.path.dirname(target)):
            raise CheckpointError(f"{where}: the folder {os.path.dirname(target)!r} does "
                                  "not exist") from None
        return target
    except OSError as exc:
        raise CheckpointError(f"{where}: cannot be checked ({exc.strerror or exc})") \
            from None
    if not stat.S_ISREG(mode):
        raise CheckpointError(f"{where}: {_kind(mode)}, not a regular file: a checkpoint "
                              "replaces only a regular file or creates a new one")
    return target


def write_checkpoint(path: str | os.PathLike[str], monitor_bytes: bytes,
                     meta: Mapping[str, object]) -> None:
    """Write a checkpoint atomically: temp file in the same directory, fsync, replace.

    The file is an ``np.savez`` archive (no pickle): ``meta`` (JSON: format, version,
    the state's size and SHA-256, input position and identity, options) and ``monitor``
    (`Monitor.to_bytes`). The temporary file is ``.NAME.PID.XXXX.tmp`` beside ``NAME``
    (beside the file a symbolic link points to: `checkpoint_target`, which also refuses
    what is not a regular file); those that a killed writer left behind (their process
    is gone) are removed first.
    """
    target = checkpoint_target(path)
    directory, base = os.path.split(target)
    meta = {"format": FORMAT, "version": VERSION, **meta, "state_bytes": len(monitor_bytes),
            "state_sha256": hashlib.sha256(monitor_bytes).hexdigest()}
    _remove_stale_temps(directory, base)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.{os.getpid()}.", suffix=".tmp",
                               dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 -> what open() would have made
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.array(json.dumps(meta)),
                     monitor=np.frombuffer(monitor_bytes, dtype=np.uint8))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def continue_from(monitor, state: bytes, lock=None) -> None:
    """Make ``monitor`` (of any shape) the monitor its checkpoint ``state`` (its
    ``to_bytes``) restores: a run goes on from each checkpoint it writes exactly as a run
    resumed from it does, so that a crash at any moment and ``--resume`` print what the
    run would have printed, bit for bit. (A restore recounts the window's float sums, the
    estimates' and fractional weights', whose last bits depend on the order of the
    changes that came and went.) ``O(W log W)``, as ``from_bytes``, before taking
    ``lock`` (a `threading.Lock` the monitor's readers hold, or None) for the swap only.
    `streamrank.exceptions.SnapshotError` (nothing changes) if ``state`` does not read
    back.

    >>> from streamrank.monitor import Monitor
    >>> m = Monitor(window=3, estimate=True)
    >>> for i, p in enumerate([0.1, 0.7, 0.3, 0.9]):
    ...     m.observe(i, score=p, label=i % 2)
    >>> before = m.report().estimated_auc
    >>> continue_from(m, m.to_bytes())
    >>> m.report().estimated_auc == before, len(m)
    (True, 3)
    """
    restored = type(monitor).from_bytes(state).__dict__
    if lock is None:
        monitor.__dict__.update(restored)
        return
    with lock:
        monitor.__dict__.update(restored)


def _remove_stale_temps(directory, base) -> None:
    """Remove ``.BASE.PID.*.tmp`` files whose writing process no longer runs."""
    prefix = f".{base}."
    try:
        names = [n for n in os.listdir(directory)
                 if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):].split(".", 1)[0]
        if not pid.isdigit() or (int(pid) != os.getpid() and _running(int(pid))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def _running(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True   # another user's process
    return True


def read_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, object], bytes]:
    """``(meta, monitor_bytes)`` of a checkpoint written by `write_checkpoint`.

    Anything else is a `CheckpointError` saying what: not a checkpoint (an empty file,
    another kind of file, an archive of something else, a file that is not a regular
    file), a damaged one (truncated, or its state not the one written), one of another
    version, or a file that cannot be read. ``O(file size)``; nothing is unpickled."""
    data = _read_file(path)
    if not data:
        raise _not_one(path, "an empty file")
    if not data.startswith(b"PK\x03\x04"):
        raise _not_one(path, f"not a zip archive (it starts with {data[:16]!r})")
    # the format name is in ``meta`` (first in version 3): a file that holds it is a
    # checkpoint, damaged if it does not read
    words = _damaged if _FORMAT_TEXT in data else _not_one
    arrays = read_archive(data, lambda what: words(path, what))
    if sorted(arrays) != ["meta", "monitor"]:
        raise words(path, f"it holds the arrays {sorted(arrays)}, not 'meta' and 'monitor'")
    text, state = arrays["meta"], arrays["monitor"]
    try:
        meta = json.loads(str(text)) if text.dtype.kind == "U" and text.ndim == 0 else None
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise words(path, "its 'meta' is not the metadata of a streamrank monitor "
                          "checkpoint")
    version = meta.get("version")
    if not (_count(version, min_value=OLDEST) and version <= VERSION):
        reads = f"version {VERSION}" if OLDEST == VERSION else \
            f"versions {OLDEST} to {VERSION}"
        raise CheckpointError(
            f"{path}: a checkpoint of version {version!r}, written by another streamrank "
            f"(this one reads {reads}): start a new run (without --resume), or resume it "
            "with the streamrank that wrote it")
    data = state.tobytes() if state.dtype == np.uint8 and state.ndim == 1 else None
    if data is None or len(data) != meta.get("state_bytes"):
        raise _damaged(path, f"its monitor state has {'no' if data is None else len(data)} "
                             f"bytes, {meta.get('state_bytes')!r} were written: it was "
                             "truncated")
    if hashlib.sha256(data).hexdigest() != meta.get("state_sha256"):
        raise _damaged(path, "its monitor state is not the one written (its SHA-256 "
                             "differs)")
    return meta, data


def _read_file(path) -> bytes:
    """The bytes of a regular file (a named pipe is not waited on: it is refused)."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the checkpoint "
                              f"({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_one(path, f"{_kind(mode)}, not a file")
        try:
            return f.read()
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read the checkpoint "
                                  f"({exc.strerror or exc})") from None


def _not_one(path, what) -> CheckpointError:
    return CheckpointError(f"{path}: not a streamrank monitor checkpoint: {what}")


def _damaged(path, what) -> CheckpointError:
    return CheckpointError(f"{path}: a damaged checkpoint (truncated, or changed since it "
                           f"was written): {what}")


def check_meta(meta: Mapping[str, object], path: str | os.PathLike[str]) -> None:
    """The position and counts a resumed run uses are what `write_checkpoint` wrote: a
    `CheckpointError` (a damaged checkpoint) otherwise."""
    def count(key, none_ok=False, min_value=0):
        v = meta.get(key)
        if not _count(v, none_ok, min_value):
            raise CheckpointError(f"{path}: a damaged checkpoint ({key!r} is {v!r}, not a "
                                  f"count)")

    def damaged(key, v):
        raise CheckpointError(f"{path}: a damaged checkpoint ({key!r} is {v!r})")

    count("rows")
    count("offset", none_ok=True)
    if "skipped" in meta:
        count("skipped")
    if "every" in meta:
        count("every", min_value=1)
    source = meta.get("source")
    if not (isinstance(source, dict) and _count(source.get("head_bytes"))
            and isinstance(source.get("head_sha256"), str)
            and all(_count(source.get(k), none_ok=True) for k in ("device", "inode"))):
        damaged("source", source)
    output = meta.get("output")
    if not (isinstance(output, dict) and _count(output.get("reported"), none_ok=True)
            and (output.get("file") is None or (
                isinstance(output["file"], list) and len(output["file"]) == 3
                and all(map(_count, output["file"]))))):
        damaged("output", output)


def _count(v, none_ok=False, min_value=0) -> bool:
    return (v is None and none_ok) or (isinstance(v, int) and not isinstance(v, bool)
                                       and v >= min_value)


def _reason(exc) -> str:
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


#: The class that loads each kind of monitor snapshot.
_LOADERS = {"Monitor": Monitor, "PairedMonitor": PairedMonitor,
            "SegmentedMonitor": SegmentedMonitor}


def load_checkpoint(path: str | os.PathLike[str]
                    ) -> tuple[dict[str, object], Monitor | PairedMonitor | SegmentedMonitor]:
    """``(meta, monitor)``: `read_checkpoint` and the monitor restored from its state, by
    the state's kind: a `Monitor`, a `PairedMonitor` (``--challenger-score``) or a
    `SegmentedMonitor` (``--segment``).

    A state that does not load is a `CheckpointError` ("a damaged checkpoint"). Runtime:
    ``O(W log W + H + F)`` (`Monitor.from_bytes`).
    """
    meta, data = read_checkpoint(path)
    cls = _LOADERS.get(kind_of(data))
    if cls is None:
        raise _damaged(path, "its state is not a streamrank monitor's snapshot")
    try:
        monitor = cls.from_bytes(data)
    except Exception as exc:  # noqa: BLE001 (whatever a damaged snapshot raises)
        raise CheckpointError(f"{path}: a damaged checkpoint ({_reason(exc)})") from None
    return meta, monitor
