"""`pair_counts`: every concordant, discordant and tied pair in O(n log n)."""

from __future__ import annotations

from ._kernels import count_pairs
from ._validation import as_1d_numeric, check_consistent_length, check_weights
from .counts import PairCounts

__all__ = ["pair_counts", "validate_pairs_input"]


def validate_pairs_input(y_true, y_score, sample_weight, func, *,
                         label_name="y_true", score_name="y_score"):
    """Validated ``(y, s, w)`` arrays: 1-D, numeric, finite, same length, weights >= 0."""
    y = as_1d_numeric(y_true, label_name, func)
    s = as_1d_numeric(y_score, score_name, func)
    n = check_consistent_length(func, **{label_name: y, score_name: s})
    w = check_weights(sample_weight, n, func)
    return y, s, w


def pair_counts(y_true, y_score, *, sample_weight=None) -> PairCounts:
    """Count every concordant, discordant and tied pair of (label, score) samples.

    A pair {i, j} with ``y_i != y_j`` is *concordant* when the scores order it as the labels
    do (the higher label has the higher score), *discordant* when they order it the other
    way, and *tied in score* when ``s_i == s_j``; pairs with ``y_i == y_j`` are tied in label
    (and, if also ``s_i == s_j``, tied in both). With weights a pair counts ``w_i * w_j``.
    See `PairCounts` for every count and every metric derived from them.

    Runtime complexity: ``O(n log n)``, vectorized. Binary labels cost two ``np.sort`` of
    the classes' scores and one merge (less than one ``np.argsort``); up to 8 label levels,
    one sort per level and a merge per pair of levels; continuous labels, two argsorts and
    an ``O(n log m)`` inversion count (``m`` distinct scores). The naive pair loop is
    ``O(n^2)``.

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
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, "pair_counts")
    return count_pairs(y, s, w)
