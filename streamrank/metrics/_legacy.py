"""River metrics pickled by streamrank 0.1.0, rebuilt in today's layout when unpickled.

The metrics' ``__setstate__`` call in here for a state that is not today's. 0.1.0 kept
each metric's updates in a list until a read, and the counts of `ROCAUC`,
`RollingROCAUC` and `GroupAUC` in a ``BinaryPairEngine`` (read by
`streamrank.metrics._binary_engine`); today's metrics buffer in an `UpdateBuffer` and
keep the multiset of the samples their `PairEngine` holds beside it. The conversion
rebuilds that state from the samples the old one holds:

* the buffered updates, exact, go to the new buffer;
* `RollingROCAUC`: its window, exact, is counted into a new engine;
* the others: the samples their engine holds. An old `PairEngine` (already read back by
  its own ``__setstate__``) is kept, a ``BinaryPairEngine`` replaced by a new engine of
  the same samples. Samples 0.1.0 knew one by one (one copy at its ``(label, score)``
  with int weights, or unit weights only) join the multiset. Where it kept several
  copies at one ``(label, score)``, or float weights, it kept only their total weight
  (and their number): they become an *unsplit cell*
  (`streamrank.metrics._base.unsplit_fits`), which `revert` draws from.

``get()`` is then what it was, and stays exact through later updates and reverts of the
updates held: every pair count but one depends on the cells' totals only. That one,
``tied_both`` (pairs of copies inside one cell; of the metrics, only `KendallTau`'s
default tau-b reads it), is 0.1.0's own count in a kept `PairEngine` until a float
recount (`PairEngine.stale`), and the count of equal shares of each cell in an engine
built from cells (`unsplit_shares`).

What 0.1.0 did not keep cannot come back, so `revert` follows its rule for the copies of
a cell, not today's: it accepts any weight up to what the cell holds (all of it for its
last copy), where a metric built today refuses a weight no update had; and an update of
weight 0 in a cell with others is refused (`streamrank.metrics._base.revert_unsplit`).

A state that is neither today's nor one of 0.1.0, or a damaged one, raises
`SnapshotError` naming the metric and what is wrong, never another error.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager

from ..batch._groups import check_group_id
from .._validation import check_scalar, check_weight, describe
from ..engine import PairEngine
from ..exceptions import SnapshotError
from ._base import UpdateBuffer, hold, sample_arrays, unsplit_shares
from ._censored_engine import CensoredPairEngine

__all__ = ["VERSION", "group_auc_state", "pair_metric_state", "rolling_state"]

#: The release whose pickles are converted.
VERSION = "streamrank 0.1.0"


def pair_metric_state(metric, state) -> dict:
    """Today's state of a `PairEngineMetric` (`ROCAUC`, the correlation and pairwise
    metrics, `ConcordanceIndex`) from a state pickled by 0.1.0. Runtime complexity:
    ``O(n log n)`` for ``n`` samples held."""
    name = type(metric).__name__
    pending = _old_buffer(name, state, "_pending")
    with _reading(name):
        engine = _required(state, "_engine", _params(metric))
        rest = {k: v for k, v in state.items() if k not in ("_engine", "_pending")}
        if state.get("censoring") is True:  # no buffer then; its engine kept its layout
            if pending or not isinstance(engine, CensoredPairEngine):
                raise ValueError("a censored ConcordanceIndex with updates buffered or "
                                 f"an engine of type {type(engine).__name__}")
            return rest | {"_engine": engine}
        from .roc_auc import _BinaryAUCMetric
        binary = isinstance(metric, _BinaryAUCMetric)   # 0.1.0's AUC engine, else a PairEngine
        if binary:
            from . import _binary_engine
            exact, cells = _binary_engine.samples(engine)
        elif isinstance(engine, PairEngine):
            exact, cells = _engine_samples(engine)
        else:
            raise ValueError(f"an engine of type {type(engine).__name__}")
        unsplit = _unsplit(cells)
        if binary:
            engine = _new_engine(exact, unsplit, f"{name}.update")
        buffer = UpdateBuffer()
        for item in pending:
            buffer.add(_checked(item, binary))
        new = rest | {"_engine": engine, "_held": exact, "_pending": buffer}
        if unsplit:
            new["_unsplit"] = unsplit
    return new


def rolling_state(metric, state) -> None:
    """Give ``metric`` (a `RollingROCAUC`) the state of a 0.1.0 pickle: its window, the
    events not yet moved in (the oldest leave past ``window_size``), counted into a new
    engine. Runtime complexity: ``O(W log W)``."""
    name = type(metric).__name__
    incoming = _old_buffer(name, state, "_incoming")
    with _reading(name):
        window = _required(state, "_window", ("window_size", "pos_val"))
        metric.__init__(window_size=state["window_size"], pos_val=state["pos_val"])
        from . import _binary_engine
        if not isinstance(state.get("_engine"), _binary_engine.BinaryPairEngine):
            raise ValueError(f"an engine of type {type(state.get('_engine')).__name__}")
        events = [_checked(e, binary=True) for e in list(window) + incoming]
        events = events[max(0, len(events) - metric.window_size):]
        for y, s, w in events:
            metric._win.push(float("nan"), y, s, w)
        if events:
            metric._engine.add_many(*sample_arrays(events), func=f"{name}.update")
        metric._win.mark_synced()


def group_auc_state(metric, state) -> None:
    """Give ``metric`` (a `GroupAUC`) the state of a 0.1.0 pickle: a new engine per group
    from the samples of its old one, the weighted mean recomputed, the buffered updates
    buffered. Runtime complexity: ``O(n log n)``."""
    name = type(metric).__name__
    pending = _old_buffer(name, state, "_pending")
    with _reading(name):
        engines = _required(state, "_engines", ("weighting", "pos_val"))
        metric.__init__(weighting=state["weighting"], pos_val=state["pos_val"])
        if type(engines) is not dict:
            raise ValueError(f"group engines that are not a dict ({type(engines).__name__})")
        from . import _binary_engine
        unsplit = {}
        for group, old in engines.items():
            check_group_id(group, "group", name)
            exact, cells = _binary_engine.samples(old)
            if not (exact or cells):
                continue
            cells = _unsplit(cells)
            engine = metric._engines[group] = _new_engine(exact, cells, f"{name}.update")
            metric._held[group] = exact
            if cells:
                unsplit[group] = cells
            metric._move(group, engine, None)
        metric._refresh()
        if unsplit:
            metric._unsplit = unsplit
        for item in pending:
            if not (type(item) is tuple and len(item) == 2):
                raise ValueError(f"a buffered update {describe(item)}, not a (group, "
                                 "(label, score, weight)) pair")
            metric._pending.add((check_group_id(item[0], "group", name),
                                 _checked(item[1], binary=True)))


# --------------------------------------------------------------------------- helpers
@contextmanager
def _reading(name: str):
    """Any error reading an old state is a `SnapshotError` naming the metric."""
    try:
        yield
    except SnapshotError:
        raise
    except ValueError as exc:
        raise _error(name, str(exc)) from exc
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise _error(name, f"a damaged state ({type(exc).__name__}: {exc})") from exc


def _error(name: str, what: str) -> SnapshotError:
    return SnapshotError(f"{name}: cannot load this pickle of {VERSION}: {what.rstrip('.')}.")


def _old_buffer(name: str, state, key: str) -> list:
    """The buffer list of a 0.1.0 state, the mark of its layout; else `SnapshotError`."""
    buffer = state.get(key) if type(state) is dict else None
    if type(buffer) is not list:
        got = (f"keys {sorted(map(str, state))}" if type(state) is dict
               else describe(state))
        raise SnapshotError(f"{name}: cannot load this pickle: its state is neither this "
                            f"version's nor one of {VERSION} (got {got}).")
    return buffer


def _required(state: dict, key: str, params=()):
    """``state[key]``, once the constructor parameters ``params`` are there too."""
    missing = [k for k in (key, *params) if k not in state]
    if missing:
        raise ValueError(f"no {', '.join(map(repr, missing))} in the state")
    return state[key]


def _params(metric) -> tuple:
    """The constructor parameters of ``metric``'s class (River keeps them as attributes)."""
    sig = inspect.signature(type(metric).__init__)
    return tuple(p for p in sig.parameters if p != "self")


