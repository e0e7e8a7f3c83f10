"""River metrics pickled by streamrank 0.1.0, beyond one more update and revert.

``tests/data/release/`` (see `test_release_fixtures`) pickles every metric once;
``tests/data/release_modes/`` adds the AUC metrics in every representation their 0.1.0
engine had (written by its ``make_mode_fixtures.py`` with the 0.1.0 code). Here every update
an old pickle holds is reverted, in a fixed shuffled order, each step checked against a
recount of the replayed operations; copies that 0.1.0 merged at one ``(label, score)``
revert as 0.1.0's did; a float recount keeps them; and a state that is damaged, or not
a metric's state at all, raises `SnapshotError` naming the metric and the version.
"""

from __future__ import annotations

import copyreg
import json
import math
import pickle
from collections import defaultdict

import numpy as np
import pytest

from streamrank import SnapshotError
from streamrank import metrics as sm
from _release_specs import event_args, held_events, reference_value
from paths import DATA

RELEASE, MODES = DATA / "release", DATA / "release_modes"
SPECS = {folder: json.loads((folder / "samples.json").read_text())
         for folder in (RELEASE, MODES)}
#: (`RollingROCAUC` is a compiled window: its 0.1.0 pickle is refused with the version
#: error, `test_release_fixtures`.)
CASES = [(folder, name) for folder in (RELEASE, MODES) for name in SPECS[folder]
         if name.endswith(".pkl") and (folder is MODES or name.startswith("metric_"))
         and SPECS[folder][name]["class"] != "RollingROCAUC"]
MODE_CASES = [name for folder, name in CASES if folder is MODES]
IDS = [f"{folder.name}/{name}" for folder, name in CASES]


def _load(folder, name):
    with open(folder / name, "rb") as f:
        return pickle.load(f)


def _close(m, spec, held):
    assert m.get() == pytest.approx(reference_value(spec, held), rel=1e-12, abs=1e-12)


def _applied_cells(spec):
    """``{(y_true, y_pred): [w, ...]}`` of the updates 0.1.0 had applied to its engine
    when it pickled (a read applies the buffered ones)."""
    applied, pending = [], []
    for op in spec["ops"]:
        if op[0] == "update":
            pending.append(event_args(op[1]))
        elif op[0] == "get":
            applied, pending = applied + pending, []
        elif event_args(op[1]) in pending:
            pending.remove(event_args(op[1]))
        else:
            applied.remove(event_args(op[1]))
    cells = defaultdict(list)
    for y, p, w in applied:
        cells[(y, p)].append(w)
    return cells


def test_the_modes_folder_holds_the_fixtures_and_nothing_else():
    names = {p.name for p in MODES.iterdir() if p.name != "__pycache__"}
    assert names == set(MODE_CASES) | {"samples.json", "make_mode_fixtures.py"}
    assert SPECS[MODES]["written_by"] == "streamrank 0.1.0"
    assert {SPECS[MODES][n]["mode"] for n in MODE_CASES} == {"list", "flat", "tree"}
    for name in names:
        assert (MODES / name).stat().st_size < 32 * 1024, name


@pytest.mark.parametrize("name", MODE_CASES)
def test_every_engine_mode_loads(name):
    spec = SPECS[MODES][name]
    m = _load(MODES, name)
    assert type(m).__name__ == spec["class"]
    for k, v in spec["params"].items():
        assert getattr(m, k) == v
    held = held_events(spec)
    _close(m, spec, held)
    new = (held[0][0], (0.45, held[0][1][1]) if isinstance(held[0][1], tuple) else 0.45, 2)
    m.update(*new)
    held = held_events(spec, [new])
    _close(m, spec, held)
    m.revert(*held[0])
    _close(m, spec, held[1:])
    assert pickle.loads(pickle.dumps(m)).get() == m.get()


def _merged_zero(spec, event):
    """A weight-0 update that 0.1.0 applied beside other copies at its (label, score)."""
    return event[2] == 0 and len(_applied_cells(spec)[event[:2]]) > 1


@pytest.mark.parametrize(("folder", "name"), CASES, ids=IDS)
def test_every_update_held_reverts(folder, name):
    """Each held update reverts (the oldest equal one for `RollingROCAUC`), the metric
    matching the recount after each; values held by none raise and change nothing."""
    spec = SPECS[folder][name]
    m = _load(folder, name)
    held = held_events(spec)
    rolling = spec["class"] == "RollingROCAUC"
    if not rolling and not spec["params"].get("censoring"):  # (that engine is 0.1.0's)
        y, p, _ = held[0]
        total = sum(e[2] for e in held if e[:2] == (y, p))
        before = m.get()
        with pytest.raises(ValueError, match="must be the values of an update that is held"):
            m.revert(y, p, total + 5)           # more weight than any copies there have
        assert m.get() == before
    order = np.random.default_rng(7).permutation(len(held)).tolist()
    events = [held[i] for i in order]
    for event in events:
        if _merged_zero(spec, event):
            continue
        m.revert(*event)
        held.remove(event)                      # the first equal one: the oldest
        _close(m, spec, held)
    if not held:
        assert m.get() == 0.0
    # and it goes on: two more updates
    a, b = events[0], events[-1]
    m.update(*a)
    m.update(b[0], b[1], 3)
    held += [a, (b[0], b[1], 3)]
    _close(m, spec, held[-spec["params"]["window_size"]:] if rolling else held)


