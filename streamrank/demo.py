"""`streamrank demo`: exact metrics of an online model, side by side with the peers.

An online logistic regression (River) learns River's bundled ``Phishing`` data set
(1,250 web pages, no download) one sample at a time, predicting each sample before learning
it (progressive validation). Every metric of the predictions is then computed by streamrank
and by its peer (scikit-learn, SciPy, lifelines), with the time each took.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from statistics import median
from typing import Callable

import numpy as np

__all__ = ["MetricRow", "compare_metrics", "phishing_predictions"]


def phishing_predictions(progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Labels and progressive-validation scores of River's logistic regression on Phishing.

    Returns ``(y_true, y_score)``: booleans and predicted probabilities of the positive
    class, each prediction made before the model saw its sample.
    """
    from river import datasets, linear_model, preprocessing
    from tqdm import tqdm

    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    stream = datasets.Phishing()
    ys, ps = [], []
    for x, y in tqdm(stream, total=stream.n_samples, desc="learning Phishing online",
                     disable=not progress, leave=False):
        ps.append(model.predict_proba_one(x).get(True, 0.0))
        ys.append(bool(y))
        model.learn_one(x, y)
    return np.array(ys), np.array(ps)


@dataclass(frozen=True)
class MetricRow:
    """One metric computed by streamrank and, where one exists, by a peer library."""

    metric: str
    streamrank: float
    streamrank_seconds: float
    peer: str
    peer_value: float
    peer_seconds: float

    @property
    def abs_diff(self) -> float:
        return abs(self.streamrank - self.peer_value)


def _timed(fn: Callable[[], float], repeats: int) -> tuple[float, float]:
    """The value of ``fn()`` and its median wall time over ``repeats`` calls."""
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return float(value), median(times)


def compare_metrics(y_true, y_score, repeats: int = 5) -> list[MetricRow]:
    """Every batch metric of streamrank next to its peer's value and both timings.

    Labels are binary. The C-index and Kendall's tau use the labels as an ordinal outcome.
    Peers that are not installed are reported as ``nan``.
    """
    import scipy.stats

    import streamrank as sr

    y_true = np.asarray(y_true)
    y_score = np.asarray(y_score, dtype=float)
    y_int = y_true.astype(int)
    rows = []

    def add(metric, ours, peer_name, peer):
        value, seconds = _timed(ours, repeats)
        try:
            pvalue, pseconds = _timed(peer, repeats) if peer else (float("nan"), float("nan"))
        except ImportError:
            pvalue, pseconds = float("nan"), float("nan")
        rows.append(MetricRow(metric, value, seconds, peer_name, pvalue, pseconds))

    def sklearn_auc(**kw):
        from sklearn.metrics import roc_auc_score
        return lambda: roc_auc_score(y_true, y_score, **kw)

    def lifelines_cindex():
        from lifelines.utils import concordance_index
        return concordance_index(y_int, y_score)

    add("ROC AUC", lambda: sr.roc_auc_score(y_true, y_score),
        "sklearn.metrics.roc_auc_score", sklearn_auc())
    add("partial AUC (max_fpr=0.1)", lambda: sr.roc_auc_score(y_true, y_score, max_fpr=0.1),
        "sklearn.metrics.roc_auc_score", sklearn_auc(max_fpr=0.1))
    add("Kendall tau-b", lambda: sr.kendall_tau(y_int, y_score),
        "scipy.stats.kendalltau", lambda: scipy.stats.kendalltau(y_int, y_score).statistic)
    add("Kendall tau-c", lambda: sr.kendall_tau(y_int, y_score, variant="c"),
        "scipy.stats.kendalltau(c)",
        lambda: scipy.stats.kendalltau(y_int, y_score, variant="c").statistic)
    add("Somers' D", lambda: sr.somers_d(y_int, y_score),
        "scipy.stats.somersd", lambda: scipy.stats.somersd(y_int, y_score).statistic)
    add("C-index", lambda: sr.concordance_index(y_int, y_score),
        "lifelines concordance_index", lifelines_cindex)
    add("Goodman-Kruskal gamma", lambda: sr.goodman_kruskal_gamma(y_int, y_score), "-", None)
    add("Kendall tau-a", lambda: sr.kendall_tau(y_int, y_score, variant="a"), "-", None)
    return rows


def format_table(rows: list[MetricRow]) -> str:
    """A plain-text table of `compare_metrics` rows."""
    head = f"{'metric':<27}{'streamrank':>12}{'peer':>12}{'|diff|':>10}{'ours ms':>9}" \
           f"{'peer ms':>9}  peer"
    lines = [head, "-" * len(head)]
    for r in rows:
        peer = "-" if np.isnan(r.peer_value) else f"{r.peer_value:.6f}"
        diff = "-" if np.isnan(r.peer_value) else f"{r.abs_diff:.1e}"
        pms = "-" if np.isnan(r.peer_seconds) else f"{1e3 * r.peer_seconds:.2f}"
        lines.append(f"{r.metric:<27}{r.streamrank:>12.6f}{peer:>12}{diff:>10}"
                     f"{1e3 * r.streamrank_seconds:>9.2f}{pms:>9}  {r.peer}")
    return "\n".join(lines)
