"""`pair_counts`: every concordant, discordant and tied pair in O(n log n)."""

from __future__ import annotations

import dataclasses
import math

from numpy.typing import ArrayLike

from ._kernels import count_pairs, scale_weights
from .._validation import as_1d_numeric, check_consistent_length, check_weights, param_error
from ..counts import PairCounts

__all__ = ["pair_counts", "validate_pairs_input"]


def validate_pairs_input(y_true, y_score, sample_weight, func, *,
                         label_name="y_true", score_name="y_score", scale=True):
    """Validated ``(y, s, w)`` arrays: 1-D, numeric, finite, same length, weights >= 0.

    With ``scale=True`` (for metrics, which are ratios of pair sums) the weights come back
    divided by the power of two that brings the largest into ``[0.5, 1)``: exact, and it
    keeps every pair sum inside float64's range whatever the weights' scale."""
    y = as_1d_numeric(y_true, label_name, func)
    s = as_1d_numeric(y_score, score_name, func)
    n = check_consistent_length(func, **{label_name: y, score_name: s})
    w = check_weights(sample_weight, n, func)
    return y, s, (scale_weights(w)[0] if scale else w)


def pair_counts(y_true: ArrayLike, y_score: ArrayLike, *,
                sample_weight: ArrayLike | None = None) -> PairCounts:
    """Count every concordant, discordant and tied pair of (label, score) samples.

    A pair {i, j} with ``y_i != y_j`` is *concordant* when the scores order it as the labels
    do (the higher label has the higher score), *discordant* when they order it the other
    way, and *tied in score* when ``s_i == s_j``; pairs with ``y_i == y_j`` are tied in label
    (and, if also ``s_i == s_j``, tied in both). With weights a pair counts ``w_i * w_j``.
    See `PairCounts` for every count and every metric derived from them.

    Runtime complexity: ``O(n log n)``, vectorized. Binary labels cost two ``np.sort`` of
    the classes' scores and one merge (less than one ``np.argsort``); up to 8 label levels,
    one sort per level and a merge per pair of levels; continuous labels, one argsort and a
    compiled merge-sort inversion count. The naive pair loop is ``O(n^2)``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels: bool, int or float (binary, ordinal or continuous), finite.
    y_score : array-like of shape (n,)
        Scores, finite. Higher means "higher label expected".
    sample_weight : array-like of shape (n,), optional
        Nonnegative weights. A zero weight is the same as dropping the row.

    Returns
    -------
    PairCounts
        Exact Python ints with unit weights (no overflow at any ``n``); float64 sums of
        ``w_i * w_j`` with weights, with a relative error of a few ``n * 2**-53`` against
        the total pair weight.

    Examples
    --------
    >>> from streamrank import pair_counts
    >>> pc = pair_counts([1, 2, 3, 3], [0.2, 0.1, 0.5, 0.5])
    >>> pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both
    (4, 1, 0, 1, 1)
    >>> round(pc.tau_b, 6)
    0.6
    """
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, "pair_counts", scale=False)
    w, e = scale_weights(w)
    pc = count_pairs(y, s, w)
    return pc if e == 0 else _unscale(pc, e)


def _unscale(pc: PairCounts, e: int) -> PairCounts:
    """Counts of weights ``w * 2**-e`` as counts of ``w``: exact, unless a count leaves
    float64's normal range, which is refused (the metrics are fine at any scale: use them
    directly, or rescale the weights)."""
    out = {}
    for name in _PAIR_FIELDS:
        x = getattr(pc, name)
        try:
            y = math.ldexp(x, 2 * e)
        except OverflowError:
            y = math.inf
        if x != 0 and not (2.0 ** -1022 <= y < math.inf):
            raise param_error("sample_weight", "pair_counts", "weights whose pair sums fit "
                              "float64 (the metric functions, such as roc_auc_score, take "
                              "any scale)", f"a {name} of {x!r} * 2**{2 * e}")
        out[name] = y
    out["weight_sum"] = math.ldexp(pc.weight_sum, e)
    return dataclasses.replace(pc, **out)


_PAIR_FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")
