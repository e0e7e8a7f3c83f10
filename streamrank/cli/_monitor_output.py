"""What ``streamrank monitor`` prints: the report lines on stdout (``--format table``, a
header once; ``json``, one JSON object a line; ``csv``, a header once) and the summary on
stderr at the end.

JSON and CSV carry every column of a line (`streamrank.monitor.table.line_columns`); the
table, for a terminal, a few of them in at most 100 characters
(`streamrank.monitor.table.table_layout`): short headers (``ref_auc``, ``p_adj``), the
AUCs to 4 decimals, ``z`` to 2, p-values to 3 significant digits, an ISO time to the
second, ``drift`` only when a detector runs, a long segment value cut in its middle with
an ellipsis (``…``); with a
challenger, the challenger's line (``challenger`` in the events column) under each
line of the champion's, in the same columns, with the paired test (``diff`` under
``ref/diff``, its ``z`` and p-value, and ``challenger_alert`` under ``alert``).

One time format in all three: when the input's times are ISO 8601 timestamps, ``time`` is
an ISO 8601 UTC timestamp (``2026-01-01T05:17:32Z``) in the table, JSON and CSV, and
JSON and CSV add ``time_epoch``, the same instant in POSIX seconds; plain numbers stay
numbers. Values that are not finite are ``nan``, ``inf``, ``-inf``: JSON strings
(``"nan"``; JSON has no literal for them), the same text in CSV; ``null`` (an empty CSV
cell) is a value that does not exist (no time given).
"""

from __future__ import annotations

import json
import sys

import click

from ._common import _cut, _plain

__all__ = ["champion_history", "has_detector", "shown_value", "stop_words",
           "stream_counts"]


class _Printer:
    """Report lines on stdout: a table (header once), JSON lines, or CSV (header once)."""

    def __init__(self, fmt, iso_time, show_time=True, paired=False, segmented=False,
                 extra=None, drift=True, estimate=False, score_drift=False):
        from ..monitor.table import line_columns, table_layout

        self.fmt = fmt
        self.extra = extra      # a callable: more columns for json and csv (a label wait)
        self.iso_time = iso_time
        models = self.models = 2 if paired else 1
        self.columns = line_columns(models, segmented)
        self.table = table_layout(models, segmented, show_time, drift,
                                  estimate=estimate, score_drift=score_drift)
        self.started = False
        self.last_events = None
        self.closed = False     # the reader of stdout went away (a closed pipe)

    def __call__(self, report) -> None:
        """Write the report's line and flush it: a consumer reading a pipe (``--follow``,
        ``--format json | ...``) sees each report when it is made, not a buffer later.
        A closed pipe (``... | head``) sets `closed` (the run then stops as on a signal)
        and sends the rest of stdout to the null device."""
        if self.closed:
            self.last_events = report.events
            return
        try:
            self._write(report)
            sys.stdout.flush()
        except BrokenPipeError:
            import os

            self.closed = True
            self.last_events = report.events
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)

    def _write(self, report) -> None:
        self.last_events = report.events
        from ..monitor.table import table_of

        more = {} if self.extra is None else self.extra()
        for rec in table_of(report, self.models).lines():
            self._write_row(rec, more)

    def _write_row(self, rec, more) -> None:
        from ..io.events import format_time

        if self.fmt in ("json", "csv"):
            rec.update(more)
            columns = self.columns + tuple(more)
            if self.iso_time():         # one time format: ISO 8601, plus the POSIX seconds
                columns = ("events", "time", "time_epoch") + columns[2:]
                t = rec["time"]
                rec["time"], rec["time_epoch"] = (None, None) if t is None else \
                    (format_time(t), t)
            if self.fmt == "json":
                click.echo(json.dumps({k: _plain(rec[k]) for k in columns}))
                return
            if not self.started:
                click.echo(",".join(columns))
            click.echo(",".join(_csv_cell(rec[k]) for k in columns))
            self.started = True
            return
        if not self.started:
            click.echo("  ".join(s.header.ljust(s.width) if s.header in _LEFT
                                 else s.header.rjust(s.width) for s in self.table).rstrip())
            self.started = True
        click.echo(self._table_line(rec, "champion"))
        if self.models == 2:
            click.echo(self._table_line(rec, "challenger"))

    def _table_line(self, rec, model) -> str:
        """One line of the table: the champion's (a report's line) or the challenger's."""
        cells = []
        for slot in self.table:
            name = getattr(slot, model)
            if model == "challenger" and slot.header == "events":
                text = "challenger"
            else:
                text = "" if name is None else self._cell(name, rec[name])
            if slot.header == "segment":     # a long value: its start and its end
                cells.append(_cut(text, slot.width, middle=True).ljust(slot.width))
            elif slot.header == "time":
                cells.append(text.ljust(slot.width))
            else:
                cells.append(text.rjust(slot.width))
        return "  ".join(cells).rstrip()

    def _cell(self, name, v) -> str:
        from ..io.events import format_time

        if name == "segment":
            return "(total)" if v is None else shown_value(v)
        if v is None:
            return ""
        if name == "time":      # ISO: to the second here (JSON and CSV: as read)
            return format_time(v // 1) if self.iso_time() else f"{v:g}"
        if isinstance(v, bool):
            return ("DRIFT" if name.endswith("drift") else "ALERT") if v else ""
        if isinstance(v, float):
            if v != v:
                return "nan"
            if name.endswith(("p_value", "p_adjusted")):
                return f"{v:.3g}"
            if name.endswith("z"):
                return f"{v:.2f}"
            return f"{v:+.4f}" if name == "diff" else f"{v:.4f}"
        return str(v)


#: The columns of the table aligned left (text); the others are numbers, aligned right.
_LEFT = ("time", "segment")


def has_detector(mon) -> bool:
    """Whether a drift detector runs in ``mon`` (then the table has a ``drift`` column)."""
    from ..monitor.table import shape_of

    shape = shape_of(mon)
    unit = mon.template() if shape.segmented else mon
    models = (unit.champion, unit.challenger) if shape.models == 2 else (unit,)
    return any(m.detector is not None for m in models)


def _csv_cell(v) -> str:
    v = _plain(v)
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str) and any(c in v for c in ',"\r\n'):   # a segment value
        return '"' + v.replace('"', '""') + '"'
    return repr(v) if isinstance(v, float) else str(v)


