"""`PairedReport`: one reading of a `streamrank.monitor.PairedMonitor` (both models'
`Report` and the paired DeLong test of the challenger against the champion)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validation import describe
from ._report import Report

__all__ = ["PairedReport"]

_NAN = math.nan

@dataclass(frozen=True)
class PairedReport:
    """One reading of a `PairedMonitor`: each model's `Report` and the paired test.

    Attributes
    ----------
    events : int
        Events the paired monitor observed so far.
    time : float or None
        The latest time either model saw (None if no event had a time).
    champion, challenger : Report
        Each model's own report: its window, its metric and interval, its test against
        its own frozen reference, its detector.
    n : int
        The paired rows: ids labeled in both windows (the rows of the paired test).
    difference : float
        ``AUC_challenger - AUC_champion`` on the paired rows (positive: the challenger
        ranks better); nan when no test ran.
    se, z, p_value : float
        DeLong's standard error of the difference, ``z = difference / se`` and the
        p-value against ``alternative`` (`streamrank.delong_test` of the paired rows);
        nan when no test ran.
    low, high : float
        The interval of the difference at the monitor's ``level``, one-sided for a
        one-sided ``alternative`` (as `streamrank.delong_test`'s).
    paired_alert : bool
        ``p_value < alpha``: the challenger is significantly worse (``alert_on="worse"``),
        better (``"better"``) or different (``"both"``).
    alternative : str
        ``"less"`` (``alert_on="worse"``), ``"greater"`` (``"better"``) or
        ``"two-sided"`` (``"both"``).
    """

    events: int
    time: float | None
    champion: Report
    challenger: Report
    n: int
    difference: float
    se: float
    z: float
    p_value: float
    low: float
    high: float
    paired_alert: bool
    alternative: str

    @property
    def alert(self) -> bool:
        """Something alerted at this report: the paired test, or either model's own test
        against its reference."""
        return self.paired_alert or self.champion.alert or self.challenger.alert

    @property
    def drift(self) -> bool:
        """Either model's detector fired at this report."""
        return self.champion.drift or self.challenger.drift

    def as_dict(self) -> dict[str, object]:
        """A flat ``dict``, the line ``streamrank monitor`` prints
        (`streamrank.monitor.table.ReportTable.lines`): the champion's `Report.as_dict`
        (its ``auc``, ``z``, ``p_value``, ``alert`` ... are the champion's own, against
        its reference), the challenger's readings (``challenger_auc``, ...;
        ``challenger_drop_alert``: its own test against its reference) and the paired
        test (``diff``, ``paired_z``, ``paired_p_value``; ``challenger_alert`` is
        `paired_alert`). ``events`` and ``time`` are the paired monitor's."""
        from .table import table_of

        return table_of(self).lines()[0]

    def _to_row(self) -> list:
        """The paired fields as a flat JSON-able list (the two `Report` rows apart)."""
        return [self.events, self.time, self.n, self.difference, self.se, self.z,
                self.p_value, self.low, self.high, self.paired_alert, self.alternative]

    @classmethod
    def _from_row(cls, row, champion: Report, challenger: Report) -> "PairedReport":
        """The inverse of `_to_row`; `ValueError` for a row it cannot have written."""
        if not (type(row) is list and len(row) == 11
                and all(type(row[i]) is int and row[i] >= 0 for i in (0, 2))
                and (row[1] is None or type(row[1]) in (int, float))
                and all(type(row[i]) in (int, float) for i in range(3, 9))
                and type(row[9]) is bool
                and row[10] in ("less", "greater", "two-sided")):
            raise ValueError(f"a paired report {describe(row)} that to_bytes does not "
                             "write")
        events, time, n, *rest = row
        return cls(events, time, champion, challenger, n, *rest)
