"""``streamrank eval FILE``: exact batch metrics of a CSV, Parquet or JSON-lines file.

One of four evaluations, chosen by the columns named:

===========================  ============================================================
columns                      what is reported
===========================  ============================================================
``--label --score``          binary labels: the pair counts, AUC (with ties as one half),
                             Gini, pairwise accuracy; more label levels: the pair counts,
                             Kendall's tau-a/b/c, gamma, Somers' D, Harrell's C
``+ --group``                also the group AUC (GAUC) over the groups with both classes
``--query --label --score``  NDCG, MAP, MRR, ERR, R-precision (and P@k, R@k with ``--k``)
                             averaged over queries, and the pairs mis-ordered in queries
``--time [--event] --score`` the censored pair counts and C-index (lifelines' rules)
===========================  ============================================================

Only the named columns are read (`streamrank.io.tables.read_columns`), batch by batch; the
metrics are the numpy functions of streamrank, so every count is an exact integer (float
sums with ``--weight``). ``--dask`` hands the file to `streamrank.dask.evaluate_file`.

Output: one record, as a ``metric value`` table, a JSON object or CSV lines. The rows
read and skipped go to stderr with ``--format table|csv`` and into the JSON object with
``--format json`` (``rows_read``, ``rows_skipped``, ``first_errors``).

Binary labels also take the interval of the AUC (``--ci``), DeLong's paired test against
another score column (``--compare-score``), the ROC or PR curve (``--curve``, ``--plot``)
and a release gate (``--fail-below``): `streamrank.cli._eval_ci`.
"""

from __future__ import annotations

import math
import warnings

import click
import numpy as np

from ._common import (
    InputError,
    check_distinct_columns,
    format_option,
    format_records,
    on_error_option,
    progress_option,
    read_error,
)
from ._eval_ci import apply_ci, check_ci_options, ci_options, gate, print_curve

__all__ = ["eval_command", "evaluate"]

_INPUT_FORMATS = ("csv", "tsv", "parquet", "jsonl")
_LOCAL_SCHEDULERS = ("threads", "processes", "sync", "synchronous", "single-threaded")


# ============================================================================ evaluation
_COUNTS = ("concordant", "discordant", "tied_score", "comparable", "tied_label", "tied_both",
           "total", "right", "wrong")
#: The fields of binary and of other labels, from `PairCounts.as_dict` or the Dask route.
_BINARY_FIELDS = _COUNTS + ("auc", "gini", "pairwise_accuracy", "pairwise_error",
                            "right_wrong_ratio")
_ORDINAL_FIELDS = _COUNTS + ("c_index", "tau_a", "tau_b", "tau_c", "gamma", "somers_d",
                             "pairwise_accuracy", "pairwise_error", "right_wrong_ratio")


def _pick(d: dict, fields) -> dict:
    # Gini = 2 AUC - 1 = Somers' D of the score given the label.
    return {k: d["somers_d"] if k == "gini" else d[k] for k in fields}


def _positive_mask(values, levels, pos_label: str, file, column):
    """``label == pos_label`` for a label column read as keys (text or numbers): equal as
    text, or as numbers where both are (``"1"``, ``"1.0"``, ``"true"``), as the reader
    reads a numeric column (`streamrank.io.tables.parse_number`)."""
    from ..io.tables import parse_number

    pos_num = parse_number(pos_label)
    if levels is not None:      # text labels: codes into sorted distinct values
        hit = levels == pos_label
        if pos_num is not None:  # one parse per distinct label, not per row
            hit |= np.array([parse_number(t) == pos_num for t in levels.tolist()], dtype=bool)
        mask = np.isin(values, np.flatnonzero(hit))
        seen = levels
    else:                       # integer or float labels
        mask = (values == pos_num if pos_num is not None
                else np.zeros(values.size, dtype=bool))
        seen = np.unique(values)
    if values.size and not mask.any():
        shown = ", ".join(repr(v) for v in seen[:10].tolist()) + (
            ", ..." if seen.size > 10 else "")
        raise InputError(f"{file}, column {column!r}: no row has the label "
                         f"--pos-label {pos_label!r} (labels: {shown})")
    return mask


