"""Every supported snapshot and pickle format version has a committed fixture that loads
to what it held; earlier development formats are refused with the version error.

``tests/data/formats/`` holds one small fixture per structure and supported version,
written by its ``make_fixtures.py``, with the inputs behind each in ``samples.json``. Each
fixture is checked against a recount of those inputs (the O(n^2) pair loop of `oracle`,
the references of `_metric_refs`), never against numbers copied from the pickled object.
A forged snapshot or pickle of another version (the same format name, an older version
number) and a pickle in the layout of the earlier development formats (the bare state,
without a version) raise `SnapshotError` naming the version expected and received.
"""

from __future__ import annotations

import copyreg
import io
import json
import pickle
import re
from itertools import combinations

import numpy as np
import pytest

from _exact_checks import assert_counts, exact_weights_only
from _metric_refs import auc_ref, gauc_ref, pair_ref
from oracle import concordance_brute, pair_counts_matrix
from streamrank import (PairCounter, SlidingPairCounter, SnapshotError,
                        TimeSlidingPairCounter, _snapshot)
from streamrank.metrics import RollingROCAUC
from streamrank.counter import _VERSION as SNAPSHOT_VERSION
from paths import DATA

DATA = DATA / "formats"
SAMPLES = json.loads((DATA / "samples.json").read_text())
SNAPSHOTS = sorted(k for k in SAMPLES if k.endswith(".npz"))
#: the windows pickle through their own reducer (its version checks: test_windows.py)
WINDOWS = ["slidingpaircounter_v1.pkl", "timeslidingpaircounter_v1.pkl",
           "rollingrocauc_v1.pkl"]
#: The compiled owners (windows, River metrics): pickled by their ``__reduce__`` as
#: ``(PICKLE_VERSION, state)``; the others through `streamrank._snapshot.Pickled`.
OWNERS = WINDOWS + ["rocauc_v1.pkl", "kendalltau_v1.pkl", "concordanceindex_v1.pkl"]
PICKLES = sorted(k for k in SAMPLES if k.endswith(".pkl") and k not in OWNERS)
#: (format, .npz or .pkl) -> the versions this streamrank reads
SUPPORTED = {("streamrank.PairCounter", ".npz"): {SNAPSHOT_VERSION}}


def _load(name):
    return pickle.loads((DATA / name).read_bytes())


def _target(y):
    return tuple(y) if isinstance(y, list) else y


def test_the_folder_holds_one_fixture_per_supported_version_and_nothing_else():
    names = {p.name for p in DATA.iterdir() if p.name != "__pycache__"}
    assert names == set(SAMPLES) | {"samples.json", "make_fixtures.py"}
    versions: dict = {}
    for name, spec in SAMPLES.items():
        assert name.endswith(f"_v{spec['version']}{name[name.rindex('.'):]}"), name
        kind = name[name.rindex("."):]          # a snapshot (.npz) or a pickle (.pkl)
        versions.setdefault((spec["format"], kind), set()).add(spec["version"])
        assert (DATA / name).stat().st_size < 32 * 1024, name
    for fmt, got in versions.items():
        assert got == SUPPORTED.get(fmt, {_snapshot.PICKLE_VERSION}), fmt
    assert set(SUPPORTED) <= set(versions)


# --------------------------------------------------------------------------- loading
@pytest.mark.parametrize("name", SNAPSHOTS)
def test_pair_counter_snapshot_loads_to_its_counts(name):
    spec = SAMPLES[name]
    data = (DATA / name).read_bytes()
    with np.load(io.BytesIO(data)) as z:
        assert str(z["format"]) == spec["format"] and int(z["version"]) == spec["version"]
    pc = PairCounter.from_bytes(data)
    items = [(k, tuple(v)) for k, *v in spec["items"]]
    assert [(type(k), k, v) for k, v in pc.items()] == [(type(k), k, v) for k, v in items]
    rows = [v for _, v in items]
    assert_counts(pc.counts, rows, exact_weights_only([r[2] for r in rows]))
    pc._check()


def test_pair_counter_pickle_loads_to_its_counts():
    spec = SAMPLES[f"paircounter_v{_snapshot.PICKLE_VERSION}.pkl"]
    pc = _load(f"paircounter_v{_snapshot.PICKLE_VERSION}.pkl")
    items = [(tuple(k) if isinstance(k, list) else k, tuple(v)) for k, *v in spec["items"]]
    assert list(pc.items()) == items and any(isinstance(k, tuple) for k in pc)
    rows = [v for _, v in items]
    assert_counts(pc.counts, rows, exact_weights_only([r[2] for r in rows]))
    pc._check()


@pytest.mark.parametrize("name", WINDOWS)
def test_window_pickle_loads_to_its_counts(name):
    """The events the window holds, recounted: the last 5 (count windows) or those of the
    last 4 time units (t = 0, 1, ...: ``t > last - 4``)."""
    events = SAMPLES[name]["events"]
    win = _load(name)
    held = events[-5:] if not isinstance(win, TimeSlidingPairCounter) else [
        e for t, e in enumerate(events) if t > len(events) - 1 - 4.0]
    if isinstance(win, RollingROCAUC):
        assert win.get() == pytest.approx(auc_ref(*map(list, zip(*held))), abs=1e-12)
    else:
        assert isinstance(win, (SlidingPairCounter, TimeSlidingPairCounter))
        assert_counts(win.counts, [tuple(e) for e in held],
                      exact_weights_only([e[2] for e in held]))
        win._check()


