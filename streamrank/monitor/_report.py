"""`Report`: one reading of a `streamrank.monitor.Monitor` (its counts, metric and test)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validation import describe
from ..counts import PairCounts

__all__ = ["Report"]

_NAN = math.nan


@dataclass(frozen=True)
class Report:
    """One reading of a `Monitor`: the window's exact counts, metric, and the test.

    Attributes
    ----------
    events : int
        Events observed so far.
    time : float or None
        The monitor's clock (latest time seen), None if no event had a time.
    n : int
        Labeled predictions in the window (the ones counted).
    pending : int
        Predictions in the window still waiting for their label.
    counts : PairCounts
        Exact pair counts of the ``n`` labeled predictions.
    auc : float
        ``(C + T/2) / P`` of the window: the ROC AUC for binary labels, Harrell's
        concordance otherwise (see `metric`); nan when undefined.
    reference_auc : float
        The same metric on the frozen reference window (nan until frozen).
    z, p_value : float
        The one-sided test of a drop (nan when no test ran).
    alert : bool
        ``p_value < alpha``.
    drift : bool
        The drift detector fired at this report.
    se : float
        Standard error of ``auc - reference_auc`` (nan when no test ran).
    reference_se : float
        Standard error of the reference AUC (or concordance: its U-statistic variance
        with non-binary labels; nan until frozen).
    metric : str
        ``"auc"`` (binary labels) or ``"concordance"``.
    low, high : float
        The interval of the window's AUC at the monitor's ``level``, by its ``test``
        method: with whole-number weights, the ``low`` and ``high`` of
        `streamrank.roc_auc_ci` of the window's labeled predictions (``method`` the
        test); with non-binary labels `streamrank.concordance_ci`'s; nan while
        undefined (one class, a class of weight 1).
    dropped, unmatched : int
        Labels (or weights) so far that came for a prediction that had left the window
        (late, dropped) and that met no prediction (unmatched: early, or never
        predicted): the monitor's ``stats`` at the report (`streamrank.monitor._join`).
    estimated_auc, estimated_auc_labeled : float
        With ``Monitor(estimate=True)``: the calibration estimate of the window's AUC,
        which needs no label (every prediction of the window, labeled or pending, a
        positive of weight ``p`` and a negative of weight ``1 - p`` at its score ``p``:
        the expected AUC if the scores are calibrated probabilities), and the same of the
        labeled predictions only: its distance from ``auc`` tells how far calibration
        holds. nan without ``estimate`` or while undefined (no prediction, or every score
        0 or 1 on one side).
    detectable_drop : float
        The smallest drop of the window's AUC below the reference's that the monitor's
        test detects at its ``alpha`` with power 0.8, given the window's labeled counts
        and variance now (`streamrank.monitor.drift.detectable_drop`); nan when no test
        ran.
    labels_to_detect : float
        With ``Monitor(detect_drop=D)``: how many more labeled predictions the window
        needs before its test detects a drop of ``D`` with power 0.8 (0: it can now; inf:
        no window can, the reference is too small; `streamrank.monitor.drift.
        labels_to_detect`); nan without ``detect_drop`` or when no test ran.
    score_shift, score_shift_se, score_shift_p : float
        With ``Monitor(score_drift=True)``: the Mann-Whitney probability that a score of
        the window (every prediction, labeled or not) exceeds one of the scores'
        reference, ties one half (0.5: no shift; above: the scores moved up), its DeLong
        standard error and the two-sided p-value of no shift
        (`streamrank.monitor._scores`); nan until the scores' reference freezes, and the
        p-value nan (no test) while the window or the reference holds fewer than
        ``min_window`` predictions.
    ks, ks_p : float
        With ``score_drift``: the two-sample Kolmogorov-Smirnov statistic of the window's
        scores against the reference's (``scipy.stats.ks_2samp``'s) and its asymptotic
        two-sided p-value (nan as ``score_shift_p``); nan until the scores' reference
        freezes.
    score_alert : bool
        ``score_shift_p < alpha``; part of ``alert`` only with
        ``Monitor(score_alert=True)``.
    """

    events: int
    time: float | None
    n: int
    pending: int
    counts: PairCounts
    auc: float
    reference_auc: float
    z: float
    p_value: float
    alert: bool
    drift: bool
    se: float = _NAN
    reference_se: float = _NAN
    metric: str = "auc"
    low: float = _NAN
    high: float = _NAN
    dropped: int = 0
    unmatched: int = 0
    estimated_auc: float = _NAN
    estimated_auc_labeled: float = _NAN
    detectable_drop: float = _NAN
    labels_to_detect: float = _NAN
    score_shift: float = _NAN
    score_shift_se: float = _NAN
    score_shift_p: float = _NAN
    ks: float = _NAN
    ks_p: float = _NAN
    score_alert: bool = False

    def as_dict(self) -> dict[str, object]:
        """A flat ``dict`` (the interval as ``auc_low``, ``auc_high``; the counts as
        ``concordant``, ``discordant``, ``tied_score``, ``comparable``, ``tied_label``,
        ``tied_both``): for tables, JSON and CSV."""
        c = self.counts
        return {
            "events": self.events, "time": self.time, "n": self.n, "pending": self.pending,
            "dropped": self.dropped, "unmatched": self.unmatched,
            "metric": self.metric, "auc": self.auc, "auc_low": self.low,
            "auc_high": self.high, "reference_auc": self.reference_auc,
            "se": self.se, "z": self.z, "p_value": self.p_value, "alert": self.alert,
            "drift": self.drift, "concordant": c.concordant, "discordant": c.discordant,
            "tied_score": c.tied_score, "comparable": c.comparable,
            "tied_label": c.tied_label, "tied_both": c.tied_both,
            "estimated_auc": self.estimated_auc,
            "estimated_auc_labeled": self.estimated_auc_labeled,
            "detectable_drop": self.detectable_drop,
            "labels_to_detect": self.labels_to_detect,
            "score_shift": self.score_shift, "score_shift_se": self.score_shift_se,
            "score_shift_p": self.score_shift_p, "ks": self.ks, "ks_p": self.ks_p,
            "score_alert": self.score_alert,
        }

    def _to_row(self) -> list:
        """The fields as a flat JSON-able list, the counts spliced in after ``pending``
        (a list rather than a dict: a long history's snapshot stays small)."""
        c = self.counts
        return [self.events, self.time, self.n, self.pending, c.concordant, c.discordant,
                c.tied_score, c.tied_label, c.tied_both, c.n, c.weight_sum,
                c.n_label_levels, c.n_score_levels, self.auc, self.reference_auc, self.z,
                self.p_value, self.alert, self.drift, self.se, self.reference_se,
                self.metric, self.low, self.high, self.dropped, self.unmatched,
                self.estimated_auc, self.estimated_auc_labeled, self.detectable_drop,
                self.labels_to_detect, self.score_shift, self.score_shift_se,
                self.score_shift_p, self.ks, self.ks_p, self.score_alert]

    @classmethod
    def _from_row(cls, row) -> "Report":
        """The inverse of `_to_row`; `ValueError` for a row it cannot have written."""
        ints = (0, 2, 3, 9, 11, 12, 24, 25)
        reals = (4, 5, 6, 7, 8, 10, 13, 14, 15, 16, 19, 20, 22, 23, 26, 27, 28, 29, 30,
                 31, 32, 33, 34)
        if not (type(row) is list and len(row) == 36
                and row[21] in ("auc", "concordance")
                and all(type(row[i]) is int and row[i] >= 0 for i in ints)
                and all(type(row[i]) in (int, float) for i in reals)
                and (row[1] is None or type(row[1]) in (int, float))
                and type(row[17]) is bool and type(row[18]) is bool
                and type(row[35]) is bool):
            raise ValueError(f"a report {describe(row)} that to_bytes does not write")
        # every nan as the one nan object, so that a report equals itself read back
        row = [_NAN if type(v) is float and v != v else v for v in row]
        (events, time, n, pending, *counts), rest = row[:13], row[13:]
        return cls(events, time, n, pending, PairCounts(*counts), *rest)
