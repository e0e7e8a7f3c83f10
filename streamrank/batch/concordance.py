"""How sure is a concordance: the variance of Harrell's C ``(C + T/2) / P`` of any labels.

`concordance_variance` and `concordance_ci` take binary, ordinal or continuous labels. The
concordance ``c = (C + T/2) / P`` is `PairCounts.c_index` (and, with two labels, the ROC
AUC): over the ``P`` pairs whose labels differ, a pair the scores order as the labels do
counts 1, a pair tied in score 1/2, a pair ordered the other way 0; a pair tied in label
is not comparable.

**Per-row components.** For each row ``i``, against all the other rows ``j``:

* ``b_i = sum_j w_j [y_j != y_i]``: the weight of its comparable pairs;
* ``a_i = sum_j w_j [y_j != y_i] (2 h_ij)``, ``h_ij`` = 1, 1/2 or 0 as above: its
  concordant pairs counted in half pairs (twice the concordant weight plus the tied);
* so that ``sum_i w_i a_i = 2 (2 C + T)``, ``sum_i w_i b_i = 2 P`` and ``c = sum w a /
  (2 sum w b)``.

They come from ``d_i = sum_j w_j sign(y_i - y_j) sign(s_i - s_j)`` (``a_i = b_i + d_i``),
which the compiled `streamrank.batch._clevels.row_scores` gives for every row in two
passes of a Fenwick tree over the label ranks, rows in score order: ``O(n log n)`` in
all (one argsort of the scores; the labels' ranks in ``O(n)`` for up to 8 levels, else
one ``np.unique``), never a pair loop.

**The U-statistic (delta-method) variance** (``method="u-statistic"``, the default).
Numerator and denominator are U-statistics of degree 2; the ratio's linearization has
the per-row component ``a_i - 2 c b_i`` (its weighted sum is 0), and::

    Var(c) = W / (W - 1) * sum_i w_i (a_i - 2 c b_i)^2 / (sum_i w_i b_i)^2

with ``W = sum_i w_i``. This is the usual asymptotic variance of Somers' D (``D = 2 c -
1``, so ``Var(D) = 4 Var(c)``) from each row's concordant minus discordant pairs, the
construction of Hmisc's ``rcorr.cens`` standard error. With integer weights the sums are
exact Python ints (``B^2 Qaa - 2 B S Qab + S^2 Qbb`` over ``B^4``, one rounding).

* With **two labels** (``m`` positives, ``n`` negatives, ``W = m + n``) the components are
  DeLong's placements (``a_i = 2 n V10_i`` of a positive, ``2 m V01_j`` of a negative,
  ``b`` = the other class's weight) and ``Var = W / (W - 1) [(m - 1)/m^2 S10 +
  (n - 1)/n^2 S01]``, where DeLong's is ``S10/m + S01/n``: the same placement spread
  with the class variances divided by the class weight instead of its weight minus one,
  times ``W / (W - 1)``. Both agree to ``O(1/m + 1/n)``; they are not equal.
* **The jackknife** (``method="jackknife"``): the leave-one-out concordances are exact
  from the same components, ``c_(-i) = (S/2 - a_i) / (B - 2 b_i)`` (``S = sum w a``,
  ``B = sum w b``: removing one copy of row ``i`` removes its pairs), and ``Var =
  (W - 1)/W sum_i w_i (c_(-i) - mean)^2``, ``O(n)`` more. Since ``c_(-i) - c = -(a_i -
  2 c b_i) / (B - 2 b_i)`` it equals the U-statistic variance up to a factor ``1 +
  O(1/W)``. ``nan`` when some row holds every comparable pair of another's.

**Weights** are frequency weights: an integer weight ``k`` is ``k`` copies of the row
(copies of a row tie in label with each other, so they are never compared); 0 drops it.
The public functions refuse other weights, naming ``sample_weight``.

**Undefined:** no two different labels (``P = 0``) gives ``nan`` everywhere (with an
`UndefinedMetricWarning`); ``W <= 1`` or no spread a ``nan`` or 0 variance (0 when every
component is proportional to its comparable weight, such as a perfect ranking).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike

from ._clevels import row_scores
from ._kernels import encode_labels, run_starts
from .delong import _wsum
from .._validation import check_level, check_option, param_error
from ..exceptions import UndefinedMetricWarning
from ..intervals import Interval, logit_interval
from .pairs import validate_pairs_input

__all__ = ["CONCORDANCE_METHODS", "concordance_ci", "concordance_components",
           "concordance_variance", "concordance_variance_arrays"]

_NAN = math.nan
CONCORDANCE_METHODS = ("u-statistic", "jackknife")
#: The ``metric`` of `concordance_ci`'s interval: the `PairCounts` property it estimates.
_METRIC = "c_index"
_EXACT = 2.0 ** 53


def concordance_components(y, s, w):
    """Per-row ``(a, b, w)`` (module docstring) of float64 arrays ``y``, ``s`` and
    positive weights ``w`` (None: unit): int64 when the weights are whole numbers whose
    total is below ``2**53`` (then exact), float64 otherwise; rows in score order.
    ``O(n log n)``."""
    order = np.argsort(s, kind="stable")
    ss = s[order]
    coded = encode_labels(y)                    # few levels: O(n), no sort
    if coded is None:
        levels, yr = np.unique(y[order], return_inverse=True)
    else:
        yr, levels = coded[0][order], coded[1]
    ws = None if w is None else w[order]
    d = row_scores(yr, levels.size, run_starts(ss), ws)
    if ws is None:
        total = float(ss.size)
        per_label = np.bincount(yr, minlength=levels.size).astype(np.float64)
    else:
        total = float(ws.sum())
        per_label = np.bincount(yr, weights=ws, minlength=levels.size)
    b = total - per_label[yr]
    a = b + d
    if total < _EXACT and (ws is None or (ws == np.floor(ws)).all()):
        a, b = a.astype(np.int64), b.astype(np.int64)
        ws = None if ws is None else ws.astype(np.int64)
    return a, b, ws


def concordance_variance_arrays(y, s, w, method="u-statistic"):
    """``(c, variance)`` of validated float64 arrays (``w``: None or nonnegative float64
    weights; zero-weight rows are dropped), any weights (frequency weights are the
    documented use). ``(nan, nan)`` without two different labels. ``O(n log n)``."""
    if w is not None:
        keep = w > 0
        if not keep.all():
            y, s, w = y[keep], s[keep], w[keep]
        if (w == 1).all():
            w = None
    if y.size == 0 or y.min() == y.max():
        return _NAN, _NAN
    a, b, ws = concordance_components(y, s, w)
    wsum = a.size if ws is None else (int(ws.sum()) if ws.dtype.kind == "i"
                                      else float(ws.sum()))
    big_s, big_b = _wsum(ws, a), _wsum(ws, b)
    if isinstance(big_s, int) and isinstance(big_b, int):
        c = big_s / (2 * big_b)                 # exact rational, one rounding
    else:
        c = min(1.0, max(0.0, float(big_s) / (2.0 * float(big_b))))
    if not wsum > 1:
        return c, _NAN
    if method == "jackknife":
        return c, _jackknife(a, b, ws, wsum, big_s, big_b)
    if isinstance(big_s, int) and isinstance(big_b, int) and isinstance(wsum, int):
        qaa, qab, qbb = _wsum(ws, a, a), _wsum(ws, a, b), _wsum(ws, b, b)
        num = big_b * big_b * qaa - 2 * big_b * big_s * qab + big_s * big_s * qbb
        return c, (wsum * num) / ((wsum - 1) * big_b ** 4)
    af, bf = a.astype(np.float64), b.astype(np.float64)
    dev = af - (float(big_s) / float(big_b)) * bf
    wf = np.ones(af.size) if ws is None else ws.astype(np.float64)
    var = float(np.dot(wf, dev * dev)) / float(big_b) ** 2
    return c, wsum / (wsum - 1.0) * var


def _jackknife(a, b, ws, wsum, big_s, big_b) -> float:
    """The leave-one-out variance from the components, ``O(n)`` (module docstring)."""
    den = float(big_b) - 2.0 * b.astype(np.float64)
    if (den <= 0).any():
        return _NAN
    loo = (float(big_s) / 2.0 - a.astype(np.float64)) / den
    wf = np.ones(loo.size) if ws is None else ws.astype(np.float64)
    wsum = float(wsum)
    mean = float(np.dot(wf, loo)) / wsum
    dev = loo - mean
    return (wsum - 1.0) / wsum * float(np.dot(wf, dev * dev))


def _inputs(y_true, y_score, sample_weight, method, func):
    method = check_option(method, "method", func, CONCORDANCE_METHODS)
    y, s, w = validate_pairs_input(y_true, y_score, sample_weight, func, scale=False)
    if w is not None:
        bad = w != np.floor(w)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise param_error("sample_weight", func, "whole numbers (frequency weights: "
                              "a weight k is k copies of the row)", f"{w[i]!r} at index {i}")
    y = y.astype(np.float64, copy=False)
    s = s.astype(np.float64, copy=False)
    return y, s, w, method


def _undefined(func):
    warnings.warn(f"Fewer than two distinct labels (with nonzero weight): the concordance "
                  f"and its variance are undefined in {func}; returning nan.",
                  UndefinedMetricWarning, stacklevel=3)


def concordance_variance(y_true: ArrayLike, y_score: ArrayLike, *,
                         sample_weight: ArrayLike | None = None,
                         method: str = "u-statistic") -> tuple[float, float]:
    """``(c, variance)``: Harrell's concordance ``(C + T/2) / P`` and its variance.

    Any labels (binary, ordinal, continuous): a pair tied in label is not comparable, a
    pair tied in score counts 1/2 (as `PairCounts.c_index`). The variance is the
    U-statistic (delta-method) one, ``W/(W-1) sum_i w_i (a_i - 2 c b_i)^2 / (sum w b)^2``
    from each row's concordant half pairs ``a_i`` and comparable pairs ``b_i``, or the
    exact leave-one-out jackknife of the same components; the module docstring
    (`streamrank.batch.concordance`) gives the formulas and how they relate to DeLong's
    variance with two labels.

    Runtime complexity: ``O(n log n)``: one argsort of the scores, the labels' ranks
    (``O(n)`` for up to 8 levels, else one ``np.unique``) and two compiled Fenwick-tree
    passes (``O(n log L)`` for ``L`` labels); the pair formula is ``O(n^2)``. Exact
    integer sums with unit or integer weights.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels (bool, int or float), finite.
    y_score : array-like of shape (n,)
        Scores, finite; higher means "higher label expected".
    sample_weight : array-like of shape (n,), optional
        Frequency weights: whole numbers, ``k`` counting as ``k`` copies of the row.
    method : {"u-statistic", "jackknife"}

    Returns
    -------
    (float, float)
        ``(nan, nan)`` (with an `UndefinedMetricWarning`) without two different labels;
        ``(c, nan)`` with a total weight of 1 or (jackknife) when some row holds all the
        comparable pairs of another.

    Examples
    --------
    >>> from streamrank import concordance_variance
    >>> c, var = concordance_variance([1, 2, 2, 3, 3, 1], [0.1, 0.5, 0.3, 0.6, 0.4, 0.2])
    >>> round(c, 6), round(var, 6)
    (0.916667, 0.011111)
    >>> c, var = concordance_variance([1, 2, 2, 3, 3, 1], [0.1, 0.5, 0.3, 0.6, 0.4, 0.2],
    ...                               method="jackknife")
    >>> round(var, 6)
    0.017361
    """
    func = "concordance_variance"
    y, s, w, method = _inputs(y_true, y_score, sample_weight, method, func)
    c, var = concordance_variance_arrays(y, s, w, method)
    if c != c:
        _undefined(func)
    return c, var


def concordance_ci(y_true: ArrayLike, y_score: ArrayLike, *,
                   sample_weight: ArrayLike | None = None, level: float = 0.95,
                   method: str = "u-statistic") -> Interval:
    """Harrell's concordance of any labels with its standard error and a logit interval.

    The estimate and the variance are `concordance_variance`'s; the interval is the Wald
    interval on the logit scale (`streamrank.intervals.logit_interval`), inside
    ``[0, 1]``, the single point ``(c, c)`` when the variance is 0. With two labels the
    estimate is the ROC AUC and the interval close to `roc_auc_ci`'s DeLong interval
    (the variances differ by ``O(1/n)``, see `streamrank.batch.concordance`).

    Runtime complexity: ``O(n log n)``.

    Parameters
    ----------
    y_true, y_score, sample_weight, method
        As in `concordance_variance`.
    level : float in (0, 1)
        The confidence level.

    Returns
    -------
    Interval
        ``metric`` is ``"c_index"`` (the concordance is `PairCounts.c_index`, and
        ``bootstrap_ci("c_index", ...)`` the bootstrap interval of the same number),
        ``estimate`` the concordance; ``method`` is ``"u-statistic"`` or
        ``"jackknife"``. All ``nan`` (with an `UndefinedMetricWarning`) without two
        different labels.

    Examples
    --------
    >>> from streamrank import concordance_ci
    >>> r = concordance_ci([1, 2, 2, 3, 3, 1], [0.1, 0.5, 0.3, 0.6, 0.4, 0.2])
    >>> r
    Interval(metric='c_index', estimate=0.916667, low=0.423929, high=0.993955,
             se=0.105409, method='u-statistic', level=0.95)
    >>> round(r.estimate, 4), round(r.se, 4), round(r.low, 4), round(r.high, 4)
    (0.9167, 0.1054, 0.4239, 0.994)
    """
    func = "concordance_ci"
    level = check_level(level, func)
    y, s, w, method = _inputs(y_true, y_score, sample_weight, method, func)
    c, var = concordance_variance_arrays(y, s, w, method)
    if c != c:
        _undefined(func)
        return Interval(_METRIC, _NAN, _NAN, _NAN, _NAN, method, level)
    se = math.sqrt(var) if var == var else _NAN
    low, high = logit_interval(c, se, level)
    return Interval(_METRIC, c, low, high, se, method, level)
