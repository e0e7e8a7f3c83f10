"""``streamrank epochs``: exact pair counts, AUC / Kendall's tau and churn, epoch by epoch.

A model under training scores the same labelled items after every epoch; each epoch's scores
are one file (CSV, TSV, Parquet or JSON lines, by extension; see `streamrank.io.tables`). For
every epoch the command reports, exactly (SPEC.md section 1):

===========  ==============================================================================
column       meaning
===========  ==============================================================================
epoch        1, 2, ... in the order the files are taken (``--order``)
file         the score file of that epoch
concordant   ``C``: pairs with different labels that the scores order as the labels do
discordant   ``D``: pairs with different labels that the scores order the other way
tied_score   ``T``: pairs with different labels and equal scores
auc          ``(C + T/2) / P``, ``P = C + D + T`` (binary labels)
c_index      the same formula, for labels with more than two levels (instead of ``auc``)
tau_b        Kendall's tau-b of labels and scores (with ``c_index`` only)
d_auc        ``auc`` minus that of the epoch before (``d_c_index`` for ``c_index``)
right_wrong  seed 000's "right/wrong" ratio ``(C + T) / (D + T)``
             (`PairCounts.right_wrong_ratio`; ``C / D`` would ignore the ties); infinite
             when ``D + T = 0``, which the table shows as ``nan`` and JSON as ``null``
changed      items whose score differs from the epoch before
churn        pairs (whatever their labels) whose score order flipped strictly since the
             epoch before: the Kendall distance of the two score vectors
             (`EpochTracker.churn`; a pair going from tied to ordered is no flip)
churn_rate   ``churn`` / all pairs ``n (n - 1) / 2`` (weighted: the pair-weight total)
===========  ==============================================================================

The first epoch has no ``d_auc``, ``changed`` or ``churn`` (``nan`` in the table, ``null``
in JSON, empty in CSV). ``--format json`` prints one object: the summary (``items``,
``label_levels``, ``metric``, ``comparable_pairs``, ``best_epoch``, ``rows_skipped`` per
file, ``dropped_items``, ``first_errors``, ...) and the records under ``epochs``; ``--format
csv`` prints only the records. With ``table`` and ``csv`` the rows skipped go to stderr.
With ``--weight`` (a column of the label file) every pair weighs ``w_i * w_j`` and the
counts are float sums.

Labels and weights are fixed: they are read once, from ``--labels`` (default: the first
epoch file). Every epoch file holds one score per labelled item. With ``--id`` items are
matched by id (rows may come in any order; a missing, unknown or repeated id is an error
naming the file and the id); without it, by row position (every file needs as many rows
as the label file).

The epochs run through one `streamrank.EpochTracker`: an epoch where at most 1% of the
scores changed is an incremental ``step_partial`` (``O(k log n)``: see `EpochTracker`),
any other a fresh ``O(n log n)`` ``step``; the churn costs one more ``O(n log n)``
count per full step. Measured with this tracker (n = 1e4 to 1e6, binary, 5-level and
continuous labels, churn tracked), ``step_partial`` cost 0.03-0.5x of ``step`` with 0.1%
of the scores changed, 0.1-0.9x with 1%, and up to 2x with 10%: hence the 1% switch.

Best epoch and stopping hint. All epochs rank the same items under the same labels, so the
number of comparable pairs ``P`` is the same for every epoch and ``auc`` / ``c_index`` order
the epochs exactly as ``C + T/2`` does. The *best epoch* is the first epoch with the highest
``auc`` (``c_index``). With ``--patience N`` the command also replays the usual early
stopping rule (Keras' ``EarlyStopping(mode="max", patience=N, min_delta=0)``): training
stops after the N-th epoch in a row without a strict improvement and keeps the best epoch
so far. Both are hindsight figures on the data given: on a validation set they are the usual
model-selection rule (and the selected value is optimistic, as any maximum over epochs); on
the training set they measure fit, not generalization.

Bad input (``--on-error``). ``fail`` (default) stops at the first bad row with exit code 2
and a message naming the file, row, column and value. ``skip`` drops the item of a bad row
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
import math
import re
import sys
import warnings
from dataclasses import dataclass, field

import click
import numpy as np

from ..counts import PairCounts
from ..epochs import EpochTracker
from ..exceptions import UndefinedMetricWarning
from ._common import (
    InputError,
    check_distinct_columns,
    check_output_folder,
    format_option,
    format_records,
    location,
    on_error_option,
    progress_option,
    read_error,
)

__all__ = ["early_stopping", "epochs", "natural_key", "plot_epochs", "summarize_epochs"]

#: ``step_partial`` while at most this share of the scores changed (module docstring).
PARTIAL_SHARE = 0.01

#: How many bad rows are quoted in the summary (as `streamrank.io.tables.MAX_FIRST_ERRORS`,
#: not imported here: the reader imports pyarrow, which ``--help`` should not wait for).
_MAX_NOTES = 5

#: In ``--on-error skip`` mode, aligned score vectors kept in memory between the checking
#: pass and the counting pass; past this the files are read again.
_CACHE_BYTES = 256 * 2**20

# ---------------------------------------------------------------------- pure helpers
def natural_key(name) -> tuple:
    """Sort key comparing the digit runs of ``name`` as numbers (``epoch_2`` < ``epoch_10``).

    A shell glob sorts ``epoch_10.csv`` before ``epoch_2.csv``; this key does not.

    >>> sorted(["e10.csv", "e2.csv", "e1.csv"], key=natural_key)
    ['e1.csv', 'e2.csv', 'e10.csv']
    >>> sorted(["run/ep-0100.parquet", "run/ep-99.parquet"], key=natural_key)
    ['run/ep-99.parquet', 'run/ep-0100.parquet']
    """
    text = str(name)
    # re.split with a capture group alternates text, digits, text, ...: position by
    # position both keys hold the same type, so any two keys compare.
    parts = re.split(r"(\d+)", text)
    return tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)) + (text,)


def early_stopping(values, patience: int):
    """Replay early stopping on a metric where higher is better.

    After each epoch, a strict improvement over the best value so far makes that epoch the
    best and resets the wait; otherwise the wait grows by one, and training stops when it
    reaches ``patience``, keeping the best epoch (Keras' ``EarlyStopping(mode="max",
    min_delta=0)``). NaN never improves.

    Parameters
    ----------
    values : sequence of float
        The metric of epochs 1, 2, ...
    patience : int
        Epochs without improvement before stopping (>= 1).

    Returns
    -------
    stop, keep : int or None
        The epoch (1-based) after which training stops (``None``: it never does within the
        epochs given) and the best epoch up to then (``None`` if every value is NaN).

    Runtime complexity: O(epochs).

    >>> early_stopping([0.70, 0.75, 0.74, 0.76, 0.75, 0.75], patience=2)
    (6, 4)
    >>> early_stopping([0.70, 0.75, 0.76], patience=2)
    (None, 3)
    """
    if patience < 1:
        raise ValueError(f"The 'patience' parameter of early_stopping must be an int >= 1. "
                         f"Got {patience!r} instead.")
    best_value, keep, wait = -math.inf, None, 0
    for epoch, value in enumerate(values, start=1):
        if value > best_value:  # False for NaN
            best_value, keep, wait = value, epoch, 0
        else:
            wait += 1
            if wait >= patience:
                return epoch, keep
    return None, keep


def _quiet(counts: PairCounts, name: str) -> float:
    """A metric of ``counts`` without the undefined-metric warning (NaN says it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return getattr(counts, name)


def summarize_epochs(y_true, epoch_scores, *, sample_weight=None, names=None,
                     patience=None, progress=None) -> dict:
    """Per-epoch pair counts, AUC or C-index and tau-b, right/wrong ratio and churn.

    The engine of ``streamrank epochs``, usable from Python: score vectors over the same
    labelled items go through one `streamrank.EpochTracker`, incrementally where few
    scores changed (see the module docstring for every column and the switch rule).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The fixed labels. Two distinct values: the metric is ``auc``; more: ``c_index``
        and ``tau_b``.
    epoch_scores : iterable of array-like of shape (n,)
        One score vector per epoch, in epoch order (any iterable, consumed once).
    sample_weight : array-like of shape (n,), optional
        Positive item weights; a pair weighs ``w_i * w_j``.
    names : sequence of str, optional
        The ``file`` of each epoch in the records.
    patience : int, optional
        Also replay early stopping with this patience (`early_stopping`).
    progress : callable, optional
        Wraps the iterable of epochs (e.g. a ``tqdm`` partial).

    Returns
    -------
    dict
        ``items``, ``label_levels``, ``metric`` (``"auc"`` or ``"c_index"``), ``weighted``,
        ``comparable_pairs`` (``P``, the same for every epoch), ``total_pairs``,
        ``best_epoch``, ``patience``, ``stop_epoch``, ``keep_epoch`` and ``epochs`` (one
        record per epoch).

    Runtime complexity: ``O(n log n)`` per epoch, ``O(k log n + n)`` for an epoch where
    ``k <= n / 100`` scores changed.

    Examples
    --------
    >>> report = summarize_epochs([0, 0, 1, 1], [[0.1, 0.2, 0.2, 0.3],
    ...                                          [0.1, 0.4, 0.2, 0.3],
    ...                                          [0.2, 0.1, 0.3, 0.4]])
    >>> for r in report["epochs"]:
    ...     print(r["epoch"], r["concordant"], r["discordant"], r["tied_score"], r["auc"],
    ...           r["churn"])
    1 3 0 1 0.875 None
    2 2 2 0 0.5 1
    3 4 0 0 1.0 3
    >>> report["best_epoch"], report["comparable_pairs"]
    (3, 4)
    """
    y = np.asarray(y_true)
    tracker = EpochTracker(y, sample_weight=sample_weight)
    n = len(tracker)
    levels = int(np.unique(y).size)
    metric = "auc" if levels == 2 else "c_index"
    names = list(names) if names is not None else None
    iterable = epoch_scores if progress is None else progress(epoch_scores)
    records, keys = [], []
    previous_metric = math.nan
    for i, scores in enumerate(iterable):
        s = np.asarray(scores, dtype=np.float64)
        if i == 0:
            counts, changed = tracker.step(s), None
        else:
            if s.shape != (n,):
                raise ValueError(f"epoch {i + 1}: expected {n} scores, got shape {s.shape}.")
            moved = np.flatnonzero(s != tracker.scores)
            changed = int(moved.size)
            if changed <= PARTIAL_SHARE * n:
                counts = tracker.step_partial(moved, s[moved])
            else:
                counts = tracker.step(s)
        value = _quiet(counts, metric)
        record = {"epoch": i + 1}
        if names is not None:
            record["file"] = names[i]
        record.update(concordant=counts.concordant, discordant=counts.discordant,
                      tied_score=counts.tied_score)
        record[metric] = value
        record["d_" + metric] = None if i == 0 else value - previous_metric
        if metric == "c_index":
            record["tau_b"] = _quiet(counts, "tau_b")
        churn = tracker.churn
        total = counts.total
        record.update(right_wrong=_quiet(counts, "right_wrong_ratio"), changed=changed,
                      churn=churn,
                      churn_rate=None if churn is None else (churn / total if total else
                                                             math.nan))
        records.append(record)
        # P is the same in every epoch, so 2C + T orders the epochs exactly as the metric
        # (exact integers without weights; no float rounding of the ratio).
        keys.append(2 * counts.concordant + counts.tied_score if counts.comparable
                    else math.nan)
        previous_metric = value
    if not records:
        raise ValueError("summarize_epochs needs at least one epoch of scores.")
    best = None
    finite = [k for k in keys if not (isinstance(k, float) and math.isnan(k))]
    if finite:
        best = keys.index(max(finite)) + 1
    stop = keep = None
    if patience is not None:
        stop, keep = early_stopping(keys, patience)
    last = tracker.counts
    return {
        "items": n,
        "label_levels": levels,
        "metric": metric,
        "weighted": sample_weight is not None,
        "comparable_pairs": last.comparable,
        "total_pairs": last.total,
        "best_epoch": best,
        "patience": patience,
        "stop_epoch": stop,
        "keep_epoch": keep,
        "epochs": records,
    }


# ---------------------------------------------------------------------- plot
def plot_epochs(report: dict, path=None):
    """Draw a `summarize_epochs` report: the metric, the right/wrong ratio and the churn.

    Three panels over the epochs, sharing the x axis: ``auc`` (or ``c_index`` and
    ``tau_b``) with the best epoch marked; the right/wrong ratio ``(C + T) / (D + T)``;
    the churn as bars (% of all pairs flipped since the epoch before). Built on
    ``matplotlib.figure.Figure`` (no ``pyplot``, no global backend), rendered by Agg.

    Parameters
    ----------
    report : dict
        From `summarize_epochs`.
    path : str or path-like, optional
        Save the figure there (PNG, at 110 dpi).

    Returns
    -------
    matplotlib.figure.Figure

    >>> fig = plot_epochs(summarize_epochs([0, 1, 1], [[0.2, 0.1, 0.5], [0.1, 0.3, 0.5]]))
    >>> len(fig.axes)
    3
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    records = report["epochs"]
    metric = report["metric"]
    x = np.array([r["epoch"] for r in records])

    def column(name):
        return np.array([math.nan if r.get(name) is None else float(r[name])
                         for r in records])

    fig = Figure(figsize=(7.5, 7.0), layout="constrained")
    ax_metric, ax_ratio, ax_churn = fig.subplots(3, 1, sharex=True,
                                                 gridspec_kw={"height_ratios": [3, 2, 2]})
    label = "AUC" if metric == "auc" else "C-index"
    ax_metric.plot(x, column(metric), "o-", color="#1f77b4", label=label)
    if metric == "c_index":
        ax_metric.plot(x, column("tau_b"), "s--", color="#2ca02c", label="Kendall tau-b")
    best = report.get("best_epoch")
    if best is not None:
        for ax in (ax_metric, ax_ratio, ax_churn):
            ax.axvline(best, color="#d62728", ls=":", lw=1.2)
        ax_metric.plot([best], [column(metric)[best - 1]], "*", ms=14, color="#d62728",
                       label=f"best epoch {best}")
    stop = report.get("stop_epoch")
    if stop is not None:
        ax_metric.axvline(stop, color="0.3", ls="--", lw=1,
                          label=f"early stop (patience {report['patience']})")
    ax_metric.set_ylabel(label if metric == "auc" else "C-index / tau-b")
    ax_metric.legend(fontsize=8, loc="best")
    weighted = " (weighted)" if report.get("weighted") else ""
    ax_metric.set_title(f"{report['items']} items, {report['label_levels']} label levels, "
                        f"{_count(report['comparable_pairs'])} comparable pairs{weighted}",
                        fontsize=10)
    ratio = column("right_wrong")
    ax_ratio.plot(x, np.where(np.isfinite(ratio), ratio, np.nan), "o-", color="#ff7f0e")
    ax_ratio.set_ylabel("right / wrong\n(C+T)/(D+T)")
    churn = 100.0 * column("churn_rate")
    ax_churn.bar(x, np.nan_to_num(churn), color="#9467bd", width=0.7)
    ax_churn.set_ylabel("churn\n% pairs flipped")
    ax_churn.set_xlabel("epoch")
    ax_churn.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (ax_metric, ax_ratio, ax_churn):
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


# ---------------------------------------------------------------------- reading
def _read(path, *, numeric=(), keys=(), on_error="fail"):
    """`streamrank.io.tables.read_columns` with its errors as `InputError` (exit code 2).

    ``finite=False``: NaN and infinite values come through, so that this module can drop
    the item they belong to from every epoch (or name it), whatever the alignment."""
    from ..io.tables import TableError, read_columns

    try:
        return read_columns(path, numeric=tuple(numeric), keys=tuple(keys),
                            on_error=on_error, progress=False, finite=False)
    except (TableError, OSError) as exc:
        raise read_error(exc, path) from None


def _source_rows(cols):
    """1-based data-row numbers of the rows read, or ``None`` when the reader skipped rows
    (it does not say which)."""
    if cols.skipped:
        return None
    return np.arange(1, cols.n_rows + 1, dtype=np.int64)


def _item_keys(cols, file, id_col):
    """``(keys, rows, ids)`` of the rows read: the keys that match them to the items are
    the ids with ``--id``, else the row numbers (an error when rows were skipped)."""
    rows = _source_rows(cols)
    if id_col:
        # The reader gives int64 ids when every id is a whole number, float64 for other
        # numbers (compared as text here), else text.
        ids = cols.data[id_col]
        ids = ids.astype(str) if ids.dtype.kind == "f" else ids
        return ids, rows, ids
    if rows is None:
        raise InputError(_unmatched_rows_message(file, cols.skipped))
    return rows, rows, None


def _same_kind(keys, other):
    """``keys`` comparable with ``other``: both numeric, or both text (``17`` -> ``"17"``)."""
    if (keys.dtype.kind in "iu") == (other.dtype.kind in "iu"):
        return keys
    return keys.astype(str)


def _where(file, i, column, value, rows, ids) -> str:
    """Where row ``i`` (0-based among the rows read) is, for a message."""
    text = location(file, None if rows is None else int(rows[i]), column, value)
    if ids is not None:
        text += f" (id {ids[i].item()!r})"
    return text


@dataclass
class _Skips:
    """Rows skipped per file and the first messages, for the summary."""

    rows: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def add(self, file, count, messages=()):
        if count:
            self.rows[file] = self.rows.get(file, 0) + int(count)
        for m in messages:
            if len(self.notes) < _MAX_NOTES:
                self.notes.append(str(m))


@dataclass
class _Labels:
    file: str
    y: np.ndarray
    w: np.ndarray | None
    keys: np.ndarray          # item keys: the ids (int64 or str) or, without --id, data rows
    unreadable: int           # rows the reader skipped (their keys are unknown)
    dropped: np.ndarray       # keys of rows dropped here for a bad label or weight
    first_scores: object = None  # the Columns of the first epoch when it is the label file


def _load_labels(file, label_col, weight_col, id_col, on_error, skips, score_col=None):
    numeric = [label_col] + ([weight_col] if weight_col else []) + \
        ([score_col] if score_col else [])
    cols = _read(file, numeric=numeric, keys=[id_col] if id_col else [], on_error=on_error)
    skips.add(file, cols.skipped, cols.first_errors)
    keys, rows, ids = _item_keys(cols, file, id_col)
    y = np.asarray(cols.data[label_col], dtype=np.float64)
    w = np.asarray(cols.data[weight_col], dtype=np.float64) if weight_col else None
    ok = np.ones(y.size, dtype=bool)
    for column, values, good, reason in (
            (label_col, y, np.isfinite(y), "is not a finite number"),
            (weight_col, w, None if w is None else np.isfinite(w) & (w > 0),
             "is not a positive finite weight")):
        if values is None:
            continue
        bad = np.flatnonzero(~good & ok)
        if not bad.size:
            continue
        first = _where(file, bad[0], column, values[bad[0]].item(), rows, ids)
        if on_error == "fail":
            raise InputError(f"{first} {reason} (--on-error skip drops the item).")
        messages = [f"{_where(file, i, column, values[i].item(), rows, ids)} "
                    f"{reason}" for i in bad[:_MAX_NOTES]]
        skips.add(file, bad.size, messages)
        ok[bad] = False
    labels = _Labels(file, y[ok], None if w is None else w[ok], keys[ok], int(cols.skipped),
                     keys[~ok])
    if score_col:
        labels.first_scores = cols
    return labels


def _unmatched_rows_message(file, skipped) -> str:
    return (f"{file}: {skipped} unreadable row(s) skipped, and without --id the rows of the "
            "label and epoch files are matched by position, which skipping breaks: pass "
            "--id COL to match items by id.")


class _Items:
    """The labelled items, and the map from an epoch file's rows onto them."""

    def __init__(self, labels: _Labels, id_col):
        self.labels = labels
        self.id_col = id_col
        self.n = labels.keys.size
        keys = labels.keys
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]
        dup = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        if dup.size:
            a, b = sorted(self.order[dup[0]:dup[0] + 2])
            raise InputError(f"{labels.file}: id {keys[a].item()!r} appears more than once "
                             f"(items {a + 1} and {b + 1} of the file; ids must be unique).")
        self._text = None  # (sorted ids as text, their order), built on first need

    def _locate(self, keys) -> np.ndarray:
        """Item index of every key, ``-1`` for a key not among the items."""
        if keys.size == self.n and keys.dtype.kind == self.labels.keys.dtype.kind and \
                np.array_equal(keys, self.labels.keys):
            return np.arange(self.n)  # the common case: same items in the same order
        if not self.n or not keys.size:
            return np.full(keys.size, -1)
        sorted_keys, keys = self.sorted, _same_kind(keys, self.sorted)
        if sorted_keys.dtype.kind != keys.dtype.kind:  # text ids here, integers in labels
            if self._text is None:
                as_text = self.labels.keys.astype(str)
                order = np.argsort(as_text, kind="stable")
                self._text = (as_text[order], order)
            sorted_keys, order = self._text
        else:
            order = self.order
        # Sorted needles: a shuffled copy of the label ids sorts to exactly the sorted ids
        # (no search at all), and otherwise the binary searches walk the ids in order,
        # several times faster than random needles on text ids.
        by_key = np.argsort(keys, kind="stable")
        needles = keys[by_key]
        idx = np.empty(keys.size, dtype=np.intp)
        if needles.size == self.n and np.array_equal(needles, sorted_keys):
            idx[by_key] = order
            return idx
        at = np.minimum(np.searchsorted(sorted_keys, needles), self.n - 1)
        idx[by_key] = np.where(sorted_keys[at] == needles, order[at], -1)
        return idx

    def align(self, cols, file, score_col, on_error, skips, count_unreadable=True):
        """The scores of ``cols`` in item order (NaN where an item has no valid score) and
        the mask of those items; every structural problem is an `InputError`.

        ``count_unreadable=False``: the reader's skipped rows were already counted (the
        label file is this epoch file)."""
        label_file = self.labels.file
        scores = cols.data[score_col]
        keys, rows, ids = _item_keys(cols, file, self.id_col)
        if not self.id_col:
            total = scores.size + cols.skipped
            expected = self.n + self.labels.unreadable + self.labels.dropped.size
            if on_error == "fail" and total != expected:
                raise InputError(
                    f"{file} has {total} rows but {label_file} has {expected}: without --id "
                    "the rows of every epoch file are matched to the labels by position, so "
                    "each file needs one row per label row (or pass --id COL).")
        idx = self._locate(keys)
        unknown = idx < 0
        if unknown.any():
            extra = unknown.copy()
            dropped = self.labels.dropped
            if dropped.size:  # rows of items dropped for a bad label: expected
                extra &= ~np.isin(_same_kind(keys, dropped), _same_kind(dropped, keys))
            n_extra = int(extra.sum())
            if n_extra and (on_error == "fail" or n_extra > self.labels.unreadable):
                i = int(np.flatnonzero(extra)[0])
                more = f" ({n_extra} such rows)" if n_extra > 1 else ""
                if self.id_col:
                    where = location(file, None if rows is None else int(rows[i]),
                                     self.id_col, keys[i].item())
                    raise InputError(f"{where} is not an id of {label_file}{more}.")
                raise InputError(f"{file}, row {keys[i].item()}: {label_file} has no such row"
                                 f"{more}; without --id rows are matched by position.")
        found = np.flatnonzero(~unknown)
        item = idx[found]
        counts = np.bincount(item, minlength=self.n)
        if (counts > 1).any():
            dup_item = int(np.flatnonzero(counts > 1)[0])
            at = found[item == dup_item][:2]
            where = (f"rows {rows[at[0]]} and {rows[at[1]]}" if rows is not None
                     else "two rows")
            raise InputError(f"{file}, {where}, column {self.id_col!r}: id "
                             f"{self.labels.keys[dup_item].item()!r} appears more than once (ids "
                             "must be unique).")
        missing = counts == 0
        n_missing = int(missing.sum())
        if n_missing and (on_error == "fail" or n_missing > cols.skipped):
            first = ", ".join(repr(k) for k in self.labels.keys[missing][:3].tolist())
            more = ", ..." if n_missing > 3 else ""
            what = "ids" if self.id_col else "rows"
            raise InputError(f"{file} lacks {n_missing} of the {self.n} {what} of "
                             f"{label_file}: {first}{more}.")
        aligned = np.full(self.n, np.nan)
        aligned[item] = scores[found]
        bad_rows = found[~np.isfinite(scores[found])]
        if bad_rows.size:
            messages = [f"{_where(file, i, score_col, scores[i].item(), rows, ids)}"
                        " is not a finite number" for i in bad_rows[:_MAX_NOTES]]
            if on_error == "fail":
                raise InputError(f"{messages[0]} (--on-error skip drops the item from every "
                                 "epoch).")
            skips.add(file, bad_rows.size, messages)
        if count_unreadable:
            skips.add(file, cols.skipped, cols.first_errors)
        return aligned, ~np.isfinite(aligned)


