"""``streamrank demo``: the showcase, on data that ships with the installed packages.

Three stages, each with a short header (`streamrank.cli.demo_run` has the pieces):

1. River's ``Phishing`` data set learnt online: the exact rolling AUC of the last 500
   predictions next to River's binned ``ROCAUC`` of the same window;
2. River's ``Sine`` stream with a concept drift at event 5,000: the same table, and when
   the monitor's alert fired (after the drift, never before it); River's ADWIN on the
   model's errors as a second alarm;
3. exactness: the monitor's counts against a recount at every report, River's largest
   binning error, and every batch metric next to scikit-learn, SciPy and lifelines.

Then a PNG of the drifting stream's AUC with the alerts (``--plot``,
`streamrank.plot.plot_run`). About 4 s on a 2-core machine, a third of it importing River
(which imports scikit-learn).
"""

from __future__ import annotations

import math
import os
import time

import click

from .._extras import require
from ._common import InputError, check_output_folder, progress_option

__all__ = ["demo"]

PHISHING_WINDOW, PHISHING_EVERY = 500, 50
DRIFT_EVENTS, DRIFT_AT, DRIFT_WINDOW, DRIFT_EVERY = 10_000, 5_000, 1_000, 100
ALPHA = 0.01


@click.command()
@click.option("--plot", "plot_path", default="streamrank-demo.png", show_default=True,
              type=click.Path(dir_okay=False, writable=True),
              help="Where to write the PNG of the drifting stream's AUC and alerts.")
