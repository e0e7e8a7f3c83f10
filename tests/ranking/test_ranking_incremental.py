"""QueryRanking / RankingState (and the River-style metrics) against the batch functions
after every change: documents joining, leaving and changing score, with heavy ties."""

from __future__ import annotations

import math
import warnings
import zlib

import numpy as np
import pytest

from streamrank.exceptions import UndefinedMetricWarning
from streamrank.ranking import (
    RankingState, err_score, map_score, mrr_score, ndcg_at_k, pairwise_errors,
)


def batch(docs, k, ties, empty):
    """Batch means from the current {(query, doc): (rel, score)} (``empty`` None: the
    functions' default)."""
    q = np.array([qq for qq, _ in docs])
    y = np.array([v[0] for v in docs.values()])
    s = np.array([v[1] for v in docs.values()])
    kw = {} if empty is None else dict(empty=empty)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return {
            "ndcg": ndcg_at_k(q, y, s, k=k, ties=ties, **kw),
            "ap": map_score(q, y, s, ties=ties, **kw),
            "mrr": mrr_score(q, y, s, ties=ties, **kw),
            "err": err_score(q, y, s, k=k, ties=ties, max_grade=4, **kw),
        }, pairwise_errors(q, y, s)


@pytest.mark.parametrize("ties,empty", [("average", "skip"), ("pessimistic", 0),
                                        ("optimistic", 1), ("average", None)])
def test_state_matches_batch_after_every_change(ties, empty):
    rng = np.random.default_rng(zlib.crc32(f"{ties}{empty}".encode()))  # fixed per case
    st = RankingState(k=3, ties=ties) if empty is None else \
        RankingState(k=3, ties=ties, empty=empty)
    seen_skipped = 0
    docs = {}
    for step in range(300):
        op = rng.random()
        if op < 0.25 and docs:
            key = list(docs)[rng.integers(len(docs))]
            del docs[key]
            st.remove(*key)
        else:
            query = int(rng.integers(0, 5))
            doc = int(rng.integers(0, 8))
            rel = int(rng.integers(0, 4)) if rng.random() < 0.6 else 0
            score = float(rng.integers(0, 4))
            docs[(query, doc)] = (rel, score)
            st.set(query, doc, rel, score)
        if not docs:
            continue
        means, pe = batch(docs, 3, ties, empty)
        n_empty = len({qq for qq, _ in docs} - {qq for qq, d in docs if docs[qq, d][0] > 0})
        for m, v in means.items():
            got = st.mean(m)
            assert (math.isnan(v) and math.isnan(got)) or got == pytest.approx(v, abs=1e-9), (step, m)
            assert st.skipped(m) == (n_empty if empty == "skip" else 0)
            per = st.per_query(m)
            assert sum(v is None for v in per.values()) == st.skipped(m)
        seen_skipped += n_empty > 0
        assert st.pair_errors() == (pe.total_discordant, int(pe.tied.sum()), pe.total_comparable)
    assert seen_skipped > 10                     # queries without relevant documents seen


def test_state_validation():
    with pytest.raises(ValueError, match="The 'k' parameter of RankingState must be an int >= 1"):
        RankingState(k=0)
    with pytest.raises(ValueError, match="The 'empty' parameter of RankingState must be"):
        RankingState(empty=2)
    with pytest.raises(ValueError, match="The 'empty' parameter of RankingState must be"):
        RankingState(empty=True)
    st = RankingState()
    assert st.empty == 0
    with pytest.raises(ValueError, match="The 'rel' parameter of RankingState.set must be graded"):
        st.set("q", "d", -1, 0.5)
    with pytest.raises(ValueError, match="The 'score' parameter of RankingState.set must be a finite"):
        st.set("q", "d", 1, float("nan"))
    with pytest.raises(KeyError):
        st.remove("q", "missing")


# ---------------------------------------------------------------- River-style metrics
def _stream(seed, n_queries=25):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_queries):
        n = int(rng.integers(1, 12))
        out.append((rng.integers(0, 3, n).tolist(), (rng.integers(0, 4, n) / 2).tolist()))
    return out


