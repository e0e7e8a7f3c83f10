"""``streamrank epochs``: exact pair counts, AUC / Kendall's tau and churn, epoch by epoch.

A model under training scores the same labelled items after every epoch; each epoch's scores
are one file (CSV, TSV, Parquet or JSON lines, by extension; see `streamrank.io.tables`). For
every epoch the command prints, exactly, the record of `streamrank.epochs.summarize_epochs`
(its docstring defines every column): ``epoch`` (in the order the files are taken,
``--order``), ``file``, the pair counts ``concordant`` ``C``, ``discordant`` ``D`` and
``tied_score`` ``T``; ``auc`` ``(C + T/2) / (C + D + T)`` for binary labels, else
``c_index`` and Kendall's ``tau_b``; ``d_auc`` (``d_c_index``), the change since the epoch
before; ``right_wrong``, the ratio ``(C + T) / (D + T)`` of pairs ranked right to pairs
ranked wrong (infinite when ``D + T = 0``: ``inf`` in the table and CSV, the string
``"inf"`` in JSON); ``changed``, the items whose score moved; ``churn``, the pairs whose score order
flipped strictly since the epoch before, and ``churn_rate``, that share of all pairs.

The first epoch has no ``d_auc``, ``changed`` or ``churn`` (``nan`` in the table and
CSV, the string ``"nan"`` in JSON). ``--format json`` prints one object: the summary (``items``,
``label_levels``, ``metric``, ``comparable_pairs``, ``best_epoch``, ``rows_skipped`` per
file, ``dropped_items``, ``first_errors``, ...) and the records under ``epochs``; ``--format
csv`` prints only the records: every column, whole paths. ``--format table`` fits 100
columns: the pair counts titled ``C``, ``D``, ``T``, the metrics to 6 decimals, ratios to
4 digits, each file by its name (cut in its middle when long) and, with counts too large
for the line, ``changed``, ``churn``, ``tied_score``, ``right_wrong`` left out in that
order. With ``table`` and ``csv`` the rows skipped go to stderr.
With ``--weight`` (a column of the label file) every pair weighs ``w_i * w_j`` and the
counts are float sums.

Labels and weights are fixed: they are read once, from ``--labels`` (default: the first
epoch file). Every epoch file holds one score per labelled item. With ``--id`` items are
matched by id (rows may come in any order; a missing, unknown or repeated id is an error
naming the file and the id); without it, by row position (every file needs as many rows
as the label file).

The epochs run through one `streamrank.EpochTracker`, incrementally where at most 1% of
the scores changed. The *best epoch* is the first epoch with the highest ``auc``
(``c_index``); with ``--patience N`` the command also replays the usual early stopping
rule (Keras' ``EarlyStopping(mode="max", patience=N, min_delta=0)``). Both are hindsight
figures on the data given (`streamrank.epochs.summarize_epochs` says how they are computed
and what they mean). The files' reading and alignment to the labels are in
`streamrank.cli._epoch_files`.

Bad input (``--on-error``). ``fail`` (default) stops at the first bad row with exit code 2
and a message naming the file, line, row, column and value. ``skip`` drops the item of a bad row
from *every* epoch, so that all epochs still rank the same items: a bad label or weight
removes the item; a bad or missing score in any epoch file removes it from all epochs (for
that the files are read twice, the aligned scores kept in memory in between while they fit
in 256 MiB). Rows skipped per file and items dropped are reported in the summary. A row the
reader cannot parse (a malformed line, a non-numeric value) is gone with its id, so it is
matched through the ids: a file may lack at most as many ids as it has unreadable rows, and
hold at most as many unknown ids as the label file has. Without ``--id`` such rows cannot
be matched by position, which is an error (NaN and infinite values are no problem: they
keep their row). Repeated ids are always an error.

Examples
--------
>>> import os, tempfile
>>> from click.testing import CliRunner
>>> from streamrank.cli import main
>>> d = tempfile.mkdtemp()
>>> for name, text in {"labels.csv": "id,y\\na,0\\nb,0\\nc,1\\nd,1\\n",
...                    "ep1.csv": "id,p\\na,0.2\\nb,0.6\\nc,0.6\\nd,0.3\\n",
...                    "ep2.csv": "id,p\\nd,0.9\\nc,0.6\\nb,0.6\\na,0.2\\n"}.items():
...     with open(os.path.join(d, name), "w") as f:
...         _ = f.write(text)
>>> result = CliRunner().invoke(main, ["epochs", os.path.join(d, "ep1.csv"),
...     os.path.join(d, "ep2.csv"), "--labels", os.path.join(d, "labels.csv"),
...     "--label", "y", "--score", "p", "--id", "id", "--format", "csv"])
>>> print(result.output.replace(d + os.sep, "").strip())
epoch,file,concordant,discordant,tied_score,auc,d_auc,right_wrong,changed,churn,churn_rate
1,ep1.csv,2,1,1,0.625,,1.5,,,
2,ep2.csv,3,0,1,0.875,0.25,4.0,1,2,0.3333333333333333
"""

