"""The documented thread rule: streamrank objects are not thread-safe; one shared
`threading.Lock` around every call, or one object per thread brought together at the end,
gives exactly the counts of a serial run (checked against the O(n^2) oracle)."""

from __future__ import annotations

import random
import threading

import pytest

from oracle import pair_counts_brute
from streamrank import PairCounter, pair_counts
from streamrank.metrics import ROCAUC

THREADS = 4
STEPS = 400
FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")


def _run(threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _assert_oracle(counter):
    items = [v for _, v in counter.items()]
    y, s, w = (list(col) for col in zip(*items)) if items else ([], [], [])
    ref = pair_counts_brute(y, s, w)
    assert [getattr(counter.counts, f) for f in FIELDS] == [ref.C, ref.D, ref.T, ref.Ty,
                                                            ref.Tyy]


def test_shared_counter_with_one_lock_equals_a_serial_replay(eager_switching):
    counter, lock, log = PairCounter(), threading.Lock(), []

    def work(seed):
        rng = random.Random(seed)
        for _ in range(STEPS):
            key = rng.randrange(60)                     # keys shared by all threads
            y, s, w = rng.randrange(2), rng.randrange(8) / 4, rng.choice([1, 2])
            with lock:                                  # the decision and the call
                if key not in counter:
                    op = ("insert", key, y, s, w)
                    counter.insert(key, y, s, w)
                elif rng.random() < 0.5:
                    op = ("remove", key)
                    counter.remove(key)
                else:
                    op = ("update", key, s)
                    counter.update(key, score=s)
                log.append(op)

    _run([threading.Thread(target=work, args=(seed,)) for seed in range(THREADS)])
    assert len(log) == THREADS * STEPS
    replay = PairCounter()
    for op, key, *args in log:
        if op == "insert":
            replay.insert(key, *args)
        elif op == "remove":
            replay.remove(key)
        else:
            replay.update(key, score=args[0])
    assert sorted(counter.items()) == sorted(replay.items())
    assert counter.counts == replay.counts
    _assert_oracle(counter)
    counter._check()


def test_one_counter_per_thread_then_brought_together(eager_switching):
    parts = [PairCounter() for _ in range(THREADS)]

    def work(part):
        rng = random.Random(part)
        counter = parts[part]
        for i in range(STEPS // 4):
            key = (part, i)                             # each thread its own keys
            counter.insert(key, rng.randrange(2), rng.randrange(8) / 4)
            if i % 3 == 2:
                counter.remove((part, i - 1))

    _run([threading.Thread(target=work, args=(p,)) for p in range(THREADS)])
    total = PairCounter()
    for counter in parts:
        keys = list(counter)
        y, s, w = zip(*(counter.get(k) for k in keys))
        total.insert_many(keys, y, s, w)
    _assert_oracle(total)
    y, s, _ = zip(*(v for _, v in total.items()))
    assert total.counts == pair_counts(y, s)


def test_shared_river_metric_with_one_lock(eager_switching):
    metric, lock = ROCAUC(), threading.Lock()
    events = [[(random.Random(t * 1000 + i).random() < 0.4, i / STEPS) for i in range(STEPS)]
              for t in range(THREADS)]

    def work(t):
        for y, p in events[t]:
            with lock:
                metric.update(y, p)

    _run([threading.Thread(target=work, args=(t,)) for t in range(THREADS)])
    serial = ROCAUC()
    for part in events:
        for y, p in part:
            serial.update(y, p)
    assert metric.get() == serial.get()       # the AUC does not depend on the order