def _compact(y: np.ndarray) -> np.ndarray:
    """Small integer labels (0/1, grades) as int8: the pair count is faster on them (and
    8x smaller) than on the float64 the reader gives; anything else unchanged."""
    if y.dtype.kind == "f" and y.size and -128 <= y.min() and y.max() <= 127:
        small = y.astype(np.int8)
        if np.array_equal(small, y):
            return small
    return y


def _positives(y: np.ndarray) -> np.ndarray:
    """The positives of binary labels (at most two distinct, at least one row): the
    larger of two labels (scikit-learn's rule); with one label only, the rows whose label
    is 1 (or True)."""
    return y == y.max() if y.min() != y.max() else y == 1


def _labels(cols, label, pos_label, file) -> np.ndarray:
    """The label column as read, or the mask of ``--pos-label``."""
    if pos_label is not None:
        return _positive_mask(cols.data[label], cols.levels.get(label), pos_label, file,
                              label)
    return _compact(cols.data[label])


def _binary_record(pc, y, w, max_fpr, s) -> dict:
    """Pair counts and the metrics of binary labels (AUC, Gini, ...)."""
    from ..batch.auc import roc_auc_score

    pos = _positives(y)
    if w is None:
        n_pos = int(np.count_nonzero(pos))
        n_neg = int(y.size - n_pos)
    else:
        n_pos, n_neg = float(w[pos].sum()), float(w[~pos].sum())
    rec = {"label_kind": "binary", "n": pc.n, "positives": n_pos, "negatives": n_neg}
    if pc.weighted:
        rec["weight_sum"] = pc.weight_sum
    rec.update(_pick(pc.as_dict(), _BINARY_FIELDS))
    if max_fpr is not None:
        rec["partial_auc"] = roc_auc_score(pos, s, sample_weight=w, max_fpr=max_fpr)
    return rec


def _ordinal_record(pc, y) -> dict:
    integral = y.dtype.kind in "biu" or bool(np.all(y == np.round(y)))
    rec = {"label_kind": "ordinal" if integral else "continuous", "n": pc.n,
           "label_levels": pc.n_label_levels, "score_levels": pc.n_score_levels}
    if pc.weighted:
        rec["weight_sum"] = pc.weight_sum
    rec.update(_pick(pc.as_dict(), _ORDINAL_FIELDS))
    return rec


def _survival_record(t, s, e, w) -> dict:
    from ..batch.survival import censored_c_index, censored_counts

    P, D, T = censored_counts(t, s, e, w)
    if w is None:
        events = int(np.count_nonzero(e))
    else:
        P, D, T = float(P), float(D), float(T)
        events = float(w[e].sum())
    C, cidx = censored_c_index(P, D, T)
    rec = {"label_kind": "survival", "n": int(t.size), "events": events,
           "censored": (int(t.size) - events) if w is None else float(w[~e].sum())}
    if w is not None:
        rec["weight_sum"] = float(w.sum())
    rec.update(comparable=P, concordant=C, discordant=D, tied_score=T, c_index=cidx)
    return rec


def _ranking_record(q, y, s, k, gain, ties) -> dict:
    from .. import ranking as rk

    at = "" if k is None else f"@{k}"
    nd = rk.ndcg_at_k(q, y, s, k=k, gain=rk.DEFAULT_GAIN if gain is None else gain,
                      ties=ties, return_per_query=True)
    # a query without a relevant document counts as 0 (the default empty=0) in every mean
    no_rel = int(nd.values.size) - int(np.unique(q[y > 0]).size)
    rec = {"label_kind": "relevance", "n": int(y.size), "queries": int(nd.values.size),
           "queries_without_relevant": no_rel, f"ndcg{at}": nd.mean,
           f"map{at}": rk.map_score(q, y, s, k=k, ties=ties),
           f"mrr{at}": rk.mrr_score(q, y, s, k=k, ties=ties),
           f"err{at}": rk.err_score(q, y, s, k=k, ties=ties),
           "r_precision": rk.r_precision(q, y, s, ties=ties)}
    if k is not None:
        rec[f"precision@{k}"] = rk.precision_at_k(q, y, s, k=k, ties=ties)
        rec[f"recall@{k}"] = rk.recall_at_k(q, y, s, k=k, ties=ties)
    pe = rk.pairwise_errors(q, y, s)
    P, D, T = pe.total_comparable, pe.total_discordant, pe.total_wrong - pe.total_discordant
    rec.update(comparable=P, concordant=P - D - T, discordant=D, tied_score=T,
               pairwise_error=D / P if P else math.nan)
    return rec