def _cell_to_merge(spec, need_two_weights=False):
    for (y, p), ws in _applied_cells(spec).items():
        if len(ws) > 1 and (not need_two_weights or len(set(ws)) > 1):
            return y, p, ws
    raise AssertionError("no merged copies in this fixture")


@pytest.mark.parametrize(("folder", "name"), [
    (RELEASE, "metric_roc_auc.pkl"), (RELEASE, "metric_goodman_kruskal_gamma.pkl"),
    (MODES, "roc_auc_tree_int.pkl"), (MODES, "roc_auc_flat_int.pkl"),
    (MODES, "roc_auc_flat_float.pkl")])
def test_merged_copies_revert_as_0_1_did(folder, name):
    """0.1.0 kept several copies at one (label, score) as their total weight: a revert
    takes any weight up to that total (the last copy all that is left), as 0.1.0's did,
    since nothing tells which split it was. The counts follow the weight moved."""
    spec = SPECS[folder][name]
    m = _load(folder, name)
    y, p, ws = _cell_to_merge(spec)
    held = held_events(spec)
    rest = [e for e in held if e[:2] != (y, p)]
    buffered = [e for e in held if e[:2] == (y, p)][len(ws):]
    m.revert(y, p, sum(ws))                     # all of their weight, as one copy
    left = [(y, p, 0)] * (len(ws) - 1)          # the other copies, with none left
    _close(m, spec, rest + left + buffered)
    before = m.get()
    with pytest.raises(ValueError, match="must be the values of an update that is held"):
        m.revert(y, p, 0.25)                    # no weight left there
    assert m.get() == before
    assert pickle.loads(pickle.dumps(m)).get() == before


@pytest.mark.parametrize("name", ["roc_auc_list.pkl", "roc_auc_flat_unit.pkl"])
def test_unit_weight_pickles_are_exact(name):
    """0.1.0 held unit-weight samples one by one: no merged copies, so the revert of a
    weight that no update had is refused, as for a metric built today."""
    spec = SPECS[MODES][name]
    m = _load(MODES, name)
    y, p, ws = _cell_to_merge(spec)
    before = m.get()
    with pytest.raises(ValueError, match="must be the values of an update that is held"):
        m.revert(y, p, sum(ws))
    assert m.get() == before


def test_a_weight0_update_merged_by_0_1_cannot_be_reverted():
    """A weight-0 copy beside another at one (label, score) is not told apart by 0.1.0:
    its revert is refused with the reason, and changes nothing."""
    spec = SPECS[MODES]["roc_auc_tree_zero.pkl"]
    m = _load(MODES, "roc_auc_tree_zero.pkl")
    held = held_events(spec)
    assert (True, 0.5, 0) in held and (True, 0.5, 2) in held
    before = m.get()
    with pytest.raises(ValueError, match="update of weight 0 that streamrank 0.1.0"):
        m.revert(True, 0.5, 0)
    assert m.get() == before
    m.revert(True, 0.5, 2)
    held.remove((True, 0.5, 2))
    _close(m, spec, held)


@pytest.mark.parametrize(("folder", "name"), [
    (RELEASE, "metric_roc_auc.pkl"), (RELEASE, "metric_group_auc.pkl"),
    (RELEASE, "metric_right_wrong_ratio.pkl"), (MODES, "roc_auc_flat_float.pkl")])
def test_a_float_recount_keeps_merged_copies(folder, name):
    """A huge float weight that comes and goes makes the engine recount from the samples
    held (`PairEngine.stale`), merged copies included; every update then reverts."""
    spec = SPECS[folder][name]
    m = _load(folder, name)
    held = held_events(spec)
    y, p, _ = held[0]
    huge = (y, p, 1e15 + 0.5)
    m.update(*huge)
    m.get()
    m.revert(*huge)
    _close(m, spec, held)
    for event in list(held):
        m.revert(*event)
        held.remove(event)
        _close(m, spec, held)


# --------------------------------------------------------------------------- errors
class _State:
    """Takes the state pickle gives it."""

    def __setstate__(self, state):
        self.state = state


def _old_state(folder, name):
    """The state of an old fixture before its metric class reads it."""
    cls_name = SPECS[folder][name]["class"]

    class Reader(pickle.Unpickler):
        def find_class(self, module, qualname):
            if module.startswith("streamrank.metrics.") and qualname == cls_name:
                return _State
            return super().find_class(module, qualname)

    with open(folder / name, "rb") as f:
        return Reader(f).load().state