def _check_metric(m, spec, ref):
    held = [(_target(y), s, w) for y, s, w in spec["held"]]
    want = ref([h[0] for h in held], [h[1] for h in held], [h[2] for h in held])
    assert m.get() == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_roc_auc_pickle_loads_to_its_counts():
    spec = SAMPLES[f"rocauc_v{_snapshot.PICKLE_VERSION}.pkl"]
    m = _load(f"rocauc_v{_snapshot.PICKLE_VERSION}.pkl")
    rows = [(int(y == 1), s, w) for y, s, w in spec["held"]]
    assert_counts(m._counts(), rows, exact=True)
    _check_metric(m, spec, auc_ref)
    m.update(1, 0.05, 3)                            # and it goes on counting
    spec = dict(spec, held=spec["held"] + [[1, 0.05, 3]])
    _check_metric(m, spec, auc_ref)


def test_kendall_tau_pickle_loads_to_its_counts():
    spec = SAMPLES[f"kendalltau_v{_snapshot.PICKLE_VERSION}.pkl"]
    m = _load(f"kendalltau_v{_snapshot.PICKLE_VERSION}.pkl")
    assert_counts(m._counts(), [tuple(h) for h in spec["held"]], exact=True)
    _check_metric(m, spec, pair_ref("tau_b"))
    y, s, w = spec["held"][0]
    m.revert(y, s, w)
    _check_metric(m, dict(spec, held=spec["held"][1:]), pair_ref("tau_b"))


def test_censored_concordance_index_pickle_loads_to_its_counts():
    spec = SAMPLES[f"concordanceindex_v{_snapshot.PICKLE_VERSION}.pkl"]
    m = _load(f"concordanceindex_v{_snapshot.PICKLE_VERSION}.pkl")
    assert m.censoring is True
    held = spec["held"]
    ref = concordance_brute([h[0][0] for h in held], [h[1] for h in held],
                            [h[0][1] for h in held], sample_weight=[h[2] for h in held])
    assert m._engine.counts == (ref.concordant, ref.discordant, ref.tied_score)


