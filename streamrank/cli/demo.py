"""``streamrank demo``: the showcase, on data that ships with the installed packages."""

from __future__ import annotations

import time

import click

__all__ = ["demo"]


@click.command()
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timing repeats per metric (the median is shown).")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def demo(repeats, no_progress):
    """Learn River's bundled Phishing stream online and compare every metric with its peer."""
    from ..demo import compare_metrics, format_table, phishing_predictions
    from ..pairs import pair_counts

    t0 = time.perf_counter()
    y, p = phishing_predictions(progress=not no_progress)
    click.echo(f"River LogisticRegression, progressive validation on Phishing: {y.size} "
               f"predictions ({time.perf_counter() - t0:.1f} s)\n")
    pc = pair_counts(y, p)
    click.echo(f"pairs: concordant={pc.concordant} discordant={pc.discordant} "
               f"tied_score={pc.tied_score} comparable={pc.comparable} "
               f"tied_label={pc.tied_label} total={pc.total}\n")
    click.echo(format_table(compare_metrics(y, p, repeats=repeats)))
