"""The detector's signal against the frozen reference (``detector_signal="reference"``, the
default): each value against an O(n^2) oracle (heavy ties, weights, late labels,
re-scores, three label values), nothing fed before the reference freezes, the setting's
checks, old snapshots restoring the window signal, ``--detector-signal``, and the
``detections`` metric."""

import io
import json
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import placement

from streamrank.cli import main
from streamrank.exceptions import SnapshotError
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor.metrics import METRIC_KEYS


def _oracle(ref, y, s):
    """The placement of ``(y, s)`` against the reference window's predictions, each pair
    weighted by the reference prediction's weight (None: no comparable pair)."""
    return placement((y, s), ref.y.tolist(), ref.s.tolist(), ref.w.tolist())


# a key, a score (three values: heavy ties), a label (floats take the per-event paths),
# a weight
_EVENT = st.tuples(st.integers(0, 11), st.sampled_from([None, 0.0, 0.5, 0.5, 1.0]),
                   st.sampled_from([None, 0.0, 1.0, 1.0, 0, 1, 2.0]),
                   st.sampled_from([None, None, 1, 2, 0.5, 0]))


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.integers(2, 8), st.sampled_from([None, 2, 3, 5]), st.booleans(),
       st.lists(_EVENT, max_size=80))
def test_reference_placements_equal_a_linear_scan(window, reference, three, events):
    """Every value fed is the documented placement of the newly labeled prediction
    against the frozen reference (two or three label values in it), and nothing is fed
    before it freezes or for a prediction of weight 0."""
    from river import drift

    m = Monitor(window=window, reference=reference, min_window=2,
                detector=drift.NoDrift())
    assert m.detector_signal == "reference"
    want = []
    for key, score, label, weight in events:
        if not three and label == 2.0:
            label = 1.0
        if score is None and label is None and weight is None:
            continue
        before = dict(m.stats)
        m.observe(key, score=score, label=label, weight=weight)
        st_ = m.stats
        if label is None or not (st_["predictions"] > before["predictions"]
                                 or st_["late"] > before["late"]):
            continue
        if not m.reference_frozen:
            continue
        _, y, s, w, _ = next(it for it in m.items() if it[0] == key)
        v = _oracle(m._ref, y, s)
        if w > 0 and v is not None:
            want.append(v)
    assert m._series == pytest.approx(want, rel=1e-12, abs=1e-15)
    m._check()


def test_reference_placements_by_hand():
    from river import drift

    m = Monitor(reference=4, min_window=2, detector=drift.NoDrift())
    for key, s, y, w in [("n1", 0.2, 0, 1), ("n2", 0.5, 0, 3), ("p1", 0.5, 1, 1)]:
        m.observe(key, score=s, label=y, weight=w)
    m.observe("p2", score=0.9)
    assert m._series == [] and not m.reference_frozen   # nothing before the freeze
    m.observe("p2", label=1)            # the fourth label freezes the reference, then
    assert m.reference_frozen           # p2 is placed against it: above both negatives
    m.observe("p3", score=0.5, label=1.0)   # above n1 (1), tied with n2 (3): 2.5 / 4
    m.observe("n4", score=0.7, label=0.0)   # below p2: 1 of 2 positives, 1 / 2
    m.observe("x", score=0.5, label=2.0)    # above every lower label it outranks
    m.observe("z", score=0.1, label=0.0, weight=0)     # weight 0: nothing
    # "x" (label 2): C = n1 (1), D = p2 (1), T = n2, p1 (3 + 1): (1 + 2) / 6
    assert m._series == [1.0, 2.5 / 4, 0.5, 3 / 6]


def test_window_and_reference_signals_differ_only_in_what_they_compare_with():
    """Same stream, both signals: the reference's values are independent of the window
    (a series of its own), the window's are fed from ``min_window`` on, before the
    reference freezes."""
    from river import drift

    rng = np.random.default_rng(3)
    y, s = rng.random(300) < 0.4, rng.normal(size=300)
    ms = {sig: Monitor(window=100, detector=drift.NoDrift(), detector_signal=sig)
          for sig in ("reference", "window")}
    for i in range(300):
        for m in ms.values():
            m.observe(i, score=float(s[i] + y[i]), label=bool(y[i]))
    assert len(ms["window"]._series) == 300 - 29
    assert len(ms["reference"]._series) == 300 - 100     # from the first eviction on
    ref = ms["reference"]._ref
    assert ms["reference"]._series[-1] == pytest.approx(
        _oracle(ref, float(y[-1]), float(s[-1] + y[-1])), rel=1e-15)


