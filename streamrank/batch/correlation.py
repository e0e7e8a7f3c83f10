"""Rank correlations from the pair counts: Kendall's tau (a, b, c), Goodman-Kruskal gamma,
Somers' D."""

from __future__ import annotations

from typing import Literal

from numpy.typing import ArrayLike

from ._kernels import count_pairs
from .._validation import describe, param_error
from .pairs import validate_pairs_input

__all__ = ["goodman_kruskal_gamma", "kendall_tau", "somers_d"]

_VARIANTS = ("a", "b", "c")


def kendall_tau(y_true: ArrayLike, y_score: ArrayLike, *,
                variant: Literal["a", "b", "c"] = "b",
                sample_weight: ArrayLike | None = None) -> float:
    """Kendall's rank correlation between labels and scores, with ties.

    * ``"a"``: ``(C - D) / N0``, all pairs in the denominator;
    * ``"b"`` (default): ``(C - D) / sqrt((N0 - Ty) (N0 - Ts))``, which corrects for ties in
      either variable; equal to ``scipy.stats.kendalltau(y_true, y_score)``;
    * ``"c"`` (Stuart): ``2 m (C - D) / (n^2 (m - 1))`` with ``m`` the smaller number of
      distinct values, as ``scipy.stats.kendalltau(..., variant="c")``; with weights ``n``
      is the weight sum.

    Runtime complexity: ``O(n log n)`` (see `pair_counts`); ``O(n^2)`` naively.

    Examples
    --------
    >>> from streamrank import kendall_tau
    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.666666...
    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4], variant="a")
    0.666666...
    """
    func = "kendall_tau"
    if variant not in _VARIANTS:
        raise param_error("variant", func, f"one of {_VARIANTS}", describe(variant))
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, func)
    return getattr(count_pairs(y, s, w), "tau_" + variant)


def goodman_kruskal_gamma(y_true: ArrayLike, y_score: ArrayLike, *,
                          sample_weight: ArrayLike | None = None) -> float:
    """Goodman and Kruskal's gamma: ``(C - D) / (C + D)``; tied pairs are left out.

    Runtime complexity: ``O(n log n)``.

    Examples
    --------
    >>> from streamrank import goodman_kruskal_gamma
    >>> goodman_kruskal_gamma([1, 1, 2, 2], [0.1, 0.3, 0.3, 0.2])  # C = 2, D = 1, T = 1
    0.333333...
    """
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, "goodman_kruskal_gamma")
    return count_pairs(y, s, w).gamma


def somers_d(y_true: ArrayLike, y_score: ArrayLike, *,
             sample_weight: ArrayLike | None = None) -> float:
    """Somers' D of the score given the label: ``(C - D) / P``, ``P`` the pairs whose labels
    differ. Equal to ``scipy.stats.somersd(y_true, y_score).statistic`` (labels first); with
    binary labels it is ``2 AUC - 1`` (Gini).

    Runtime complexity: ``O(n log n)``.

    Examples
    --------
    >>> from streamrank import somers_d
    >>> somers_d([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.5
    """
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, "somers_d")
    return count_pairs(y, s, w).somers_d
