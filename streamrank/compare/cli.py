"""``streamrank compare``: GSD comparison of models in a CSV file, from the command line.

The command object is ``compare``; the main ``streamrank`` group registers it. Exit codes: 0
success, 2 usage or input error (click's convention), with the message of the validation
error on stderr.
"""

from __future__ import annotations

import csv

import click

from ._front import gsd_front
from ._permutation import gsd_test
from ._table import Metric, cardinal, ordinal, performance_table

__all__ = ["compare", "parse_metric"]

_DIRECTION_WORDS = ("larger", "smaller")


def parse_metric(spec: str, scale: str) -> Metric:
    """A metric from its command-line spec.

    Cardinal: ``NAME[:larger|smaller]``. Ordinal: ``NAME[:larger|smaller][:BINS]`` to cut
    a numeric column into quantile bins, or ``NAME[:larger|smaller][:WORST<...<BEST]`` for
    a column of labels (listed worst to best when larger is better).

    >>> parse_metric("acc", "cardinal")
    cardinal('acc', direction='larger')
    >>> parse_metric("train_time:smaller:10", "ordinal")
    ordinal('train_time', direction='smaller', bins=10)
    >>> parse_metric("grade:low<mid<high", "ordinal")
    ordinal('grade', direction='larger', categories=('low', 'mid', 'high'))
    """
    parts = spec.split(":")
    direction, bins, categories = "larger", None, None
    while len(parts) > 1:
        last = parts[-1]
        if last in _DIRECTION_WORDS:
            direction = last
        elif scale == "ordinal" and last.isdigit():
            bins = int(last)
        elif scale == "ordinal" and "<" in last:
            categories = last.split("<")
        else:
            break
        parts.pop()
    name = ":".join(parts)
    if scale == "cardinal":
        return cardinal(name, direction)
    return ordinal(name, direction, bins=bins, categories=categories)


def _read_csv(path: str, delimiter: str) -> dict:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise click.UsageError(f"{path} is empty: expected a header row and data rows.")
        cols = {h: [] for h in header}
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise click.UsageError(f"{path}, line {lineno}: {len(row)} fields, expected "
                                       f"{len(header)} as in the header.")
            for h, v in zip(header, row):
                cols[h].append(v)
    return cols


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated ints >= 0, got {text!r}.",
                                 param_hint="'--contamination'") from None
    if not ks or min(ks) < 0:
        raise click.BadParameter(f"expected comma-separated ints >= 0, got {text!r}.",
                                 param_hint="'--contamination'")
    return ks


def _relation_table(front) -> str:
    names = [str(m) for m in front.models]
    w = max(8, *(len(n) for n in names))
    lines = [" " * w + "".join(f"{n:>{w + 1}}" for n in names)]
    for i, n in enumerate(names):
        cells = "".join(f"{'.':>{w + 1}}" if i == j else f"{front.d[i, j]:>{w + 1}.4f}"
                        for j in range(len(names)))
        lines.append(f"{n:<{w}}{cells}")
    return "\n".join(lines)


@click.command("compare")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--model-col", default="model", show_default=True, help="Column of model names.")
@click.option("--dataset-col", default="dataset", show_default=True,
              help="Column of data set (or time window) labels.")
@click.option("--cardinal", "cardinals", multiple=True, metavar="NAME[:larger|smaller]",
              help="A cardinal metric column (repeatable).")
@click.option("--ordinal", "ordinals", multiple=True,
              metavar="NAME[:larger|smaller][:BINS|:WORST<...<BEST]",
              help="An ordinal metric column (repeatable); BINS cuts it into pooled quantile bins.")
@click.option("--model", "model", default=None,
              help="Model of interest: test whether it is in the GSD front.")
@click.option("--competitor", "competitors", multiple=True,
              help="Competitor for the test (repeatable; default: all other models).")