def test_detector_signal_is_checked():
    with pytest.raises(ValueError, match=r"^The 'detector_signal' parameter of Monitor "
                       r"must be one of \('reference', 'window'\)\. Got 'population' "
                       r"instead\.$"):
        Monitor(detector="adwin", detector_signal="population")
    m = SegmentedMonitor(window=50, detector="adwin", detector_signal="window")
    m.observe(1, score=0.5, label=1, segment="a")
    assert m.units["a"].detector_signal == "window"


def _arrays(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename[:-4]: np.lib.format.read_array(io.BytesIO(zf.read(i)))
                for i in zf.infolist()}


def _npz(arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_the_signal_is_in_the_snapshot_and_one_without_it_is_refused():
    """A snapshot keeps the detector's signal and continues its exact state; one of
    version 3 (before the choice existed: a development format) is refused with the
    version error, and one whose settings lack the signal as damaged."""
    rng = np.random.default_rng(8)
    y, s = rng.random(600) < 0.3, rng.normal(size=600)
    old = Monitor(window=100, detector="adwin", detector_signal="window")
    for i in range(300):
        old.observe(i, score=float(s[i] + 2 * y[i]), label=bool(y[i]))
    restored = Monitor.from_bytes(old.to_bytes())
    assert restored.detector_signal == "window"
    for m in (old, restored):
        for i in range(300, 600):
            m.observe(i, score=float(s[i] + 2 * y[i]), label=bool(y[i]))
    assert restored._detector._helper.__getstate__() == old._detector._helper.__getstate__()
    assert Monitor.from_bytes(Monitor(detector="adwin").to_bytes()).detector_signal \
        == "reference"
    arrays = _arrays(old.to_bytes())
    config = json.loads(str(arrays["config"]))
    assert config.pop("detector_signal") == "window"
    arrays["config"] = np.array(json.dumps(config))
    with pytest.raises(SnapshotError, match="corrupt snapshot: the settings"):
        Monitor.from_bytes(_npz(arrays))
    arrays["version"] = np.array(3)
    with pytest.raises(SnapshotError, match="snapshot version 3 not supported"):
        Monitor.from_bytes(_npz(arrays))


def _csv(path, n=2500, change_at=1500):
    rng = np.random.default_rng(4)
    y = rng.random(n) < 0.3
    d = np.where(np.arange(n) < change_at, 1.8, 0.3)
    s = rng.normal(size=n) + d * y
    path.write_text("id,score,label\n" + "".join(
        f"{i},{float(s[i])!r},{int(y[i])}\n" for i in range(n)))
    return path


def test_cli_detector_signal(tmp_path):
    src, ckpt = _csv(tmp_path / "e.csv"), tmp_path / "c.ckpt"
    runner = CliRunner()
    base = ["monitor", str(src), "--window", "500", "--every", "500", "--detector",
            "adwin", "--checkpoint", str(ckpt)]
    res = runner.invoke(main, [*base, "--detector-signal", "window"])
    assert res.exit_code == 0, res.output
    assert "DRIFT" in res.stdout and "the detector fired" in res.stderr
    res = runner.invoke(main, [*base, "--resume"])      # the checkpoint's signal kept
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, [*base, "--resume", "--detector-signal", "reference"])
    assert res.exit_code == 2
    assert ("--detector-signal reference: the checkpoint's run has "
            "--detector-signal window") in res.output
    res = runner.invoke(main, ["monitor", str(src), "--detector-signal", "both"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "Invalid value for '--detector-signal'" in res.output


def test_metrics_count_the_detections():
    """``detections`` in `Monitor.metrics` (and the paired monitor's, per model)."""
    rng = np.random.default_rng(0)
    n, change = 4000, 2000
    y = rng.random(n) < 0.3
    s = rng.normal(size=n) + np.where(np.arange(n) < change, 1.8, 0.0) * y
    m = Monitor(window=500, detector="adwin")
    p = PairedMonitor(window=500, detector="adwin")
    assert "detections" in METRIC_KEYS and m.metrics()["detections"] == 0
    for i in range(n):
        m.observe(i, score=float(s[i]), label=bool(y[i]))
        p.observe(i, score=float(s[i]), challenger=float(-s[i]), label=bool(y[i]))
    assert m.stats["detections"] > 0
    assert m.metrics()["detections"] == m.stats["detections"]
    got = p.metrics()
    assert got["detections"] == p.champion.stats["detections"] == m.stats["detections"]
    assert got["challenger_detections"] == p.challenger.stats["detections"]
