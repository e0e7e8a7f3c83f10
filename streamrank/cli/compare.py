"""``streamrank compare``: compare the models of a file by generalized stochastic dominance.

The command object is ``compare``; the main ``streamrank`` group registers it. This module
parses the options and prints; the file is read by `read_performance_table` (the readers
of ``streamrank eval``), the results come from `gsd_front` and `gsd_test` and are turned
into records by `streamrank.cli._compare_output`.

Output (``--format``, as for ``streamrank eval``): ``table``, the sections for a terminal,
their tables at most 100 characters wide (a relation too wide for that numbers the models
and comes in blocks of columns; the robust p-values of the largest contaminations may be
left out of the tests' table, whose lines below give every decision);
``json``, one JSON object (`comparison_report`; a non-finite number is the string
``"nan"``, ``"inf"`` or ``"-inf"``); ``csv``,
one line per ordered pair of models (`csv_records`). Exit codes: 0 success, 2 a usage or
input error, whose message names the option, or the file, line, row, column and value.
"""

from __future__ import annotations

import click

from ..compare._front import gsd_front
from ..compare._permutation import gsd_test
from ..compare._read import read_performance_table
from ..compare._table import Metric, cardinal, ordinal
from ._common import (TABLE_WIDTH, _cut, check_output_folder, format_option, format_records,
                      read_error, table_text)
from ._compare_output import comparison_report, competitor_records, csv_records

__all__ = ["compare", "parse_metric"]

_DIRECTION_WORDS = ("larger", "smaller")
_INPUT_FORMATS = ("csv", "tsv", "parquet", "jsonl")


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


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        ks = []
    if not ks or min(ks) < 0:
        raise click.BadParameter(f"expected comma-separated ints >= 0, got {text!r}.",
                                 param_hint="'--contamination'")
    return ks


def _input_format(input_format, delimiter):
    """``--input-format``, or the format of the older ``--delimiter`` (comma or tab)."""
    if delimiter is None:
        return input_format
    by_delimiter = {",": "csv", "\t": "tsv", "\\t": "tsv", "tab": "tsv"}
    if delimiter not in by_delimiter:
        raise click.BadParameter(f"expected ',' or a tab ('\\t'), got {delimiter!r}; other "
                                 "delimiters are not read.", param_hint="'--delimiter'")
    if input_format is not None and input_format != by_delimiter[delimiter]:
        raise click.UsageError(f"--delimiter {delimiter!r} and --input-format "
                               f"{input_format} disagree: give one of them.")
    return by_delimiter[delimiter]


def _label(table, text):
    """The table's model label written ``text`` on the command line (labels read as
    numbers are ints), else ``text`` itself (the library's error then lists the labels)."""
    return next((m for m in table.models if str(m) == text), text)


def _relation_table(front, width: int = TABLE_WIDTH) -> str:
    """The relation ``d[row, col]`` as a matrix, rows and columns titled by the models'
    names; when that is wider than ``width`` characters, the models are numbered (the
    rows ``1 name``, a long name cut with an ellipsis; the columns ``1``, ``2``, ...) and
    the columns come in blocks that fit, one under the other. (JSON and CSV hold every
    value under the whole names.)"""
    names = [str(m) for m in front.models]
    k = len(names)

    def cell(i, j, w):
        return f"{'.':>{w}}" if i == j else f"{front.d[i, j]:>{w}.4f}"

    w = max(8, *(len(n) for n in names))
    if (k + 1) * (w + 1) - 1 <= width:
        lines = [" " * w + "".join(f"{n:>{w + 1}}" for n in names)]
        lines += [f"{n:<{w}}" + "".join(cell(i, j, w + 1) for j in range(k))
                  for i, n in enumerate(names)]
        return "\n".join(lines)
    rows = [f"{i + 1:>{len(str(k))}} {_cut(n, 24, middle=True)}"
            for i, n in enumerate(names)]
    label = max(len(r) for r in rows)
    cw = max(7, len(str(k)))        # "-0.1234"
    per = max(1, (width - label) // (cw + 2))
    blocks = []
    for start in range(0, k, per):
        cols = range(start, min(k, start + per))
        lines = [" " * label + "".join(f"{j + 1:>{cw + 2}}" for j in cols)]
        lines += [f"{r:<{label}}" + "".join(cell(i, j, cw + 2) for j in cols)
                  for i, r in enumerate(rows)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _wrap(text: str, width: int = TABLE_WIDTH) -> str:
    """A line of prose as it is, or wrapped at ``width`` characters (continued with an
    indent of 2) when longer."""
    import textwrap

    if len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent="  ",
                                    break_long_words=False, break_on_hyphens=False))


def _listing(title: str, items, width: int = TABLE_WIDTH) -> str:
    """``title`` and the comma-separated ``items`` on one line, wrapped at ``width``
    characters under the first item when longer.

    >>> print(_listing("GSD front:    ", ["a", "b"]))
    GSD front:    a, b
    >>> print(_listing("front: ", ["model_" + c for c in "abcd"], width=26))
    front: model_a, model_b,
           model_c, model_d
    """
    import textwrap

    text = title + ", ".join(items)
    if len(text) <= width:
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=" " * len(title),
                                    break_long_words=False, break_on_hyphens=False))


