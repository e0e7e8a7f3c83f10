"""A comparison's results as plain records: what ``streamrank compare`` prints.

Every value is a Python ``str``, ``int``, ``float``, ``bool`` or ``None`` (a model label
read as a numpy integer becomes an ``int``; a float that is not finite becomes ``None``),
so the records go to JSON or CSV as they are.
"""

from __future__ import annotations

from ..compare._front import GSDFront
from ..compare._permutation import GSDTestResult
from ._common import _plain

__all__ = ["comparison_report", "csv_records", "pair_records", "competitor_records"]


def pair_records(front: GSDFront) -> list[dict]:
    """One record per ordered pair (model, competitor), models in table order.

    ``statistic`` is ``min_u (E[u(competitor)] - E[u(model)])`` (``gsd_statistic(table,
    model, competitor)``); ``competitor_dominates`` is ``statistic >= -tol``;
    ``strictly`` says the model does not dominate back; ``pareto`` that the competitor
    Pareto-dominates the model.

    Runtime complexity: ``O(k^2)`` for ``k`` models.

    >>> from streamrank.compare import cardinal, gsd_front, performance_table
    >>> t = performance_table({"model": list("aabb"), "dataset": [1, 2] * 2,
    ...                        "acc": [.8, .9, .7, .8]}, metrics=[cardinal("acc")])
    >>> pair_records(gsd_front(t))[0]
    {'model': 'a', 'competitor': 'b', 'statistic': -0.5, 'competitor_dominates': False, 'strictly': False, 'pareto': False}
    """
    out = []
    for i, a in enumerate(front.models):
        for j, b in enumerate(front.models):
            if i != j:
                out.append({"model": _plain(a), "competitor": _plain(b),
                            "statistic": _plain(front.d[j, i]),
                            "competitor_dominates": bool(front.relation[j, i]),
                            "strictly": bool(front.strict[j, i]),
                            "pareto": bool(front.pareto[j, i])})
    return out


def _robust_key(k: int) -> str:
    return f"p_value_k{k}"


def competitor_records(test: GSDTestResult) -> list[dict]:
    """One record per competitor of a permutation test: ``competitor``, ``statistic``,
    ``p_value``, ``n_le``, ``n_below``, ``rejected`` and, for every contamination
    ``k > 0``, the robustified p-value ``p_value_k<k>``.

    Runtime complexity: ``O(c K)`` for ``c`` competitors and ``K`` contamination levels.
    """
    ks = [k for k in test.contamination if k != 0]
    out = []
    for t in test.tests:
        rec = {"competitor": _plain(t.competitor), "statistic": _plain(t.statistic),
               "p_value": _plain(t.p_value), "n_le": t.n_le, "n_below": t.n_below,
               "rejected": bool(t.rejected)}
        rec.update({_robust_key(k): _plain(t.robust_p_values[k]) for k in ks})
        out.append(rec)
    return out


def _test_summary(test: GSDTestResult) -> dict:
    ks = [k for k in test.contamination if k != 0]
    return {"model": _plain(test.model), "permutations": test.permutations,
            "seed": test.seed, "alpha": test.alpha, "level": test.level,
            "bonferroni": test.bonferroni, "epsilon": test.epsilon,
            "contamination": list(test.contamination), "in_front": bool(test.in_front),
            "robust_in_front": {str(k): test.robust_in_front(k) for k in ks},
            "tests": competitor_records(test)}


def comparison_report(table, front: GSDFront, test: GSDTestResult | None = None, *,
                      file=None) -> dict:
    """Everything a comparison found, as one JSON-ready dict.

    Keys: ``file``, ``models``, ``datasets`` (the count), ``rows``, ``metrics`` (their
    declarations), ``epsilon``, ``pairs`` (`pair_records`), ``strict_dominances``
    (``[winner, loser]`` lists), ``gsd_front``, ``pareto_front`` and ``test``: ``None``,
    or the tested ``model``, ``permutations``, ``seed``, ``alpha``, ``level``,
    ``bonferroni``, ``epsilon``, ``contamination``, ``in_front``, ``robust_in_front``
    (contamination ``k`` as text -> decision) and ``tests`` (`competitor_records`).

    Runtime complexity: ``O(k^2 + c K)``.
    """
    return {
        "file": file,
        "models": [_plain(m) for m in table.models],
        "datasets": len(table.datasets),
        "rows": int(len(table.model_index)),
        "metrics": [repr(m) for m in table.metrics],
        "epsilon": front.epsilon,
        "pairs": pair_records(front),
        "strict_dominances": [[_plain(a), _plain(b)] for a, b in front.edges],
        "gsd_front": [_plain(m) for m in front.front],
        "pareto_front": [_plain(m) for m in front.pareto_front],
        "test": None if test is None else _test_summary(test),
    }


def csv_records(front: GSDFront, test: GSDTestResult | None = None) -> list[dict]:
    """`pair_records` with the columns of `competitor_records` on the tested pairs (the model
    of the test and each competitor), ``None`` on the others: one flat table.

    Runtime complexity: ``O(k^2 + c K)``.
    """
    pairs = pair_records(front)
    tests = {} if test is None else {r["competitor"]: r for r in competitor_records(test)}
    extra = [] if test is None else list(next(iter(tests.values())))[1:]
    extra = [c for c in extra if c != "statistic"]
    model = None if test is None else _plain(test.model)
    for rec in pairs:
        hit = tests.get(rec["competitor"]) if rec["model"] == model else None
        rec.update({c: (hit[c] if hit is not None else None) for c in extra})
    return pairs
