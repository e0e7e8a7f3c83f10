"""``streamrank monitor --label-wait N|DURATION``: labels that arrive before their prediction.

A plain integer is a wait of that many events (`Monitor(label_wait=N)`); a duration with
a unit (``30s``, ``15m``, ``1h``, ``2d``, ``1w``: seconds, as ``--period``) is a wait of
time (`Monitor(label_wait_period=T)`, needs ``--time``). With a wait, the JSON and CSV
report lines gain ``joined``, ``unmatched`` and ``waiting``, and the summary says them.
"""

from __future__ import annotations

import re

import click

__all__ = ["LabelWait", "label_wait_option", "wait_columns", "wait_summary"]

_EVENTS = re.compile(r"\s*\+?\d+\s*")


class LabelWait(tuple):
    """``(events, seconds)``, one of them None: what ``--label-wait`` asks for; printed as
    given (``5``, ``15m``)."""

    def __new__(cls, events, seconds, text=None):
        self = super().__new__(cls, (events, seconds))
        self.text = text or (str(events) if events is not None else f"{seconds:g}s")
        return self

    @classmethod
    def of(cls, mon):
        """The wait of a `Monitor` (None without one)."""
        if mon.label_wait is None and mon.label_wait_period is None:
            return None
        return cls(mon.label_wait, mon.label_wait_period)

    def kwargs(self) -> dict:
        return {"label_wait": self[0], "label_wait_period": self[1]}

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def _parse(ctx, param, value):
    if value is None:
        return None
    text = str(value).strip()
    if _EVENTS.fullmatch(text):
        n = int(text)
        if n < 1:
            raise click.BadParameter(f"a wait must be at least 1 event; got {value!r}")
        return LabelWait(n, None, text)
    if text[-1:].lower() in "smhdw" and text[-1:].isalpha():
        from ..io.events import parse_period

        try:
            return LabelWait(None, parse_period(text), text)
        except ValueError:
            pass
    raise click.BadParameter(f"a wait is a number of events (an integer, e.g. 100) or a "
                             f"duration with a unit s/m/h/d/w (e.g. 30s, 15m); got "
                             f"{value!r}")


label_wait_option = click.option(
    "--label-wait", "label_wait", callback=_parse, default=None, metavar="N|DURATION",
    help="A label (or weight) whose prediction has not arrived yet waits for it during the "
         "next N events, or DURATION with a unit s/m/h/d/w (30s, 15m; needs --time), and "
         "joins it; what never matches is counted 'unmatched', apart from late drops.  "
         "[default: no wait]")


def _of(mon):
    """The wait of a monitor (a `SegmentedMonitor`'s: its units'), and a callable giving
    its statistics (a segmented run's: all segments' and the wrapper's, `totals`)."""
    if hasattr(mon, "segments"):
        return LabelWait.of(mon.template()), mon.totals
    return LabelWait.of(mon), lambda: mon.stats


def wait_columns(mon):
    """The report columns a wait adds (``joined``, ``unmatched``, ``waiting`` now; of all
    segments with ``--segment``), as a callable for the printer; None without a wait."""
    wait, stats = _of(mon)
    if wait is None:
        return None

    def columns():
        st = stats()
        return {"joined": st["joined"], "unmatched": st["unmatched"],
                "waiting": mon.waiting}
    return columns


def wait_summary(mon) -> str:
    """The summary's words on the wait ('' without one)."""
    wait, stats = _of(mon)
    if wait is None:
        return ""
    st = stats()
    what = f"{wait[0]} events" if wait[0] is not None else f"{wait[1]:g}s"
    return (f"  label wait {what}: {st['joined']} joined, {st['unmatched']} unmatched "
            f"(never met their prediction), {mon.waiting} waiting")
