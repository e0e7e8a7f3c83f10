"""The pair metrics of a Dask collection: `pair_counts`, `roc_auc_score`, `kendall_tau`,
assembled from the range-partitioned count of `streamrank.dask._count`."""

from __future__ import annotations

from typing import Any, Literal

from numpy.typing import ArrayLike

from .._typing import Number
from .._validation import check_option
from ..batch.correlation import _VARIANTS
from ..counts import PairCounts
from ._count import _run
from ._partition import ROWS_PER_PARTITION
from ._spec import _pairs_spec


def _empty_counts(n_rows, exact):
    zero = 0 if exact else 0.0
    return PairCounts(zero, zero, zero, zero, zero, n_rows, zero, 0, 0)


def _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler) -> PairCounts:
    tot, n_rows, _ = _run(parts, spec, npartitions, rows_per_partition, scheduler)
    return _assemble_pairs(tot, n_rows, spec.names.get("w") is None)


def _assemble_pairs(tot: dict | None, n_rows: int, exact: bool) -> PairCounts:
    """`PairCounts` from the within-range counts and the cross terms (module docstring)."""
    if tot is None:
        return _empty_counts(n_rows, exact)
    C, D, T, Ty, Tyy = tot["within"]
    T_x = tot["run_x"] - tot["run_xz"]      # equal score, different labels, across buckets
    D += tot["inv"]
    Ty += tot["eq"]
    T += T_x
    Tyy += tot["run_xz"]
    C += tot["total_x"] - tot["inv"] - tot["eq"] - T_x
    if not exact:
        C, T = max(0.0, float(C)), max(0.0, float(T))
        D, Ty, Tyy = float(D), float(Ty), float(Tyy)
        weight_sum = float(tot["a_sum"])
    else:
        weight_sum = n_rows
    return PairCounts(C, D, T, Ty, Tyy, n_rows, weight_sum, tot["n_z"], tot["n_x"])



def pair_counts(data: Any = None, y_score: Any = None, *, label: str | None = None,
                score: str | None = None, weight: str | None = None,
                sample_weight: ArrayLike | None = None, npartitions: int | None = None,
                rows_per_partition: int = ROWS_PER_PARTITION,
                scheduler: Any = None) -> PairCounts:
    """Every concordant, discordant and tied pair of a Dask collection, exactly.

    The same `PairCounts` as `streamrank.pair_counts` on the concatenated data (equal
    Python ints with unit weights; float sums with weights). See the module docstring for
    the method: one range-partitioned shuffle by ``(score, label, row id)``, exact counts
    per range by the numpy core, and exact cross terms as Python ints on the client.

    Runtime complexity: ``O(n log n)`` work spread over the workers, plus ``O(B L)``
    (few label levels) or ``O(B^2)`` (continuous labels, second shuffle) on the client,
    ``B`` the number of ranges.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or dask.array.Array
        A frame (then ``label``, ``score`` and optionally ``weight`` name its columns), or
        the labels ``y_true`` as a 1-D dask array (or array-like).
    y_score : dask.array.Array, optional
        The scores, when ``data`` holds the labels (rechunked to their chunks if needed).
    label, score, weight : str, optional
        Column names, when ``data`` is a DataFrame.
    sample_weight : dask.array.Array, optional
        Nonnegative weights, when ``data`` holds the labels.
    npartitions : int, optional
        Number of score ranges ``B`` (default: the number of input partitions, or more so
        that no range holds more than ``rows_per_partition`` rows on average).
    rows_per_partition : int
        Target rows per range when ``npartitions`` is not given.
    scheduler : str or distributed.Client, optional
        Passed to ``dask.compute`` (default: the active client or Dask's default).

    Returns
    -------
    PairCounts

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import pair_counts
    >>> y = da.from_array([1, 2, 3, 3], chunks=2)
    >>> s = da.from_array([0.2, 0.1, 0.5, 0.5], chunks=2)
    >>> pc = pair_counts(y, s, scheduler="sync")
    >>> pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both
    (4, 1, 0, 1, 1)
    """
    spec, parts = _pairs_spec("pair_counts", data, data, y_score, label, score, weight,
                              sample_weight)
    return _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler)


def roc_auc_score(data: Any = None, y_score: Any = None, *, label: str | None = None,
                  score: str | None = None, weight: str | None = None,
                  sample_weight: ArrayLike | None = None, pos_label: Number | None = None,
                  npartitions: int | None = None, rows_per_partition: int = ROWS_PER_PARTITION,
                  scheduler: Any = None) -> float:
    """ROC AUC with ties as one half, ``(C + T / 2) / P``, of a Dask collection, exactly.

    Equal to `streamrank.roc_auc_score` (and so to scikit-learn) on the same data; inputs as
    `pair_counts`. ``pos_label`` picks the positive class (default: the larger label).
    Labels with more than two distinct values raise `ValueError`; one class only gives
    ``nan`` with an `UndefinedMetricWarning`.

    Runtime complexity: as `pair_counts` (histogram path: two label levels).

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import roc_auc_score
    >>> roc_auc_score(da.from_array([0, 0, 1, 1], chunks=2),
    ...               da.from_array([0.1, 0.4, 0.35, 0.8], chunks=2), scheduler="sync")
    0.75
    """
    spec, parts = _pairs_spec("roc_auc_score", data, data, y_score, label, score, weight,
                              sample_weight, pos_label=pos_label, binary=True)
    return _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler).auc


def kendall_tau(data: Any = None, y_score: Any = None, *,
                variant: Literal["a", "b", "c"] = "b", label: str | None = None,
                score: str | None = None, weight: str | None = None,
                sample_weight: ArrayLike | None = None, npartitions: int | None = None,
                rows_per_partition: int = ROWS_PER_PARTITION,
                scheduler: Any = None) -> float:
    """Kendall's tau (``variant`` "a", "b" or "c") between labels and scores, exactly.

    Equal to `streamrank.kendall_tau` on the same data; inputs as `pair_counts`.

    Runtime complexity: as `pair_counts`.

    Examples
    --------
    >>> import dask.array as da
    >>> from streamrank.dask import kendall_tau
    >>> kendall_tau(da.from_array([1, 2, 3, 4], chunks=2),
    ...             da.from_array([1, 3, 2, 4], chunks=2), scheduler="sync")
    0.666666...
    """
    check_option(variant, "variant", "kendall_tau", _VARIANTS)
    spec, parts = _pairs_spec("kendall_tau", data, data, y_score, label, score, weight,
                              sample_weight)
    pc = _pair_counts(spec, parts, npartitions, rows_per_partition, scheduler)
    return getattr(pc, "tau_" + variant)