def _batch_prefix(stream, f, **kw):
    q = np.concatenate([[i] * len(y) for i, (y, _) in enumerate(stream)])
    y = np.concatenate([y for y, _ in stream])
    s = np.concatenate([s for _, s in stream])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        v = f(q, y, s, **kw)
    return 0.0 if math.isnan(v) else v


@pytest.mark.parametrize("ties", ["average", "pessimistic"])
def test_river_metrics_every_prefix_and_revert(ties):
    from streamrank.ranking import ERR, MAP, MRR, NDCG, PairwiseErrorRate

    stream = _stream(3)
    for i in (3, 10, 15, 20):                    # queries without a relevant document
        stream[i] = ([0] * len(stream[i][0]), stream[i][1])
    empties = [not any(y) for y, _ in stream]
    pairs = [
        (NDCG(k=5, ties=ties), ndcg_at_k, dict(k=5, ties=ties)),
        (MAP(ties=ties), map_score, dict(ties=ties)),
        (MRR(k=3, ties=ties), mrr_score, dict(k=3, ties=ties)),
        (ERR(k=4, max_grade=2, ties=ties), err_score, dict(k=4, max_grade=2, ties=ties)),
        (NDCG(k=5, ties=ties, empty=1), ndcg_at_k, dict(k=5, ties=ties, empty=1)),
        (NDCG(k=5, ties=ties, empty="skip"), ndcg_at_k, dict(k=5, ties=ties, empty="skip")),
        (MAP(ties=ties, empty="skip"), map_score, dict(ties=ties, empty="skip")),
        (MRR(ties=ties, empty="skip"), mrr_score, dict(ties=ties, empty="skip")),
        (ERR(max_grade=2, ties=ties, empty="skip"), err_score,
         dict(max_grade=2, ties=ties, empty="skip")),
    ]
    for metric, f, kw in pairs:
        skip = kw.get("empty") == "skip"
        assert metric.empty == kw.get("empty", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")       # get() and update() never warn
            for i, (y, s) in enumerate(stream):
                metric.update(y, s)
                assert metric.get() == pytest.approx(_batch_prefix(stream[: i + 1], f, **kw), abs=1e-12)
                assert metric.skipped == (sum(empties[: i + 1]) if skip else 0)
            # revert the first half: the tail window
            for i, (y, s) in enumerate(stream[:12]):
                metric.revert(y, s)
                assert metric.get() == pytest.approx(_batch_prefix(stream[i + 1:], f, **kw), abs=1e-9)
                assert metric.skipped == (sum(empties[i + 1:]) if skip else 0)
        assert metric.clone().get() == 0.0 and metric.clone().skipped == 0
    pe = PairwiseErrorRate()
    for y, s in stream:
        pe.update(y, s)
    q = np.concatenate([[i] * len(y) for i, (y, _) in enumerate(stream)])
    batch_pe = pairwise_errors(q, np.concatenate([y for y, _ in stream]),
                               np.concatenate([s for _, s in stream]))
    assert (pe.discordant, pe.tied, pe.comparable) == (
        batch_pe.total_discordant, int(batch_pe.tied.sum()), batch_pe.total_comparable)
    assert pe.get() == pytest.approx(batch_pe.error_rate)
    for y, s in stream:
        pe.revert(y, s)
    assert (pe.discordant, pe.tied, pe.comparable, pe.get()) == (0, 0, 0, 0.0)


def test_river_metrics_dict_input_and_rolling():
    from river import utils

    from streamrank.ranking import NDCG

    m = NDCG(k=3)
    m.update({"a": 1, "b": 0}, {"a": 0.1, "b": 0.9})
    n = NDCG(k=3)
    n.update([1, 0], [0.1, 0.9])
    assert m.get() == n.get()
    with pytest.raises(ValueError, match="The 'y_pred' parameter of NDCG.update must be the same documents"):
        m.update({"a": 1}, {"b": 0.3})
    rolling = utils.Rolling(NDCG, window_size=2, k=3)
    stream = _stream(4, 6)
    for i, (y, s) in enumerate(stream):
        rolling.update(y, s)
        assert rolling.get() == pytest.approx(_batch_prefix(stream[max(0, i - 1): i + 1], ndcg_at_k, k=3), abs=1e-9)
