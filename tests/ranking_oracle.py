"""Straightforward per-query Python oracles for the ranking metrics (tests only).

Every metric is computed one query at a time from an explicit ranked list. Tie handling:

* ``ties="pessimistic"`` / ``"optimistic"``: sort by (score desc, relevance asc / desc).
* ``ties="average"``: the mean of the metric over *every* order of the tied documents,
  enumerated with itertools (so only for small queries); ERR instead averages the stopping
  probability inside each tie group, as documented.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict


def group_queries(q, y, s):
    out = defaultdict(list)
    for qi, yi, si in zip(q, y, s):
        out[qi].append((float(yi), float(si)))
    return dict(sorted(out.items()))


def gain(r, kind):
    return 2.0 ** r - 1.0 if kind == "exponential" else r


def dcg_list(rels, k, kind):
    k = len(rels) if k is None else k
    return sum(gain(r, kind) / math.log2(i + 2) for i, r in enumerate(rels[:k]))


def ndcg_list(rels, k, kind):
    ideal = dcg_list(sorted(rels, reverse=True), k, kind)
    return None if ideal == 0 else dcg_list(rels, k, kind) / ideal


def ap_list(rels, k):
    R = sum(r > 0 for r in rels)
    if R == 0:
        return None
    k = len(rels) if k is None else k
    hits, total = 0, 0.0
    for i, r in enumerate(rels[:k]):
        if r > 0:
            hits += 1
            total += hits / (i + 1)
    return total / R


def rr_list(rels, k):
    if not any(r > 0 for r in rels):
        return None
    k = len(rels) if k is None else k
    for i, r in enumerate(rels[:k]):
        if r > 0:
            return 1.0 / (i + 1)
    return 0.0


def precision_list(rels, k):
    if not any(r > 0 for r in rels):
        return None
    kk = len(rels) if k is None else k
    return sum(r > 0 for r in rels[:kk]) / kk


def recall_list(rels, k):
    R = sum(r > 0 for r in rels)
    if R == 0:
        return None
    kk = len(rels) if k is None else k
    return sum(r > 0 for r in rels[:kk]) / R


def rprec_list(rels, k=None):
    R = sum(r > 0 for r in rels)
    if R == 0:
        return None
    return sum(r > 0 for r in rels[:R]) / R


def err_list(R, k):
    """``R`` are stopping probabilities in rank order."""
    k = len(R) if k is None else k
    keep, total = 1.0, 0.0
    for i, r in enumerate(R[:k]):
        total += keep * r / (i + 1)
        keep *= 1 - r
    return total


def ranked_orders(docs, ties):
    """Every relevance list the query can produce (one unless ties="average")."""
    if ties == "pessimistic":
        return [[r for r, _ in sorted(docs, key=lambda d: (-d[1], d[0]))]]
    if ties == "optimistic":
        return [[r for r, _ in sorted(docs, key=lambda d: (-d[1], -d[0]))]]
    groups = defaultdict(list)
    for r, sc in docs:
        groups[sc].append(r)
    blocks = [list(set(itertools.permutations(groups[sc]))) for sc in sorted(groups, reverse=True)]
    # Distinct permutations weighted equally: each multiset permutation is equally likely.
    return [[r for block in combo for r in block] for combo in itertools.product(*blocks)]


def per_query(metric, q, y, s, *, ties="average", empty="skip", **kw):
    """``(ids, values)`` with None for undefined queries mapped per ``empty``."""
    ids, values = [], []
    for qi, docs in group_queries(q, y, s).items():
        orders = ranked_orders(docs, ties)
        vals = [metric(o, **kw) for o in orders]
        if vals[0] is None:
            v = float("nan") if empty == "skip" else float(empty)
        else:
            v = sum(vals) / len(vals)
        ids.append(qi)
        values.append(v)
    return ids, values


def err_per_query(q, y, s, *, k=None, ties="average", max_grade=None):
    gmax = max(float(v) for v in y) if max_grade is None else max_grade
    ids, values = [], []
    for qi, docs in group_queries(q, y, s).items():
        if ties == "average":
            groups = defaultdict(list)
            for r, sc in docs:
                groups[sc].append((2.0 ** r - 1) / 2.0 ** gmax)
            R = []
            for sc in sorted(groups, reverse=True):
                m = sum(groups[sc]) / len(groups[sc])
                R += [m] * len(groups[sc])
        else:
            R = [(2.0 ** r - 1) / 2.0 ** gmax for r in ranked_orders(docs, ties)[0]]
        ids.append(qi)
        values.append(err_list(R, k) if any(r > 0 for r, _ in docs) else float("nan"))
    return ids, values


def pairwise_brute(q, y, s):
    """Per query (D, T, P) by the pair loop."""
    out = {}
    for qi, docs in group_queries(q, y, s).items():
        D = T = P = 0
        for (ya, sa), (yb, sb) in itertools.combinations(docs, 2):
            if ya == yb:
                continue
            P += 1
            if sa == sb:
                T += 1
            elif (ya - yb) * (sa - sb) < 0:
                D += 1
        out[qi] = (D, T, P)
    return out


def lambdarank_brute(q, y, s, sigma=1.0, k=None):
    """LambdaRank grad/hess by a per-pair Python loop (ranks: stable sort by score)."""
    n = len(y)
    grad = [0.0] * n
    hess = [0.0] * n
    rows = defaultdict(list)
    for i, qi in enumerate(q):
        rows[qi].append(i)
    for idx in rows.values():
        order = sorted(idx, key=lambda i: -float(s[i]))  # stable: ties by row
        rank = {i: r for r, i in enumerate(order)}
        rels = [float(y[i]) for i in idx]
        kk = len(idx) if k is None else k
        ideal = sorted(rels, reverse=True)
        idcg = sum((2 ** r - 1) / math.log2(j + 2) for j, r in enumerate(ideal[:kk]))
        if idcg == 0:
            continue

        def disc(i):
            return 1 / math.log2(rank[i] + 2) if rank[i] < kk else 0.0

        for i in idx:
            for j in idx:
                if float(y[i]) <= float(y[j]):
                    continue
                dn = abs((2 ** float(y[i]) - 1) - (2 ** float(y[j]) - 1)) * abs(disc(i) - disc(j)) / idcg
                rho = 1 / (1 + math.exp(sigma * (float(s[i]) - float(s[j]))))
                grad[i] -= sigma * rho * dn
                grad[j] += sigma * rho * dn
                hess[i] += sigma * sigma * rho * (1 - rho) * dn
                hess[j] += sigma * sigma * rho * (1 - rho) * dn
    return grad, hess
