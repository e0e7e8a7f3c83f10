"""Brute-force oracles for every pair count of `PairCounts` (tests only).

Nothing here is fast and nothing here is clever: each function looks at every pair, so a
test can trust it by reading it. Two oracles count the same thing:

* `pair_counts_brute` -- the O(n^2) pair loop in pure Python. Unit weights give exact
  Python ``int`` counts; weights give exact `fractions.Fraction` sums (every float is a
  dyadic rational, so ``Fraction(w_i) * Fraction(w_j)`` is the exact pair weight).
  Use it for n up to a few dozen.
* `pair_counts_matrix` -- the same counts from n x n comparison masks in row blocks, still
  O(n^2) and still exact (integer limbs instead of Fractions). Use it for n up to a few
  thousand, e.g. to bound the float error of weighted counts.

`cross_counts` counts only the pairs between one item and a collection: the exact change
of every count when that item is inserted into (or removed from) the collection, which is
what the incremental engine's tests need.

`concordance_brute` is the pair loop of Harrell's C with right censoring under the rules of
``lifelines.utils.concordance_index`` (higher score = longer survival).

Definitions (docs/metrics.md): an unordered pair {i, j}, i != j, has weight w_i * w_j and
falls in exactly one of

    C    y_i != y_j, scores order the pair as the labels do     (concordant)
    D    y_i != y_j, scores order the pair the other way        (discordant)
    T    y_i != y_j, s_i == s_j                                  (tied in score only)
    Ty   y_i == y_j  (of which Tyy also have s_i == s_j)         (tied in label)

so P = C + D + T and N0 = P + Ty.

>>> c = pair_counts_brute([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
>>> c.C, c.D, c.T, c.Ty, c.Tyy, c.P, c.N0
(3, 1, 0, 2, 0, 4, 6)
>>> c.auc
Fraction(3, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np

__all__ = [
    "CensoredCounts",
    "Counts",
    "auc_by_ranks",
    "concordance_brute",
    "cross_counts",
    "exact_weights",
    "pair_counts_brute",
    "pair_counts_matrix",
]


# --------------------------------------------------------------------------- helpers
def _py(values) -> list:
    """Python scalars (int, float or bool) from any 1-D array-like, without rounding ints."""
    return np.asarray(values).tolist()


def exact_weights(sample_weight, n: int) -> Optional[list]:
    """``None`` for unit weights, else the weights as exact Fractions (ints stay ints)."""
    if sample_weight is None:
        return None
    return [Fraction(v) for v in _py(sample_weight)]


def _category(yi, si, yj, sj) -> str:
    """The one count of `PairCounts` that the pair {i, j} falls in."""
    if yi == yj:
        return "Tyy" if si == sj else "Ty_only"
    if si == sj:
        return "T"
    return "C" if (yi < yj) == (si < sj) else "D"


# --------------------------------------------------------------------------- counts
@dataclass(frozen=True)
class Counts:
    """Exact pair counts: ``int`` with unit weights, `Fraction` with weights.

    ``W`` is the weight sum (``n`` with unit weights); ``m_y`` and ``m_s`` are the numbers
    of distinct labels and scores among the samples with a non-zero weight (a zero-weight
    sample is the same as an absent one). Counts add and subtract field by field, so
    ``batch(items + [x]) == batch(items) + cross_counts(x, items)``.
    """

    C: object = 0
    D: object = 0
    T: object = 0
    Ty: object = 0
    Tyy: object = 0
    W: object = 0
    m_y: int = 0
    m_s: int = 0

    # derived counts
    @property
    def P(self):
        return self.C + self.D + self.T

    @property
    def N0(self):
        return self.P + self.Ty

    @property
    def Ts(self):
        """All pairs tied in score, whatever their labels: ``T + Tyy``."""
        return self.T + self.Tyy

    def as_tuple(self) -> tuple:
        """``(C, D, T, Ty, Tyy)``."""
        return (self.C, self.D, self.T, self.Ty, self.Tyy)

    def __add__(self, other: "Counts") -> "Counts":
        # Levels do not add; cross counts leave them at 0 and callers recompute them.
        return Counts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())),
                      W=self.W + other.W, m_y=max(self.m_y, other.m_y),
                      m_s=max(self.m_s, other.m_s))

    def __sub__(self, other: "Counts") -> "Counts":
        return Counts(*(a - b for a, b in zip(self.as_tuple(), other.as_tuple())),
                      W=self.W - other.W, m_y=self.m_y, m_s=self.m_s)

    # metrics, exact where the formula allows; None when the denominator is 0
    @staticmethod
    def _div(num, den):
        return None if den == 0 else Fraction(num) / Fraction(den)

    @property
    def auc(self):
        """``(C + T/2) / P``; also Harrell's C without censoring."""
        return self._div(Fraction(self.C) + Fraction(self.T) / 2, self.P)

    c_index = auc

    @property
    def gamma(self):
        return self._div(self.C - self.D, self.C + self.D)

    @property
    def somers_d(self):
        return self._div(self.C - self.D, self.P)

    @property
    def tau_a(self):
        return self._div(self.C - self.D, self.N0)

    @property
    def tau_b(self) -> Optional[float]:
        """``(C - D) / sqrt((N0 - Ty)(N0 - Ts))`` as a float (a square root is not exact)."""
        a, b = self.N0 - self.Ty, self.N0 - self.Ts
        if a == 0 or b == 0:
            return None
        # a and b are exact; only the final square root and division round.
        return float(Fraction(self.C - self.D) / Fraction(a)) * math.sqrt(Fraction(a) / Fraction(b))

    @property
    def tau_c(self):
        """Stuart's ``2 m (C - D) / (W^2 (m - 1))``, ``m = min(m_y, m_s)``."""
        m = min(self.m_y, self.m_s)
        if m < 2 or self.W == 0:
            return None
        return self._div(2 * m * (self.C - self.D), Fraction(self.W) ** 2 * (m - 1))

    @property
    def pairwise_accuracy(self):
        return self._div(self.C, self.P)

    def error_scale(self, metric: str) -> float:
        """``N0 / denominator`` of ``metric`` (at least 1).

        Float sums of pair weights are accurate to a few ``n eps N0`` in absolute terms, so
        a weighted ratio whose denominator is much smaller than ``N0`` (gamma when most
        pairs tie, AUC when most pairs share a label) is accurate to about
        ``n eps N0 / denominator``: tests scale their tolerance by this factor.

        >>> Counts(C=Fraction(1), D=Fraction(1), T=Fraction(98)).error_scale("gamma")
        50.0
        """
        den = {
            "auc": self.P, "c_index": self.P, "somers_d": self.P,
            "pairwise_accuracy": self.P, "pairwise_error": self.P,
            "gamma": self.C + self.D,
            "tau_b": min(self.N0 - self.Ty, self.N0 - self.Ts),
        }.get(metric, self.N0)
        if den == 0 or self.N0 == 0:
            return 1.0
        return max(1.0, float(Fraction(self.N0) / Fraction(den)))

    @property
    def pairwise_error(self):
        return self._div(self.D, self.P)


