"""Written-out oracles of the variances, tests and corrections the monitors report (tests
only): DeLong's variance and covariance from every pair of a positive and a negative,
Hanley & McNeil's formula, the U-statistic variance of a concordance from every pair of
rows, the z-test of an AUC drop and DeLong's paired test, Holm's and Bonferroni's
adjustments by the textbook loops.

Like `oracle`, nothing here is fast or clever: every value comes from the full n x n pair
matrix (numpy comparisons of every pair, each row's sums over it: exact with integer
weights, whose sums stay below 2**53), the rest in exact `fractions.Fraction`
arithmetic, rounded once at the end, and from the standard normal of `math.erfc` and
SciPy's quantile, none of streamrank's code. Weights are frequency weights: a row of
weight ``w`` counts ``w`` times in every sum, 0 removes it. Use them for n up to a few
thousand.

>>> aucs, cov = delong_covariance([0, 0, 1, 1], [[0.1, 0.4, 0.35, 0.8]])
>>> aucs, cov
([Fraction(3, 4)], [[Fraction(1, 8)]])
>>> holm([0.01, float("nan"), 0.04, 0.03])
[0.03, nan, 0.06, 0.06]
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np
from scipy.stats import norm

__all__ = ["bonferroni", "concordance_variance", "delong_covariance", "delong_variance",
           "drop_test", "hanley_mcneil_variance", "holm", "paired_delong_test"]

_NAN = math.nan


def _arrays(y, scores, w):
    """``(y, [scores of each model], w)`` as float arrays, the rows of weight 0 dropped."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    keep = w != 0
    return (np.asarray(y, dtype=float)[keep],
            [np.asarray(col, dtype=float)[keep] for col in scores], w[keep])