def test_group_auc_pickle_loads_to_its_value():
    spec = SAMPLES[f"groupauc_v{_snapshot.PICKLE_VERSION}.pkl"]
    m = _load(f"groupauc_v{_snapshot.PICKLE_VERSION}.pkl")
    assert m.weighting == spec["params"]["weighting"]
    held = spec["held"]
    want = gauc_ref("pairs")([h[0] for h in held], [(h[1], h[3]) for h in held],
                             [h[2] for h in held])
    assert m.get() == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_pair_engine_pickle_loads_to_its_counts():
    spec = SAMPLES[f"pairengine_v{_snapshot.PICKLE_VERSION}.pkl"]
    e = _load(f"pairengine_v{_snapshot.PICKLE_VERSION}.pkl")
    rows = [tuple(r) for r in spec["held"]]
    assert len(e) == len(rows)
    assert_counts(e.counts, rows, exact=False)      # a fractional weight: float counts
    e._check([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    e.add(3, 0.5, 2)
    assert_counts(e.counts, rows + [(3, 0.5, 2)], exact=False)


def test_epoch_tracker_pickle_loads_to_its_counts():
    spec = SAMPLES[f"epochtracker_v{_snapshot.PICKLE_VERSION}.pkl"]
    t = _load(f"epochtracker_v{_snapshot.PICKLE_VERSION}.pkl")
    y, w, epochs = spec["y"], spec["w"], spec["epochs"]
    assert len(t.history) == len(epochs) and t.scores.tolist() == epochs[-1]
    for counts, s in zip(t.history, epochs):         # (weighted epochs count in floats)
        assert_counts(counts, list(zip(y, s, w)), exact=False)
    flipped = pair_counts_matrix(epochs[0], epochs[1], w).D     # pairs whose order flipped
    assert t.churn_history == [None, flipped]
    t.step_partial([0], [0.33])
    s = [0.33] + epochs[-1][1:]
    assert_counts(t.counts, list(zip(y, s, w)), exact=False)
    t._check()


def _query_pairs(docs):
    """``(D, T, P)`` of documents ``[doc, rel, score]``, by the O(n^2) loop."""
    d = t = p = 0
    for (_, ra, sa), (_, rb, sb) in combinations(docs, 2):
        if ra == rb:
            continue
        p += 1
        t += sa == sb
        d += (ra - rb) * (sa - sb) < 0
    return d, t, p


def test_query_ranking_pickle_loads_to_its_counts():
    spec = SAMPLES[f"queryranking_v{_snapshot.PICKLE_VERSION}.pkl"]
    q = _load(f"queryranking_v{_snapshot.PICKLE_VERSION}.pkl")
    assert len(q) == len(spec["docs"])
    assert q.pair_counts() == _query_pairs(spec["docs"])


def test_ranking_state_pickle_loads_to_its_counts():
    spec = SAMPLES[f"rankingstate_v{_snapshot.PICKLE_VERSION}.pkl"]
    st = _load(f"rankingstate_v{_snapshot.PICKLE_VERSION}.pkl")
    by_query: dict = {}
    for query, *doc in spec["queries"]:
        by_query.setdefault(query, []).append(doc)
    want = [sum(x) for x in zip(*(_query_pairs(docs) for docs in by_query.values()))]
    assert list(st.pair_errors()) == want


# --------------------------------------------------------------------------- refusals
def _forged_snapshot(data, version):
    arrays = _snapshot.read_archive(data, ValueError)
    fmt = str(arrays.pop("format"))
    arrays.pop("version")
    return _snapshot.dump(fmt, version, **arrays)


@pytest.mark.parametrize("version", [SNAPSHOT_VERSION - 1, SNAPSHOT_VERSION + 1])
@pytest.mark.parametrize("name", SNAPSHOTS)
def test_a_snapshot_of_another_version_is_refused(name, version):
    data = _forged_snapshot((DATA / name).read_bytes(), version)
    with pytest.raises(SnapshotError, match=rf"^PairCounter.from_bytes: snapshot version "
                       rf"{version} not supported \(this streamrank reads version "
                       rf"{SNAPSHOT_VERSION}\)\.$"):
        PairCounter.from_bytes(data)


def _forged_pickle(obj, state):
    """A pickle of ``obj`` with ``state`` in place of its own: what another version of
    the format would have written."""
    reduced = list(obj.__reduce_ex__(4))
    reduced[2] = state
    return _pickled_as(obj, tuple(reduced))


def _pickled_as(obj, reduced):
    """A pickle of ``obj`` written as the reduce tuple ``reduced`` says."""
    class Forger(pickle.Pickler):
        def reducer_override(self, o):
            return reduced if o is obj else NotImplemented

    buf = io.BytesIO()
    Forger(buf, protocol=4).dump(obj)
    return buf.getvalue()


@pytest.mark.parametrize("name", OWNERS)
def test_a_compiled_owners_pickle_of_another_version_or_layout_is_refused(name):
    """A window's or River metric's pickle of another version, or of the earlier layout
    (the attributes, through ``__setstate__``), raises the version error; a refused state
    changes nothing."""
    obj = _load(name)
    cls, v = type(obj).__name__, _snapshot.PICKLE_VERSION
    restore, (klass, (version, state)) = obj.__reduce__()
    assert klass is type(obj) and version == v
    reads = rf"not supported \(this streamrank reads version {v}\)\.$"
    for forged, shown in (((restore, (klass, (v - 1, state))), v - 1),
                          ((restore, (klass, state)), "none"),
                          ((copyreg.__newobj__, (klass,), {"_engine": None}), "none")):
        with pytest.raises(SnapshotError, match=rf"^{cls}: pickle version {shown} {reads}"):
            pickle.loads(_pickled_as(obj, forged))
    before = pickle.dumps(obj, protocol=4)
    with pytest.raises(SnapshotError):
        obj.__setstate__({"_engine": None})
    assert pickle.dumps(obj, protocol=4) == before


@pytest.mark.parametrize("name", PICKLES)
def test_a_pickle_of_another_version_or_of_the_earlier_layout_is_refused(name):
    obj = _load(name)
    cls = type(obj).__name__
    state = obj.__getstate__()
    assert state["format"] == SAMPLES[name]["format"] == f"streamrank.{cls}"
    assert state["version"] == _snapshot.PICKLE_VERSION
    reads = rf"\(this streamrank reads version {_snapshot.PICKLE_VERSION}\)\.$"
    older = dict(state, version=_snapshot.PICKLE_VERSION - 1)
    with pytest.raises(SnapshotError, match=rf"^{cls}: pickle version "
                       rf"{_snapshot.PICKLE_VERSION - 1} not supported {reads}"):
        pickle.loads(_forged_pickle(obj, older))
    # the earlier development formats pickled the attributes alone, without a version
    with pytest.raises(SnapshotError, match=rf"^{cls}: pickle version none not supported "
                       rf"{reads}"):
        pickle.loads(_forged_pickle(obj, dict(state["state"])))
    other = dict(state, format="streamrank.Other")
    with pytest.raises(SnapshotError, match=re.escape(
            f"{cls}: not a {cls} pickle (got the state of 'streamrank.Other').")):
        pickle.loads(_forged_pickle(obj, other))


@pytest.mark.parametrize("name", PICKLES)
def test_a_refused_state_changes_nothing(name):
    obj = _load(name)
    before = pickle.dumps(obj, protocol=4)
    with pytest.raises(SnapshotError):
        obj.__setstate__(dict(obj.__getstate__()["state"]))
    with pytest.raises(SnapshotError):
        obj.__setstate__(["not", "a", "state"])
    assert pickle.dumps(obj, protocol=4) == before
