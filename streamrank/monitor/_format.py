"""The one snapshot format of every monitor: `Monitor.to_bytes`, `PairedMonitor.to_bytes`
and `SegmentedMonitor.to_bytes` write it, their ``from_bytes`` read it.

One ``np.savez`` archive (`streamrank._snapshot`: no pickled objects), format
``"streamrank.Monitor"`` version 8 whatever the shape, with ``kind``, the class that
wrote it (``"Monitor"``, ``"PairedMonitor"`` or ``"SegmentedMonitor"``). The rest is the
monitor as a tree of *nodes*, each written the same way:

* ``config``: the node's settings, as JSON (what its constructor takes);
* ``state``: its clock, its counters by name, its history and alerts, as JSON. A
  counter the snapshot does not name reads 0, so adding a counter needs no new version;
* one section of arrays per stage the node holds: its join (``wait_*``: the labels
  waiting for their prediction; ``orphan_*``: the ids of the last unmatched labels),
  and for a `Monitor` its window (``keys_*``, ``times``, ``y``, ``s``, ``w``), its
  reference (``ref_*``; ``store_*``, the ``reference=N`` store), its scores' reference
  (``score_ref_*``: frozen, or the scores evicted before ``score_reference=N`` froze
  it), the ids evicted lately
  (``gone_*``) and the values fed to a detector that is replayed (``series``); for a
  `SegmentedMonitor` its routes (``segments_*``: the segment values; ``pooled_*``: the
  segment given with each pooled prediction; ``stale_*``: ids in no window that a late
  label must find, with their segments);
* the nodes it is made of, each under its name: a `PairedMonitor`'s ``champion/`` and
  ``challenger/`` (`Monitor` nodes), a `SegmentedMonitor`'s ``template/`` (the unit a
  new segment starts as), ``segment/0/``, ``segment/1/``, ... (its segments, in order)
  and ``pooled/``.

The archive is read without trusting it (`streamrank._snapshot.Snapshot`): every array
is checked, an array nothing read is refused, and anything the constructors or the
window's rules refuse while the monitor is rebuilt is a `SnapshotError`. The formats of
development versions, which were never released (``"streamrank.Monitor"`` versions 1
to 7, ``"streamrank.PairedMonitor"``, ``"streamrank.SegmentedMonitor"``), are refused
with the version error.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

import numpy as np

from .. import _snapshot
from .._validation import describe
from ..exceptions import SnapshotError

__all__ = ["FORMAT", "KINDS", "VERSION", "Out", "kind_of", "reading"]

FORMAT = "streamrank.Monitor"
#: 8: score drift (its settings, reference and the reports' fields); 7: the
#: ``estimate`` setting and the reports' estimates; 6: one format for every shape (5 and
#: earlier: a format per class, nested)
VERSION = 8
#: The classes a snapshot may name as its ``kind``.
KINDS = ("Monitor", "PairedMonitor", "SegmentedMonitor")
#: The formats of the paired and segmented monitors before version 6.
_RETIRED = ("streamrank.PairedMonitor", "streamrank.SegmentedMonitor")


class Out:
    """The arrays of a snapshot being written, by section: a node writes its own under
    its ``prefix`` and hands `section` to the nodes it is made of.

    >>> out = Out("f")
    >>> out.put(x=np.arange(2))
    >>> out.section("champion").json("state", {"clock": None})
    >>> sorted(out.arrays)
    ['champion/state', 'x']
    """

    def __init__(self, func: str, arrays: dict | None = None, prefix: str = "") -> None:
        self.func = func
        self.arrays = {} if arrays is None else arrays
        self.prefix = prefix

    def section(self, name: str) -> "Out":
        """The writer of the node ``name`` inside this one."""
        return Out(self.func, self.arrays, f"{self.prefix}{name}/")

    def put(self, **arrays) -> None:
        """Store ``arrays`` in this section."""
        for name, arr in arrays.items():
            self.arrays[self.prefix + name] = arr

    def keys(self, name: str, keys: list) -> None:
        """Store ``keys`` exactly (`streamrank._snapshot.key_arrays`; `TypeError` naming
        the writer for keys neither all ints nor all strings)."""
        self.put(**_snapshot.key_arrays(keys, name, self.func))

    def json(self, name: str, obj) -> None:
        """Store ``obj`` as JSON text."""
        self.put(**{name: np.array(json.dumps(obj))})

    def to_bytes(self, kind: str) -> bytes:
        """The archive of every section written, a ``kind`` snapshot. O(size)."""
        return _snapshot.dump(FORMAT, VERSION, kind=np.array(kind), **self.arrays)


def _open(data, func: str) -> _snapshot.Snapshot:
    fmt = _snapshot.format_of(data)
    if fmt in _RETIRED:
        try:
            version = _snapshot.load(data, fmt, 1 << 62, func).version
        except SnapshotError:
            version = None
        raise SnapshotError(f"{func}: {fmt!r} snapshot version "
                            f"{'none' if version is None else version} not supported (this "
                            f"streamrank reads {FORMAT!r} version {VERSION}, for every "
                            "monitor).")
    return _snapshot.load(data, FORMAT, VERSION, func, oldest=VERSION)


@contextmanager
def reading(data, kind: str, func: str):
    """The checked snapshot of a ``kind`` monitor in ``data``, to rebuild it from inside
    the block: an error the constructors or the rules raise there (`ValueError`,
    `TypeError`, `KeyError`) becomes a `SnapshotError`, and an array nothing read is
    refused when the block ends. Another kind's snapshot, or a format or version this
    streamrank does not read, is a `SnapshotError` naming ``func``.

    >>> out = Out("f")
    >>> out.json("config", {})
    >>> with reading(out.to_bytes("Monitor"), "PairedMonitor", "g") as snap:
    ...     pass
    Traceback (most recent call last):
    ...
    streamrank.exceptions.SnapshotError: g: not a PairedMonitor snapshot (got a Monitor snapshot: load it with Monitor.from_bytes).
    """
    snap = _open(data, func)
    got = snap.text("kind")
    if got != kind:
        what = f"{got} snapshot: load it with {got}.from_bytes" if got in KINDS \
            else f"snapshot of kind {describe(got)}"
        raise SnapshotError(f"{func}: not a {kind} snapshot (got a {what}).")
    with snap.rebuild():
        yield snap
    snap.finish()


def kind_of(data) -> str | None:
    """The class that reads a monitor snapshot (one of `KINDS`, by its ``kind``; for the
    formats before version 6, the class that wrote them, whose ``from_bytes`` then
    refuses them with the version error), or None for anything else (another
    structure's snapshot, bytes that are not one). O(the members' size).

    >>> kind_of(Out("f").to_bytes("SegmentedMonitor")), kind_of(b"")
    ('SegmentedMonitor', None)
    """
    fmt = _snapshot.format_of(data)
    if fmt in _RETIRED:
        return fmt.split(".", 1)[1]
    if fmt != FORMAT:
        return None
    kind = _snapshot.text_of(data, "kind")
    if kind is None:            # (versions 1 to 5 of a Monitor)
        return "Monitor"
    return kind if kind in KINDS else None