@click.option("--no-plot", is_flag=True, help="Do not draw the plot.")
@click.option("--events", "events_path", default=None,
              type=click.Path(dir_okay=False, writable=True),
              help="Also write the drifting stream's predictions as an event log (CSV: id, "
                   "ts, score, label; each label arrives 25 predictions late) to replay with "
                   "'streamrank monitor'.")
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timing repeats per metric in the peer table (the median is shown).")
@progress_option
def demo(plot_path, no_plot, events_path, repeats, progress):
    """Learn River's bundled Phishing data and a drifting Sine stream online; watch the
    exact rolling AUC, the drift alert and every metric next to its peer.

    No download: the data ship with River. The plot's path is printed at the end.
    """
    require("river", "river", "streamrank demo")      # (its data and online models)
    if not no_plot:
        require("matplotlib", "plot", "streamrank demo's plot (or --no-plot)")
    from . import demo_run as d
    from ..batch.pairs import pair_counts

    t0 = time.perf_counter()
    if not no_plot:
        check_output_folder(plot_path, "--plot")
    if events_path is not None:
        check_output_folder(events_path, "--events")
    if progress is None:
        progress = click.get_text_stream("stderr").isatty()
    import river

    click.echo(f"streamrank demo: exact rank metrics of online models (River "
               f"{river.__version__}; the data ship with River)")

    # 1. Phishing ------------------------------------------------------------------------
    stream = d.phishing_stream()
    click.echo(f"\n[1/3] Phishing: {stream.n_samples:,} web pages learnt online by River's "
               f"StandardScaler | LogisticRegression")
    click.echo(f"      each page is scored before it is learnt; exact AUC of the last "
               f"{PHISHING_WINDOW} scores (Monitor)")
    click.echo("      next to River's ROCAUC of the same window; p-value: one-sided "
               "Hanley-McNeil test against")
    click.echo(f"      the first full window ('-' until there is one), alert when p < {ALPHA}")
    phish = d.monitor_stream(stream, n_events=stream.n_samples, window=PHISHING_WINDOW,
                             every=PHISHING_EVERY, alpha=ALPHA, progress=progress,
                             desc="Phishing")
    click.echo(_indent(d.format_checkpoints(phish, every=250)))
    pc = pair_counts(phish.y, phish.scores)
    alerts = ("no alert" if not phish.alert_events else
              f"alerts at events {', '.join(f'{e:,}' for e in phish.alert_events)}")
    click.echo(f"      all {phish.y.size:,} scores: AUC {pc.auc:.6f} = ({pc.concordant:,} "
               f"concordant + {pc.tied_score:,} tied / 2) / {pc.comparable:,} pairs; {alerts}")

    # 2. Concept drift -------------------------------------------------------------------
    click.echo(f"\n[2/3] Concept drift: River's Sine stream, {DRIFT_EVENTS:,} events, "
               f"switches from SINE1 to SINE2")
    click.echo(f"      at event {DRIFT_AT:,} (ConceptDriftStream); the same model cannot "
               f"follow the new, wavy boundary.")
    click.echo(f"      Exact AUC of the last {DRIFT_WINDOW:,} scores, a report every "
               f"{DRIFT_EVERY} events, same test")
    sine = d.monitor_stream(d.sine_drift_stream(DRIFT_AT), n_events=DRIFT_EVENTS,
                            window=DRIFT_WINDOW, every=DRIFT_EVERY, alpha=ALPHA,
                            drift_at=DRIFT_AT, progress=progress, desc="Sine drift")
    click.echo(_indent(d.format_checkpoints(sine, every=1_000)))
    click.echo(_indent(_drift_summary(sine)))

    # 3. Exactness -----------------------------------------------------------------------
    click.echo("\n[3/3] Exactness")
    n_reports = len(phish.reports) + len(sine.reports)
    n_equal = phish.recounts_equal + sine.recounts_equal
    verdict = f"at all {n_reports}" if n_equal == n_reports else \
        f"at only {n_equal} of {n_reports}"
    click.echo(f"      streamrank's counts equal a recount (pair_counts of the window) "
               f"{verdict} reports.")
    click.echo("      River's ROCAUC is a binned approximation (10 thresholds): "
               "max |exact - River| over full")
    click.echo(f"      windows = {phish.max_river_diff:.4f} (Phishing), "
               f"{sine.max_river_diff:.4f} (Sine).")
    click.echo("      Every batch metric of the Phishing scores, next to its peer:")
    click.echo(_indent(d.format_table(d.compare_metrics(phish.y, phish.scores,
                                                        repeats=repeats))))

    if not no_plot:
        from ..plot import plot_run

        title = f"streamrank demo: Sine stream, SINE1 -> SINE2 at event {DRIFT_AT:,}"
        try:
            plot_run(sine, plot_path, title=title)
        except OSError as exc:
            raise InputError(f"cannot write the plot to {plot_path}: {exc}") from exc
        click.echo(f"\nplot: {os.path.abspath(plot_path)}")
    if events_path is not None:
        try:
            rows = d.write_events(events_path, sine.y, sine.scores)
        except OSError as exc:
            raise InputError(f"cannot write the events to {events_path}: {exc}") from exc
        click.echo(f"events: {os.path.abspath(events_path)} ({rows:,} rows; replay them with "
                   f"'streamrank monitor {events_path} --time ts --period 1h')")
    click.echo(f"done in {time.perf_counter() - t0:.1f} s")


def _indent(text: str, prefix: str = "      ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _drift_summary(run) -> str:
    """"drift injected at event 5,000; alert raised at event 5,300 (p = 1e-06) ..."."""
    lines = []
    first = next((c for c in run.checkpoints if c.alert and c.events > run.drift_at), None)
    before = run.first_alert_before_drift
    if first is None:
        lines.append(f"drift injected at event {run.drift_at:,}; no alert raised")
    else:
        lines.append(f"drift injected at event {run.drift_at:,}; alert raised at event "
                     f"{first.events:,} (p = {_p(first.p_value)}), "
                     f"{first.events - run.drift_at:,} events later")
    lines.append("no alert before the drift" if before is None else
                 f"FALSE ALARM before the drift, at event {before:,}")
    after = [e for e in run.adwin_alarms if e > run.drift_at]
    early = [e for e in run.adwin_alarms if e <= run.drift_at]
    adwin = "second alarm, River's ADWIN on the model's 0/1 errors: " + (
        f"drift detected at event {after[0]:,}" if after else "no drift detected after it")
    if early:
        adwin += f" ({len(early)} before it, the first at event {early[0]:,})"
    lines.append(adwin)
    return "\n".join(lines)


def _p(p: float) -> str:
    return "nan" if math.isnan(p) else (f"{p:.2g}" if p >= 1e-3 else f"{p:.0e}")