class _Remade:
    """Pickles as an object of ``cls`` with ``state``: pickle.load builds it and gives
    ``state`` to its ``__setstate__``, as for a pickled metric."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return copyreg._reconstructor, (self.cls, object, None), self.state


def _reload(cls, state):
    return pickle.loads(pickle.dumps(_Remade(cls, state), protocol=4))


def _leaf(tree):
    node = tree.root
    for _ in range(tree.height):
        node = node.kids[0]
    return node


def _buffer(state) -> list:
    return state["_incoming" if "_incoming" in state else "_pending"]


def _drop(*keys):
    return lambda state: [state.pop(k) for k in keys if k in state]


#: Damages of a metric's 0.1.0 state.
_DAMAGES = {
    "no engine": _drop("_engine", "_engines", "_window"),
    "a parameter missing": _drop("pos_val", "window_size", "variant", "censoring",
                                 "weighting"),
    "an engine of another type": lambda state: state.update(
        {"_engines": {"g": 42}} if "_engines" in state else {"_engine": 42}),
    "a bad buffered update": lambda state: _buffer(state).append(("x", 0.5, 1)),
    "a buffered update of 2 values": lambda state: _buffer(state).append((1, 0.5)),
}


def _damage_engine(engine, damage) -> None:
    """Damage a 0.1.0 ``BinaryPairEngine`` (read by the stand-ins of its loader)."""
    mode = engine._mode
    if damage == "mode":
        engine._mode = "bogus"
    elif damage == "dtype":
        engine._dtype = complex
    elif damage == "no mode":
        del engine._mode
    elif damage == "structure" and mode == "list":
        engine._lists = None
    elif damage == "structure" and mode == "tree":
        engine._tree.height = -1
    elif damage == "structure":
        engine._flat.c = engine._flat.c.astype(float)
    elif damage == "columns" and mode == "list":
        engine._lists[0].append("x")
    elif damage == "columns" and mode == "tree":
        _leaf(engine._tree).keys.append(2.0)
    elif damage == "columns":
        engine._flat.s = engine._flat.s[:-1]
    elif mode == "list":                        # "copies"
        engine._lists[1].append(math.nan)
    elif mode == "tree":
        _leaf(engine._tree).c[0][0] = -1
    else:
        engine._flat.c = -engine._flat.c


ENGINE_DAMAGES = ["columns", "copies", "dtype", "mode", "no mode", "structure"]
BINARY_CASES = [(f, n) for f, n in CASES if SPECS[f][n]["class"] in ("ROCAUC", "GroupAUC")]


def _assert_clear(excinfo, cls_name):
    msg = str(excinfo.value)
    assert type(excinfo.value) is SnapshotError, excinfo.value
    assert msg.startswith(f"{cls_name}: cannot load this pickle"), msg
    assert "streamrank 0.1.0" in msg, msg


DAMAGE_CASES = [(f, n, d) for f, n in CASES for d in sorted(_DAMAGES)
                if d != "a parameter missing" or SPECS[f][n]["params"]
                or SPECS[f][n]["class"] in ("ROCAUC", "GroupAUC", "RollingROCAUC")]


@pytest.mark.parametrize(("folder", "name", "damage"), DAMAGE_CASES,
                         ids=[f"{f.name}/{n}-{d}" for f, n, d in DAMAGE_CASES])
def test_a_damaged_old_state_is_refused_clearly(folder, name, damage):
    state = _old_state(folder, name)
    cls_name = SPECS[folder][name]["class"]
    cls = getattr(sm, cls_name)
    assert _reload(cls, dict(state)).get() == _load(folder, name).get()  # undamaged: loads
    _DAMAGES[damage](state)
    with pytest.raises(SnapshotError) as excinfo:
        _reload(cls, state)
    _assert_clear(excinfo, cls_name)


@pytest.mark.parametrize("damage", ENGINE_DAMAGES)
@pytest.mark.parametrize(("folder", "name"), BINARY_CASES,
                         ids=[f"{f.name}/{n}" for f, n in BINARY_CASES])
def test_a_damaged_0_1_engine_is_refused_clearly(folder, name, damage):
    state = _old_state(folder, name)
    cls_name = SPECS[folder][name]["class"]
    engine = state["_engine"] if "_engine" in state else next(iter(state["_engines"].values()))
    _damage_engine(engine, damage)
    with pytest.raises(SnapshotError) as excinfo:
        _reload(getattr(sm, cls_name), state)
    _assert_clear(excinfo, cls_name)


@pytest.mark.parametrize("cls_name", sorted(set(sm.__all__) - {"GroupedProba", "WithGroup",
                                                                  "RollingROCAUC"}))
@pytest.mark.parametrize("state", [{}, {"_pending": {}, "pos_val": True}, [1, 2]],
                         ids=["empty", "buffer not a list", "a list"])
def test_an_unknown_state_is_refused_clearly(cls_name, state):
    with pytest.raises(SnapshotError) as excinfo:
        _reload(getattr(sm, cls_name), state)
    msg = str(excinfo.value)
    assert msg.startswith(f"{cls_name}: cannot load this pickle: its state is neither this "
                          "version's nor one of streamrank 0.1.0"), msg
