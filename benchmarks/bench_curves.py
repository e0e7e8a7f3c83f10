#!/usr/bin/env python
"""Curves benchmark: streamrank's `roc_curve`, `precision_recall_curve`,
`average_precision_score` and multiclass `roc_auc_score` against scikit-learn's.

Usage::

    python benchmarks/bench_curves.py                  # n = 1e6 and 1e7, Markdown report
    python benchmarks/bench_curves.py --quick          # n = 1e4 and 1e5, 3 repeats
    python benchmarks/bench_curves.py --n 1e6 --repeats 3 -o out.md

Data (seeded): binary labels with 30% positives; scores uniform floats (no ties) or
rounded to 3 decimals (heavy ties: 1,001 distinct values); weights uniform in [0, 1) for
the weighted cases. Multiclass: 5 classes, rows of ``predict_proba``-like probabilities
(a softmax of normal noise plus a class signal), one-vs-rest with and without weights and
one-vs-one, at a tenth of ``n`` rows for ``ovo`` (its cost grows with the pairs).

Method (`_common.side_by_side`): each streamrank call and its scikit-learn twin run
round-robin, median wall time of ``--repeats`` runs (a peer over ``--budget`` seconds
stops repeating early; the runs are reported). Every answer is checked: the arrays must be
*equal* to scikit-learn's, element for element (``same`` column). The goal of issue 15 is
>= 3x scikit-learn at n = 1e7.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from _common import REPO  # puts a source tree on sys.path if needed
try:
    import streamrank
except ImportError:  # run from a source tree without installing
    sys.path.insert(0, REPO)
    import streamrank

from _common import (  # noqa: E402
    fmt_n, fmt_ratio, fmt_seconds, log, machine_info, machine_markdown, markdown_table,
    parse_size, side_by_side, write_report,
)

GOAL_N = 10**7
GOAL_RATIO = 3.0


def _binary(n: int, ties: bool, seed: int):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.random(n) + 0.3 * y
    if ties:
        s = np.round(s, 3)
    w = rng.random(n)
    return y, s, w


def _multiclass(n: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.0
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return y, e / e.sum(axis=1, keepdims=True)


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(np.array_equal(u, v) and u.dtype == v.dtype for u, v in zip(a, b))
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return a == b or (a != a and b != b)


def _cases(n: int):
    """(name, streamrank call, scikit-learn call) for one sample count."""
    import sklearn.metrics as skm

    cases = []
    for ties in (False, True):
        y, s, w = _binary(n, ties, seed=1 + ties)
        tag = "tied" if ties else "distinct"
        for func in ("roc_curve", "precision_recall_curve", "average_precision_score"):
            ours, theirs = getattr(streamrank, func), getattr(skm, func)
            cases.append((f"{func}, {tag}", lambda o=ours, y=y, s=s: o(y, s),
                          lambda t=theirs, y=y, s=s: t(y, s)))
            if func == "roc_curve":
                cases.append((f"{func}, {tag}, weighted",
                              lambda o=ours, y=y, s=s, w=w: o(y, s, sample_weight=w),
                              lambda t=theirs, y=y, s=s, w=w: t(y, s, sample_weight=w)))
        if not ties:
            cases.append(("precision_recall_curve, distinct, weighted",
                          lambda y=y, s=s, w=w: streamrank.precision_recall_curve(
                              y, s, sample_weight=w),
                          lambda y=y, s=s, w=w: skm.precision_recall_curve(
                              y, s, sample_weight=w)))
    y, P = _multiclass(n, 5, seed=7)
    w = np.random.default_rng(8).random(n)
    cases.append(("roc_auc_score, 5 classes, ovr",
                  lambda: streamrank.roc_auc_score(y, P, multi_class="ovr"),
                  lambda: skm.roc_auc_score(y, P, multi_class="ovr")))
    cases.append(("roc_auc_score, 5 classes, ovr, weighted",
                  lambda: streamrank.roc_auc_score(y, P, multi_class="ovr", sample_weight=w,
                                                   average="weighted"),
                  lambda: skm.roc_auc_score(y, P, multi_class="ovr", sample_weight=w,
                                            average="weighted")))
    m = max(n // 10, 100)
    cases.append((f"roc_auc_score, 5 classes, ovo (n / 10 = {fmt_n(m)} rows)",
                  lambda: streamrank.roc_auc_score(y[:m], P[:m], multi_class="ovo"),
                  lambda: skm.roc_auc_score(y[:m], P[:m], multi_class="ovo")))
    return cases


def run(sizes, repeats: int, budget: float) -> tuple[str, list]:
    sections, worst = [], []
    for n in sizes:
        log(f"n = {fmt_n(n)}")
        rows = []
        for name, ours, theirs in _cases(n):
            log(f"  {name}")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = side_by_side({"streamrank": ours, "sklearn": theirs}, repeats,
                                 budget_s=budget, progress=log)
            a, b = t["streamrank"], t["sklearn"]
            ratio = b.median / a.median
            same = _same(a.result, b.result)
            rows.append([name, fmt_seconds(a.median), fmt_seconds(b.median), fmt_ratio(ratio),
                         f"{len(a.times)}/{len(b.times)}", "yes" if same else "NO"])
            if n == GOAL_N:
                worst.append((ratio, name))
        sections.append(f"#### n = {fmt_n(n)}\n\n" + markdown_table(
            ["call", "streamrank s", "scikit-learn s", "speedup", "runs", "same"], rows))
    if worst:
        low = min(worst)
        verdict = "PASS" if low[0] >= GOAL_RATIO else "FAIL"
        sections.append(f"**Goal** >= {GOAL_RATIO:g}x scikit-learn at n = {fmt_n(GOAL_N)}: "
                        f"{verdict} (worst {fmt_ratio(low[0])}, {low[1]}).")
    return "\n\n".join(sections), worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", nargs="+", default=None, help="sample counts (1e6 1e7)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds after which a method stops repeating")
    parser.add_argument("--quick", action="store_true", help="n = 1e4 and 1e5, 3 repeats")
    parser.add_argument("-o", "--output", default=None, help="also write the report here")
    args = parser.parse_args(argv)
    if args.quick:
        sizes, repeats = [10**4, 10**5], min(args.repeats, 3)
    else:
        sizes = [parse_size(x) for x in (args.n or ["1e6", "1e7"])]
        repeats = args.repeats
    body, _ = run(sizes, repeats, args.budget)
    info = machine_info()
    text = (f"### Curves and multiclass AUC against scikit-learn\n\n{machine_markdown(info)}"
            f"\n\n{body}\n")
    write_report(text, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
