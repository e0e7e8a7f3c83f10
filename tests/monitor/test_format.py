"""The one snapshot format of every monitor (`streamrank.monitor._format`): one format name
and version for every shape, the kind of monitor that wrote it, a node per monitor with
its nodes under their names, and the refusals (another kind, the formats of development
versions, an array nothing reads, damage anywhere in a nested node)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _damage import damaged
from streamrank import SnapshotError
from streamrank import _snapshot
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor._format import FORMAT, VERSION, kind_of


def _feed(m, n=40):
    paired = isinstance(m, PairedMonitor) or getattr(m, "models", 1) == 2
    segmented = isinstance(m, SegmentedMonitor)
    for i in range(n):
        extra = {"challenger": (i * 7 % 11) / 11} if paired else {}
        if segmented:
            extra["segment"] = ["fr", "de", "us"][i % 3]
        m.observe(i, score=(i * 5 % 13) / 13, label=i % 2 if i % 4 else None, **extra)
        if i % 9 == 8:
            m.observe(i - 4, label=1)               # a late label
            m.observe(1000 + i, label=0)            # an early one (it waits)
        if i % 10 == 9:
            m.report()
    return m


SHAPES = {
    "plain": lambda: Monitor(window=12, min_window=4, label_wait=5),
    "paired": lambda: PairedMonitor(window=12, min_window=4, label_wait=5),
    "segments": lambda: SegmentedMonitor(window=12, min_window=4, label_wait=5,
                                         max_segments=2),
    "segments x paired": lambda: SegmentedMonitor(
        factory=lambda: PairedMonitor(window=12, min_window=4, label_wait=5),
        max_segments=2),
}
#: The nodes each shape's snapshot holds (besides the monitor's own).
NODES = {
    "plain": set(),
    "paired": {"champion", "challenger"},
    "segments": {"template", "segment/0", "segment/1", "pooled"},
    "segments x paired": {f"{unit}/{model}" for unit in ("template", "segment/0",
                                                           "segment/1", "pooled")
                          for model in ("", "champion", "challenger")},
}


def _arrays(data):
    return _snapshot.read_archive(data, ValueError)


def _npz(arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_writes_the_one_format_with_a_node_per_monitor(shape):
    m = _feed(SHAPES[shape]())
    data = m.to_bytes()
    arrays = _arrays(data)
    assert str(arrays["format"]) == FORMAT and int(arrays["version"]) == VERSION
    assert str(arrays["kind"]) == kind_of(data) == type(m).__name__
    nodes = {name.rsplit("/", 1)[0] for name in arrays if name.endswith("/config")}
    assert nodes == {n.rstrip("/") for n in NODES[shape]}
    # every node: its settings and its state (counters by name), then its stages
    for node in nodes | {""}:
        prefix = f"{node}/" if node else ""
        state = json.loads(str(arrays[prefix + "state"]))
        assert set(state["stats"]) and all(type(v) is int for v in state["stats"].values())
        assert prefix + "wait_y" in arrays and prefix + "orphan_mark" in arrays  # join
    back = type(m).from_bytes(data)
    back._check()
    assert back.to_bytes() == data
    assert repr(back.report()) == repr(m.report())


@pytest.mark.parametrize("shape", list(SHAPES))
def test_another_kinds_snapshot_is_refused_naming_the_class_that_reads_it(shape):
    data = _feed(SHAPES[shape]()).to_bytes()
    kind = kind_of(data)
    for cls in (Monitor, PairedMonitor, SegmentedMonitor):
        if cls.__name__ == kind:
            continue
        with pytest.raises(SnapshotError, match=rf"^{cls.__name__}.from_bytes: not a "
                           rf"{cls.__name__} snapshot \(got a {kind} snapshot: load it with "
                           rf"{kind}.from_bytes\)\.$"):
            cls.from_bytes(data)


def test_an_unknown_kind_is_refused():
    arrays = _arrays(Monitor(window=4).to_bytes())
    arrays["kind"] = np.array("Other")
    with pytest.raises(SnapshotError, match=r"not a Monitor snapshot \(got a snapshot of kind "
                       r"'Other'\)"):
        Monitor.from_bytes(_npz(arrays))
    assert kind_of(_npz(arrays)) is None


@pytest.mark.parametrize("fmt, version", [("streamrank.Monitor", v) for v in (1, 4, 5, 7, 9)]
                         + [("streamrank.PairedMonitor", 1), ("streamrank.PairedMonitor", 2),
                            ("streamrank.SegmentedMonitor", 5)])
def test_the_formats_of_development_versions_are_refused_with_the_version_error(fmt, version):
    cls = {"streamrank.Monitor": Monitor, "streamrank.PairedMonitor": PairedMonitor,
           "streamrank.SegmentedMonitor": SegmentedMonitor}[fmt]
    arrays = _arrays(cls(window=4).to_bytes())
    arrays.update(format=np.array(fmt), version=np.array(version))
    data = _npz(arrays)
    if fmt == FORMAT:
        match = (rf"snapshot version {version} not supported \(this streamrank reads "
                 rf"version {VERSION}\)")
    else:
        match = (rf"'{fmt}' snapshot version {version} not supported \(this streamrank reads "
                 rf"'streamrank.Monitor' version {VERSION}, for every monitor\)")
    with pytest.raises(SnapshotError, match=rf"^{cls.__name__}.from_bytes: {match}\.$"):
        cls.from_bytes(data)
    assert kind_of(data) == cls.__name__     # (a checkpoint's loader gets this error)


@pytest.mark.parametrize("shape", ["paired", "segments x paired"])
def test_an_array_nothing_reads_is_refused(shape):
    m = _feed(SHAPES[shape]())
    arrays = _arrays(m.to_bytes())
    node = "champion" if shape == "paired" else "segment/1/challenger"
    arrays[f"{node}/extra"] = np.arange(3)
    with pytest.raises(SnapshotError, match=rf"unexpected arrays \['{node}/extra'\]"):
        type(m).from_bytes(_npz(arrays))


@pytest.mark.parametrize("shape, array, value, says", [
    ("paired", "challenger/s", np.nan, r"array 's' holds nan or inf \(in 'challenger'\)"),
    ("segments", "segment/1/w", -1.0, r"array 'w' holds negative values \(in 'segment/1'\)"),
    ("segments x paired", "pooled/champion/s", np.inf,
     r"array 's' holds nan or inf \(in 'pooled/champion'\)"),
])
def test_bad_contents_in_a_nested_node_name_the_node(shape, array, value, says):
    m = _feed(SHAPES[shape]())
    arrays = _arrays(m.to_bytes())
    arrays[array] = arrays[array].copy()
    arrays[array][0] = value
    with pytest.raises(SnapshotError, match=says):
        type(m).from_bytes(_npz(arrays))


def test_a_missing_node_is_refused():
    m = _feed(SHAPES["paired"]())
    arrays = {k: v for k, v in _arrays(m.to_bytes()).items()
              if not k.startswith("challenger/")}
    with pytest.raises(SnapshotError, match=r"array 'challenger/config' is missing"):
        PairedMonitor.from_bytes(_npz(arrays))


DAMAGED = [(type(m), m.to_bytes()) for m in
           (_feed(SHAPES["paired"]()), _feed(SHAPES["segments x paired"](), 25))]


@settings(derandomize=True, max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 1), how=st.integers(0, 3), at=st.integers(0, 10**7),
       size=st.integers(1, 16), byte=st.integers(0, 255))
def test_damage_anywhere_loads_equal_or_raises_snapshot_error(which, how, at, size, byte):
    cls, data = DAMAGED[which]
    try:
        back = cls.from_bytes(damaged(data, how, at, size, byte))
    except SnapshotError as exc:
        assert str(exc).startswith(f"{cls.__name__}.from_bytes: ")
        return
    back._check()
    assert back.to_bytes() == data      # a change the archive does not depend on
