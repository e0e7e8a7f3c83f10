"""streamrank.ranking against ranx and pytrec_eval (trec_eval), test-only dependencies.

Tie conventions reproduced:

* trec_eval (pytrec_eval) breaks score ties by document id, *descending* (``strcmp``
  order). Naming tied documents so that id order follows relevance makes its ranking the
  pessimistic one (least relevant first: id prefix ``9 - rel``) or the optimistic one
  (prefix ``rel``), and our ``ties="pessimistic"`` / ``"optimistic"`` must then agree to
  1e-12 (trec_eval prints 4 decimals but pytrec_eval returns full doubles).
* ranx breaks ties by numba's (unstable) ``np.argsort`` of the negated scores, which no id
  choice reproduces; it is compared on tie-free scores, where every tie rule agrees.
  ranx's ``ndcg`` is linear-gain (Järvelin), ``ndcg_burges`` exponential.

Queries without a relevant document are in both comparisons: trec_eval and ranx score them
0, as our default ``empty=0`` does.
"""

from __future__ import annotations

import numpy as np
import pytest

from streamrank.ranking import (
    map_score, mrr_score, ndcg_at_k, precision_at_k, r_precision, recall_at_k,
)


def data(seed, n_queries=40, max_len=30, ties=True):
    rng = np.random.default_rng(seed)
    lens = rng.integers(2, max_len + 1, n_queries)
    q = np.repeat(np.arange(n_queries), lens)
    y = rng.integers(0, 4, q.size) * (rng.random(q.size) < 0.5)
    if ties:
        s = rng.integers(0, 6, q.size) / 5.0
    else:
        s = rng.permutation(q.size) / q.size
    y[np.isin(q, (3, 11, 20, 33))] = 0              # queries without a relevant document
    return q, y, s


def _n_empty(q, y):
    """Queries without a relevant document."""
    return int(np.isin(np.unique(q), q[y > 0], invert=True).sum())


def _docnames(y, prefix_of):
    return [f"{prefix_of(int(r))}_{i:06d}" for i, r in enumerate(y)]


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_pytrec_eval_tie_conventions(ties):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    q, y, s = data(1)
    assert _n_empty(q, y) >= 4
    prefix = (lambda r: 9 - r) if ties == "pessimistic" else (lambda r: r)
    names = _docnames(y, prefix)
    qrels, run = {}, {}
    for qi, d, r, sc in zip(q, names, y, s):
        qrels.setdefault(str(qi), {})[d] = int(r)
        run.setdefault(str(qi), {})[d] = float(sc)
    measures = {"ndcg", "ndcg_cut.5", "map", "map_cut.10", "recip_rank", "P.5", "recall.10", "Rprec"}
    res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    qids = sorted(res, key=int)

    def peer(m):
        return np.array([res[k][m] for k in qids])

    def ours(f, **kw):          # the default empty: 0, as trec_eval
        r = f(q, y, s, ties=ties, return_per_query=True, **kw)
        assert r.mean == pytest.approx(r.values.mean(), rel=1e-12)
        return r.values

    # trec_eval's ndcg uses linear gains
    np.testing.assert_allclose(ours(ndcg_at_k, gain="linear"), peer("ndcg"), rtol=1e-12)
    np.testing.assert_allclose(ours(ndcg_at_k, gain="linear", k=5), peer("ndcg_cut_5"), rtol=1e-12)
    np.testing.assert_allclose(ours(map_score), peer("map"), rtol=1e-12)
    np.testing.assert_allclose(ours(map_score, k=10), peer("map_cut_10"), rtol=1e-12)
    np.testing.assert_allclose(ours(mrr_score), peer("recip_rank"), rtol=1e-12)
    np.testing.assert_allclose(ours(precision_at_k, k=5), peer("P_5"), rtol=1e-12)
    np.testing.assert_allclose(ours(recall_at_k, k=10), peer("recall_10"), rtol=1e-12)
    np.testing.assert_allclose(ours(r_precision), peer("Rprec"), rtol=1e-12)


def test_ranx_without_ties():
    ranx = pytest.importorskip("ranx")
    q, y, s = data(2, ties=False)
    assert _n_empty(q, y) >= 4
    has_relevant = np.isin(q, q[y > 0])
    names = np.array([f"d{i}" for i in range(q.size)])
    qs = q.astype(str)
    qrels_d, run_d = {}, {}
    for qi, d, r, sc, h in zip(qs, names, y, s, has_relevant):
        run_d.setdefault(qi, {})[d] = float(sc)
        if r > 0 or not h:      # a query without relevant documents: judged all 0
            qrels_d.setdefault(qi, {})[d] = int(r)
    qrels, run = ranx.Qrels.from_dict(qrels_d), ranx.Run.from_dict(run_d)
    metrics = ["ndcg@10", "ndcg_burges@10", "map", "map@5", "mrr", "mrr@3", "precision@5",
               "recall@10", "r-precision"]
    res = ranx.evaluate(qrels, run, metrics, return_mean=False, make_comparable=False)

    def check(f, name, **kw):
        ours = f(q, y, s, return_per_query=True, **kw)      # the default empty: 0, as ranx
        # ranx orders queries as its qrels (sorted strings); ours are sorted ints
        order = np.argsort(ours.query_ids.astype(str))
        np.testing.assert_allclose(ours.values[order], res[name], rtol=1e-10)
        assert ours.mean == pytest.approx(np.mean(res[name]), rel=1e-10)
        assert (ours.values[~np.isin(ours.query_ids, q[y > 0])] == 0).all()

    check(ndcg_at_k, "ndcg@10", k=10, gain="linear")
    check(ndcg_at_k, "ndcg_burges@10", k=10, gain="exponential")
    check(map_score, "map")
    check(map_score, "map@5", k=5)
    check(mrr_score, "mrr")
    check(mrr_score, "mrr@3", k=3)
    check(precision_at_k, "precision@5", k=5)
    check(recall_at_k, "recall@10", k=10)
    check(r_precision, "r-precision")