def _checked(item, binary: bool = False):
    """A buffered ``(label, score, weight)`` update of 0.1.0, validated (labels 0 or 1
    with ``binary``), as it was."""
    try:
        if type(item) is not tuple or len(item) != 3:
            raise TypeError
        y, s, w = item
        check_scalar(y, "label", "")
        check_scalar(s, "score", "")
        check_weight(w, "")
        if binary and not (type(y) is int and y in (0, 1)):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"a buffered update {describe(item)}, not a (label, score, "
                         "weight) of finite numbers" + (" with a label 0 or 1" if binary
                                                         else "") + " and a weight >= 0"
                         ) from None
    return item


def _engine_samples(engine: PairEngine) -> tuple[dict, dict]:
    """``(exact, cells)`` of a `PairEngine` of 0.1.0 read back (its points, aggregated): a
    point of one copy with int weights is that sample ``{(label, score, weight): 1}``;
    the others are cells ``{(label, score): (copies, weight)}``."""
    y, s, c, w, _ = engine._items()
    floats = engine.weighted
    exact, cells = {}, {}
    for yi, si, ci, wi in zip(y.tolist(), s.tolist(), c.tolist(), w.tolist()):
        if ci == 1 and not floats:
            exact[(yi, si, int(wi))] = 1
        elif ci:
            cells[(yi, si)] = (ci, float(wi) if floats else int(wi))
    return exact, cells


def _unsplit(cells: dict) -> dict:
    """Cells ``{(label, score): (copies, weight)}`` as unsplit cells (their scale: the
    weight now)."""
    return {key: (copies, weight, weight) for key, (copies, weight) in cells.items()}


def _new_engine(exact: dict, unsplit: dict, func: str) -> PairEngine:
    """A two-label `PairEngine` of the samples ``exact`` and the ``unsplit`` cells (as
    `unsplit_shares`)."""
    source = dict(exact)
    for sample, copies in unsplit_shares(unsplit).items():
        hold(source, sample, copies)
    engine = PairEngine("binary")
    engine.apply([], source, func)
    return engine
