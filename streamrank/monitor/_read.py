"""The reads of a `streamrank.monitor.Monitor`: `MonitorReads`, a base of `Monitor`, with
its report (counts, metric, interval, test, whether the detector fired since the previous
report) and the check of its invariants. The rules are in the `streamrank.monitor`
docstring."""

from __future__ import annotations

import math

from .. import _engine_ci
from ..intervals import logit_interval
from ..structures._cpairwindow import estimate_rows
from . import _ordinal
from ._report import Report
from ._scores import ScoreShift
from .drift import (_delong, auc_drop_test, detectable_drop, hanley_mcneil_variance,
                    labels_to_detect)

__all__ = ["MonitorReads"]

_NAN = math.nan


class MonitorReads:
    """`Monitor`'s report and invariant check."""

    def _make_report(self) -> Report:
        """`Monitor.report`: read the window (see there for the complexity)."""
        counts = self._fresh_counts()
        n = self._win.n_labeled
        # nan without the warning while undefined (no pair of different labels)
        auc = counts.auc if n and counts.comparable != 0 else _NAN
        classes = self._win.classes
        binary = len(classes) <= 2
        ref = self._ref
        ref_auc = ref_se = z = p = se = low = high = var = drop = needed = _NAN
        alert = drift = False
        if ref is not None:
            ref_auc = ref.auc
            if len(ref.labels) == 2:
                var = ref.hm_var if self.test == "hanley-mcneil" else ref.delong_var
                ref_se = math.sqrt(var) if var == var else _NAN
        if len(classes) == 2 and auc == auc:    # the window's variance and interval
            var = self._window_variance(auc, classes)
            low, high = logit_interval(auc, math.sqrt(var) if var == var else _NAN,
                                       self.level)
        if (ref is not None and len(classes) == 2 and len(ref.labels) == 2
                and set(classes) <= set(ref.labels) and n >= self.min_window):
            ref_var = ref.hm_var if self.test == "hanley-mcneil" else ref.delong_var
            comp = auc_drop_test(auc, var, ref_auc, ref_var)
            z, p, se = comp.z, comp.p_value, comp.se
            alert = bool(p < self.alpha)
            lo, hi = sorted(classes)
            drop = detectable_drop(ref_auc, ref_var, auc, var, classes[hi][1],
                                   classes[lo][1], self.alpha)
            if self.detect_drop is not None:
                needed = labels_to_detect(self.detect_drop, ref_auc, ref_var, auc, var,
                                          classes[hi][1], classes[lo][1], self.alpha)
        if _ordinal.applies(classes, ref):      # a third label: the concordance test
            low, high, ref_se, z, p, se, alert = _ordinal.ordinal_test(
                auc, n, classes, self.columns, ref, self.level, self.min_window, self.alpha)
        if self._drift_since_report:        # the detector fired since the previous report
            drift, self._drift_since_report = True, False
        est, est_labeled = (_NAN, _NAN) if not self.estimate else (
            e.auc_or(_NAN) for e in self._est[:2])  # (fed by _fresh_counts above)
        shift = self._score_shift()
        score_alert = bool(shift.p_value < self.alpha)
        alert = alert or score_alert and self.score_alert
        r = Report(self.stats["events"], self._clock, n, len(self._win) - n, counts, auc,
                   ref_auc, z, p, alert, drift, se, ref_se,
                   "auc" if binary else "concordance", low, high, self.stats["dropped"],
                   self.stats["unmatched"], est, est_labeled, drop, needed, *shift,
                   score_alert)
        self.history.append(r)              # a bounded deque: O(1), the oldest drops
        self.stats["reports"] += 1
        if alert or drift:
            self.stats["alerts"] += 1
            self.alerts.append(r)
        return r

    def _score_shift(self) -> ScoreShift:
        """The window's scores against the scores' reference (`ScoreShift`: all nan
        until it freezes), from its bins (fed by `_fresh_counts`); as the AUC's, the tests
        need ``min_window`` predictions a side (else their p-values are nan). ``O(R)``."""
        if self._sref is None:
            return ScoreShift()
        shift = self._sref.read(self._est[2])
        if min(len(self._win), len(self._sref)) < self.min_window:     # no test yet
            shift = ScoreShift(shift.shift, shift.se, _NAN, shift.ks, _NAN)
        return shift

    def _window_variance(self, auc: float, classes: dict) -> float:
        """The variance of the window's AUC (two classes held) by the ``test`` method:
        Hanley-McNeil's from the class weights, O(1) (nan for a class of weight at most
        1, as DeLong's); DeLong's from the engine's
        placement moments (O(1)), or, with fractional weights or the dominance counter,
        from the window's placements (``O(W log W)``)."""
        lo, hi = sorted(classes)
        if self.test == "hanley-mcneil":            # nan for a class of weight <= 1,
            w1, w0 = classes[hi][1], classes[lo][1]  # as in streamrank.roc_auc_ci
            return hanley_mcneil_variance(auc, w1, w0) if w1 > 1 and w0 > 1 else _NAN
        var = _engine_ci.delong_window_variance(self._engine)
        if var is not None:
            return var
        y, s, w = self.columns()
        keep = w > 0                            # zero weight == absent (frequency weights)
        y, s, w = y[keep], s[keep], w[keep]
        pos = y == hi                           # the values are finite already
        unit = bool((w == 1).all())
        if not pos.any() or pos.all():          # a class of zero weight only
            return _NAN
        return _delong(s[pos], None if unit else w[pos], s[~pos],
                       None if unit else w[~pos])[1]

    def _check_invariants(self) -> None:
        """`Monitor._check`: the invariants of the window, the engine, the reference store
        and the join."""
        self._fresh_counts()  # a read recounts a stale engine, as a user's would
        win = self._win
        win._check()
        items = win.items()
        keys = [e[0] for e in items]
        assert len(keys) == len(set(keys)) == len(win.store) and None not in keys
        if self.period is None:
            assert len(win) <= self.window
        else:
            ts = [e[1] for e in items]
            assert ts == sorted(ts)
            if ts:
                assert ts[0] > self._clock - self.period, (ts[0], self._clock)
        assert self._ref is None or not (self._ref_store or self._ref_left)
        assert set(self._ref_store) <= set(keys)
        labeled = [(y, w) for _, _, y, _, w in items if y == y]
        assert len(labeled) == len(self._engine) == win.n_labeled
        tally: dict = {}
        for y, w in labeled:
            c = tally.setdefault(y, [0, 0])
            c[0] += 1
            c[1] += w
        classes = win.classes
        assert {y: c[0] for y, c in tally.items()} == {y: c[0] for y, c in classes.items()}
        total = sum(c[1] for c in tally.values())
        for y, c in tally.items():
            assert math.isclose(c[1], classes[y][1], rel_tol=1e-9, abs_tol=1e-9 * total)
        self._engine._check(*self.columns())
        if self.estimate:                   # the estimates: every prediction, the labeled
            for est, labeled in zip(self._est, (False, True)):
                est._check(*estimate_rows(*win.columns(labeled)))
        if self._sref is not None:          # the score drift's bins: the window's scores
            self._est[2]._check(*win.columns(labeled=False)[1:])
        assert (self._est is not None and self._est[2] is not None) == (
            self._sref is not None)
        self._check_join(set(keys))
