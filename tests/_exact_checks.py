"""Counts of an incremental object against the exact O(n^2) oracle (tests only).

`assert_counts` is the one comparison the mode, atomicity and release-fixture tests make:
every field of a `streamrank.PairCounts` against `oracle.pair_counts_matrix` of the
samples held (exact: ints with integer weights, dyadic Fractions with float weights),

* exactly, and as Python ints, when the object promises exact counts (every weight an
  integer up to ``2**53`` and the total below ``2**62``);
* within ``1e-9 * W**2`` otherwise (``W`` the weight held; README, "Weights");
* exactly 0 where a count is zero by structure (the `streamrank.engine` docstring), with
  floats too: one label level held with weight gives ``C = D = T = 0``, one score level
  ``C = D = 0``, every label held once ``Ty = Tyy = 0``, every score held once ``T = Tyy
  = 0``;

and the sample count, the weight held and the numbers of label and score levels.
"""

from __future__ import annotations

from fractions import Fraction

from oracle import pair_counts_matrix
from streamrank._validation import INT_TOTAL_MAX, MAX_EXACT_INT

__all__ = ["FIELDS", "assert_counts", "exact_weights_only"]

FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")

#: Relative bound of float counts, in units of the squared weight held.
FLOAT_BOUND = 1e-9


def exact_weights_only(weights) -> bool:
    """Whether these weights keep the counts exact ints: each an integer up to ``2**53``
    and their total at most ``2**62``."""
    ws = [Fraction(w) for w in weights]
    return (all(w.denominator == 1 and w <= MAX_EXACT_INT for w in ws)
            and sum(ws, Fraction(0)) <= INT_TOTAL_MAX)


def assert_counts(counts, rows, exact: bool) -> None:
    """``counts`` (a `PairCounts`) equal the oracle's counts of ``rows``, a list of
    ``(label, score, weight)``: exactly when ``exact``, else to the float bound."""
    y = [r[0] for r in rows]
    s = [r[1] for r in rows]
    w = [Fraction(r[2]) for r in rows]   # exact, whatever mix of ints and floats
    ref = pair_counts_matrix(y, s, w) if rows else None
    assert counts.n == len(rows), (counts.n, len(rows))
    if ref is None:
        for f in FIELDS:
            assert getattr(counts, f) == 0, (f, getattr(counts, f))
        assert counts.weight_sum == 0
        return
    scale = float(ref.W) ** 2
    for f, r in zip(FIELDS, ref.as_tuple()):
        got = getattr(counts, f)
        if exact:
            assert isinstance(got, int) and not isinstance(got, bool), (f, type(got))
            assert got == r, (f, got, r)
        else:
            assert abs(Fraction(got) - r) <= FLOAT_BOUND * scale, (f, got, float(r), scale)
    if exact:
        assert isinstance(counts.weight_sum, int) and counts.weight_sum == ref.W
    else:
        assert abs(Fraction(counts.weight_sum) - ref.W) <= 1e-12 * float(ref.W) + 1e-300
    assert counts.n_label_levels == ref.m_y, (counts.n_label_levels, ref.m_y)
    assert counts.n_score_levels == ref.m_s, (counts.n_score_levels, ref.m_s)
    # structural zeros, over the samples of weight > 0 (a zero weight == an absent sample)
    held = [(yi, si) for yi, si, wi in rows if wi != 0]
    n_pos = len(held)
    zero = []
    if ref.m_y <= 1:
        zero += ["concordant", "discordant", "tied_score"]
    if ref.m_s <= 1:
        zero += ["concordant", "discordant"]
    if ref.m_y == n_pos:
        zero += ["tied_label", "tied_both"]
    if ref.m_s == n_pos:
        zero += ["tied_score", "tied_both"]
    for f in zero:
        assert getattr(counts, f) == 0, (f, getattr(counts, f), "a structural zero")