from __future__ import annotations

import json
import sys

import click

from ..epochs import natural_key, summarize_epochs
from ._common import (
    InputError,
    check_distinct_columns,
    check_output_folder,
    format_option,
    format_records,
    on_error_option,
    progress_option,
)
from ._epoch_files import Items, Skips, aligned_epochs, collect, load_labels

__all__ = ["epochs"]


# ---------------------------------------------------------------------- the command
def _progress_wrapper(enabled, desc, total):
    if not enabled:
        return None
    from tqdm import tqdm

    return lambda it: tqdm(it, desc=desc, total=total, unit="epoch", file=sys.stderr,
                           leave=False)


def _render_table(report, label_file) -> str:
    metric = report["metric"]
    name = "AUC" if metric == "auc" else "C-index"
    n_epochs = len(report["epochs"])
    head = (f"{_plural(n_epochs, 'epoch')}, {_plural(report['items'], 'item')}, labels "
            f"from {label_file} "
            f"({_plural(report['label_levels'], 'label level')}), "
            f"{_count(report['comparable_pairs'])} comparable pairs of "
            f"{_count(report['total_pairs'])}" + (", weighted" if report["weighted"]
                                                     else ""))
    lines = [*_wrap(head), ""]
    lines.append(_epoch_table(report["epochs"]))
    lines.append("C, D, T: concordant, discordant, tied-score pairs (every column, whole "
                 "paths: --format json|csv)")
    lines.append("")
    lines.extend(_summary_lines(report, name))
    return "\n".join(lines)


#: The table's titles of the records' columns that have a shorter one.
_TITLES = {"concordant": "C", "discordant": "D", "tied_score": "T"}
#: The columns the table leaves out, in this order, when its lines would pass 100
#: characters (large counts); JSON and CSV have them all.
_DROP = ("changed", "churn", "tied_score", "right_wrong")


def _epoch_table(records) -> str:
    """The epochs as a table of at most 100 characters a line: short titles for the pair
    counts, the metrics to 6 decimals (their change signed), ratios to 4 digits; the
    files by their names (their paths when two names are the same), a long one cut in
    its middle, and the columns of `_DROP` left out if it still does not fit."""
    import os

    from ._common import table_text

    names = [os.path.basename(r["file"]) for r in records if r.get("file") is not None]
    if len(set(names)) == len(records):
        records = [dict(r, file=name) for r, name in zip(records, names)]

    def fixed(spec):
        return lambda v: "-" if v is None else ("nan" if v != v else format(v, spec))

    formats = {k: fixed(".6f") for k in ("auc", "c_index", "tau_b")}
    formats.update({k: fixed("+.6f") for k in ("d_auc", "d_c_index")})
    formats.update({k: fixed(".4g") for k in ("right_wrong", "churn_rate")})
    columns = list(records[0]) if records else []
    return table_text(records, columns, headers=_TITLES, formats=formats, drop=_DROP,
                      middle=("file",), right_titles=True)


def _wrap(text, width=100) -> list:
    """A line of prose wrapped at ``width`` characters (continued with an indent)."""
    import textwrap

    return textwrap.wrap(text, width, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False) or [""]


def _count(value) -> str:
    """An exact integer count as is, a weighted (float) one to 6 significant digits."""
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def _plural(count, noun) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _summary_lines(report, name) -> list:
    """The best epoch and the early-stopping hint."""
    metric = report["metric"]
    out = []
    best = report["best_epoch"]
    if best is None:
        out.append(f"best epoch: none ({name} is undefined: the labels have one level)")
    else:
        value = report["epochs"][best - 1][metric]
        out.append(f"best epoch: {best} ({name} {value:.6g}; the first epoch with the "
                   "highest value)")
    if report["patience"] is not None:
        if report["stop_epoch"] is None:
            out.append(f"early stopping (patience {report['patience']}): would not have "
                       "stopped within these epochs")
        else:
            out.append(f"early stopping (patience {report['patience']}): stops after epoch "
                       f"{report['stop_epoch']}, keeps epoch {report['keep_epoch']}")
    return out


def _skip_lines(skips, dropped) -> list:
    """Rows skipped per file, items dropped, the first messages (``--on-error skip``)."""
    if not (skips.rows or dropped):
        return []
    per_file = ", ".join(f"{f}: {c}" for f, c in skips.rows.items())
    return [f"skipped rows: {sum(skips.rows.values())} ({per_file}); items dropped from "
            f"every epoch: {dropped}"] + [f"  {note}" for note in skips.notes]


def _check_columns(label_col, weight_col, id_col, score_col, own_labels):
    """Each option names a column of its own in the file that holds it: the label file
    has --label, --weight, --id (and --score when it is the first epoch file), every
    epoch file --score and --id."""
    groups = [{"--label": label_col, "--weight": weight_col, "--id": id_col},
              {"--score": score_col, "--id": id_col}]
    if own_labels:
        groups[0]["--score"] = score_col
    for options in groups:
        check_distinct_columns(options)


