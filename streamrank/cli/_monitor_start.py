"""What a ``streamrank monitor`` run starts from: a monitor built from the options, or
the one of a ``--checkpoint`` being resumed, with the ways this run's options differ from
the checkpoint's (`streamrank.cli._monitor_input._option_differences`; the command refuses
them unless ``--force-resume``)."""

from __future__ import annotations

import os

import click

from ..monitor import Monitor, PairedMonitor, SegmentedMonitor
from ..monitor.checkpoint import check_meta, load_checkpoint
from ..monitor.table import shape_of
from ._monitor_input import _note, _option_differences, as_typed

__all__ = ["alerts_on", "start_monitor"]

#: The command's options that are a `Monitor` setting of the same name (``score_alert``:
#: ``--alert-on score-shift``, `alerts_on`).
_SETTINGS = ("window", "period", "reference", "test", "alpha", "detector", "labels",
             "min_window", "max_history", "detector_signal", "estimate", "detect_drop",
             "score_drift", "score_reference", "score_alert")


def alerts_on(ctx, given, alert_on, challenger_col) -> None:
    """``--alert-on``'s values (a tuple) into the run's settings: ``alert_on`` the paired
    test's direction (``both`` when none is given), ``score_alert`` whether
    ``score-shift`` is; ``given`` then holds each of them only when given. A direction
    without ``--challenger-score``, two directions, or ``score-shift`` without
    ``--score-drift`` is a usage error."""
    directions = sorted(set(alert_on) - {"score-shift"})
    if len(directions) > 1:
        raise click.UsageError("--alert-on: one of worse, better and both (the paired "
                               f"test's direction); got {' and '.join(directions)}.")
    if directions and challenger_col is None:
        raise click.UsageError(f"--alert-on {directions[0]} needs --challenger-score "
                               "COLUMN.")
    score_alert = "score-shift" in alert_on
    if score_alert and not ctx.params["score_drift"]:
        raise click.UsageError("--alert-on score-shift needs --score-drift.")
    ctx.params["alert_on"] = directions[0] if directions else "both"
    ctx.params["score_alert"] = score_alert
    if not directions:
        given.discard("alert_on")
    if score_alert:
        given.add("score_alert")


def start_monitor(ctx, given, resume):
    """``(meta, monitor, differences, every, segment_col)``: the checkpoint's metadata
    (None for a fresh run) and its monitor, or a new one of the options' shape (one
    window, a challenger, segments); the differences found so far; ``--every`` and
    ``--segment`` as the run goes on with them (a resumed run keeps its checkpoint's
    unless given). A bad option is a usage error."""
    p = ctx.params
    checkpoint, every, segment_col = p["checkpoint"], p["every"], p["segment_col"]
    if resume and os.path.exists(checkpoint):
        meta, mon = load_checkpoint(checkpoint)
        check_meta(meta, checkpoint)
        segmented = shape_of(mon).segmented
        differences = _option_differences(ctx, given, mon.template() if segmented else mon,
                                          p["period"], meta, every)
        differences += segment_differences(given, p, mon, meta)
        if segmented and segment_col is None:   # --force-resume: the checkpoint's
            segment_col = (meta.get("columns") or {}).get("segment")
        elif segment_col is not None and not segmented and p["force_resume"]:
            raise click.UsageError("--segment: the checkpoint's monitor has one window; it "
                                   "cannot be resumed with segments.")
        if "every" in meta and "every" not in given:
            every = meta["every"]
        return meta, mon, differences, every, segment_col
    if resume:
        _note(f"no checkpoint at {checkpoint} yet; starting from the beginning.")
    settings = {name: p[name] for name in _SETTINGS}
    if p["label_wait"] is not None:
        settings.update(p["label_wait"].kwargs())
    alert_on = None if p["challenger_col"] is None else p["alert_on"]
    if segment_col is not None:
        return None, make_monitor(p["max_segments"], p["correction"], alert_on=alert_on,
                                  **settings), [], every, segment_col
    try:
        mon = Monitor(**settings) if alert_on is None else \
            PairedMonitor(**settings, alert_on=alert_on)
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None
    return None, mon, [], every, segment_col


def make_monitor(max_segments, correction, alert_on=None, **options):
    """The `SegmentedMonitor` of a fresh run, of `PairedMonitor` units with ``alert_on``
    (``--challenger-score``); a bad option is a usage error."""
    try:
        if alert_on is None:
            return SegmentedMonitor(max_segments=max_segments, correction=correction,
                                    **options)
        return SegmentedMonitor(max_segments=max_segments, correction=correction,
                                factory=lambda: PairedMonitor(**options,
                                                              alert_on=alert_on))
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None


def segment_differences(given, params, mon, meta) -> list:
    """How ``--segment``, ``--max-segments`` and ``--correction`` given on the command
    line differ from the checkpoint's run (``mon`` its monitor)."""
    segmented = shape_of(mon).segmented   # (--segment left out: the checkpoint's)
    out = []
    if params["segment_col"] is not None and not segmented:
        out.append(f"--segment {params['segment_col']!r}: the checkpoint's monitor has "
                   "one window (no segments)")
    for name in ("max_segments", "correction"):
        if name in given and not segmented:
            out.append(f"--{name.replace('_', '-')} {params[name]}: the checkpoint's "
                       "monitor has one window (no segments)")
    if segmented:
        for name in ("max_segments", "correction"):
            if name in given and params[name] != getattr(mon, name):
                out.append(f"{as_typed(name, params[name])}: the checkpoint's run has "
                           f"{as_typed(name, getattr(mon, name))} (which a resumed run "
                           "keeps)")
    return out
