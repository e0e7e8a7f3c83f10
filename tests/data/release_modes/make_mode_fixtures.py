"""Write the fixtures of this folder: River AUC metrics as streamrank 0.1.0 pickled them,
in each representation its ``BinaryPairEngine`` could be in when pickled.

``tests/data/release/`` holds one pickle of every River metric of 0.1.0, all of whose AUC
engines happened to be in "tree" mode with float weights. These add the other cases its
loader (`streamrank.metrics._binary_engine`) reads: "list" mode (unit weights, the
samples one by one), "flat" mode with unit, int and float weights, "tree" mode with int
weights, and a weight-0 update kept at one score with another copy. Run once, with the
0.1.0 code (commit eaaf4b4) first on the path, from anywhere::

    git archive eaaf4b4 | tar -x -C /tmp/old
    (cd /tmp/old && python setup.py build_ext --inplace)
    PYTHONPATH=/tmp/old python tests/data/release_modes/make_mode_fixtures.py

It writes, beside itself, ``samples.json`` (every fixture's class, parameters and
operations) and one ``.pkl`` (protocol 4) per fixture; `tests/test_legacy_pickles.py`
replays those operations with today's code and checks the loaded metrics against them.
Never rewrite these files with a newer streamrank: their point is to be old.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

import streamrank  # noqa: E402
from streamrank import metrics as sm  # noqa: E402

PROTOCOL = 4


def _run(m, ops):
    for op in ops:
        if op[0] == "get":
            m.get()
        else:
            y, p, w = op[1]
            getattr(m, op[0])(y, tuple(p) if isinstance(p, list) else p, w)


def _updates(rng, n, weights, group=False):
    out = []
    for _ in range(n):
        y = bool(rng.random() < 0.5)
        p = round(float(rng.random()), 1)
        w = weights[int(rng.integers(0, len(weights)))]
        out.append(["update", [y, [p, f"g{int(rng.integers(0, 2))}"] if group else p, w]])
    return out


def _with_reverts(ops, applied, buffered):
    """``ops`` (updates), a read, reverts of the updates ``applied`` (indexes), then the
    updates ``buffered``, left buffered, one of them reverted."""
    reverts = [["revert", ops[i][1]] for i in applied]
    return ops + [["get"]] + reverts + buffered + [["revert", buffered[0][1]]]


def fixtures(rng) -> dict:
    out = {}
    # list mode: unit weights, fewer than 2**15 samples
    ops = _updates(rng, 24, [1])
    out["roc_auc_list.pkl"] = ("ROCAUC", {}, _with_reverts(ops, [0, 5], _updates(rng, 4, [1])),
                               "list", None)
    # flat mode: a read of 48 or more buffered updates merges them into the arrays
    for name, weights, dtype in (("roc_auc_flat_unit.pkl", [1], None),
                                 ("roc_auc_flat_int.pkl", [1, 2, 3], int),
                                 ("roc_auc_flat_float.pkl", [1, 0.5, 2], float)):
        ops = _updates(rng, 70, weights)
        out[name] = ("ROCAUC", {}, _with_reverts(ops, [1], _updates(rng, 3, weights)),
                     "flat", dtype)
    ops = _updates(rng, 130, [1, 0.5, 2], group=True)
    out["group_auc_flat_float.pkl"] = ("GroupAUC", {"weighting": "pairs"},
                                       _with_reverts(ops, [2], _updates(rng, 3, [1, 2], True)),
                                       "flat", float)
    # tree mode, int weights: updates read one at a time leave the lists at weight 2
    ops = []
    for op in _updates(rng, 20, [1, 2, 3]):
        ops += [op, ["get"]]
    ops += [["revert", ops[6][1]]] + _updates(rng, 3, [2, 1])
    out["roc_auc_tree_int.pkl"] = ("ROCAUC", {}, ops, "tree", int)
    # a weight-0 update at the score and class of another copy: 0.1.0 keeps their total
    ops = [["update", [True, 0.5, 2]], ["update", [True, 0.5, 0]], ["update", [False, 0.2, 3]],
           ["update", [False, 0.7, 1]], ["get"], ["update", [True, 0.9, 1]]]
    out["roc_auc_tree_zero.pkl"] = ("ROCAUC", {}, ops, "tree", int)
    return out


def main() -> None:
    rng = np.random.default_rng(20250102)
    samples = {"written_by": f"streamrank {streamrank.__version__}",
               "pickle_protocol": PROTOCOL}
    for name, (cls, params, ops, mode, dtype) in fixtures(rng).items():
        m = getattr(sm, cls)(**params)
        _run(m, ops)
        engines = [m._engine] if cls == "ROCAUC" else list(m._engines.values())
        for e in engines:       # each fixture is in the mode it is named after
            assert e.mode == mode, (name, e.mode)
            if mode == "flat":
                assert (e._flat.w is None) == (dtype is None), name
            if dtype is not None:
                assert e._dtype is dtype, (name, e._dtype)
        assert m._pending, name
        (HERE / name).write_bytes(pickle.dumps(m, protocol=PROTOCOL))
        samples[name] = {"class": cls, "params": params, "ops": ops, "mode": mode}
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in samples.items()]
    (HERE / "samples.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    sys.exit(main())