def _psi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Every ``a[i]`` against every ``b[j]``: 1 above, 1/2 tied, 0 below (exact)."""
    return (a[:, None] > b[None, :]) + 0.5 * (a[:, None] == b[None, :])


def _exact(values) -> list:
    return [Fraction(float(v)) for v in values]


def delong_covariance(y: Sequence, scores: Sequence[Sequence],
                      w: Optional[Sequence] = None):
    """``(aucs, cov)`` of the ``k`` score columns ``scores`` on binary labels ``y`` (the
    higher label positive): each AUC ``sum_ij w_i w_j psi_ij / (W1 W0)`` over every
    positive ``i`` and negative ``j``; DeLong's covariance ``S10/W1 + S01/W0`` with
    ``S10[a][b] = sum_i w_i (V10a_i - A_a)(V10b_i - A_b) / (W1 - 1)`` over the positives
    (``V10_i``: the weighted share of negatives ``i`` outranks, ties one half) and
    ``S01`` the same over the negatives. ``(None, None)`` without both classes; a
    covariance entry is nan when a class weighs at most 1."""
    y, cols, w = _arrays(y, scores, w)
    if np.unique(y).size != 2:
        return None, None
    pos = y == y.max()
    wp, wn = _exact(w[pos]), _exact(w[~pos])
    w1, w0 = sum(wp), sum(wn)
    k = len(cols)
    psi = [_psi(c[pos], c[~pos]) for c in cols]
    v10 = [[Fraction(float(v)) / w0 for v in m @ w[~pos]] for m in psi]
    v01 = [[Fraction(float(v)) / w1 for v in w[pos] @ m] for m in psi]
    aucs = [sum(wi * v for wi, v in zip(wp, v10[m])) / w1 for m in range(k)]
    if w1 <= 1 or w0 <= 1:
        return aucs, [[_NAN] * k for _ in range(k)]

    def spread(ws, v, a, b, total):
        return sum(wi * (va - aucs[a]) * (vb - aucs[b])
                   for wi, va, vb in zip(ws, v[a], v[b])) / (total - 1)

    cov = [[spread(wp, v10, a, b, w1) / w1 + spread(wn, v01, a, b, w0) / w0
            for b in range(k)] for a in range(k)]
    return aucs, cov


def delong_variance(y, s, w=None) -> tuple[float, float]:
    """``(auc, var)`` of one model (`delong_covariance`); nan without both classes."""
    aucs, cov = delong_covariance(y, [s], w)
    return (_NAN, _NAN) if aucs is None else (float(aucs[0]), float(cov[0][0]))


def hanley_mcneil_variance(a: float, m: float, n: float) -> float:
    """Hanley & McNeil (1982): ``(A(1-A) + (m-1)(Q1-A^2) + (n-1)(Q2-A^2)) / (m n)``,
    ``Q1 = A/(2-A)``, ``Q2 = 2A^2/(1+A)``, for ``m`` positives and ``n`` negatives;
    nan when either weighs at most 1 (as DeLong's)."""
    if not (m > 1 and n > 1) or a != a:
        return _NAN
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    return (a * (1 - a) + (m - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (m * n)


def concordance_variance(y: Sequence, s: Sequence, w: Optional[Sequence] = None
                         ) -> tuple[float, float]:
    """``(c, Var(c))`` of Harrell's concordance of any labels, every pair of rows
    compared: for row ``i`` against every other row ``j`` of a different label,
    ``b_i = sum_j w_j`` and ``a_i = sum_j w_j 2 h_ij`` (``h`` = 1 when the scores order
    the pair as the labels, 1/2 when tied in score, 0 otherwise); ``c = sum w a / (2 sum
    w b)`` and ``Var = W/(W-1) sum_i w_i (a_i - 2 c b_i)^2 / (sum_i w_i b_i)^2``. nan
    without two labels; a nan variance when ``W <= 1``."""
    y, (s,), w = _arrays(y, [s], w)
    other = y[:, None] != y[None, :]                # the pairs of different labels
    above = y[:, None] > y[None, :]
    h = np.where(above, _psi(s, s), _psi(-s, -s))   # 1: ordered as the labels
    a = _exact((2 * h * other) @ w)
    b = _exact(other @ w)
    ws = _exact(w)
    big_b = sum(wi * bi for wi, bi in zip(ws, b))
    if big_b == 0:
        return _NAN, _NAN
    c = sum(wi * ai for wi, ai in zip(ws, a)) / (2 * big_b)
    big_w = sum(ws)
    if big_w <= 1:
        return float(c), _NAN
    ss = sum(wi * (ai - 2 * c * bi) ** 2 for wi, ai, bi in zip(ws, a, b))
    return float(c), float(big_w / (big_w - 1) * ss / big_b ** 2)


def _phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _z(diff, var) -> tuple[float, float]:
    """``(se, z)``: ``z = diff / se``; with ``se = 0`` the sign of ``diff`` (0 if none)."""
    if var != var or diff != diff or var < 0:
        return _NAN, _NAN
    se = math.sqrt(var)
    if se > 0:
        return se, float(diff) / se
    return se, math.copysign(math.inf, diff) if diff != 0 else 0.0


def drop_test(auc, var, ref_auc, ref_var) -> tuple[float, float, float]:
    """``(se, z, p)`` of the one-sided test that ``auc`` fell below ``ref_auc``, the two
    windows independent: ``se = sqrt(var + ref_var)``, ``z = (auc - ref_auc) / se``,
    ``p = Phi(z)``."""
    se, z = _z(auc - ref_auc, var + ref_var)
    return se, z, _NAN if z != z else _phi(z)


def paired_delong_test(y, a, b, w=None, alternative="two-sided", level=0.95) -> dict:
    """DeLong's paired test of model ``a`` against model ``b`` on the same rows:
    ``difference = AUC_a - AUC_b``, ``se^2 = Var_a + Var_b - 2 Cov_ab``
    (`delong_covariance`), ``z = difference / se`` and its p-value against
    ``alternative`` (``"greater"``: ``AUC_a > AUC_b``), the interval ``difference -+ q
    se`` clipped to ``[-1, 1]``, one-sided for a one-sided alternative. None without
    both classes."""
    aucs, cov = delong_covariance(y, [a, b], w)
    if aucs is None:
        return None
    diff = aucs[0] - aucs[1]
    var = _NAN if cov[0][0] != cov[0][0] else cov[0][0] + cov[1][1] - 2 * cov[0][1]
    se, z = _z(diff, var)
    if z != z:
        p = _NAN
    elif alternative == "less":
        p = _phi(z)
    elif alternative == "greater":
        p = _phi(-z)
    else:
        p = min(1.0, 2 * _phi(-abs(z)))
    q = norm.ppf(level if alternative != "two-sided" else 0.5 + level / 2)
    low = high = _NAN
    if se == se:
        low = -1.0 if alternative == "less" else max(-1.0, float(diff) - q * se)
        high = 1.0 if alternative == "greater" else min(1.0, float(diff) + q * se)
    return dict(difference=float(diff), se=se, z=z, p_value=p, low=low, high=high,
                auc_a=float(aucs[0]), auc_b=float(aucs[1]))


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values by the textbook loop: the ``r``-th smallest of the ``m``
    tests (nan entries are no tests and stay nan) gets ``max`` over the smaller ones of
    ``min(1, (m - r) p)``, ``r`` from 0."""
    ps = list(ps)
    idx = [i for i, p in enumerate(ps) if p == p]
    m = len(idx)
    out = [_NAN] * len(ps)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: ps[i])):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def bonferroni(ps: Sequence[float]) -> list[float]:
    """Bonferroni's: ``min(1, m p)`` for the ``m`` tests (nan entries stay nan)."""
    ps = list(ps)
    m = sum(p == p for p in ps)
    return [min(1.0, m * p) if p == p else _NAN for p in ps]
