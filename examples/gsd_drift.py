"""Drift check of a live model with GSD: last week against the week before, day by day.

A deployed model logs one row of metrics per day: AUC (cardinal: an AUC gain of 0.01 means
the same wherever it happens), prediction churn (cardinal, the share of users whose predicted
class flipped since yesterday; smaller is better) and p95 latency (ordinal: we trust its
order, not its differences; smaller is better). The two weeks are compared as two "models"
whose "data sets" are days.

Question: has the model degraded? In GSD terms: is there evidence that last week does NOT
dominate the previous week, for every way of trading AUC, churn and latency against each
other that respects the metrics? That is the permutation test with the previous week as the
model of interest and last week as the competitor: H0 "last week dominates the previous
week"; rejecting it flags a degradation no compatible utility can excuse. The 14 days are
re-split at random into two groups of 7 (the pooled two-sample scheme), so the smallest
attainable p-value is 1 / (B + 1) with B up to C(14, 7) = 3432 distinct splits.

Run: python examples/gsd_drift.py
"""

import numpy as np

from streamrank.compare import cardinal, gsd_statistic, gsd_test, ordinal, performance_table


def daily_metrics(seed: int = 7) -> dict:
    """Fourteen days of simulated metrics; from day 8 on the model drifts (AUC -0.012, churn
    and latency up)."""
    rng = np.random.default_rng(seed)
    days = np.arange(1, 15)
    drift = days >= 8
    auc = 0.86 - 0.012 * drift + rng.normal(0, 0.006, 14)
    churn = 0.020 + 0.004 * drift + rng.normal(0, 0.003, 14)
    latency = np.round(120 + 10 * drift + rng.normal(0, 8, 14))
    week = np.where(drift, "last week", "previous week")
    return {"week": week, "day": days, "auc": auc, "churn": churn, "latency_ms": latency}


def main(permutations: int = 999, seed: int = 0) -> None:
    table = performance_table(
        daily_metrics(), model="week", dataset="day",
        metrics=[cardinal("auc"), cardinal("churn", direction="smaller"),
                 ordinal("latency_ms", direction="smaller")])
    print(table)
    d = gsd_statistic(table, "previous week", "last week")
    print(f"d = min_u E[u(last week)] - E[u(previous week)] = {d.statistic:.4f}")
    result = gsd_test(table, "previous week", competitors=["last week"],
                      permutations=permutations, seed=seed, contamination=[0, 1])
    test = result["last week"]
    print(f"p-value = {test.p_value:.4f} (B = {permutations}); "
          f"with one contaminated day: {test.robust_p_values[1]:.4f}")
    if test.rejected:
        print("Degradation: last week does not GSD-dominate the previous week.")
    else:
        print("No evidence of degradation at level 0.05.")


if __name__ == "__main__":
    main()
