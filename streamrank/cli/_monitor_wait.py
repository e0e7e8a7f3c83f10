"""``streamrank monitor --label-wait N|DURATION``: labels that arrive before their prediction,
and what the summary says of the labels that met none.

A plain integer is a wait of that many events (`Monitor(label_wait=N)`); a duration with
a unit (``30s``, ``15m``, ``1h``, ``2d``, ``1w``: seconds, as ``--period``) is a wait of
time (`Monitor(label_wait_period=T)`, needs ``--time``). With a wait, the JSON and CSV
report lines gain ``joined`` and ``waiting``, and the summary says them. With or without
a wait, the summary advises from what the run saw (`unmatched_advice`): labels that came
before their prediction get the ``--label-wait`` that would have joined them; labels
that met no prediction at all are named, with the row contract ``--require-score``.
"""

from __future__ import annotations

import re

import click

__all__ = ["LabelWait", "label_wait_option", "one_class_hint", "unmatched_advice",
           "wait_columns", "wait_summary"]

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
         "joins it. Without a wait it is counted 'unmatched' at once (as a label whose "
         "prediction never comes), apart from late drops (labels whose prediction has "
         "left the window); the summary suggests a wait from what it saw.  "
         "[default: no wait]")


def _of(mon):
    """The wait of a monitor (a `SegmentedMonitor`'s: its units'), and a callable giving
    its statistics (a segmented run's: all segments' and the wrapper's, `totals`)."""
    from ..monitor.table import shape_of

    if shape_of(mon).segmented:
        return LabelWait.of(mon.template()), mon.totals
    return LabelWait.of(mon), lambda: mon.stats


def wait_columns(mon):
    """The report columns a wait adds (``joined``, ``waiting`` now; of all segments with
    ``--segment``), as a callable for the printer; None without a wait."""
    wait, stats = _of(mon)
    if wait is None:
        return None

    def columns():
        return {"joined": stats()["joined"], "waiting": mon.waiting}
    return columns


def wait_summary(mon) -> str:
    """The summary's words on the wait ('' without one)."""
    wait, stats = _of(mon)
    if wait is None:
        return ""
    st = stats()
    what = (f"{wait[0]} event{'' if wait[0] == 1 else 's'}" if wait[0] is not None
            else f"{wait[1]:g}s")
    return (f"  label wait {what}: {st['joined']} joined, {st['unmatched']} unmatched "
            f"(never met their prediction), {mon.waiting} waiting")


def one_class_hint(st) -> str:
    """Why a frozen reference may hold one class, by what the run saw (``st``: the
    statistics): labels that came before their predictions, or after the window."""
    if st["early"]:
        return " (labels came before their predictions: see --label-wait below)"
    if st["dropped"]:
        return (" (labels that lag the window by more than its length; give "
                "--reference N)")
    return ""


def unmatched_advice(mon, st) -> str:
    """The summary's line on the labels that met no prediction (``st``: the run's
    statistics; '' when none did): how many came before their prediction and the
    ``--label-wait`` that would have joined them (``early_lead``), or, when none was seen
    to, that a prediction row whose score is missing reads as a label row."""
    n, early, lead = st["unmatched"], st["early"], st["early_lead"]
    if not n:
        return ""
    head = f"  unmatched: {n} label{' met' if n == 1 else 's met'} no prediction"
    if not early:
        return (head + " (none came later): a prediction row with an empty score reads "
                "as a label row; if every row is a prediction, give --require-score")
    wait, _ = _of(mon)
    seen = ("it came before its prediction" if n == 1 else
            f"{'all' if early == n else f'{early} of them'} came before their prediction")
    ahead = f"{'' if early == 1 else 'up to '}{lead} event{'' if lead == 1 else 's'}"
    if wait is not None and wait[0] is None:
        return (f"{head}; {seen}, {ahead} after the wait ran out: give a longer "
                f"--label-wait than {wait}")
    return (f"{head}; {seen}, {ahead} ahead: --label-wait {lead} would join "
            f"{'it' if early == 1 else 'them'}")
