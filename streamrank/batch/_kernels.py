"""Vectorized O(n log n) pair-counting kernels: numpy for the sorts, compiled code
(`streamrank.batch._ckernels`, `streamrank.batch._clevels`, `streamrank.batch._cgroups`)
for the inversion counts.

Three exact paths, picked by the labels (`encode_labels`), give the same `PairCounts`:

* **binary** (two label levels): sort each class's scores (``np.sort``, no argsort), then
  one merge by ``np.searchsorted`` of the negatives' distinct scores into the positives:
  for a negative score ``x``, positives ``< x`` are discordant, ``== x`` tied, ``> x``
  concordant. Cheaper than one ``np.argsort`` of all scores.
* **ordinal** (``L <= MAX_ORDINAL_LEVELS`` levels): the same per level, and one merge per
  pair of levels ``a < b``: ``O(n log n + L n log n)`` with small constants.
* **continuous** (any labels): order the samples by label (one ``np.argsort``), sort the
  scores inside each run of tied labels, and count the strict inversions of the scores in
  that (label, score) order: pairs ``i < j`` with ``s_i > s_j`` are exactly the discordant
  pairs, and equal labels, sorted by score, never invert. The count is a compiled merge
  sort (`count_inversions`), which also leaves the scores sorted for the score ties.
  When labels and scores both hold few distinct values (`_count_coded`), no comparison
  sort at all: their codes, a counting sort by score code and one compiled pass over the
  runs of tied scores (`level_counts`).

Unit weights give exact Python ints: int64 partial sums are reduced by `int_sum`, which
never overflows, and the compiled counts use 128-bit accumulators. Weighted counts are
float64 sums of products of nonnegative terms.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ._ckernels import sort_count, sort_runs
from ._cgroups import group_rows
from ._clevels import level_codes, level_counts, tie_pairs
from ..counts import PairCounts

__all__ = [
    "MAX_ORDINAL_LEVELS", "count_in_score_order", "count_inversions", "count_pairs", "dense_ranks",
    "discordant_pairs", "encode_labels", "exclusive_cumsum_in_groups", "int_sum", "key_array",
    "run_starts", "scale_weights",
]

#: Label sets with at most this many distinct values take the per-level (ordinal) path.
#: Its cost grows as L^2 / 2 merges of n / L scores; above 8 levels the compiled merge-sort
#: path of the continuous labels is as fast (benchmarks/bench_batch.py, "ordinal" rows).
MAX_ORDINAL_LEVELS = 8

#: Labels in score order with at most this many levels are counted by a Fenwick tree over
#: the levels (`level_counts`, ``O(n log L)``, a tree that stays in cache); more levels by
#: the merge sort.
_TREE_MAX_LEVELS = 1 << 15

#: Labels and scores that both hold few distinct values (at most this many, and at most
#: ``n`` label-score combinations) are coded by binary search and counted in score order
#: by `level_counts`, with no comparison sort of the rows (`_count_coded`).
_CODED_MAX_LEVELS = 4096


def _few_values(x: np.ndarray) -> bool:
    """Whether ``x`` seems to hold few distinct values, judged on its first 4096 entries
    (at most 1024 there): a guess that only picks the faster of two exact paths."""
    return int(np.unique(x[:4096]).size) <= 1024


_INT64_SAFE = 2**62


def int_sum(a: np.ndarray) -> int:
    """Exact Python-int sum of a nonnegative int64 array, whatever its length.

    numpy's integer sum wraps silently past 2**63; this sums in chunks small enough that no
    chunk can overflow (each chunk's bound is ``len * max``), then adds the chunk totals as
    Python ints. One pass when the whole array is safe, which is every array below ~3e9
    elements of counts below ``n``.
    """
    if a.size == 0:
        return 0
    top = int(a.max())
    if top == 0:
        return 0
    if a.size * top < _INT64_SAFE:
        return int(a.sum(dtype=np.int64))
    step = max(1, _INT64_SAFE // top)
    return sum(int(a[i:i + step].sum(dtype=np.int64)) for i in range(0, a.size, step))


def _pairs_within_runs(lengths: np.ndarray) -> int:
    """Exact ``sum l (l - 1) / 2`` over run lengths: the pairs inside each run."""
    lengths = lengths.astype(np.int64, copy=False)
    return int_sum(lengths * (lengths - 1)) // 2


def _weighted_pairs(w: np.ndarray, starts: np.ndarray | None = None) -> float:
    """``sum_{i<j} w_i w_j`` within each run starting at ``starts`` (one run if None).

    Computed as ``sum_i w_i * (weight before i in its run)``: sums and products of
    nonnegative numbers only, so the relative error is ``O(log n) eps`` whatever the weights
    (``(W^2 - sum w^2) / 2`` would cancel when one weight dominates its run). The
    within-run prefix sums come from `_segmented_exclusive_scan`.
    """
    if w.size < 2:
        return 0.0
    if starts is None or starts.size <= 1:
        before = np.cumsum(w[:-1])
        return float(np.dot(w[1:], before))
    return float(np.dot(w, _segmented_exclusive_scan(w, starts)))


def _segmented_exclusive_scan(w: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """For each position, the sum of ``w`` before it within its run (runs start at
    ``starts``). A Hillis-Steele scan restricted to runs: ``ceil(log2(longest run))``
    vectorized passes, only additions of nonnegative terms (no prefix-sum differences)."""
    n = w.size
    run_id = np.zeros(n, dtype=np.intp)
    run_id[starts[1:]] = 1
    np.cumsum(run_id, out=run_id)
    out = np.zeros(n, dtype=np.float64)
    same = run_id[1:] == run_id[:-1]
    out[1:] = np.where(same, w[:-1], 0.0)
    longest = int(np.diff(starts, append=n).max())
    d = 1
    while d < longest - 1:
        same = run_id[d:] == run_id[:-d]
        out[d:] += np.where(same, out[:-d], 0.0)
        d *= 2
    return out


def exclusive_cumsum_in_groups(values: np.ndarray, group_starts: np.ndarray) -> np.ndarray:
    """For each position, the sum of ``values`` before it within its group (groups are the
    contiguous runs starting at ``group_starts``, the first being 0). O(n), vectorized."""
    cum = np.cumsum(values) - values
    lengths = np.diff(group_starts, append=values.size)
    return cum - np.repeat(cum[group_starts], lengths)


def run_starts(sorted_values: np.ndarray) -> np.ndarray:
    """Indices where a new value starts in a sorted array (run-length encoding)."""
    if sorted_values.size == 0:
        return np.zeros(0, dtype=np.intp)
    flags = np.empty(sorted_values.size, dtype=bool)
    flags[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=flags[1:])
    return np.flatnonzero(flags)


def dense_ranks(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks of ``x`` (0 for the smallest value, equal values share a rank) and the
    number of distinct values. One argsort."""
    order = np.argsort(x)
    flags = np.zeros(x.size, dtype=np.int64)
    flags[run_starts(x[order])[1:]] = 1
    ranks = np.empty(x.size, dtype=np.int64)
    ranks[order] = np.cumsum(flags)
    return ranks, int(ranks.max(initial=-1)) + 1


def _run_lengths(starts: np.ndarray, size: int) -> np.ndarray:
    return np.diff(starts, append=size)


# ------------------------------------------------------------------------- labels
def encode_labels(y: np.ndarray, max_levels: int = MAX_ORDINAL_LEVELS):
    """Dense level codes ``0..L-1`` (in label order) when ``y`` has at most ``max_levels``
    distinct values, else ``None``.

    O(n): booleans are their own codes; small-range integers go through ``np.bincount``;
    other labels are tested against the distinct values of a 4096-sample prefix (a miss
    means "continuous", found in one pass, without sorting all of ``y``).

    Returns ``(codes, levels)`` with ``codes`` a uint8 array and ``levels`` the sorted
    distinct label values.
    """
    if y.dtype == bool:
        return y.view(np.uint8), np.array([False, True])
    if y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < 256:
            # Subtract in a dtype that cannot wrap (int8 - int8 can).
            if y.dtype.kind == "u":
                shifted = (y - y.dtype.type(lo)).astype(np.intp)
            else:
                shifted = y.astype(np.int64) - lo
            hist = np.bincount(shifted, minlength=hi - lo + 1)
            present = hist > 0
            if int(present.sum()) <= max_levels:
                lookup = (np.cumsum(present) - 1).astype(np.uint8)
                return lookup[shifted], np.flatnonzero(present) + lo
            return None
    head = np.unique(y[:4096])
    if head.size > max_levels:
        return None
    idx = np.searchsorted(head, y)
    np.minimum(idx, head.size - 1, out=idx)
    if not np.array_equal(head[idx], y):
        return None
    return idx.astype(np.uint8), head


# ------------------------------------------------------------------------- kernels
def count_pairs(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> PairCounts:
    """Every pair count (concordant, discordant, tied) of validated 1-D arrays (see the
    module docstring).

    Rows of weight 0 are dropped first, so they count for nothing, not even as a distinct
    label or score of tau-c; ``n`` still reports every row given.
    """
    n_rows = int(y.size)
    if w is not None:
        keep = w > 0
        if not keep.all():
            y, s, w = y[keep], s[keep], w[keep]
    if y.size == 0:
        zero = 0 if w is None else 0.0
        return PairCounts(zero, zero, zero, zero, zero, n_rows, zero, 0, 0)
    enc = encode_labels(y)
    if enc is not None:
        codes, levels = enc
        pc = _count_levels(codes, len(levels), s, w)
    else:
        pc = _count_continuous(y, s, w)
    if pc.n != n_rows:
        pc = dataclasses.replace(pc, n=n_rows)
    return pc


def _split_levels(codes, n_levels, s, w):
    """Per label level: its scores sorted ascending, and their weights aligned (or None)."""
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_levels))))
    if w is None:
        if n_levels == 2:
            mask = codes.view(bool)
            neg, pos = s[~mask], s[mask]  # fresh copies: sort them in place
            neg.sort()
            pos.sort()
            return [neg, pos], None
        # A stable sort of uint8 codes is an O(n) radix sort; then one sort per level.
        grouped = s[np.argsort(codes, kind="stable")]
        return [np.sort(grouped[bounds[k]:bounds[k + 1]]) for k in range(n_levels)], None
    # Weighted: one argsort by score, then the O(n) radix sort by level keeps each level's
    # scores sorted with their weights attached.
    by_score = np.argsort(s)
    order = by_score[np.argsort(codes[by_score], kind="stable")]
    ss, ws = s[order], w[order]
    return (
        [ss[bounds[k]:bounds[k + 1]] for k in range(n_levels)],
        [ws[bounds[k]:bounds[k + 1]] for k in range(n_levels)],
    )


