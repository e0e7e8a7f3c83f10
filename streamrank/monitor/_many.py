"""`observe_many`: a block of events given as columns, for every shape of monitor.

One mechanism for `streamrank.monitor.Monitor`, `streamrank.monitor.PairedMonitor` and
`streamrank.monitor.SegmentedMonitor`: the columns are named as the keywords of the
monitor's ``observe`` (``score``, ``label``, ``weight``, ``time``; ``challenger``;
``segment``), and event ``i`` is ``observe(keys[i], score=score[i], ...)``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from .._validation import describe, param_error

__all__ = ["ManyEvents", "float_column"]


def _list(values) -> list:
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _missing(value):
    """None for a missing value (None or NaN), else ``value``."""
    return None if type(value) is float and value != value else value


def float_column(values, n):
    """A column as contiguous float64 (NaN: missing) if it is a numpy array of floats or
    bools (all NaN if not given: ``n`` values); None otherwise (``observe`` reads it)."""
    if values is None:
        return np.full(n, np.nan)
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    return np.ascontiguousarray(values, dtype=np.float64) if kind in ("f", "b") else None


def _column(values) -> list:
    """A column as a list, NaN read as None (a missing value)."""
    out = _list(values)
    if any(type(v) is float and v != v for v in out):
        out = [None if type(v) is float and v != v else v for v in out]
    return out


class ManyEvents:
    """The ``observe_many`` of a monitor (module docstring); ``_COLUMNS`` names the
    keywords of its ``observe`` that a column may give."""

    __slots__ = ()
    _COLUMNS: tuple = ("score", "label", "weight", "time")

    def observe_many(self, keys: Sequence[Hashable], **columns) -> None:
        """Observe a block of events given as columns: event ``i`` is ``observe(keys[i],
        score=score[i], label=label[i], ...)``, in order, for each column given (the
        keywords of ``observe``: ``score``, ``label``, ``weight``, ``time``, and with a
        challenger ``challenger``, with segments ``segment``).

        A column is a sequence or a numpy array of ``len(keys)`` values; a missing value
        (an event without that field: a label row has no score, a prediction no label)
        is None, or NaN in a float column, so a NaN is never refused as a bad value here
        (an infinite one is). The result equals ``observe`` called event by event.

        The events apply in order. If one is refused (what ``observe`` refuses), its
        `ValueError` or `TypeError` is raised with ``index``, the event's position in
        the block: the events before it have been applied, it and the later ones have
        changed nothing. A column of another length, or a name ``observe`` does not
        take, raises before any event applies.

        Runtime complexity: that of ``len(keys)`` ``observe`` calls; a steady `Monitor`
        (a `PairedMonitor` whose windows are aligned, a `SegmentedMonitor`'s steady units)
        takes its new predictions and late labels from float or bool numpy columns (no
        weight or time) in compiled runs, ``O(1)`` amortized per event in C
        (`streamrank.monitor._runs`).

        >>> from streamrank.monitor import Monitor
        >>> m = Monitor(window=4, min_window=2)
        >>> m.observe_many(["a", "b", "c"], score=[0.9, 0.2, 0.7],
        ...                label=[1, 0, float("nan")])
        >>> m.observe_many(["c"], label=[1])          # a late label
        >>> m.report().auc, m.stats["late"]
        (1.0, 1)
        """
        func = f"{type(self).__name__}.observe_many"
        keys = _list(keys)             # (a NaN key is missing: `_missing`)
        n = len(keys)
        given = {}
        for name, values in columns.items():
            if name not in self._COLUMNS:
                raise param_error(name, func, "a column named as a keyword of observe ("
                                  + ", ".join(self._COLUMNS) + ")", describe(values),
                                  TypeError)
            if values is not None:
                if not hasattr(values, "__len__"):
                    values = list(values)
                if len(values) != n:
                    raise param_error(name, func, f"a column of {n} values (one per "
                                      "key)", f"{len(values)} values")
                given[name] = values
        take = self._runs(keys, given)
        cols: dict | None = None
        i = 0
        try:
            while i < n:
                if take is not None:
                    j = take(i)
                    if j > i:
                        i = j
                        continue
                if cols is None:        # the checked path's columns, once
                    cols = {c: _column(v) for c, v in given.items()}
                    none = [None] * n
                    score, label = cols.pop("score", none), cols.pop("label", none)
                    weight, time = cols.pop("weight", none), cols.pop("time", none)
                    names, extra = list(cols), list(cols.values())
                self.observe(_missing(keys[i]), score=score[i], label=label[i],
                             weight=weight[i], time=time[i],
                             **{c: v[i] for c, v in zip(names, extra)})
                i += 1
        except (ValueError, TypeError) as exc:
            exc.index = i
            raise

    def _runs(self, keys, columns):
        """A function that applies the block's events from ``i`` on as ``observe`` would,
        as many as it can in one compiled call, and returns the index of the first it
        left (the rest go through ``observe`` one by one); None: none can. This class's
        monitors have none."""
        return None
