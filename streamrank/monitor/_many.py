"""`observe_many`: a block of events given as columns, for every shape of monitor.

One mechanism for `streamrank.monitor.Monitor`, `streamrank.monitor.PairedMonitor` and
`streamrank.monitor.SegmentedMonitor`: the columns are named as the keywords of the
monitor's ``observe`` (``score``, ``label``, ``weight``, ``time``; ``challenger``;
``segment``), and event ``i`` is ``observe(keys[i], score=score[i], ...)``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from .._validation import describe, param_error

__all__ = ["ManyEvents"]


def _column(values, name, n, func) -> list:
    """A column as a list of ``n`` values, NaN read as None (a missing value)."""
    out = values.tolist() if hasattr(values, "tolist") else list(values)
    if len(out) != n:
        raise param_error(name, func, f"a column of {n} values (one per key)",
                          f"{len(out)} values")
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

        Runtime complexity: that of ``len(keys)`` ``observe`` calls.

        >>> from streamrank.monitor import Monitor
        >>> m = Monitor(window=4, min_window=2)
        >>> m.observe_many(["a", "b", "c"], score=[0.9, 0.2, 0.7],
        ...                label=[1, 0, float("nan")])
        >>> m.observe_many(["c"], label=[1])          # a late label
        >>> m.report().auc, m.stats["late"]
        (1.0, 1)
        """
        func = f"{type(self).__name__}.observe_many"
        keys = _column(keys, "keys", len(keys), func)
        n = len(keys)
        cols = {}
        for name, values in columns.items():
            if name not in self._COLUMNS:
                raise param_error(name, func, "a column named as a keyword of observe ("
                                  + ", ".join(self._COLUMNS) + ")", describe(values),
                                  TypeError)
            if values is not None:
                cols[name] = _column(values, name, n, func)
        none = [None] * n
        score, label = cols.pop("score", none), cols.pop("label", none)
        weight, time = cols.pop("weight", none), cols.pop("time", none)
        observe = self.observe
        i = 0
        try:
            if not cols:
                for i in range(n):
                    observe(keys[i], score=score[i], label=label[i], weight=weight[i],
                            time=time[i])
            else:
                names, extra = list(cols), list(cols.values())
                for i in range(n):
                    observe(keys[i], score=score[i], label=label[i], weight=weight[i],
                            time=time[i], **{c: v[i] for c, v in zip(names, extra)})
        except (ValueError, TypeError) as exc:
            exc.index = i
            raise