def _search_right(a: np.ndarray, x: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``np.searchsorted(a, x, "right")`` given ``lo = np.searchsorted(a, x, "left")``:
    only the values of ``x`` found in ``a`` need a second search (usually few)."""
    found = lo < a.size
    found[found] = a[lo[found]] == x[found]
    hi = lo.copy()
    if found.any():
        hi[found] = np.searchsorted(a, x[found], side="right")
    return hi


def _merge(a, b, wa=None, wb=None):
    """Merge two sorted arrays (and their weights). Timsort finds the two runs and merges
    them in O(len(a) + len(b))."""
    both = np.concatenate((a, b))
    if wa is None:
        both.sort(kind="stable")
        return both, None
    order = np.argsort(both, kind="stable")
    return both[order], np.concatenate((wa, wb))[order]


def _count_levels(codes, n_levels, s, w) -> PairCounts:
    """Binary and ordinal labels: per-level sorted scores, merged level by level.

    Level ``b``'s distinct scores ``x`` (with their multiplicity or weight) are located in
    the merged scores of all lower levels: lower scores ``< x`` make concordant pairs,
    ``== x`` tied, ``> x`` discordant. Cost: one sort per level, ``L - 1`` merges and
    ``2 (L - 1)`` searches of sorted needles.
    """
    n = int(codes.size)
    scores, weights = _split_levels(codes, n_levels, s, w)
    exact = w is None
    C = D = T = 0 if exact else 0.0
    Tyy = 0 if exact else 0.0
    n_score_levels = 0
    lower = lower_w = None
    for b in range(n_levels):
        sb = scores[b]
        starts = run_starts(sb)
        vals = sb[starts]
        if exact:
            size = _run_lengths(starts, sb.size)
            Tyy += _pairs_within_runs(size)
        elif sb.size:
            size = np.add.reduceat(weights[b], starts)
            Tyy += _weighted_pairs(weights[b], starts)
        n_score_levels += vals.size
        if lower is not None and lower.size and vals.size:
            lo = np.searchsorted(lower, vals, side="left")   # lower-level scores < x
            hi = _search_right(lower, vals, lo)              # lower-level scores <= x
            n_score_levels -= int(np.count_nonzero(hi > lo))  # x already seen below
            if exact:
                C += int_sum(size * lo)
                T += int_sum(size * (hi - lo))
                D += int_sum(size * (lower.size - hi))
            else:
                cum = np.concatenate(([0.0], np.cumsum(lower_w)))
                C += float(np.dot(size, cum[lo]))
                T += float(np.dot(size, cum[hi] - cum[lo]))
                D += float(np.dot(size, cum[-1] - cum[hi]))
        if b + 1 < n_levels:
            if lower is None:
                lower, lower_w = sb, (None if exact else weights[b])
            else:
                lower, lower_w = _merge(lower, sb, lower_w, None if exact else weights[b])

    n_label_levels = sum(1 for sc in scores if sc.size)
    if exact:
        Ty = _pairs_within_runs(np.array([sc.size for sc in scores], dtype=np.int64))
        weight_sum = n
    else:
        Ty = float(sum(_weighted_pairs(wk) for wk in weights))
        weight_sum = float(w.sum())
    return PairCounts(C, D, T, Ty, Tyy, n, weight_sum, n_label_levels, n_score_levels)


def key_array(x: np.ndarray) -> np.ndarray:
    """``x`` in the dtype the compiled kernels compare exactly: float64 for floats, int64
    for bool and signed ints, uint64 for unsigned ints (no copy when it already is)."""
    kind = x.dtype.kind
    dtype = np.float64 if kind == "f" else np.uint64 if kind == "u" else np.int64
    return x.astype(dtype, copy=False)


def _coded_levels(y, s):
    """``(y_levels, s_levels)``, the sorted distinct labels and scores, when both are few
    (at most `_CODED_MAX_LEVELS`, and at most ``n`` label-score combinations, so that
    `level_counts` runs per score run), else None. Only tried when both look few."""
    if not (_few_values(y) and _few_values(s)):
        return None
    y_levels = np.unique(y)
    if y_levels.size > _CODED_MAX_LEVELS:
        return None
    s_levels = np.unique(s)
    if s_levels.size > _CODED_MAX_LEVELS or y_levels.size * s_levels.size > y.size:
        return None
    return y_levels, s_levels


def _count_coded(y, s, w, y_levels, s_levels) -> PairCounts:
    """Labels and scores of few distinct values (``y_levels``, ``s_levels``: sorted and
    distinct, as from ``np.unique``): the codes by a compiled binary search, the rows put in score
    order by a counting sort of the score codes (`group_rows`, moving the label codes and
    the weights), and every count from one pass over the runs of tied scores
    (`level_counts`). ``O(n log m)``, no comparison sort of the rows."""
    n = int(y.size)
    y_code = level_codes(y, y_levels)
    s_code = level_codes(s, s_levels)
    moved = (y_code,) if w is None else (y_code, w)
    _, counts, grouped = group_rows(s_code, 0, s_levels.size, moved, with_perm=False,
                                    always=True)
    del y_code, s_code
    starts = np.zeros(s_levels.size, dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])           # every score value is present
    N0, Ty, Ts, Tyy, D = level_counts(grouped[0], y_levels.size, starts,
                                      None if w is None else grouped[1])
    weight_sum = n if w is None else float(w.sum())
    return _from_totals(N0, Ty, Ts, Tyy, D, n, weight_sum, int(y_levels.size),
                        int(s_levels.size))


def _count_continuous(y, s, w) -> PairCounts:
    """Any labels: order by (label, score), count the strict inversions of the scores.

    One argsort by label; the scores gathered in that order are sorted inside each run of
    tied labels (`sort_runs`), then the compiled merge sort counts their strict inversions
    (the discordant pairs) and leaves them sorted, where the runs of equal scores give the
    pairs tied in score.
    """
    n = int(y.size)
    levels = _coded_levels(y, s)
    if levels is not None:
        return _count_coded(y, s, w, *levels)
    order = np.argsort(y)
    y_sorted = y[order]
    Ty_exact, n_label_levels = tie_pairs(y_sorted)
    keys = key_array(s)[order]                     # a fresh array: sorted in place below
    wk = None if w is None else w[order]
    label_ties = n_label_levels < n
    if label_ties:
        y_starts = run_starts(y_sorted)
        if w is None:
            sort_runs(keys, y_starts)
        else:
            sort_runs(keys, y_starts, wk, wk)
            # (label, score) runs: a new run wherever the label or the score changes.
            both = np.ones(n, dtype=bool)
            np.not_equal(keys[1:], keys[:-1], out=both[1:])
            both[y_starts] = True
            key_starts = np.flatnonzero(both)
            del both
    del y_sorted, order
    if w is None:
        Tyy = tie_pairs(keys, y_starts)[0] if label_ties else 0
        D, keys, _, _ = sort_count(keys)
        Ts, n_score_levels = tie_pairs(keys)
        N0 = n * (n - 1) // 2
        Ty = Ty_exact
        weight_sum = n
    else:
        # N0 and Ts come from the same array and routine as Ty and Tyy whenever they must be
        # equal (one label level, or one score level): degenerate metrics stay exactly nan.
        N0 = _weighted_pairs(wk)
        Ty = _weighted_pairs(wk, y_starts) if label_ties else 0.0
        Tyy = _weighted_pairs(wk, key_starts) if label_ties else 0.0
        D, keys, ws, _ = sort_count(keys, wk, wk)
        s_starts = run_starts(keys)
        n_score_levels = int(s_starts.size)
        Ts = N0 if n_score_levels == 1 else _weighted_pairs(ws, s_starts)
        weight_sum = float(w.sum())
    return _from_totals(N0, Ty, Ts, Tyy, D, n, weight_sum, n_label_levels, n_score_levels)


def _from_totals(N0, Ty, Ts, Tyy, D, n, weight_sum, n_label_levels, n_score_levels):
    """`PairCounts` from the totals that an inversion count gives: all pairs, pairs tied in
    label, in score and in both, and the discordant pairs; ``T = Ts - Tyy`` and
    ``C = N0 - Ty - D - T`` (every pair is one of these)."""
    T = Ts - Tyy
    C = N0 - Ty - D - T
    if isinstance(C, float):
        # Differences of float sums: clamp the rounding below zero away.
        C, T = max(0.0, C), max(0.0, T)
    return PairCounts(C, D, T, Ty, Tyy, n, weight_sum, n_label_levels, n_score_levels)


def count_in_score_order(y_rank: np.ndarray, n_label_levels: int, s_sorted: np.ndarray,
                         w: np.ndarray | None) -> PairCounts:
    """Counts for samples already sorted by score: ``y_rank`` are the dense label ranks
    (``0..n_label_levels-1``) in score order, ``s_sorted`` the ascending scores and ``w``
    the weights in the same order.

    No sort of the scores (the epoch tracker gets the order by merging). Up to 32768 label
    levels, one compiled pass with a Fenwick tree over the levels counts everything
    (`level_counts`, ``O(n log L)``). Above, the label ranks are sorted inside each run of
    tied scores (`sort_runs`, so that no tied pair counts as an inversion), then the
    compiled merge sort counts their strict inversions (earlier = lower score, higher
    label: exactly the discordant pairs) and leaves them sorted by label, ``O(n log n)``.
    """
    n = int(s_sorted.size)
    s_starts = run_starts(s_sorted)
    n_score_levels = int(s_starts.size)
    if n_label_levels <= _TREE_MAX_LEVELS:
        N0, Ty, Ts, Tyy, D = level_counts(y_rank, n_label_levels, s_starts, w)
        weight_sum = n if w is None else float(w.sum())
        return _from_totals(N0, Ty, Ts, Tyy, D, n, weight_sum, n_label_levels,
                            n_score_levels)
    keys = np.array(y_rank, dtype=np.int64)        # a fresh array: sorted in place below
    w = None if w is None else np.array(w, dtype=np.float64)
    if n_score_levels < n:
        if w is None:
            sort_runs(keys, s_starts)
        else:
            sort_runs(keys, s_starts, w, w)
    if w is None:
        Ts = _pairs_within_runs(_run_lengths(s_starts, n))
        Tyy = tie_pairs(keys, s_starts)[0]
        D, keys, _, _ = sort_count(keys)
        Ty = tie_pairs(keys)[0]
        N0 = n * (n - 1) // 2
        weight_sum = n
    else:
        both = np.zeros(n, dtype=bool)
        both[s_starts] = True
        both[1:] |= keys[1:] != keys[:-1]
        Tyy = _weighted_pairs(w, np.flatnonzero(both))
        del both
        Ts_runs = _weighted_pairs(w, s_starts) if n_score_levels > 1 else None
        D, keys, wy, _ = sort_count(keys, w, w)     # wy: the weights in label order
        N0 = _weighted_pairs(wy)
        Ty = _weighted_pairs(wy, run_starts(keys))
        Ts = N0 if Ts_runs is None else Ts_runs
        weight_sum = float(w.sum())
    return _from_totals(N0, Ty, Ts, Tyy, D, n, weight_sum, n_label_levels, n_score_levels)


def discordant_pairs(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None,
                     order: np.ndarray | None = None):
    """Pairs (weight ``w_i w_j``) that ``x`` and ``y`` order strictly opposite ways:
    ``x_i < x_j`` and ``y_i > y_j``. Equal to ``count_pairs(x, y, w).discordant`` for
    positive weights, without the other counts: the Kendall distance between two score
    vectors (the epoch tracker's churn).

    ``order``: ``np.argsort(x)`` when the caller has it (saves the sort). ``y`` is put in
    that order, sorted inside runs of tied ``x`` (`sort_runs`), and its strict inversions
    counted by the compiled merge sort. ``O(n log n)``; exact int without weights.

    >>> import numpy as np
    >>> discordant_pairs(np.array([1, 2, 3, 3]), np.array([0.3, 0.2, 0.1, 0.5]))
    3
    """
    if order is None:
        order = np.argsort(x)
    keys = key_array(y)[order]                     # a fresh array: sorted in place below
    wk = None if w is None else np.array(w[order], dtype=np.float64)
    starts = run_starts(x[order])
    if starts.size < x.size:
        if wk is None:
            sort_runs(keys, starts)
        else:
            sort_runs(keys, starts, wk, wk)
    return sort_count(keys, wk, wk)[0]


def count_inversions(seq: np.ndarray, left=None, right=None):
    """Strict inversions ``sum_{i<j, seq_i > seq_j} left_i * right_j`` of a numeric array.

    ``left`` weighs the earlier element of a pair and ``right`` the later one (the C-index
    uses ``left`` = "event observed"); both ``None`` counts pairs, exactly, as a Python int.
    Integer ``left``/``right`` (nonnegative) give exact Python ints, float ones a float64
    sum of nonnegative products (relative error below about ``2 n eps``). ``seq`` is not
    modified. Compiled merge sort (`streamrank.batch._ckernels.sort_count`), ``O(n log n)``.

    >>> import numpy as np
    >>> count_inversions(np.array([3, 1, 2, 1]))
    4
    >>> count_inversions(np.array([3, 1, 2, 1]), left=np.array([0, 1, 1, 1]))  # (2, 1)
    1
    """
    return sort_count(np.array(key_array(seq)), left, right)[0]


def scale_weights(w):
    """``(w * 2**-e, e)`` for validated weights ``w`` (``None`` stays ``(None, 0)``): the
    largest weight lands in ``[0.5, 1)``. Dividing by a power of two is exact (unless a
    weight falls below ``2**-1022`` of the largest), so metrics, ratios of pair sums, are
    the same bit for bit, whatever power of two scaled the weights. Runtime: ``O(n)``."""
    if w is None or w.size == 0:
        return w, 0
    top = float(w.max())
    if top == 0.0:
        return w, 0
    e = math.frexp(top)[1]
    return (w if e == 0 else np.ldexp(w, -e)), e
