"""Pairwise ranking accuracy as River metrics: ``C / P`` and Right / Wrong ``(C + T) / (D + T)``."""

from __future__ import annotations

from .correlation import _PairCountMetric

__all__ = ["PairwiseAccuracy", "RightWrongRatio"]


class PairwiseAccuracy(_PairCountMetric):
    """The share of comparable pairs that ``y_pred`` orders as ``y_true`` does: ``C / P``.

    ``P`` counts the pairs whose ``y_true`` differ; a pair tied in ``y_pred`` counts as
    not ordered correctly (``C / P = AUC - T / (2 P)``). ``1 - get()`` is the RankNet-style
    error rate ``(D + T) / P``. ``get()`` returns ``0.0`` while ``P = 0`` (River's
    convention).

    With a binary classifier's output (a ``{class: probability}`` dict from
    ``predict_proba_one``, which River's evaluation hands it: ``requires_labels`` is
    False), the pairwise accuracy is computed between the class (1 for ``pos_val``, 0 for
    another) and the probability of ``pos_val``, as `KendallTau` says; `works_with`
    regressors and classifiers, and ``ROCAUC() + PairwiseAccuracy()`` forms a
    ``river.metrics.Metrics``.

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict (and ``y_true`` a class); unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import PairwiseAccuracy
    >>> metric = PairwiseAccuracy()
    >>> for y_true, y_pred in [(1, 0.2), (2, 0.5), (3, 0.5), (4, 0.9)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()                   # 5 of the 6 pairs ordered, one tied
    0.833333...
    """

    _prop = "pairwise_accuracy"


class RightWrongRatio(_PairCountMetric):
    """The pairwise ranking ratio ``Right / Wrong = (C + T) / (D + T)``.

    ``Right`` counts the comparable pairs that ``y_pred`` does not order against
    ``y_true`` (concordant or tied), ``Wrong`` those it does not order with it
    (discordant or tied). ``get()`` is ``inf`` when every comparable pair is concordant,
    and ``0.0`` while there is no comparable pair (River's convention).

    With a binary classifier's output (a ``{class: probability}`` dict from
    ``predict_proba_one``, which River's evaluation hands it: ``requires_labels`` is
    False), the ratio is computed between the class (1 for ``pos_val``, 0 for another) and
    the probability of ``pos_val``, as `KendallTau` says; `works_with` regressors and
    classifiers, and ``ROCAUC() + RightWrongRatio()`` forms a ``river.metrics.Metrics``.

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict (and ``y_true`` a class); unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import RightWrongRatio
    >>> metric = RightWrongRatio()
    >>> for y_true, y_pred in [(1, 0.2), (2, 0.6), (3, 0.5), (4, 0.9)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()                   # C = 5, D = 1, T = 0
    5.0
    """

    _prop = "right_wrong_ratio"
