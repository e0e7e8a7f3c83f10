"""The ``streamrank`` command line (click). Exit codes: 0 ok, 1 alert raised, 2 usage or
input error."""

from __future__ import annotations

import time

import click

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="streamrank")
def main():
    """Exact rank metrics (AUC with ties, Kendall's tau, C-index, GAUC, ...) that stay exact
    while the data moves."""


@main.command()
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timing repeats per metric (the median is shown).")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def demo(repeats, no_progress):
    """Learn River's bundled Phishing stream online and compare every metric with its peer."""
    from .demo import compare_metrics, format_table, phishing_predictions
    from .pairs import pair_counts

    t0 = time.perf_counter()
    y, p = phishing_predictions(progress=not no_progress)
    click.echo(f"River LogisticRegression, progressive validation on Phishing: {y.size} "
               f"predictions ({time.perf_counter() - t0:.1f} s)\n")
    pc = pair_counts(y, p)
    click.echo(f"pairs: concordant={pc.concordant} discordant={pc.discordant} "
               f"tied_score={pc.tied_score} comparable={pc.comparable} "
               f"tied_label={pc.tied_label} total={pc.total}\n")
    click.echo(format_table(compare_metrics(y, p, repeats=repeats)))


def _register_compare():
    from .compare.cli import compare

    main.add_command(compare)


_register_compare()


if __name__ == "__main__":  # pragma: no cover - python -m streamrank.cli
    main()