# ---------------------------------------------------------------------- the command
def _progress_wrapper(enabled, desc, total):
    if not enabled:
        return None
    from tqdm import tqdm

    return lambda it: tqdm(it, desc=desc, total=total, unit="epoch", file=sys.stderr,
                           leave=False)


def _epoch_columns(k, file, items, score_col, on_error):
    """The columns of epoch ``k``'s file, and whether they were read with the labels."""
    if k == 0 and items.labels.first_scores is not None:
        return items.labels.first_scores, True
    keys = [items.id_col] if items.id_col else []
    return _read(file, numeric=[score_col], keys=keys, on_error=on_error), False


def _collect(files, items, score_col, on_error, skips, progress):
    """Pass 1 of ``--on-error skip``: read and align every epoch file, find the items that
    lack a valid score somewhere; keep the aligned scores while they fit the cache."""
    bad = np.zeros(items.n, dtype=bool)
    cache = []
    wrap = _progress_wrapper(progress, "checking", len(files)) or (lambda it: it)
    for k, file in enumerate(wrap(files)):
        cols, shared = _epoch_columns(k, file, items, score_col, on_error)
        aligned, missing = items.align(cols, file, score_col, on_error, skips,
                                       count_unreadable=not shared)
        bad |= missing
        if (len(cache) + 1) * aligned.nbytes <= _CACHE_BYTES:
            cache.append(aligned)
    return bad, cache