def _levels(y, s, w) -> tuple:
    keep = range(len(y)) if w is None else [i for i in range(len(y)) if w[i] != 0]
    return len({y[i] for i in keep}), len({s[i] for i in keep})


def cross_counts(item: tuple, ys: Sequence, ss: Sequence, ws: Optional[Sequence] = None) -> Counts:
    """Counts of the pairs between one ``item = (y, s)`` or ``(y, s, w)`` and each of the
    samples ``(ys[j], ss[j], ws[j])`` -- and of no other pair.

    This is exactly how much every count grows when ``item`` is inserted into the
    collection, and shrinks when it is removed. ``W`` is the item's weight; levels are 0.

    >>> cross_counts((1, 0.5), [0, 0, 1], [0.2, 0.5, 0.9]).as_tuple()
    (1, 0, 1, 1, 0)
    """
    yi, si = _py([item[0]])[0], _py([item[1]])[0]
    weighted = len(item) > 2 or ws is not None
    wi = Fraction(_py([item[2]])[0]) if len(item) > 2 else (Fraction(1) if weighted else 1)
    ys, ss = _py(ys), _py(ss)
    wj = exact_weights(ws, len(ys)) if ws is not None else None
    acc = {"C": 0, "D": 0, "T": 0, "Ty_only": 0, "Tyy": 0}
    for j in range(len(ys)):
        pw = wi * (wj[j] if wj is not None else 1)
        acc[_category(yi, si, ys[j], ss[j])] += pw
    zero = Fraction(0) if weighted else 0
    return Counts(zero + acc["C"], zero + acc["D"], zero + acc["T"],
                  zero + acc["Ty_only"] + acc["Tyy"], zero + acc["Tyy"], W=wi)