def evaluate(cols, *, label=None, score, weight=None, group=None, query=None, time=None,
             event=None, pos_label=None, max_fpr=None, weighting="impressions", k=None,
             gain=None, ties="average", file="<data>") -> dict:
    """The record ``streamrank eval`` prints, from columns already read (`Columns.data`
    and `Columns.levels`, as `streamrank.io.tables.read_columns` returns them). ``gain``
    None is NDCG's default gain, `streamrank.ranking.DEFAULT_GAIN`.

    Runtime complexity: ``O(n log n)``, the numpy functions of streamrank.

    >>> import numpy as np
    >>> from streamrank.io.tables import Columns
    >>> cols = Columns({"y": np.array([0., 0, 1, 1]), "s": np.array([.1, .4, .35, .8])},
    ...                4, 0, [])
    >>> rec = evaluate(cols, label="y", score="s")
    >>> rec["label_kind"], rec["concordant"], rec["discordant"], rec["auc"], rec["gini"]
    ('binary', 3, 1, 0.75, 0.5)
    """
    from ..batch.pairs import pair_counts

    data = cols.data
    s = data[score]
    w = data[weight] if weight is not None else None
    if time is not None:
        e = data[event] == 1 if event is not None else np.ones(s.size, dtype=bool)
        return _survival_record(data[time], s, e, w)
    y = _labels(cols, label, pos_label, file)
    if query is not None:
        return _ranking_record(data[query], y.astype(np.float64), s, k, gain, ties)
    pc = pair_counts(y, s, sample_weight=w)
    if pc.n_label_levels > 2:
        if group is not None or max_fpr is not None:
            what = "--group" if group is not None else "--max-fpr"
            levels = np.unique(y)
            raise InputError(
                f"{file}, column {label!r}: {what} needs binary labels; the column has "
                f"{levels.size} distinct values ({', '.join(f'{v:g}' for v in levels[:5])}"
                f"{', ...' if levels.size > 5 else ''}); pick the positive one with "
                "--pos-label")
        return _ordinal_record(pc, y)
    rec = _binary_record(pc, y, w, max_fpr, s)
    if group is not None:
        from ..batch.auc import group_auc_score

        r = group_auc_score(y, s, data[group], weighting=weighting, sample_weight=w,
                            return_details=True)
        rec.update(group_auc=r.score, groups=r.n_groups + r.n_skipped,
                   groups_skipped=r.n_skipped)
    return rec


