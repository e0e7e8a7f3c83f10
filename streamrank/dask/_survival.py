"""Harrell's C-index with right censoring on a Dask collection: the range-partitioned
count of `streamrank.dask._count` with the exit order ``(time, censored)`` in the role of
the score and the score in the role of the label."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from ..batch.survival import censored_c_index
from ._count import _run
from .._validation import describe, param_error
from ._partition import ROWS_PER_PARTITION
from ._spec import _is_frame, _parts, _require_columns, _Spec


def concordance_index(data: Any = None, predicted_scores: Any = None,
                      event_observed: Any = None, *, time: str | None = None,
                      score: str | None = None, event: str | None = None,
                      weight: str | None = None, sample_weight: ArrayLike | None = None,
                      npartitions: int | None = None,
                      rows_per_partition: int = ROWS_PER_PARTITION,
                      scheduler: Any = None) -> float:
    """Harrell's C-index with right censoring (lifelines' conventions), exactly.

    Equal to `streamrank.concordance_index` on the same data: a higher score means a
    longer survival; a pair is comparable when the shorter exit is an observed event (at
    equal times an event exits before a censored case). Inputs: a DataFrame with the
    columns ``time``, ``score`` and optionally ``event`` and ``weight``, or the arrays
    ``data`` (event times), ``predicted_scores`` and ``event_observed``.

    Method: the range partition of `pair_counts` with the exit order ``(time, censored)``
    in the role of the score and the score in the role of the label, pairs weighted
    ``e_i w_i * w_j`` (only an observed event may be the earlier element).

    Runtime complexity: ``O(n log n)`` on the workers, two shuffles for continuous scores.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import concordance_index
    >>> concordance_index(da.from_array([1, 2, 3, 4], chunks=2),
    ...                   da.from_array([1, 3, 2, 4], chunks=2),
    ...                   da.from_array([1, 0, 1, 1], chunks=2), scheduler="sync")
    1.0
    """
    spec, parts = _censored_spec(data, predicted_scores, event_observed, time, score, event,
                                 weight, sample_weight)
    P, D, T, _ = _censored_totals(parts, spec, npartitions, rows_per_partition, scheduler)
    return censored_c_index(P, D, T)[1]


def _censored_spec(data, predicted_scores, event_observed, time, score, event, weight,
                   sample_weight):
    """``(spec, parts)`` of a censored input: a frame with the columns ``time``, ``score``,
    ``event``, ``weight``, or the arrays ``data`` (event times), ``predicted_scores``,
    ``event_observed``, ``sample_weight``."""
    func = "concordance_index"
    if _is_frame(data):
        _require_columns(func, time=time, score=score)
        spec = _Spec(func, "censored", {"t": time, "s": score, "e": event, "w": weight}, True)
        return spec, _parts(data, {}, spec)
    if data is None or predicted_scores is None:
        raise param_error("event_times", func, "a dask DataFrame (with time=, score=) or "
                          "dask arrays", describe(data), TypeError)
    spec = _Spec(func, "censored", {
        "t": "event_times", "s": "predicted_scores",
        "e": None if event_observed is None else "event_observed",
        "w": None if sample_weight is None else "sample_weight"}, False)
    return spec, _parts(None, {"t": data, "s": predicted_scores, "e": event_observed,
                               "w": sample_weight}, spec)


def _censored_totals(parts, spec, npartitions, rows_per_partition, scheduler):
    """``(P, D, T, n_rows)`` of the censored pairs: exact ints without weights, floats
    with them (as `streamrank.batch.survival.censored_counts`)."""
    tot, n_rows, _ = _run(parts, spec, npartitions, rows_per_partition, scheduler)
    if tot is None:
        return 0, 0, 0, n_rows
    P, D, T = tot["within"]
    P += tot["total_x"] - tot["run_x"]    # equal exit keys are not comparable
    D += tot["inv"]
    T += tot["eq"] - tot["run_xz"]
    if spec.names.get("w") is not None:
        P, D, T = float(P), float(D), float(T)
    return P, D, T, n_rows


def _censored_file_counts(ddf, time, score, event, weight, npartitions, rows_per_partition,
                          scheduler) -> dict:
    """``P, D, T`` and the C-index of the censored pairs of a frame (as `concordance_index`,
    which returns only the index)."""
    spec, parts = _censored_spec(ddf, None, None, time, score, event, weight, None)
    P, D, T, n_rows = _censored_totals(parts, spec, npartitions, rows_per_partition,
                                       scheduler)
    C, c_index = censored_c_index(P, D, T)
    return {"n": n_rows, "comparable": P, "concordant": C, "discordant": D, "tied_score": T,
            "c_index": c_index}