def placement(item: tuple, ys: Sequence, ss: Sequence, ws: Optional[Sequence] = None):
    """``(C + T/2) / (C + D + T)`` of the pairs ``item = (y, s)`` forms with the samples
    (`cross_counts`): with two labels, the share of the other class it orders correctly,
    ties one half (a placement value); None when it forms no comparable pair.

    >>> placement((1, 0.5), [0, 0, 1], [0.2, 0.5, 0.9])
    0.75
    """
    c = cross_counts(item, ys, ss, ws)
    comparable = c.C + c.D + c.T
    return None if comparable == 0 else float((c.C + Fraction(c.T) / 2) / comparable)


def pair_counts_brute(y_true, y_score, sample_weight=None) -> Counts:
    """Every pair counted by the O(n^2) loop; exact ints (unit weights) or Fractions.

    >>> pair_counts_brute([1, 2, 3], [3, 2, 1]).as_tuple()
    (0, 3, 0, 0, 0)
    >>> pair_counts_brute([0, 1, 1], [5, 5, 5], sample_weight=[0.5, 2, 1]).as_tuple()
    (Fraction(0, 1), Fraction(0, 1), Fraction(3, 2), Fraction(2, 1), Fraction(2, 1))
    """
    y, s = _py(y_true), _py(y_score)
    if len(y) != len(s):
        raise ValueError("y_true and y_score differ in length")
    w = exact_weights(sample_weight, len(y))
    acc = {"C": 0, "D": 0, "T": 0, "Ty_only": 0, "Tyy": 0}
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            acc[_category(y[i], s[i], y[j], s[j])] += 1 if w is None else w[i] * w[j]
    if w is None:
        total_w = len(y)
        counts = [acc["C"], acc["D"], acc["T"], acc["Ty_only"] + acc["Tyy"], acc["Tyy"]]
    else:
        total_w = sum(w, Fraction(0))
        counts = [Fraction(acc[k]) for k in ("C", "D", "T")]
        counts += [Fraction(acc["Ty_only"] + acc["Tyy"]), Fraction(acc["Tyy"])]
    m_y, m_s = _levels(y, s, w)
    return Counts(*counts, W=total_w, m_y=m_y, m_s=m_s)


# --------------------------------------------------------------------------- vectorized
_LIMB_BITS = 24


def _masks(y: np.ndarray, s: np.ndarray, rows: slice) -> dict:
    """Boolean masks (block of rows i x all j) of each category, for pairs with j > i only."""
    yi, yj = y[rows, None], y[None, :]
    si, sj = s[rows, None], s[None, :]
    # Signs by comparison, never by subtraction (no overflow, no rounding).
    dy = (yj > yi).astype(np.int8) - (yj < yi).astype(np.int8)
    ds = (sj > si).astype(np.int8) - (sj < si).astype(np.int8)
    upper = np.arange(y.shape[0])[None, :] > np.arange(rows.start, rows.stop)[:, None]
    prod = dy * ds
    return {
        "C": upper & (prod > 0),
        "D": upper & (prod < 0),
        "T": upper & (dy != 0) & (ds == 0),
        "Ty": upper & (dy == 0),
        "Tyy": upper & (dy == 0) & (ds == 0),
    }