@click.option("--epsilon", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Regularisation: margin epsilon * xi on every strict row.")
@click.option("--permutations", "-B", type=click.IntRange(min=1), default=1000,
              show_default=True, help="Re-splits per pairwise test.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Random seed.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True)
@click.option("--bonferroni", is_flag=True, help="Test each pair at alpha / #competitors.")
@click.option("--contamination", default="0", show_default=True, metavar="K[,K...]",
              help="Numbers of contaminated data sets for robustified p-values.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Worker processes for the permutations (-1: all cores).")
@click.option("--progress/--no-progress", default=False, show_default=True,
              help="Progress bar over the permutations (stderr).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Save the dominance graph and permutation distributions (e.g. out.png).")
@click.option("--delimiter", default=",", show_default=True, help="CSV field delimiter.")
def compare(file, model_col, dataset_col, cardinals, ordinals, model, competitors, epsilon,
            permutations, seed, alpha, bonferroni, contamination, n_jobs, progress, plot_path,
            delimiter):
    """Compare the models of FILE (one row per model and data set) by generalized
    stochastic dominance: empirical relation, GSD front and Pareto front, and with --model
    the permutation test of that model's membership in the GSD front.

    Example: streamrank compare results.csv --cardinal acc --ordinal train_time:smaller:10
    --model SVM --permutations 1000 --seed 0 --plot gsd.png
    """
    if not cardinals and not ordinals:
        raise click.UsageError("Declare at least one metric with --cardinal or --ordinal.")
    ks = _parse_ks(contamination)
    try:
        metrics = [parse_metric(s, "cardinal") for s in cardinals] + \
                  [parse_metric(s, "ordinal") for s in ordinals]
        table = performance_table(_read_csv(file, delimiter), model=model_col,
                                  dataset=dataset_col, metrics=metrics)
        if model is not None:
            table._position(model, "compare", "--model")
        front = gsd_front(table, epsilon=epsilon)
        test = None
        if model is not None:
            test = gsd_test(table, model, competitors=list(competitors) or None,
                            permutations=permutations, seed=seed, alpha=alpha,
                            bonferroni=bonferroni, contamination=ks, epsilon=epsilon,
                            n_jobs=n_jobs, progress=progress)
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None

    echo = click.echo
    echo(f"{len(table.models)} models x {len(table.datasets)} data sets; metrics: "
         + ", ".join(repr(m) for m in table.metrics))
    echo(f"\nEmpirical GSD relation (epsilon={epsilon:g}): "
         "d[row, col] = min_u E[u(row)] - E[u(col)]; row dominates col iff d >= 0")
    echo(_relation_table(front))
    edges = ", ".join(f"{a} > {b}" for a, b in front.edges) or "none"
    echo(f"\nStrict dominances: {edges}")
    echo("GSD front:    " + ", ".join(map(str, front.front)))
    echo("Pareto front: " + ", ".join(map(str, front.pareto_front)))
    if test is not None:
        echo(f"\nPermutation tests of H0 'competitor dominates {test.model}' "
             f"(B={test.permutations}, seed={test.seed}, level={test.level:.4g}"
             + (", Bonferroni" if test.bonferroni else "") + ")")
        w = max(10, *(len(str(t.competitor)) for t in test.tests))
        robust_ks = [k for k in test.contamination if k != 0]
        head = f"{'competitor':<{w}}  statistic  p_value  rejected" + \
            "".join(f"  p(k={k})" for k in robust_ks)
        echo(head)
        for t in test.tests:
            echo(f"{str(t.competitor):<{w}}  {t.statistic:9.4f}  {t.p_value:7.4f}  "
                 f"{'yes' if t.rejected else 'no':>8}"
                 + "".join(f"  {t.robust_p_values[k]:6.4f}" for k in robust_ks))
        verdict = "is" if test.in_front else "is NOT shown to be"
        echo(f"Decision: {test.model} {verdict} in the GSD front at level {test.alpha:g}"
             + (" (Bonferroni)" if test.bonferroni else "") + ".")
        for k in robust_ks:
            echo(f"  with up to {k} contaminated data sets: "
                 + ("in front" if test.robust_in_front(k) else "not shown"))
    if plot_path is not None:
        from ..plot import plot_comparison

        plot_comparison(front, test, path=plot_path)
        echo(f"\nPlot written to {plot_path}")

if __name__ == "__main__":  # pragma: no cover
    compare()
