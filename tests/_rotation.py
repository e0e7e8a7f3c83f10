"""What the log-rotation tests share (tests only): a followed file's polls as the writer's
steps, without timing, and the steps of a rotation.

Inside `polls(steps)`, each poll of a followed `EventSource` (its ``sleep``) runs the next
step; once they are all done, the idle time runs out (the clock jumps 10 s), so a reader
with ``max_idle=1`` (``--max-idle 1``) stops after reading what the last step wrote.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from types import SimpleNamespace
from unittest import mock

from streamrank.io import _follow

__all__ = ["append", "copytruncate", "polls", "rename_and_create"]


@contextmanager
def polls(steps):
    clock = SimpleNamespace(now=0.0)
    queue = list(steps)

    def sleep(_):
        if queue:
            queue.pop(0)()
        else:
            clock.now += 10.0

    with mock.patch.object(_follow, "_time", SimpleNamespace(
            sleep=sleep, monotonic=lambda: clock.now)):
        yield


def copytruncate(path, data: bytes):
    """A step: the file emptied (the copy is elsewhere), then ``data`` written to it."""
    def step():
        os.truncate(path, 0)
        with open(path, "ab") as f:
            f.write(data)
    return step


def rename_and_create(path, old_tail: bytes, data: bytes):
    """A step: the file renamed to ``PATH.1``, ``old_tail`` still appended to it (its
    producer had not reopened yet), and a new file holding ``data`` created at PATH."""
    def step():
        os.rename(path, f"{path}.1")
        with open(f"{path}.1", "ab") as f:
            f.write(old_tail)
        with open(path, "xb") as f:
            f.write(data)
    return step


def append(path, data: bytes):
    """A step: ``data`` appended."""
    def step():
        with open(path, "ab") as f:
            f.write(data)
    return step
