"""Write the fixtures of this folder: pickles whose compiled trees hold their nodes in the
first layout (``BNode`` of 2440 bytes: keys, children, weights, compensations, copies and
copies of weight > 0 of 32 entries in one struct).

Run once, from the repository root, with the code of that layout::

    python tests/data/tree_nodes_v1/make_node_fixtures.py

It writes, beside itself, ``samples.json`` (the samples each fixture holds, and the node
layout it was written with) and ``*.pkl`` (protocol 4): two-level counters with integer
and float weights (zero weights included, some samples removed again), a five-level
counter, and engines in binary and ordinal mode, each with its running counts.

`tests/test_tree_node_pickles.py` loads every file and checks what it holds against a
fresh recount of ``samples.json``. Never rewrite these files with a newer streamrank:
their point is to be the old layout that every later version must still load (rebuilt
from the rows a pickle also holds when its node layout is not the build's).
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

import streamrank  # noqa: E402
from streamrank.engine import PairEngine  # noqa: E402
from streamrank.structures import (BinaryDominanceCounter,  # noqa: E402
                                   LevelDominanceCounter)
from streamrank.structures._cbinary import _BTree  # noqa: E402

PROTOCOL = 4


def _rows(rng, n, levels, n_scores, weights):
    """``n`` samples: labels ``0 .. levels - 1``, scores on a grid of ``n_scores``."""
    y = rng.integers(0, levels, n).astype(float).tolist()
    s = (rng.integers(0, n_scores, n) / 8.0).tolist()
    w = [weights[i] for i in rng.integers(0, len(weights), n)]
    return [list(r) for r in zip(y, s, w)]


def _counter(cls, dtype, rng, n, levels, n_scores, weights):
    """A counter fed one engine change at a time, then a fifth of its samples removed
    (freed nodes and merges in its trees)."""
    dc = cls(dtype=dtype)
    rows = _rows(rng, n, levels, n_scores, weights)
    for y, s, w in rows:
        assert dc.engine_add(y, s, w)
    for i in sorted(rng.choice(len(rows), n // 5, replace=False).tolist(), reverse=True):
        assert dc.engine_remove(*rows.pop(i))
    return dc, rows


def _engine(labels, rng, n, levels, n_scores, weights):
    e = PairEngine(labels)
    rows = _rows(rng, n, levels, n_scores, weights)
    for y, s, w in rows:
        e.add(y, s, w)
    for i in sorted(rng.choice(len(rows), n // 5, replace=False).tolist(), reverse=True):
        e.remove(*rows.pop(i))
    return e, rows


def main() -> None:
    rng = np.random.default_rng(20261201)
    made = {
        "binary_int.pkl": _counter(BinaryDominanceCounter, int, rng, 180, 2, 120,
                                   [0, 1, 1, 2, 3]),
        "binary_float.pkl": _counter(BinaryDominanceCounter, float, rng, 180, 2, 120,
                                     [0.0, 0.25, 1.0, 2.5]),
        "levels_int.pkl": _counter(LevelDominanceCounter, int, rng, 180, 5, 60,
                                   [0, 1, 2]),
        "engine_binary.pkl": _engine("auto", rng, 180, 2, 120, [1, 1, 0, 2]),
        "engine_ordinal_float.pkl": _engine("ordinal", rng, 180, 5, 60, [0.5, 1.0, 0.0]),
    }
    samples = {"written_by": f"streamrank {streamrank.__version__}",
               "node_layout": list(_BTree().raw()[0])}
    for name, (obj, rows) in made.items():
        obj._check()
        (HERE / name).write_bytes(pickle.dumps(obj, protocol=PROTOCOL))
        samples[name] = {"class": type(obj).__name__, "rows": rows}
    (HERE / "samples.json").write_text(json.dumps(samples) + "\n")


if __name__ == "__main__":
    main()