def _count(k, word) -> str:
    """``"1 report"``, ``"2 reports"``."""
    return f"{k} {word}{'' if k == 1 else 's'}"


def shown_value(value) -> str:
    r"""A segment value as the table and the summary show it: plain when that cannot be
    mistaken for another value, else quoted as Python writes it (`repr`: the escapes of
    control and other invisible characters): a value with leading or trailing spaces, a
    character that is not printable (a newline, a tab, a no-break space), a quote, an
    empty value, or the total line's ``(total)``.

    >>> shown_value("us"), shown_value(" us"), shown_value("us\n"), shown_value(7)
    ('us', "' us'", "'us\\n'", '7')
    """
    if (not isinstance(value, str) or value and value == value.strip()
            and value.isprintable() and not set(value) & {"'", '"'}
            and value != "(total)"):
        return str(value)
    return repr(value)


def stop_words(signum) -> str:
    """The start of the summary: how the run ended (``signum``: the signal that stopped
    it, None at the end of the input), the signal by its name."""
    if signum is None:
        return "streamrank monitor: "
    import signal

    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return (f"streamrank monitor: stopped by {name}"
            f"{' (Ctrl-C)' if name == 'SIGINT' else ''}; ")


def stream_counts(st, skipped, note="") -> str:
    """The summary's count of every event: predictions, labels (late ones), re-scores,
    late drops and labels that met no prediction (then ``note``), rows skipped."""
    return (f"{_count(st['events'], 'event')}, {_count(st['predictions'], 'prediction')}, "
            f"{st['labeled']} labeled ({st['late']} late), {st['rescored']} re-scored, "
            f"{st['dropped']} late dropped, {st['unmatched']} unmatched{note}, "
            f"{_count(skipped, 'row')} skipped")


def champion_history(mon) -> list:
    """The segmented history of ``mon`` with each segment's report its champion's (what
    the plot draws); the history itself without a challenger."""
    from dataclasses import replace

    from ..monitor.table import shape_of

    if shape_of(mon).models == 1:
        return list(mon.history)
    return [replace(r, reports=tuple(x.champion for x in r.reports)) for r in mon.history]
