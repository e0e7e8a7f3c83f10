"""Crash-safe checkpoint files of a `streamrank.monitor.Monitor` (``streamrank monitor
--checkpoint``): the monitor's whole state and the metadata of the run (the input position
and identity, the columns, the options), in one file, replaced atomically.

`write_checkpoint` writes a temporary file ``.NAME.PID.XXXX.tmp`` in the same directory,
flushed and fsynced, then ``os.replace``-s it over ``NAME`` and fsyncs the directory; the
temporary files of writers that were killed are removed at the next write. A crash leaves
either the previous checkpoint or the new one, never half of one. The file is an
``np.savez`` archive (no pickle): ``meta`` (JSON, with ``format`` and ``version``) and
``monitor`` (`Monitor.to_bytes`). Version 2 records the input's identity, the columns and
``--every``; version 1 had only the position; both are read.

`read_checkpoint`, `load_checkpoint` and `check_meta` raise `CheckpointError` (a
`ValueError`) for a file that is not such a checkpoint (empty, truncated, foreign, newer,
damaged), naming the file.

>>> import os, tempfile
>>> from streamrank.monitor import Monitor
>>> m = Monitor(window=3)
>>> m.observe("a", score=0.9, label=1)
>>> path = os.path.join(tempfile.mkdtemp(), "mon.ckpt")
>>> write_checkpoint(path, m.to_bytes(), {"rows": 1, "offset": None})
>>> meta, restored = load_checkpoint(path)
>>> meta["rows"], meta["version"], restored.stats["events"]
(1, 2, 1)
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping

import numpy as np

from ._monitor import Monitor
from ._paired import PairedMonitor
from ._paired_state import FORMAT as _PAIRED_FORMAT, snapshot_format
from ._segments import SegmentedMonitor

__all__ = ["FORMAT", "VERSION", "CheckpointError", "check_meta", "load_checkpoint",
           "read_checkpoint", "write_checkpoint"]

FORMAT = "streamrank.monitor.checkpoint"
#: 2: the input's identity (path, fingerprint of its first bytes), the columns and
#: ``--every`` are stored and checked on ``--resume``; 1 had only the position.
VERSION = 2


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: not a monitor checkpoint (empty, truncated,
    another archive), a newer version, damaged metadata or state, or unreadable. The
    message starts with the file's path and says which."""


def write_checkpoint(path: str | os.PathLike[str], monitor_bytes: bytes,
                     meta: Mapping[str, object]) -> None:
    """Write a checkpoint atomically: temp file in the same directory, fsync, replace.

    The file is an ``np.savez`` archive (no pickle): ``meta`` (JSON: format, version,
    input position and identity, options) and ``monitor`` (`Monitor.to_bytes`). The
    temporary file is ``.NAME.PID.XXXX.tmp`` beside ``NAME``; those that a killed
    writer left behind (their process is gone) are removed first.
    """
    path = os.path.abspath(os.fspath(path))
    directory, base = os.path.split(path)
    meta = dict(meta, format=FORMAT, version=VERSION)
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
        os.replace(tmp, path)
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

    Anything else (an empty, truncated or foreign file, or one of a newer version) is a
    `CheckpointError` saying so; so is a file that cannot be read."""
    try:
        with np.load(os.fspath(path), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            data = z["monitor"].tobytes()
        if not isinstance(meta, dict):
            raise ValueError("its metadata is not a JSON object")
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read the checkpoint "
                         f"({exc.strerror or exc})") from None
    except Exception as exc:  # noqa: BLE001 (EOFError, BadZipFile, ValueError, KeyError)
        what = "an empty file" if os.path.getsize(path) == 0 else f"{_reason(exc)}"
        raise CheckpointError(f"{path}: not a streamrank monitor checkpoint ({what})") from None
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a streamrank monitor checkpoint (another archive)")
    version = meta.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool):
        raise CheckpointError(f"{path}: not a streamrank monitor checkpoint (its version is "
                         f"{version!r})")
    if version > VERSION:
        raise CheckpointError(f"{path}: checkpoint version {version} is newer than this "
                         f"streamrank (reads up to {VERSION})")
    return meta, data


def check_meta(meta: Mapping[str, object], path: str | os.PathLike[str]) -> None:
    """The position and counts a resumed run uses are what `write_checkpoint` wrote: a
    `CheckpointError` (a damaged checkpoint) otherwise."""
    def count(key, none_ok=False, min_value=0):
        v = meta.get(key)
        ok = (v is None and none_ok) or (isinstance(v, int) and not isinstance(v, bool)
                                         and v >= min_value)
        if not ok:
            raise CheckpointError(f"{path}: a damaged checkpoint ({key!r} is {v!r}, not a "
                             f"count)")

    count("rows")
    count("offset", none_ok=True)
    if "skipped" in meta:
        count("skipped")
    if "every" in meta:
        count("every", min_value=1)


def _reason(exc) -> str:
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

def load_checkpoint(path: str | os.PathLike[str]
                    ) -> tuple[dict[str, object], Monitor | PairedMonitor | SegmentedMonitor]:
    """``(meta, monitor)``: `read_checkpoint` and the `Monitor` restored from its state (a
    `SegmentedMonitor` when ``meta["segmented"]``, ``streamrank monitor --segment``; a
    `PairedMonitor` for a state of ``--challenger-score``).

    A state `Monitor.from_bytes` cannot load is a `CheckpointError` ("a damaged
    checkpoint"). Runtime: ``O(W log W + H + F)`` (`Monitor.from_bytes`).
    """
    meta, data = read_checkpoint(path)
    try:     # (a segmented run's, ``--segment``: its meta says so)
        if meta.get("segmented"):
            monitor = SegmentedMonitor.from_bytes(data)
        else:
            cls = PairedMonitor if snapshot_format(data) == _PAIRED_FORMAT else Monitor
            monitor = cls.from_bytes(data)
    except Exception as exc:  # noqa: BLE001 (whatever a damaged snapshot raises)
        raise CheckpointError(f"{path}: a damaged checkpoint ({_reason(exc)})") from None
    return meta, monitor
