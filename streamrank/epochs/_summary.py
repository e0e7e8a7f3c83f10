"""A run of training epochs at once: exact counts, metric and churn per epoch, the best epoch
and the early-stopping replay (`summarize_epochs`), and the file-name order of the epochs
(`natural_key`).

`summarize_epochs` lists every key of its records, how the epochs are counted and what
the best epoch and the stopping hint mean.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._typing import Number
from .._validation import as_1d_numeric, check_weights, describe, param_error
from ..counts import PairCounts, quiet_metric
from ._tracker import EpochTracker

__all__ = ["PARTIAL_SHARE", "early_stopping", "natural_key", "summarize_epochs"]

#: ``step_partial`` while at most this share of the scores changed (module docstring).
PARTIAL_SHARE = 0.01


def natural_key(name: object) -> tuple[tuple[int | str, ...], str]:
    """Sort key comparing the digit runs of ``name`` as numbers (``epoch_2`` < ``epoch_10``).

    A shell glob sorts ``epoch_10.csv`` before ``epoch_2.csv``; this key does not. The
    text between digit runs compares case-insensitively.

    Parameters
    ----------
    name : str or path-like
        Anything ``str()`` turns into the name to sort by.

    Returns
    -------
    tuple
        ``(parts, str(name))``: ``parts`` holds the text and integer runs in turn (any two
        keys compare).

    Notes
    -----
    Ties: names that differ only in case or in leading zeros (``e9`` and ``E9``, ``e07``
    and ``e7``) have the same parts and are ordered by the full text last, so only equal
    names get equal keys and the order never depends on the input order.

    Runtime complexity: ``O(len(name))``.

    Examples
    --------
    >>> from streamrank.epochs import natural_key
    >>> sorted(["e10.csv", "e2.csv", "e1.csv"], key=natural_key)
    ['e1.csv', 'e2.csv', 'e10.csv']
    >>> sorted(["run/ep-0100.parquet", "run/ep-99.parquet"], key=natural_key)
    ['run/ep-99.parquet', 'run/ep-0100.parquet']
    >>> sorted(["e9", "E9", "e09"], key=natural_key)      # equal parts: the text decides
    ['E9', 'e09', 'e9']
    >>> sorted(["ep2", "ep"], key=natural_key)
    ['ep', 'ep2']
    """
    text = str(name)
    # re.split with a capture group alternates text, digits, text, ...: position by
    # position both part tuples hold the same type, so any two compare (a shorter one that
    # is a prefix first); the text comes after the whole tuple, never against a part.
    parts = re.split(r"(\d+)", text)
    return tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), text


def _check_patience(patience, func: str) -> int:
    if isinstance(patience, (bool, np.bool_)) or not isinstance(patience, (int, np.integer)) \
            or patience < 1:
        raise param_error("patience", func, "an int >= 1", describe(patience))
    return int(patience)


def early_stopping(values: Iterable[Number],
                   patience: int) -> tuple[int | None, int | None]:
    """Replay early stopping on a metric where higher is better.

    After each epoch, a strict improvement over the best value so far makes that epoch the
    best and resets the wait; otherwise the wait grows by one, and training stops when it
    reaches ``patience``, keeping the best epoch (Keras' ``EarlyStopping(mode="max",
    min_delta=0)``).

    Parameters
    ----------
    values : iterable of real numbers
        The metric of epochs 1, 2, ... (ints are compared exactly, not as floats).
    patience : int
        Epochs in a row without improvement before stopping (``>= 1``).

    Returns
    -------
    stop, keep : int or None
        The epoch (1-based) after which training stops (``None``: it never does within the
        epochs given) and the best epoch up to then (``None`` if no value up to then
        improved on ``-inf``, e.g. all were NaN).

    Raises
    ------
    ValueError
        If ``patience`` is not an int ``>= 1``.
    TypeError
        If a value is not a real number; nothing is replayed.

    Notes
    -----
    Ties: a value equal to the best so far is no improvement, so the best epoch is the
    *first* epoch with the highest value and a plateau counts towards the patience. NaN
    (and ``-inf``) never improve: such an epoch only adds to the wait.

    Runtime complexity: ``O(epochs)``.

    Examples
    --------
    >>> from streamrank.epochs import early_stopping
    >>> early_stopping([0.70, 0.75, 0.74, 0.76, 0.75, 0.75], patience=2)
    (6, 4)
    >>> early_stopping([0.70, 0.75, 0.76], patience=2)
    (None, 3)
    >>> early_stopping([0.70, 0.75, 0.75, float("nan")], patience=2)   # a tie: no gain
    (4, 2)
    """
    func = "early_stopping"
    patience = _check_patience(patience, func)
    values = list(values)
    for i, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)) \
                or isinstance(value, (complex, np.complexfloating)):
            raise param_error("values", func, "real numbers (the metric of each epoch)",
                              f"{describe(value)} at index {i}", TypeError)
    best_value, keep, wait = -math.inf, None, 0
    for epoch, value in enumerate(values, start=1):
        if value > best_value:  # False for NaN
            best_value, keep, wait = value, epoch, 0
        else:
            wait += 1
            if wait >= patience:
                return epoch, keep
    return None, keep


def summarize_epochs(y_true: ArrayLike, epoch_scores: Iterable[ArrayLike], *,
                     sample_weight: ArrayLike | None = None,
                     names: Sequence[str] | None = None, patience: int | None = None,
                     progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
                     ) -> dict[str, object]:
    """Per-epoch pair counts, AUC or C-index and tau-b, right/wrong ratio and churn.

    Score vectors over the same labelled items go through one `streamrank.EpochTracker`,
    incrementally where few scores changed; the engine of ``streamrank epochs``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The fixed labels. Two distinct values: the metric is ``auc``; more (or one):
        ``c_index`` and ``tau_b``.
    epoch_scores : iterable of array-like of shape (n,)
        One score vector per epoch, in epoch order (any iterable, consumed once). Integer
        scores are compared exactly (as `streamrank.pair_counts` compares them).
    sample_weight : array-like of shape (n,), optional
        Positive item weights; a pair weighs ``w_i * w_j`` and the counts are float sums.
    names : sequence of str, optional
        The ``file`` of each epoch in the records, one per epoch.
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

        A record holds, exactly:

        ===========  =====================================================================
        key          meaning
        ===========  =====================================================================
        epoch        1, 2, ... in the order the score vectors come
        file         the name of that epoch (only with ``names``)
        concordant   ``C``: pairs with different labels that the scores order as the
                     labels do
        discordant   ``D``: pairs with different labels that the scores order the other
                     way
        tied_score   ``T``: pairs with different labels and equal scores
        auc          ``(C + T/2) / P``, ``P = C + D + T`` (binary labels)
        c_index      the same formula, for labels of more than two levels (not ``auc``)
        tau_b        Kendall's tau-b of labels and scores (with ``c_index`` only)
        d_auc        ``auc`` minus that of the epoch before (``d_c_index`` for
                     ``c_index``)
        right_wrong  pairs ranked right over pairs ranked wrong, a tie counting on both
                     sides: ``(C + T) / (D + T)`` (`PairCounts.right_wrong_ratio`;
                     ``C / D`` would ignore the ties); infinite when ``D + T = 0``
        changed      items whose score differs from the epoch before
        churn        pairs (whatever their labels) whose score order flipped strictly
                     since the epoch before: the Kendall distance of the two score
                     vectors (`EpochTracker.churn`)
        churn_rate   ``churn`` / all pairs ``n (n - 1) / 2`` (weighted: the pair-weight
                     total)
        ===========  =====================================================================

        The first epoch has no ``d_auc``, ``changed`` or ``churn`` (``None``). A metric
        that is undefined (labels of one level: ``P = 0``) is NaN.

    Raises
    ------
    ValueError
        For labels, weights or scores that are not finite numbers (weights: positive), a
        score vector of another length than ``y_true``, no epoch at all, as many names as
        epochs missing, or a ``patience`` that is not an int ``>= 1``; each message names
        the parameter (a score vector as ``epoch_scores[i]``, 0-based). The bad epoch's
        message comes when the iterable reaches it.

    Notes
    -----
    The epochs run through one `EpochTracker`: an epoch where at most 1% of the scores
    changed is an incremental ``step_partial`` (``O(k log n)``: see `EpochTracker`), any
    other a fresh ``O(n log n)`` ``step``; the churn costs one more ``O(n log n)`` count
    per full step. Measured with this tracker (n = 1e4 to 1e6, binary, 5-level and
    continuous labels, churn tracked), ``step_partial`` cost 0.03-0.5x of ``step`` with
    0.1% of the scores changed, 0.1-0.9x with 1%, and up to 2x with 10%: hence the 1%
    switch (`PARTIAL_SHARE`). An epoch whose scores come in another dtype than the held
    ones (integers after floats) is a fresh ``step``.

    Best epoch and stopping hint. All epochs rank the same items under the same labels, so
    the number of comparable pairs ``P`` is the same for every epoch and ``auc`` /
    ``c_index`` order the epochs exactly as ``2C + T`` does (exact integers without
    weights: no rounding of the ratio decides). The *best epoch* is the first epoch with
    the highest ``auc`` (``c_index``). With a ``patience`` the usual early stopping rule
    is replayed as well (`early_stopping` on ``2C + T``; Keras' ``EarlyStopping(mode="max",
    patience=N, min_delta=0)``): training stops after the N-th epoch in a row without a
    strict improvement and keeps the best epoch so far. Both are hindsight figures on the
    data given: on a validation set they are the usual model-selection rule (and the
    selected value is optimistic, as any maximum over epochs); on the training set they
    measure fit, not generalization.

    Ties: a tied score counts half in ``auc`` / ``c_index`` (``T``) and on both sides of
    ``right_wrong``; for the churn only a strict flip counts (a pair going from tied to
    ordered, or back, is no flip). The best epoch is the first epoch with the highest
    metric, compared exactly through ``2C + T``; a tie with the best is no improvement for
    the early-stopping replay either. With labels of one level no pair is comparable: the
    metrics are NaN and there is no best epoch.

    Runtime complexity: ``O(n log n)`` per epoch, ``O(k log n + n)`` for an epoch where
    ``k <= n / 100`` scores changed.

    Examples
    --------
    >>> from streamrank.epochs import summarize_epochs
    >>> report = summarize_epochs([0, 0, 1, 1], [[0.1, 0.2, 0.2, 0.3],
    ...                                          [0.1, 0.4, 0.2, 0.3],
    ...                                          [0.2, 0.1, 0.3, 0.4]], patience=1)
    >>> for r in report["epochs"]:
    ...     print(r["epoch"], r["concordant"], r["discordant"], r["tied_score"], r["auc"],
    ...           r["changed"], r["churn"])
    1 3 0 1 0.875 None None
    2 2 2 0 0.5 1 1
    3 4 0 0 1.0 4 3
    >>> report["best_epoch"], report["comparable_pairs"], report["stop_epoch"]
    (3, 4, 2)
    """
    func = "summarize_epochs"
    if patience is not None:
        patience = _check_patience(patience, func)
    y = as_1d_numeric(y_true, "y_true", func)
    w = check_weights(sample_weight, y.size, func, bounded=True)
    if w is not None and not (w > 0).all():
        raise param_error("sample_weight", func, "positive (every item needs a weight > 0)",
                          f"{w.min()!r}")
    names = None if names is None else list(names)
    if names is not None and hasattr(epoch_scores, "__len__") and \
            len(names) != len(epoch_scores):
        raise param_error("names", func, f"one name per epoch ({len(epoch_scores)})",
                          f"{len(names)} names")
    tracker = EpochTracker(y, sample_weight=w)
    n = len(tracker)
    levels = int(np.unique(y).size)
    metric = "auc" if levels == 2 else "c_index"
    iterable = epoch_scores if progress is None else progress(epoch_scores)
    records, keys = [], []
    previous_metric = math.nan
    for i, scores in enumerate(iterable):
        s = as_1d_numeric(scores, f"epoch_scores[{i}]", func)
        if s.size != n:
            raise param_error(f"epoch_scores[{i}]", func, f"of length {n} (len(y_true))",
                              f"length {s.size}")
        if names is not None and i >= len(names):
            raise param_error("names", func, "one name per epoch", f"{len(names)} names "
                              f"for more epochs")
        changed = None
        if i == 0:
            counts = tracker.step(s)
        else:
            moved = np.flatnonzero(s != tracker.scores)
            changed = int(moved.size)
            # Same dtype: ``!=`` compared exactly (int64 against float64 would round).
            if changed <= PARTIAL_SHARE * n and s.dtype == tracker.scores.dtype:
                counts = tracker.step_partial(moved, s[moved])
            else:
                counts = tracker.step(s)
        records.append(_record(i, names, counts, metric, previous_metric, changed,
                               tracker.churn))
        previous_metric = records[-1][metric]
        # P is the same in every epoch, so 2C + T orders the epochs exactly as the metric
        # (exact integers without weights; no float rounding of the ratio).
        keys.append(2 * counts.concordant + counts.tied_score if counts.comparable
                    else math.nan)
    if not records:
        raise param_error("epoch_scores", func, "at least one score vector",
                          "no epoch at all")
    if names is not None and len(names) != len(records):
        raise param_error("names", func, f"one name per epoch ({len(records)})",
                          f"{len(names)} names")
    finite = [k for k in keys if not (isinstance(k, float) and math.isnan(k))]
    best = keys.index(max(finite)) + 1 if finite else None
    stop, keep = early_stopping(keys, patience) if patience is not None else (None, None)
    last = tracker.counts
    return {
        "items": n,
        "label_levels": levels,
        "metric": metric,
        "weighted": w is not None,
        "comparable_pairs": last.comparable,
        "total_pairs": last.total,
        "best_epoch": best,
        "patience": patience,
        "stop_epoch": stop,
        "keep_epoch": keep,
        "epochs": records,
    }


def _record(i, names, counts, metric, previous_metric, changed, churn) -> dict:
    """The record of epoch ``i`` (0-based) from its counts (module docstring)."""
    value = quiet_metric(counts, metric)
    record = {"epoch": i + 1}
    if names is not None:
        record["file"] = names[i]
    record.update(concordant=counts.concordant, discordant=counts.discordant,
                  tied_score=counts.tied_score)
    record[metric] = value
    record["d_" + metric] = None if i == 0 else value - previous_metric
    if metric == "c_index":
        record["tau_b"] = quiet_metric(counts, "tau_b")
    total = counts.total
    record.update(right_wrong=quiet_metric(counts, "right_wrong_ratio"), changed=changed,
                  churn=churn,
                  churn_rate=None if churn is None else (churn / total if total else
                                                         math.nan))
    return record
