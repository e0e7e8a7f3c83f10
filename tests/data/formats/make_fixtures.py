"""Write one small fixture per supported snapshot and pickle format version.

Run from the repository root, ``python tests/data/formats/make_fixtures.py``, after a
format bump: it writes, with the code of this checkout,

* ``pair_counter_int_v<N>.npz``, ``pair_counter_str_v<N>.npz``: `PairCounter.to_bytes`
  (snapshot version ``N``), int and string keys;
* ``<structure>_v<N>.pkl``: a pickle (protocol 4) of each structure that carries a pickle
  format version (`streamrank._snapshot.Pickled`), ``N`` = `PICKLE_VERSION`;

and records in ``samples.json`` the inputs behind each (items, events, epochs), from which
``tests/api/test_formats.py`` recounts what each fixture must hold. Files of the versions
written before are kept (only a version that is no longer read has its files removed by
hand, with the code that read it): each supported version keeps its fixture.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from streamrank import PairCounter, SlidingPairCounter, TimeSlidingPairCounter  # noqa: E402
from streamrank import _snapshot  # noqa: E402
from streamrank.counter import _VERSION as SNAPSHOT_VERSION  # noqa: E402
from streamrank.engine import PairEngine  # noqa: E402
from streamrank.epochs import EpochTracker  # noqa: E402
from streamrank.metrics import (ROCAUC, ConcordanceIndex, GroupAUC, KendallTau,  # noqa: E402
                                RollingROCAUC)
from streamrank.ranking import QueryRanking, RankingState  # noqa: E402

PROTOCOL = 4
V = _snapshot.PICKLE_VERSION


def _events(rng, n, labels, groups=None):
    """``n`` events ``[label, score, weight]`` (scores rounded: ties; a weight-0 one)."""
    y = rng.choice(labels, n).tolist()
    s = np.round(rng.random(n), 1).tolist()
    w = rng.choice([1, 1, 2, 3, 0], n).tolist()
    out = [[a, b, c] for a, b, c in zip(y, s, w)]
    if groups is not None:
        for e in out:
            e.append(str(rng.choice(groups)))
    return out


def counters(rng, samples):
    for kind in ("int", "str"):
        n = 15
        keys = (list(range(-3, n - 3)) if kind == "int"
                else [f"key-{i}" + "\x00" * (i % 2) for i in range(n)])
        rows = _events(rng, n, [0, 1, 2])
        rows[3][2] = 0.5                              # a fractional weight: float counts
        pc = PairCounter()
        pc.insert_many(keys, *map(np.array, zip(*rows)))
        pc.remove(keys[0])
        pc.update(keys[1], score=0.95)
        name = f"pair_counter_{kind}_v{SNAPSHOT_VERSION}.npz"
        (HERE / name).write_bytes(pc.to_bytes())
        samples[name] = {"format": "streamrank.PairCounter", "version": SNAPSHOT_VERSION,
                         "items": [[k, *v] for k, v in pc.items()]}


def pickled_counters(rng, samples):
    """`PairCounter` and the windows pickle behind the same version (a counter keeps any
    hashable keys, tuples too; the windows go through their own reducer)."""
    pc = PairCounter()
    rows = _events(rng, 10, [0, 1])
    keys = [(i, f"k{i}") if i % 3 else i for i in range(10)]
    pc.insert_many(keys, *map(np.array, zip(*rows)))
    pc.remove(keys[0])
    _pickle(samples, f"paircounter_v{V}.pkl", pc,
            items=[[list(k) if isinstance(k, tuple) else k, *v] for k, v in pc.items()])

    events = _events(rng, 12, [0, 1])
    for win in (SlidingPairCounter(5), TimeSlidingPairCounter(4.0), RollingROCAUC(5)):
        for t, (y, s, w) in enumerate(events):
            if isinstance(win, RollingROCAUC):
                win.update(bool(y), s, w)
            elif isinstance(win, TimeSlidingPairCounter):
                win.push(y, s, w, t=float(t))
            else:
                win.push(y, s, w)
        _pickle(samples, f"{type(win).__name__.lower()}_v{V}.pkl", win, events=events)


def _pickle(samples, name, obj, **spec):
    (HERE / name).write_bytes(pickle.dumps(obj, protocol=PROTOCOL))
    samples[name] = {"format": f"streamrank.{type(obj).__name__}", "version": V, **spec}


def _target(y):
    """A ``y_true`` as the metric takes it: the ``(time, event)`` of a censored index."""
    return tuple(y) if isinstance(y, list) else y


def metrics(rng, samples):
    """River metrics: updates, a revert, and one update still buffered when pickled."""
    for cls, labels, kwargs in ((ROCAUC, [0, 1], {}), (KendallTau, [0, 1, 2, 3], {}),
                                (ConcordanceIndex, [1, 2, 3, 4], {"censoring": True})):
        m = cls(**kwargs)
        events = _events(rng, 12, labels)
        if kwargs.get("censoring"):
            events = [[[t, int(rng.integers(0, 2))], s, w] for t, s, w in events]
        for y, s, w in events:
            m.update(_target(y), s, w)
        m.get()                                       # applied: the engine holds them
        y, s, w = events[0]
        m.revert(_target(y), s, w)
        extra = [events[-1][0], 0.45, 2]
        m.update(_target(extra[0]), 0.45, 2)
        _pickle(samples, f"{cls.__name__.lower()}_v{V}.pkl", m, params=kwargs,
                held=events[1:] + [extra])
    m = GroupAUC(weighting="pairs")
    events = _events(rng, 14, [0, 1], groups=["u1", "u2", "u3"])
    for y, s, w, g in events:
        m.update(y, (s, g), w)
    _pickle(samples, f"groupauc_v{V}.pkl", m, params={"weighting": "pairs"}, held=events)


def engine(rng, samples):
    e = PairEngine()
    rows = _events(rng, 12, [0, 1, 2])
    rows[2][2] = 0.25
    for y, s, w in rows:
        e.add(y, s, w)
    e.remove(*rows[0])
    e.placement_moments()
    _pickle(samples, f"pairengine_v{V}.pkl", e, held=rows[1:])


def tracker(rng, samples):
    y = rng.integers(0, 2, 10).tolist()
    w = rng.choice([1, 2], 10).tolist()
    t = EpochTracker(y, sample_weight=w, track_churn=True)
    epochs = [np.round(rng.random(10), 1).tolist()]
    t.step(epochs[0])
    idx, new = [1, 4], [0.9, 0.05]
    t.step_partial(idx, new)
    s = list(epochs[0])
    for i, v in zip(idx, new):
        s[i] = v
    epochs.append(s)
    _pickle(samples, f"epochtracker_v{V}.pkl", t, y=y, w=w, epochs=epochs)


def ranking(rng, samples):
    docs = [[f"d{i}", int(rng.integers(0, 3)), float(np.round(rng.random(), 1))]
            for i in range(8)]
    q = QueryRanking()
    for d, rel, s in docs:
        q.set(d, rel, s)
    q.remove(docs[0][0])
    _pickle(samples, f"queryranking_v{V}.pkl", q, docs=docs[1:])
    st = RankingState(k=3)
    for i, (d, rel, s) in enumerate(docs):
        st.set(f"q{i % 2}", d, rel, s)
    _pickle(samples, f"rankingstate_v{V}.pkl", st, queries=[[f"q{i % 2}", *doc]
                                                           for i, doc in enumerate(docs)])


def main():
    path = HERE / "samples.json"
    samples = json.loads(path.read_text()) if path.exists() else {}
    rng = np.random.default_rng(24)
    counters(rng, samples)
    metrics(rng, samples)
    engine(rng, samples)
    tracker(rng, samples)
    ranking(rng, samples)
    pickled_counters(np.random.default_rng(25), samples)   # (added later: its own draws)
    path.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                       for k, v in sorted(samples.items())) + "\n}\n")


if __name__ == "__main__":
    main()
