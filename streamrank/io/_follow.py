"""Following a file across log rotation, as ``tail -F`` does, for `EventSource`.

A followed file is known by its identity (`FileId`: device and inode), not by its name.
When its data runs out, `Watch.check` looks at the path and says what became of it:

* ``"truncated"``: the same file, now shorter than what was read (``copytruncate``);
* ``"rewritten"``: the same file, whose first bytes are no longer those read (truncated and
  written again beyond the read position between two looks);
* ``"replaced"``: another regular file at the path (logrotate's default: rename, then
  create); `continues` then tells a file that holds what was read and more (a producer
  that republishes its whole file) from a new one;
* nothing (None): the same file, grown or not. A path that does not exist (between the
  rename and the create) or is not a regular file is said once, and is no change: the
  open file is read on until a new one appears.

Each look is one ``stat`` of the path and one read of the first bytes read (at most
``HEAD_BYTES``); a followed file is looked at twice a poll at most.

`FollowMode` is the follow mode of `EventSource` (a base class working on its state): at
the end of the data it looks at the path before and after each poll, so content rewritten
meanwhile is never read from the old position. A file truncated or rewritten is read
again from its start; a file replaced is first read to its end, then the new one from its
start, unless the new one starts with all the bytes read (a producer that republishes its
whole file: reading goes on at the same byte). New CSV content starts with the header
again (skipped; a first line that names other columns is an `EventError`), or with data
(a ``copytruncate`` under a producer that keeps its file open: its first line names none
of the columns). What was read past the last row when the content changed (a line without
its line end, a record cut inside a quoted field) is not read, and the message says so.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
>>> with open(path, "w") as f:
...     _ = f.write("id,score\\na,0.5\\n")
>>> f = open(path, "rb"); head = f.read()
>>> watch = Watch(path, f.fileno(), "log.csv", print)
>>> watch.check(f.fileno(), len(head), head) is None
True
>>> os.truncate(path, 0)
>>> watch.check(f.fileno(), len(head), head)
'truncated'
>>> os.rename(path, path + ".1")
>>> watch.check(f.fileno(), len(head), head)
log.csv has become inaccessible (No such file or directory); reading on the open file until a new one appears
>>> open(path, "w").close()
>>> watch.check(f.fileno(), len(head), head)
'replaced'
>>> f.close()
"""

from __future__ import annotations

import os
import stat as _stat
import time as _time
from typing import Callable, NamedTuple

from ._records import EventError

__all__ = ["FileId", "FollowMode", "Watch", "continues"]


class FileId(NamedTuple):
    """A file's identity: it stays through a rename, another file at the path has another."""

    device: int
    inode: int

    @classmethod
    def of(cls, fd: int) -> "FileId":
        st = os.fstat(fd)
        return cls(st.st_dev, st.st_ino)


class Watch:
    """The path of a followed file and the identity of the file open on it.

    Parameters
    ----------
    path : str
        The followed path.
    fd : int
        The descriptor of the file open on it (read here only by `check`, for its first
        bytes).
    name : str
        The file's name in messages.
    notify : callable, optional
        Called with a one-line message when the path goes missing and when it is back.
    """

    def __init__(self, path: str, fd: int, name: str,
                 notify: Callable[[str], None] | None = None):
        self.path, self.name = path, name
        self.notify = notify or (lambda message: None)
        self.file = FileId.of(fd)
        self.missing = False

    def follow(self, fd: int) -> None:
        """Watch the file now open as ``fd`` (after a switch to new content)."""
        self.file = FileId.of(fd)
        self.missing = False

    def check(self, fd: int, read: int, head: bytes) -> str | None:
        """What became of the path now that the data ran out, ``read`` bytes having been
        read from ``fd`` (the first of them ``head``): None, ``"truncated"``,
        ``"rewritten"`` or ``"replaced"`` (see the module docstring).
        ``O(len(head))``."""
        try:
            st = os.stat(self.path)
            reason = None if _stat.S_ISREG(st.st_mode) else "not a regular file"
        except OSError as exc:
            reason = exc.strerror or str(exc)
        if reason is not None:
            if not self.missing:
                self.missing = True
                self.notify(f"{self.name} has become inaccessible ({reason}); reading on "
                            "the open file until a new one appears")
            return None
        if FileId(st.st_dev, st.st_ino) != self.file:
            return "replaced"
        if self.missing:
            self.missing = False
            self.notify(f"{self.name} is back (the same file); reading on")
        if st.st_size < read:
            return "truncated"
        if head and os.pread(fd, len(head), 0) != head:
            return "rewritten"
        return None


