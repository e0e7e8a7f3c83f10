"""Harrell's concordance index with right censoring, lifelines' conventions."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._ckernels import sort_count, sort_runs
from ._kernels import (count_pairs, dense_ranks, exclusive_cumsum_in_groups, int_sum, run_starts,
                       scale_weights)
from .._validation import (as_1d_numeric, check_consistent_length, check_weights, describe,
                          param_error)
from ..counts import half_ties

__all__ = ["censored_c_index", "censored_counts", "concordance_index"]


def _pairs_before(outer_inner: np.ndarray, inner_bits: int, left, right):
    """``sum_j right_j * (left weight of the elements with the same outer code and a
    smaller inner code)`` for keys ``(outer << inner_bits) | inner`` sorted ascending."""
    runs = run_starts(outer_inner)
    groups = run_starts(outer_inner[runs] >> inner_bits)
    return _pairs_before_runs(runs, groups, left, right)


def _pairs_before_runs(runs, groups, left, right):
    """`_pairs_before` from the runs of equal keys (their starts ``runs``) and the groups
    of runs of one outer code (``groups``, indices into ``runs``)."""
    run_left = np.add.reduceat(left, runs)
    run_right = np.add.reduceat(right, runs)
    below = exclusive_cumsum_in_groups(run_left, groups)
    if run_left.dtype.kind in "iu":                  # counts: exact
        return int_sum(run_right.astype(np.int64) * below.astype(np.int64))
    return float(np.dot(run_right, below))


def _exit_keys(t: np.ndarray, e: np.ndarray) -> np.ndarray:
    """uint64 keys of the exit order: by time, and at equal times events before censored
    cases (``2 time_code + censored``). Nonnegative float times are their own codes (the
    bits of a nonnegative float64 order as its value, ``-0.0`` taken as ``0.0``), integer
    times their offset from the smallest; anything else is ranked (one argsort)."""
    censored = (~e).astype(np.uint64)
    if t.dtype.kind == "f":
        x = t.astype(np.float64) + 0.0
        if x.min() >= 0:
            return (x.view(np.uint64) << np.uint64(1)) | censored
    elif t.dtype.kind in "biu":
        lo, hi = int(t.min()), int(t.max())
        if hi - lo < 1 << 62:
            code = (t - t.dtype.type(lo)) if t.dtype.kind == "u" else t.astype(np.int64) - lo
            return (code.astype(np.uint64) << np.uint64(1)) | censored
    return (dense_ranks(t)[0].astype(np.uint64) << np.uint64(1)) | censored


def censored_counts(t: np.ndarray, s: np.ndarray, e: np.ndarray, w: np.ndarray | None):
    """``(P, D, T)`` of lifelines' censored concordance for validated arrays: comparable
    pairs, discordant ones and ones tied in score (exact ints with ``w=None``). The C-index
    is ``(P - D - T/2) / P``.

    A pair weighs ``left_i * right_j`` with ``i`` the earlier exit (``left`` = its weight
    if it is an observed event, else 0) and ``j`` the later one. The rows are put in score
    order (ties by exit key), then the compiled merge sort counts the strict inversions of
    the exit keys: a later exit before an earlier one with a strictly lower score is a
    discordant pair. The sort leaves the rows in exit order, where the comparable pairs
    are summed. Runtime complexity: ``O(n log n)``: one argsort (two for negative or
    non-numeric-order times) and one merge sort.
    """
    n = t.size
    if n == 0:
        return (0, 0, 0) if w is None else (0.0, 0.0, 0.0)
    key = _exit_keys(t, e)
    by_score = np.argsort(s)
    keys = key[by_score]                           # a fresh array: sorted in place below
    del key
    if w is None:
        left = e[by_score].astype(np.uint64)
        right = np.ones(n, dtype=np.uint64)
    else:
        left, right = (w * e)[by_score], w[by_score]
    s_starts = run_starts(s[by_score])
    del by_score
    if s_starts.size < n:
        sort_runs(keys, s_starts, left, right)    # tied scores: by exit key
        # Tied in score: same score, smaller exit key. Runs of one (score, key) inside the
        # runs of one score.
        new_run = np.ones(n, dtype=bool)
        np.not_equal(keys[1:], keys[:-1], out=new_run[1:])
        new_run[s_starts] = True
        runs = np.flatnonzero(new_run)
        new_run[:] = False
        new_run[s_starts] = True
        T = _pairs_before_runs(runs, np.flatnonzero(new_run[runs]), left, right)
        del new_run, runs
    else:
        T = 0 if w is None else 0.0
    # Discordant: a later exit (weight right) placed before an earlier one (weight left)
    # in score order, i.e. a strict inversion of the exit keys.
    D, keys, right, left = sort_count(keys, right, left)
    # Comparable: an earlier exit that is an observed event, any later exit; the rows are
    # now in exit order (one group).
    P = _pairs_before_runs(run_starts(keys), np.zeros(1, dtype=np.intp), left, right)
    if w is None:
        P, D, T = int(P), int(D), int(T)
    return P, D, T


def concordance_index(event_times: ArrayLike, predicted_scores: ArrayLike,
                      event_observed: ArrayLike | None = None, *,
                      sample_weight: ArrayLike | None = None) -> float:
    """Harrell's C-index with right-censored times: ``(C + T / 2) / P``.

    Follows ``lifelines.utils.concordance_index`` exactly, including its direction and ties:

    * a higher predicted score means a *longer* survival (pass ``-hazard`` for a risk score);
    * a pair is comparable when the shorter time is an observed event: ``t_i < t_j`` with
      ``event_i``, or ``t_i == t_j`` with ``event_i`` and not ``event_j`` (the censored case
      is taken to outlive an event at the same time); equal times with both events, or both
      censored, are not comparable;
    * a comparable pair is concordant when the longer-lived one has the higher score, and
      counts 1/2 when the scores are tied.

    With ``sample_weight`` a pair counts ``w_i * w_j``. No comparable pair (for example no
    observed event) gives ``nan`` with an `UndefinedMetricWarning` (lifelines raises).

    Runtime complexity: ``O(n log n)``: two sorts and a compiled merge-sort inversion count
    of the exit order in score order, where only observed events weigh as the earlier
    element.

    Parameters
    ----------
    event_times : array-like of shape (n,)
        Observed times (event or censoring), finite.
    predicted_scores : array-like of shape (n,)
        Finite scores; higher = expected to survive longer.
    event_observed : array-like of shape (n,), optional
        1/True if the event was observed, 0/False if censored; default all observed.
    sample_weight : array-like of shape (n,), optional

    Examples
    --------
    >>> from streamrank import concordance_index
    >>> concordance_index([1, 2, 3, 4], [1, 3, 2, 4])
    0.833333...
    >>> # Censored at t=2, the second case is not known to die before the third: the
    >>> # discordant pair is not comparable.
    >>> concordance_index([1, 2, 3, 4], [1, 3, 2, 4], [1, 0, 1, 1])
    1.0
    """
    func = "concordance_index"
    t = as_1d_numeric(event_times, "event_times", func)
    s = as_1d_numeric(predicted_scores, "predicted_scores", func)
    if event_observed is None:
        e = np.ones(t.size, dtype=bool)
    else:
        e = as_1d_numeric(event_observed, "event_observed", func)
        if e.dtype != bool:
            if not ((e == 0) | (e == 1)).all():
                raise param_error("event_observed", func, "0/1 or booleans",
                                  f"values such as {describe(np.unique(e)[:5].tolist())}")
            e = e == 1
    n = check_consistent_length(func, event_times=t, predicted_scores=s, event_observed=e)
    w = scale_weights(check_weights(sample_weight, n, func))[0]

    if e.all():
        # Without censoring every pair of distinct times is comparable: Harrell's C is the
        # uncensored (C + T/2) / P of the pair counts, on their fastest path.
        return count_pairs(t, s, w).c_index
    return censored_c_index(*censored_counts(t, s, e, w))[1]


def censored_c_index(P, D, T):
    """``(C, c_index)`` from `censored_counts`' ``(P, D, T)``: ``C = P - D - T`` and
    ``(C + T / 2) / P`` (exact int arithmetic for int counts; ``nan`` with an
    `UndefinedMetricWarning` when ``P = 0``).

    >>> censored_c_index(6, 1, 0)
    (5, 0.833333...)
    """
    C = P - D - T
    if isinstance(C, float):
        C = max(0.0, C)
    return C, half_ties(C, T, P, "concordance index")