def pair_counts_matrix(y_true, y_score, sample_weight=None, block: int = 256) -> Counts:
    """The counts of `pair_counts_brute`, exact, from comparison masks in row blocks.

    Weighted counts are exact: every float weight is ``k_i / 2^e`` with a common ``e``, so
    the pair weight sum is ``sum_i k_i * (sum_{j in mask_i} k_j) / 4^e``. The inner sums
    run in int64 over 24-bit limbs of ``k_j`` (each limb sum is < n * 2^24, far from 2^63),
    the outer sum in Python ints.

    >>> pair_counts_matrix([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).as_tuple()
    (3, 1, 0, 2, 0)
    """
    y, s = np.asarray(y_true), np.asarray(y_score)
    n = y.shape[0]
    w = exact_weights(sample_weight, n)
    names = ("C", "D", "T", "Ty", "Tyy")
    if w is None:
        totals = dict.fromkeys(names, 0)
        for a in range(0, n, block):
            for k, m in _masks(y, s, slice(a, min(n, a + block))).items():
                totals[k] += int(np.count_nonzero(m))
        m_y, m_s = _levels(_py(y), _py(s), None)
        return Counts(*(totals[k] for k in names), W=n, m_y=m_y, m_s=m_s)

    den = max((f.denominator for f in w), default=1)  # all powers of two: the largest is a multiple of all
    k = [int(f * den) for f in w]
    n_limbs = max(1, -(-max(k, default=0).bit_length() // _LIMB_BITS))
    mask24 = (1 << _LIMB_BITS) - 1
    limbs = np.array([[(v >> (_LIMB_BITS * L)) & mask24 for L in range(n_limbs)] for v in k],
                     dtype=np.int64).reshape(n, n_limbs)
    totals = dict.fromkeys(names, 0)
    for a in range(0, n, block):
        rows = slice(a, min(n, a + block))
        for name, m in _masks(y, s, rows).items():
            partial = m.astype(np.int64) @ limbs  # exact: each entry < n * 2^24
            for r, i in enumerate(range(rows.start, rows.stop)):
                inner = sum(int(partial[r, L]) << (_LIMB_BITS * L) for L in range(n_limbs))
                totals[name] += k[i] * inner
    scale = den * den
    m_y, m_s = _levels(_py(y), _py(s), w)
    return Counts(*(Fraction(totals[k_], scale) for k_ in names),
                  W=Fraction(sum(k), den), m_y=m_y, m_s=m_s)


# --------------------------------------------------------------------------- AUC by ranks
def auc_by_ranks(y_true, y_score, pos_label=None) -> Fraction:
    """The Mann-Whitney rank formula with average ranks for ties, exact:
    ``(sum of positive ranks - n+(n+ + 1)/2) / (n+ n-)``.

    >>> auc_by_ranks([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    Fraction(3, 4)
    """
    y, s = _py(y_true), _py(y_score)
    if pos_label is None:
        pos_label = max(y)
    order = sorted(range(len(s)), key=lambda i: s[i])
    rank = [Fraction(0)] * len(s)
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and s[order[j]] == s[order[i]]:
            j += 1
        for t in range(i, j):  # positions i..j-1 hold 1-based ranks i+1..j: average (i+1+j)/2
            rank[order[t]] = Fraction(i + 1 + j, 2)
        i = j
    pos = [r for r, lab in zip(rank, y) if lab == pos_label]
    n_pos, n_neg = len(pos), len(y) - len(pos)
    return (sum(pos, Fraction(0)) - Fraction(n_pos * (n_pos + 1), 2)) / (n_pos * n_neg)


# --------------------------------------------------------------------------- censoring
@dataclass(frozen=True)
class CensoredCounts:
    """Admissible pairs of censored survival data and how the scores order them."""

    concordant: object = 0
    discordant: object = 0
    tied_score: object = 0

    @property
    def comparable(self):
        return self.concordant + self.discordant + self.tied_score

    @property
    def c_index(self):
        if self.comparable == 0:
            return None
        return (Fraction(self.concordant) + Fraction(self.tied_score) / 2) / Fraction(self.comparable)


def concordance_brute(event_times, predicted_scores, event_observed=None,
                      sample_weight=None) -> CensoredCounts:
    """Harrell's C pair loop with the rules of lifelines' ``concordance_index``.

    A pair with different times is admissible when the shorter time is an observed event;
    a pair with equal times only when exactly one of the two is an event, which then counts
    as the shorter one. Admissible pairs are concordant when the shorter-lived sample has
    the lower score (higher score = longer survival) and tied when the scores are equal.

    >>> concordance_brute([1, 2, 3], [1, 2, 3], [1, 0, 1])
    CensoredCounts(concordant=2, discordant=0, tied_score=0)
    """
    t, s = _py(event_times), _py(predicted_scores)
    e = [True] * len(t) if event_observed is None else [bool(v) for v in _py(event_observed)]
    w = exact_weights(sample_weight, len(t))
    acc = {"C": 0, "D": 0, "T": 0}
    for i in range(len(t)):
        for j in range(i + 1, len(t)):
            # Put the sample that "fails first" in position a.
            if t[i] < t[j] or (t[i] == t[j] and e[i] and not e[j]):
                a, b = i, j
            elif t[j] < t[i] or (t[i] == t[j] and e[j] and not e[i]):
                a, b = j, i
            else:
                continue  # equal times with both or neither an event
            if not e[a]:
                continue  # the earlier one is censored: order unknown
            key = "T" if s[a] == s[b] else ("C" if s[a] < s[b] else "D")
            acc[key] += 1 if w is None else w[i] * w[j]
    if w is not None:
        acc = {k: Fraction(v) for k, v in acc.items()}
    return CensoredCounts(acc["C"], acc["D"], acc["T"])