# ============================================================================ dask
def _evaluate_dask(path, scheduler, workers, input_format, o) -> dict:
    from ..dask import evaluate_file
    from ..io.tables import parse_number
    from ..ranking import DEFAULT_GAIN

    pos_label = o["pos_label"]
    if pos_label is not None:
        # Dask reads a numeric label column as numbers: compare with a number.
        pos_label = parse_number(pos_label)
        if pos_label is None:
            raise click.UsageError("--pos-label with text labels cannot be used with "
                                   "--dask (labels must be numbers there).")
    out = evaluate_file(
        path, label=o["label"], score=o["score"], weight=o["weight"], group=o["group"],
        query=o["query"], time=o["time"], event=o["event"], pos_label=pos_label,
        k=o["k"], gain=DEFAULT_GAIN if o["gain"] is None else o["gain"], ties=o["ties"],
        format=input_format, scheduler=scheduler,
        n_workers=workers, weighting=o["weighting"])
    if o["time"] is not None:
        return {"label_kind": "survival", **out}
    if o["query"] is not None:
        at = "" if o["k"] is None else f"@{o['k']}"
        return {"label_kind": "relevance", "n": out["n"], "queries": out["queries"],
                "queries_without_relevant": out["queries_without_relevant"],
                f"ndcg{at}": out["ndcg"],
                f"map{at}": out["map"]}
    binary = out["label_levels"] <= 2
    if not binary and o["group"] is not None:
        raise InputError(f"column {o['label']!r}: --group needs binary labels; the "
                         f"column has {out['label_levels']} distinct values; pick the "
                         "positive one with --pos-label")
    rec = {"label_kind": "binary" if binary else "ordinal", "n": out["n"]}
    if isinstance(out["concordant"], float):
        rec["weight_sum"] = out["weight_sum"]
    if not binary:
        rec.update(label_levels=out["label_levels"], score_levels=out["score_levels"])
    rec.update(_pick(out, _BINARY_FIELDS if binary else _ORDINAL_FIELDS))
    if o["group"] is not None:
        rec.update(group_auc=out["group_auc"],
                   groups=out["group_auc_groups"] + out["group_auc_skipped"],
                   groups_skipped=out["group_auc_skipped"])
    return rec


# ============================================================================ the command
def _print_summary(file, cols, n_read):
    msg = f"{file}: {n_read:,} rows read"
    if cols is None:        # --dask: no row is skipped
        click.echo(msg, err=True)
        return
    if cols.skipped:
        msg += f", {cols.skipped:,} skipped"
    click.echo(msg, err=True)
    for m in cols.first_errors:
        click.echo(f"  skipped: {m}", err=True)
    if cols.skipped > len(cols.first_errors):
        click.echo(f"  ... and {cols.skipped - len(cols.first_errors):,} more", err=True)


def _check_options(o, file, dask, workers, on_error, max_fpr, compare_score=None):
    usage = click.UsageError
    if o["time"] is None:
        if o["label"] is None:
            raise usage("Missing option '--label' (or '--time' for a censored C-index).")
    else:
        for opt in ("label", "group", "query", "pos_label"):
            if o[opt] is not None:
                raise usage(f"--time (censored C-index) cannot be used with "
                            f"--{opt.replace('_', '-')}.")
        if max_fpr is not None:
            raise usage("--time (censored C-index) cannot be used with --max-fpr.")
    if o["event"] is not None and o["time"] is None:
        raise usage("--event needs --time (the survival time column).")
    if o["group"] is not None and o["query"] is not None:
        raise usage("--group (group AUC) and --query (ranking metrics) are exclusive.")
    if o["query"] is not None:
        if o["weight"] is not None:
            raise usage("--weight cannot be used with --query: the ranking metrics are "
                        "unweighted.")
        if max_fpr is not None:
            raise usage("--max-fpr cannot be used with --query.")
    elif o["k"] is not None:
        raise usage("--k is the cut-off of the ranking metrics: it needs --query.")
    if workers is not None and dask != "local":
        raise usage("--workers is for --dask local.")
    if dask is not None:
        if file == "-":
            raise usage("--dask reads files, not standard input.")
        if on_error == "skip":
            raise usage("--on-error skip cannot be used with --dask (the Dask path stops "
                        "at the first bad value).")
        if max_fpr is not None:
            raise usage("--max-fpr cannot be used with --dask.")
        if o["group"] is not None and o["pos_label"] is not None:
            raise usage("--pos-label cannot be used with --group and --dask.")
        if o["query"] is not None and o["pos_label"] is not None:
            raise usage("--pos-label cannot be used with --query and --dask.")
    check_distinct_columns({**{f"--{opt}": o[opt] for opt in
                               ("label", "score", "weight", "group", "query", "time",
                                "event")}, "--compare-score": compare_score})