def _print_table(table, front, test) -> None:
    echo = click.echo
    echo(f"{len(table.models)} models x {len(table.datasets)} data sets; metrics: "
         + ", ".join(repr(m) for m in table.metrics))
    echo(f"\nEmpirical GSD relation (epsilon={front.epsilon:g}): "
         "d[row, col] = min_u E[u(row)] - E[u(col)]; row dominates col iff d >= 0")
    echo(_relation_table(front))
    edges = [f"{a} > {b}" for a, b in front.edges] or ["none"]
    echo("\n" + _listing("Strict dominances: ", edges))
    echo(_listing("GSD front:    ", map(str, front.front)))
    echo(_listing("Pareto front: ", map(str, front.pareto_front)))
    if test is None:
        return
    echo("\n" + _wrap(f"Permutation tests of H0 'competitor dominates {test.model}' "
                      f"(B={test.permutations}, seed={test.seed}, level={test.level:.4g}"
                      + (", Bonferroni" if test.bonferroni else "") + ")"))
    records = competitor_records(test)
    robust = [c for c in records[0] if c.startswith("p_value_k")]
    # a line of at most 100 characters: the robust p-values of the largest contaminations
    # left out if need be (JSON and CSV have them all; the lines below give every
    # contamination's decision), a long name cut in its middle
    echo(table_text(records, ["competitor", "statistic", "p_value", "rejected"] + robust,
                    drop=robust[::-1], middle=("competitor",), keep=24))
    verdict = "is" if test.in_front else "is NOT shown to be"
    echo(_wrap(f"Decision: {test.model} {verdict} in the GSD front at level {test.alpha:g}"
               + (" (Bonferroni)" if test.bonferroni else "") + "."))
    for k in test.contamination:
        if k != 0:
            echo(f"  with up to {k} contaminated data sets: "
                 + ("in front" if test.robust_in_front(k) else "not shown"))


_HELP = """Compare the models of FILE (one row per model and data set) by generalized
stochastic dominance: empirical relation, GSD front and Pareto front, and with --model
the permutation test of that model's membership in the GSD front.

\b
FILE is CSV, TSV, Parquet (a file or a directory), JSON lines, or .gz of the text
formats ("-" reads CSV from stdin); only the named columns are read. The tables fit
100 columns (many models: numbered, in blocks; long names cut short); --format
json|csv carry every value under the whole names. Exit codes: 0 ok, 2 a usage or
input error (the message names the file, the line, the row, the column and the value).

\b
Example:
  streamrank compare results.csv --cardinal acc --ordinal train_time:smaller:10
      --model SVM --permutations 1000 --seed 0 --format json
"""


@click.command("compare", help=_HELP)
@click.argument("file", type=click.Path(exists=True, allow_dash=True, dir_okay=True))
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
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Random seed of the re-splits (default: fresh, printed with the test).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Level of the test.")
@click.option("--bonferroni", is_flag=True, help="Test each pair at alpha / #competitors.")
@click.option("--contamination", default="0", show_default=True, metavar="K[,K...]",
              help="Numbers of contaminated data sets for robustified p-values.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Worker processes for the permutations (-1: all cores).")
@click.option("--progress/--no-progress", default=False, show_default=True,
              help="Progress bar over the permutations (stderr).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Save the dominance graph and permutation distributions (e.g. out.png).")
@click.option("--input-format", type=click.Choice(_INPUT_FORMATS), default=None,
              help="Format of FILE (default: from its name; CSV for '-').")
@format_option
@click.option("--delimiter", default=None, hidden=True,
              help="Older spelling of --input-format: ',' (csv) or a tab (tsv).")
def compare(file, model_col, dataset_col, cardinals, ordinals, model, competitors, epsilon,
            permutations, seed, alpha, bonferroni, contamination, n_jobs, progress, plot_path,
            input_format, fmt, delimiter):
    if not cardinals and not ordinals:
        raise click.UsageError("Declare at least one metric with --cardinal or --ordinal.")
    ks = _parse_ks(contamination)
    input_format = _input_format(input_format, delimiter)
    if plot_path is not None:
        check_output_folder(plot_path, "--plot")
    name = "<stdin>" if file == "-" else file
    from ..io.tables import TableError

    try:
        metrics = [parse_metric(s, "cardinal") for s in cardinals] + \
                  [parse_metric(s, "ordinal") for s in ordinals]
        table = read_performance_table(file, model=model_col, dataset=dataset_col,
                                       metrics=metrics, format=input_format, name=name)
    except (TableError, OSError) as exc:
        raise read_error(exc, name) from None
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None
    try:
        if model is not None:
            model = _label(table, model)
            table.index_of(model, "compare", "--model")
        front = gsd_front(table, epsilon=epsilon)
        test = None
        if model is not None:
            test = gsd_test(table, model,
                            competitors=[_label(table, c) for c in competitors] or None,
                            permutations=permutations, seed=seed, alpha=alpha,
                            bonferroni=bonferroni, contamination=ks, epsilon=epsilon,
                            n_jobs=n_jobs, progress=progress)
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None

    if fmt == "table":
        _print_table(table, front, test)
    elif fmt == "json":
        click.echo(format_records([comparison_report(table, front, test, file=name)], "json",
                                  single=True))
    else:
        click.echo(format_records(csv_records(front, test), "csv"))
    if plot_path is not None:
        from ..plot import plot_comparison

        plot_comparison(front, test, path=plot_path)
        if fmt == "table":
            click.echo(f"\nPlot written to {plot_path}")
        else:       # stdout holds the JSON or CSV only
            click.echo(f"Plot written to {plot_path}", err=True)


if __name__ == "__main__":  # pragma: no cover
    compare()
