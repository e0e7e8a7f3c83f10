"""The report output of a resumed ``streamrank monitor`` run: it continues the previous
run's, so that the two together are what one uninterrupted run prints.

Every checkpoint records, under ``output``, the ``events`` of the last report printed
(the final report of a run is printed right after its last checkpoint: that one records
it) and, when standard output is a regular file (``> out.csv``, ``>> out.csv``), the
file's device, inode and size then (`output_state`). A resumed run (`continue_output`):

* appending to that same file (``>> out.csv``), still at least that long, cuts it back
  to that size first: what the previous run printed after its checkpoint (the reports of
  the rows it read since, which are read again now, and its final report) is printed
  again, once, so the file ends as the uninterrupted run's output does, even after a
  ``kill -9``;
* otherwise (a pipe, a terminal, another file) it prints no report up to the one
  recorded (the previous run's final report is not repeated); after a ``kill -9``, the
  reports between the last checkpoint and the kill are printed again (the same lines:
  same ``events``, same values).

A header (CSV, table) is printed when nothing was printed before: into an empty file,
or when the previous run printed no report. JSON lines have none.
"""

from __future__ import annotations

import os
import stat
import sys

__all__ = ["continue_output", "output_state"]


def _stdout_file() -> tuple[int, int, int] | None:
    """``(device, inode, size)`` of standard output when it is a regular file."""
    try:
        sys.stdout.flush()
        st = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):   # (a captured stdout has no file)
        return None
    return (st.st_dev, st.st_ino, st.st_size) if stat.S_ISREG(st.st_mode) else None


def output_state(reported: int | None) -> dict:
    """What a checkpoint records of the output: ``reported`` (the events of the last
    report printed, or about to be printed) and standard output's file, if it is one.

    >>> output_state(500)      # (here standard output is captured: not a file)
    {'reported': 500, 'file': None}
    """
    f = _stdout_file()
    return {"reported": reported, "file": None if f is None else list(f)}


def continue_output(meta: dict, mon) -> tuple[bool, int | None]:
    """Before a resumed run prints anything: ``(header, last)``, whether to print a
    header and the events of the last report already printed (none is printed again up
    to there), after cutting standard output back to the checkpoint's size when it is
    the file the checkpoint's run printed to (see the module docstring)."""
    last = mon.history[-1].events if mon.history else None
    out = meta["output"]
    f, was = _stdout_file(), out["file"]
    if f is not None and was is not None and f[:2] == tuple(was[:2]) and f[2] >= was[2]:
        fd = sys.stdout.fileno()
        try:
            os.ftruncate(fd, was[2])
            os.lseek(fd, was[2], os.SEEK_SET)
        except OSError:     # (an append-only file: then as into a pipe)
            return False, out["reported"]
        return was[2] == 0, last
    if f is not None:
        return f[2] == 0, out["reported"]
    return out["reported"] is None, out["reported"]