def _aligned_epochs(files, items, score_col, on_error, keep=None, cache=()):
    """The aligned score vector of every epoch, read lazily (``keep``: items kept)."""
    for k, file in enumerate(files):
        if k < len(cache):
            aligned = cache[k]
        else:
            cols, _ = _epoch_columns(k, file, items, score_col, on_error)
            # Under "fail" nothing is skipped; under "skip" this is pass 2, whose skipped
            # rows pass 1 has counted already.
            aligned, _ = items.align(cols, file, score_col, on_error, _Skips())
        yield aligned if keep is None else aligned[keep]


def _render_table(report, label_file) -> str:
    metric = report["metric"]
    name = "AUC" if metric == "auc" else "C-index"
    n_epochs = len(report["epochs"])
    lines = [f"{_plural(n_epochs, 'epoch')}, {_plural(report['items'], 'item')}, labels "
             f"from {label_file} "
             f"({_plural(report['label_levels'], 'label level')}), "
             f"{_count(report['comparable_pairs'])} comparable pairs of "
             f"{_count(report['total_pairs'])}" + (", weighted" if report["weighted"]
                                                      else ""), ""]
    lines.append(format_records(report["epochs"], "table"))
    lines.append("")
    lines.extend(_summary_lines(report, name))
    return "\n".join(lines)


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
    items.

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
    skips = _Skips()
    label_file = files[0] if own_labels else label_file
    labels = _load_labels(label_file, label_col, weight_col, id_col, on_error, skips,
                          score_col=score_col if own_labels else None)
    if labels.y.size + labels.dropped.size + labels.unreadable == 0:
        raise InputError(f"{label_file} has no data rows (no labelled items).")
    items = _Items(labels, id_col)
    keep, cache, dropped = None, (), 0
    if on_error == "skip":
        bad, cache = _collect(files, items, score_col, on_error, skips, progress)
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
            y, _aligned_epochs(files, items, score_col, on_error, keep, cache),
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
        # format_records gives the shared JSON conventions (nan -> null, exact ints).
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
        try:
            plot_epochs(report, plot_path)
        except OSError as exc:
            raise InputError(f"cannot write the plot to {plot_path}: "
                             f"{exc.strerror or exc}") from None
        # On stdout only where it cannot break parsing.
        click.echo(f"plot written to {plot_path}", err=fmt != "table")