_HELP = """Exact metrics of the predictions in FILE (CSV, TSV, Parquet, JSON lines; "-"
reads CSV from stdin), or in every file of a directory: one data set whose files (in
name order, subdirectories and Hive key=value partitions too, names starting with "."
or "_" skipped) are all of one format; files of several formats exit 2.

\b
Binary labels: the pair counts, AUC (ties count one half), Gini, and with --group the
group AUC. Other labels: the pair counts, Kendall's tau, gamma, Somers' D, Harrell's C.
--query: NDCG, MAP, MRR, ERR per query, averaged. --time/--event: the censored C-index.
Binary labels: --ci adds the interval of the AUC, --compare-score DeLong's paired test
of --score against another score column, --curve roc|pr prints the curve's points (or
draws it with --plot), --fail-below X exits 1 when the AUC (with --ci its lower bound)
is below X. Only the named columns are read. Exit codes: 0 ok, 1 --fail-below failed, 2
a usage or input error (the message names the file, the line, the row and the value).

\b
Examples:
  streamrank eval preds.csv --label clicked --score p
  streamrank eval preds.parquet --label y --score p --group user --format json
  streamrank eval runs.jsonl --query qid --label rel --score s --k 10
  streamrank eval cohort.csv --time months --event died --score risk_neg
  streamrank eval preds.csv --label y --score p --ci --fail-below 0.8
  streamrank eval preds.csv --label y --score p --compare-score p_new
  streamrank eval preds.csv --label y --score p --curve roc --plot roc.png
"""


@click.command("eval", help=_HELP)
@click.argument("file", type=click.Path(exists=True, allow_dash=True, dir_okay=True))
@click.option("--label", metavar="COL",
              help="Label column: binary (0/1, true/false), ordinal or real; graded "
                   "relevance with --query.")
@click.option("--score", metavar="COL", required=True, help="Score (prediction) column.")
@click.option("--weight", metavar="COL", help="Sample weight column (>= 0).")
@click.option("--group", metavar="COL",
              help="Group (user, session) column: adds the group AUC (binary labels).")
@click.option("--weighting", type=click.Choice(["impressions", "pairs", "uniform"]),
              default="impressions", show_default=True,
              help="Group AUC: weight each group by its rows, its positive-negative pairs, "
                   "or 1.")
@click.option("--query", metavar="COL",
              help="Query column: ranking metrics per query (NDCG, MAP, MRR, ERR, ...).")
@click.option("--k", type=click.IntRange(1), default=None,
              help="Cut-off of the ranking metrics (NDCG@k, MAP@k, ...; also P@k, R@k).")
@click.option("--gain", type=click.Choice(["linear", "exponential"]), default=None,
              help="NDCG gain: rel (linear, the default, as scikit-learn), or 2^rel - 1.")
@click.option("--ties", type=click.Choice(["average", "pessimistic", "optimistic"]),
              default="average", show_default=True,
              help="Ranking metrics: average over tied scores, or break ties worst/best "
                   "first.")
@click.option("--time", metavar="COL",
              help="Survival time column: the censored C-index of --score (higher score "
                   "= longer survival, as lifelines); no --label.")
@click.option("--event", metavar="COL",
              help="Event column with --time: 1/true observed, 0/false censored (default: "
                   "all observed).")
@click.option("--pos-label", metavar="VALUE",
              help="The positive label (text or number): every other label is negative.")
