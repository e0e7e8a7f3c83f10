"""Train a small linear RankNet with LambdaRank gradients, watching the pair errors.

RankNet minimizes the number of mis-ordered document pairs per query, and
LambdaRank weights each pair by how much swapping it changes NDCG. Watching the pair
counts at every iteration gives a stopping rule. This example
does both, with numpy only, on generated data:

* queries of 20-60 documents, 10 features, graded relevance 0-4 from a hidden linear
  model plus noise (so a linear scorer can learn it, but not perfectly);
* the model is ``score = X @ w``; each epoch takes one full-batch step along
  ``X.T @ grad`` with ``grad`` from `streamrank.ranking.lambdarank_gradients`;
* every epoch prints, on held-out queries, the pair errors of RankNet's cost
  (`pairwise_errors`: ``D`` mis-ordered pairs, ``D + T`` counting score ties as errors),
  the error ratio ``(D + T) / P``, the ratio ``Right / Wrong = (C + T) / (D + T)``
  and NDCG@10;
* training stops when the held-out error ratio has not improved for ``patience`` epochs
  (the pair-count stopping rule), and keeps the best weights.

`EpochTracker` does not apply here: it counts the pairs of one labelled set, and pairs
across queries must not count; `pairwise_errors` counts inside each query, for all queries
at once.

Run: python examples/train_ranknet.py   (about a second)
"""

from __future__ import annotations

import numpy as np

from streamrank.ranking import lambdarank_gradients, ndcg_at_k, pairwise_errors


def make_queries(n_queries: int, n_features: int, rng: np.random.Generator):
    """Flat arrays ``(query_ids, X, relevance)`` of queries of 20-60 documents."""
    lengths = rng.integers(20, 61, n_queries)
    q = np.repeat(np.arange(n_queries), lengths)
    X = rng.normal(size=(q.size, n_features))
    w_true = rng.normal(size=n_features)
    latent = X @ w_true + rng.normal(scale=1.5, size=q.size)
    # Grade 0-4 by within-sample quantiles: most documents irrelevant, few perfect.
    cuts = np.quantile(latent, [0.5, 0.75, 0.9, 0.97])
    rel = np.searchsorted(cuts, latent)
    return q, X, rel


def evaluate(q, X, rel, w):
    s = X @ w
    pe = pairwise_errors(q, rel, s)
    D, wrong, P = pe.total_discordant, pe.total_wrong, pe.total_comparable
    right = P - D            # C + T
    return {"D": D, "D+T": wrong, "P": P, "ratio": wrong / P,
            "right/wrong": right / wrong if wrong else float("inf"),
            "ndcg10": ndcg_at_k(q, rel, s, k=10)}


def train(n_train=300, n_valid=100, n_features=10, epochs=200, lr=0.5, sigma=1.0,
          patience=5, seed=0, verbose=True):
    """Train; return the history (one dict per epoch) and the best weights."""
    rng = np.random.default_rng(seed)
    q, X, rel = make_queries(n_train + n_valid, n_features, rng)
    valid = q >= n_train
    qt, Xt, rt = q[~valid], X[~valid], rel[~valid]
    qv, Xv, rv = q[valid], X[valid], rel[valid]
    w = rng.normal(scale=0.01, size=n_features)
    best, best_w, since, history = np.inf, w.copy(), 0, []
    if verbose:
        print(f"{'epoch':>5} {'D':>7} {'D+T':>7} {'P':>7} {'(D+T)/P':>8} "
              f"{'Right/Wrong':>11} {'NDCG@10':>8}")
    for epoch in range(1, epochs + 1):
        grad, _ = lambdarank_gradients(qt, rt, Xt @ w, sigma=sigma, k=10)
        w -= lr * (Xt.T @ grad) / n_train
        m = evaluate(qv, Xv, rv, w)
        m["epoch"] = epoch
        history.append(m)
        if verbose:
            print(f"{epoch:5d} {m['D']:7d} {m['D+T']:7d} {m['P']:7d} {m['ratio']:8.4f} "
                  f"{m['right/wrong']:11.3f} {m['ndcg10']:8.4f}")
        if m["ratio"] < best - 1e-12:
            best, best_w, since = m["ratio"], w.copy(), 0
        else:
            since += 1
            if since >= patience:
                if verbose:
                    print(f"stop: the held-out error ratio has not improved for {patience} "
                          f"epochs (best {best:.4f})")
                break
    return history, best_w


def main():
    history, w = train()
    first, last = history[0], min(history, key=lambda m: m["ratio"])
    print(f"held-out pair errors {first['D+T']} -> {last['D+T']} of {last['P']} comparable "
          f"pairs; NDCG@10 {first['ndcg10']:.3f} -> {last['ndcg10']:.3f} "
          f"(best epoch {last['epoch']})")


if __name__ == "__main__":
    main()