@click.command("epochs")
@click.argument("epoch_files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--labels", "label_file", type=click.Path(exists=True, dir_okay=False),
              default=None,
              help="File with the labels (and the --id, --weight columns). Default: the "
                   "first epoch file (after --order).")
@click.option("--label", "label_col", required=True, help="Label column (numeric).")
@click.option("--score", "score_col", required=True,
              help="Score column of every epoch file (higher = ranked higher).")
@click.option("--id", "id_col", default=None,
              help="Id column: match items by id in every file (rows in any order). "
                   "Default: match by row position.")
@click.option("--weight", "weight_col", default=None,
              help="Weight column of the label file (positive; a pair weighs w_i * w_j).")
@click.option("--order", type=click.Choice(["natural", "given"]), default="natural",
              show_default=True,
              help="Epoch order: 'natural' sorts the file names comparing numbers as numbers "
                   "(epoch_2 before epoch_10, which a shell glob gets wrong); 'given' keeps "
                   "the command-line order.")
@click.option("--patience", type=click.IntRange(min=1), default=None,
              help="Also replay early stopping with this patience: the epoch where training "
                   "would stop and the epoch it would keep.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write a PNG: AUC (or C-index and tau-b), the right/wrong ratio and the "
                   "churn per epoch.")
@format_option
@on_error_option
@progress_option
def epochs(epoch_files, label_file, label_col, score_col, id_col, weight_col, order,
           patience, plot_path, fmt, on_error, progress):
    """Exact pair counts, AUC (binary labels) or C-index and Kendall's tau-b (other labels),
    the right/wrong ratio (C+T)/(D+T) and the churn (pairs whose order flipped) of one score
    file per training epoch over the same labelled items.

    EPOCH_FILES are CSV, Parquet or JSON-lines files, one per epoch. With --on-error skip, a
    bad row drops its item from every epoch (reported), so that all epochs rank the same
    items. The table fits 100 columns (C, D, T for the pair counts, file names cut short,
    with large counts some columns left out); --format json|csv carry every column.

    Example: streamrank epochs run/epoch_*.csv --labels val.csv --label y --score p
    --id item --plot epochs.png (the shell expands the glob; --order natural puts
    epoch_10 after epoch_9).
    """
    files = list(epoch_files)
    own_labels = label_file is None
    _check_columns(label_col, weight_col, id_col, score_col, own_labels)
    if plot_path is not None:
        check_output_folder(plot_path, "--plot")
    if order == "natural":
        files.sort(key=natural_key)
    if progress is None:
        progress = sys.stderr.isatty()
    skips = Skips()
    label_file = files[0] if own_labels else label_file
    labels = load_labels(label_file, label_col, weight_col, id_col, on_error, skips,
                          score_col=score_col if own_labels else None)
    if labels.y.size + labels.dropped.size + labels.unreadable == 0:
        raise InputError(f"{label_file} has no data rows (no labelled items).")
    items = Items(labels, id_col)
    keep, cache, dropped = None, (), 0
    if on_error == "skip":
        bad, cache = collect(files, items, score_col, on_error, skips,
                             wrap=_progress_wrapper(progress, "checking", len(files)))
        dropped = int(bad.sum())
        if dropped:
            keep = ~bad
    if items.n - dropped == 0:
        raise InputError(f"no item has a valid label and a valid score in every epoch file "
                         f"({items.n + labels.dropped.size + labels.unreadable} label rows "
                         "read).")
    y = labels.y if keep is None else labels.y[keep]
    w = labels.w if keep is None or labels.w is None else labels.w[keep]
    try:
        report = summarize_epochs(
            y, aligned_epochs(files, items, score_col, on_error, keep, cache),
            sample_weight=w, names=files, patience=patience,
            progress=_progress_wrapper(progress, "epochs", len(files)))
    except ValueError as exc:  # a check of the counting library; a TypeError is a bug
        raise InputError(str(exc)) from None
    report["labels_file"] = label_file
    report["rows_skipped"] = dict(skips.rows)
    report["dropped_items"] = dropped
    report["first_errors"] = list(skips.notes)

    if fmt == "table":
        click.echo(_render_table(report, label_file))
    elif fmt == "json":
        # format_records gives the shared JSON conventions (nan -> "nan", exact ints).
        summary = {k: v for k, v in report.items() if k != "epochs"}
        text = format_records([summary], "json", single=True)
        doc = json.loads(text)
        doc["epochs"] = json.loads(format_records(report["epochs"], "json"))
        click.echo(json.dumps(doc))
    else:
        click.echo(format_records(report["epochs"], "csv"))
    if fmt != "json":  # as `streamrank eval`: what was skipped goes to stderr
        for line in _skip_lines(skips, dropped):
            click.echo(line, err=True)
    if plot_path is not None:
        from ..plot import plot_epochs

        try:
            plot_epochs(report, plot_path)
        except OSError as exc:
            raise InputError(f"cannot write the plot to {plot_path}: "
                             f"{exc.strerror or exc}") from None
        # On stdout only where it cannot break parsing.
        click.echo(f"plot written to {plot_path}", err=fmt != "table")