@click.option("--max-fpr", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Also report the McClish partial AUC over FPR <= this (binary labels).")
@click.option("--input-format", type=click.Choice(_INPUT_FORMATS), default=None,
              help="Format of FILE (default: from its name; CSV for '-').")
@format_option
@on_error_option
@progress_option
@click.option("--dask", "dask", metavar="SCHEDULER",
              help="Evaluate on Dask: a scheduler address (tcp://host:8786), 'local' (a "
                   "local cluster of --workers processes), or threads|processes|sync.")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Worker processes of --dask local (default: one per core).")
@ci_options
def eval_command(file, label, score, weight, group, weighting, query, k, gain, ties, time,
                 event, pos_label, max_fpr, input_format, fmt, on_error, progress, dask,
                 workers, **ci):
    o = dict(label=label, score=score, weight=weight, group=group, query=query, time=time,
             event=event, pos_label=pos_label, k=k, gain=gain, ties=ties,
             weighting=weighting)
    _check_options(o, file, dask, workers, on_error, max_fpr, ci["compare_score"])
    check_ci_options(ci, o, dask)
    name = "<stdin>" if file == "-" else file
    cols = points = interval = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if dask is not None:
            try:
                rec = _evaluate_dask(file, dask, workers, input_format, o)
            except ImportError as exc:
                raise click.UsageError(f"--dask needs streamrank[dask]: {exc}") from None
            except (ValueError, TypeError, KeyError) as exc:
                raise InputError(f"{name}: {exc}") from None
            n_read = rec["n"]
        else:
            cols = _read(file, name, o, input_format, on_error, progress,
                         ci["compare_score"])
            if cols.data[score].size == 0:
                why = (f"all {cols.n_rows:,} rows were skipped" if cols.n_rows else
                       "the file has no data rows")
                first = f" (first: {cols.first_errors[0]})" if cols.first_errors else ""
                raise InputError(f"{name}: nothing to evaluate: {why}{first}")
            def arrays():
                y = _labels(cols, label, pos_label, name)
                return (_positives(y), cols.data[score],
                        cols.data[weight] if weight is not None else None,
                        cols.data[ci["compare_score"]] if ci["compare_score"] else None)

            try:
                rec = evaluate(cols, max_fpr=max_fpr, file=name, **o)
                rec, points, interval = apply_ci(rec, ci, label, arrays)
            except ValueError as exc:   # a check of a metric function; a TypeError is a bug
                raise InputError(f"{name}: {exc}") from None
            n_read = cols.n_rows
    for w in {str(w.message): w for w in caught
              if issubclass(w.category, UserWarning)}.values():
        click.echo(f"warning: {w.message}", err=True)
    undefined = [k for k, v in rec.items() if isinstance(v, float) and math.isnan(v)]
    if undefined:
        click.echo(f"note: undefined (nan): {', '.join(undefined)} (a denominator is 0: one "
                   "label class only, all scores tied, no comparable pair)", err=True)
    if points is not None:      # --curve: the points instead of the summary
        _print_summary(name, cols, n_read)
        print_curve(points, fmt)
        gate(rec, ci, interval)
        return
    if fmt == "json":
        rec = {"file": name, "rows_read": n_read,
               "rows_skipped": cols.skipped if cols is not None else 0,
               "first_errors": cols.first_errors if cols is not None else [], **rec}
    else:
        _print_summary(name, cols, n_read)
    click.echo(format_records([rec], fmt, single=True))
    gate(rec, ci, interval)


def _read(file, name, o, input_format, on_error, progress, compare_score=None):
    from ..io.tables import TableError, read_columns

    numeric, keys, checks = [o["score"]], [], {}
    if compare_score is not None:
        numeric.append(compare_score)
    if o["time"] is not None:
        numeric.append(o["time"])
        if o["event"] is not None:
            numeric.append(o["event"])
            checks[o["event"]] = (lambda e: (e == 0) | (e == 1),
                                  "is not an event flag (1/true observed, 0/false censored)")
    elif o["pos_label"] is not None:
        keys.append(o["label"])
    else:
        numeric.append(o["label"])
        if o["query"] is not None:
            checks[o["label"]] = (lambda y: y >= 0, "is not a relevance grade (must be >= 0)")
    if o["weight"] is not None:
        numeric.append(o["weight"])
        checks[o["weight"]] = (lambda w: w >= 0, "is not a weight (must be >= 0)")
    keys += [c for c in (o["group"], o["query"]) if c is not None]
    try:
        return read_columns(file, numeric=numeric, keys=keys, format=input_format,
                            on_error=on_error, progress=progress, key_codes=True,
                            checks=checks, times=[o["time"]] if o["time"] else [])
    except TableError as exc:
        hint = ""
        if (exc.column == o["label"] and exc.reason.endswith("is not a number")
                and o["pos_label"] is None):
            hint = ("; labels must be numbers (0/1, true/false, grades): for text labels "
                    "name the positive one with --pos-label")
        raise read_error(exc, name, hint) from None
    except OSError as exc:      # a file that cannot be opened (permissions, ...)
        raise read_error(exc, name) from None