def _open_regular(path):
    """``path`` opened for reading if it is a regular file (a named pipe put there is not
    waited on), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    if not _stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def continues(old: int, new: int, n: int, chunk: int = 1 << 20) -> bool:
    """Whether the file open as ``new`` starts with the first ``n`` bytes of the file open
    as ``old``. ``O(n)``, compared ``chunk`` bytes at a time.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> def opened(name, data):
    ...     with open(os.path.join(folder, name), "wb") as f:
    ...         _ = f.write(data)
    ...     return os.open(os.path.join(folder, name), os.O_RDONLY)
    >>> old, new = opened("old", b"a\\nb\\n"), opened("new", b"a\\nb\\nc\\n")
    >>> continues(old, new, 4), continues(new, old, 6), continues(old, opened("x", b"z\\n"), 2)
    (True, False, False)
    """
    if n and os.fstat(new).st_size < n:
        return False
    pos = 0
    while pos < n:
        k = min(chunk, n - pos)
        if os.pread(old, k, pos) != os.pread(new, k, pos):
            return False
        pos += k
    return True


class FollowMode:
    """The follow mode of `streamrank.io.events.EventSource`: its polls at the end of the
    data and its switches to a rotated file's new content (see the module docstring).
    It works on the source's state: the open ``stream``, the bytes read (``_offset``
    complete, ``_pending`` not), ``_end`` (past the last row), ``_head`` (the first
    bytes), the line counts, and ``_switched`` (set by a switch until the new content's
    first line is read)."""

    def _wait(self) -> bool:
        """Sleep one poll at the end of a followed file; False once idle too long."""
        gate = self.gate
        if gate is not None and gate.requested:
            return False
        now = _time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if self.max_idle is not None and now - self._idle_since >= self.max_idle:
            return False
        self._blocking(_time.sleep, self.poll)
        return True

    def _at_end(self) -> bool:
        """The data of a followed file ran out: True to read on (new content, the rest of
        a replaced file, or after a poll), False to stop. The path is looked at before
        and after the poll, so that content rewritten meanwhile is never read from the
        old position."""
        if self._rotated():
            return True
        if not self._wait():
            return False
        self._rotated()
        return True

    def _rotated(self) -> bool:
        """Switch to the path's new content if it has some; True when there is more to
        read now (new content, or a replaced file read once more to its end)."""
        fd = self.stream.fileno()
        what = self._watch.check(fd, self._offset + len(self._pending), bytes(self._head))
        if what is None:
            self._drain = False
            return False
        if what != "replaced":
            self.stream.seek(0)
            self._new_file(what, "file truncated" if what == "truncated" else
                           "file rewritten (its first bytes changed)")
            return True
        if not self._drain:          # the old file may still have grown: read it once
            self._drain = True       # more to its end before leaving it
            return True
        new = _open_regular(self.path)
        if new is None:
            return False             # gone again (or not a file): the next look tells
        read = self._offset + len(self._pending)
        old, self.stream = self.stream, new
        self.identity = os.path.realpath(self.path)    # (a link may point elsewhere now)
        if read and continues(old.fileno(), new.fileno(), read):
            new.seek(read)
            self._watch.follow(new.fileno())
            self.file_id = self._watch.file
            self._drain = False
            self._on_rotate(f"{self.name} has been replaced by a file that continues it; "
                            f"reading on at byte {read}")
        else:
            self._new_file("replaced", "has been replaced (the old file was read to its "
                           "end)")
        old.close()
        return True

    def _new_file(self, what, message) -> None:
        """Read the stream (rewound, or another file) as new content from its start."""
        lost = self._offset + len(self._pending) - self._end   # read past the last row
        self._watch.follow(self.stream.fileno())
        self.file_id = self._watch.file
        self._switched, self._drain, self._idle_since = what, False, None
        self._pending, self._head = b"", bytearray()
        self._queued.clear()
        self._offset = self._end = 0
        self._line_base, self._lines_read = 0, 0
        self._on_rotate(f"{self.name}{' ' if what == 'replaced' else ': '}{message}; "
                        "reading the new content from its start" + (
                            f"; the {lost} bytes after the last row (an unfinished line) "
                            "were not read" if lost else ""))

    def _new_content(self) -> bool:
        """The first line of a followed file's new content: its header (the same as the
        first file's: skipped; other columns: an `EventError`) or its first row (kept).
        False when the reading stopped before it."""
        what = self._switched
        if self.format == "jsonl":
            self._switched = None
            return True
        line = self._next_line()
        self._switched = None
        if line is None:
            return False
        header = self._header_of(line)
        if header == self.header:
            self._end = self._offset
            self._line_base = 1
        elif header is not None and set(header) & set(self.header):
            raise EventError(f"after it was {what}, its header {header} differs from the "
                             f"header {self.header} it was read with", line=1)
        else:
            self._unread(line)
        return True
