"""`Monitor(label_wait=...)`: a label that arrives before its prediction waits and joins it.

The central property: a stream whose events are shuffled within blocks (labels moved
before their predictions, predictions kept in order) gives, with a wait at least as long
as a block, exactly the reports, window and counts of the ordered stream read without a
wait, at every block end; the counts equal the O(n^2) oracle, and ``_check`` holds after
every event and every `to_bytes` round trip.
"""

import math
import pathlib
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank.monitor import Monitor

from oracle import pair_counts_brute

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


# --------------------------------------------------------------------------- streams
def _ordered(n, scores, labels, delays):
    """Events ``(key, kw)`` in order: prediction ``i`` (a score), and its label (None:
    never) after ``delays[i]`` further predictions."""
    out, due = [], []
    for i in range(n):
        out.append((i, {"score": scores[i]}))
        if labels[i] is not None:
            due.append([delays[i], i])
        for d in due:
            if d[0] == 0:
                out.append((d[1], {"label": labels[d[1]]}))
            d[0] -= 1
        due = [d for d in due if d[0] >= 0]
    out += [(i, {"label": labels[i]}) for _, i in due]
    return out


def _shuffled(events, block, rnd, keep):
    """``events`` with each block of ``block`` events after the first ``keep`` shuffled,
    the predictions kept in their order (the window's order)."""
    out = list(events[:keep])
    for start in range(keep, len(events), block):
        chunk = events[start:start + block]
        order = list(range(len(chunk)))
        rnd.shuffle(order)
        preds = iter(e for e in chunk if "score" in e[1])
        labels = [chunk[j] for j in order if "score" not in chunk[j][1]]
        kinds = ["score" in chunk[j][1] for j in order]
        labels_it = iter(labels)
        out += [next(preds) if k else next(labels_it) for k in kinds]
    return out


def _reading(m):
    """What a report and the window say (nan-safe)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = m.report()
    return repr((r.counts, r.auc, r.low, r.high, r.n, r.pending, r.reference_auc, r.z,
                 r.p_value, r.alert, list(m.items()), m.reference_counts))


def _oracle(m):
    lab = [(y, s) for _, y, s, _, _ in m.items() if y is not None]
    if lab:
        brute = pair_counts_brute([y for y, _ in lab], [s for _, s in lab])
        c = m.counts
        assert (c.concordant, c.discordant, c.tied_score, c.tied_label, c.tied_both) \
            == (brute.C, brute.D, brute.T, brute.Ty, brute.Tyy)


def _feed(m, events, block, keep, times=None, roundtrip=()):
    """Feed ``events``; the readings at the end of ``keep`` and of each block after it."""
    out = []
    for j, (key, kw) in enumerate(events, 1):
        t = None if times is None else times(j)
        m.observe(key, time=t, **kw)
        m._check()
        if j in roundtrip:
            m = Monitor.from_bytes(m.to_bytes())
            m._check()
        if j >= keep and (j - keep) % block == 0 or j == len(events):
            _oracle(m)
            out.append(_reading(m))
    return m, out


_STREAM = st.integers(4, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 1, None]), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n)))


@settings(derandomize=True, max_examples=80, deadline=None)
@given(_STREAM, st.integers(2, 6), st.integers(6, 9), st.randoms(use_true_random=False),
       st.sampled_from(["events", "time"]), st.sampled_from(["hanley-mcneil", "delong"]))
def test_a_locally_shuffled_stream_equals_the_ordered_one(stream, block, window, rnd,
                                                          wait, test):
    n, scores, labels, delays = stream
    events = _ordered(n, scores, labels, delays)
    # the reference freezes at the first eviction: the events up to it stay in order
    preds = [j for j, e in enumerate(events, 1) if "score" in e[1]]
    keep = preds[window] if len(preds) > window else len(events)
    keep = keep + (-(keep) % block) if keep < len(events) else keep
    mixed = _shuffled(events, block, rnd, keep)
    assert sorted(map(repr, mixed)) == sorted(map(repr, events))
    # a time per block: shuffling inside a block does not move the clock
    times = (lambda j: None) if wait == "events" else (
        lambda j: float(0 if j <= keep else 1 + (j - keep - 1) // block))
    plain = Monitor(window=window, min_window=2, test=test)
    _, want = _feed(plain, events, block, keep, times)
    assert plain.stats["dropped"] == 0          # the ordered stream loses nothing
    kw = {"label_wait": block} if wait == "events" else {"label_wait_period": 1.0}
    m = Monitor(window=window, min_window=2, test=test, **kw)
    m, got = _feed(m, mixed, block, keep, times, roundtrip=(len(mixed) // 2,))
    assert got == want
    assert (m.stats["dropped"], m.stats["unmatched"], m.waiting) == (0, 0, 0)
    assert m.stats["labeled"] == plain.stats["labeled"]
    assert m.stats["joined"] + m.stats["late"] == plain.stats["late"]
    early = sum(1 for j, (key, kw_) in enumerate(mixed)
                if "label" in kw_ and all(k != key for k, _ in mixed[:j]))
    assert m.stats["joined"] == early
    if early:   # without a wait, the same stream loses those labels: unmatched, early
        lossy = Monitor(window=window, min_window=2, test=test)
        _feed(lossy, mixed, block, keep, times)
        leads = [next(p for p in range(j, len(mixed)) if mixed[p][0] == key
                      and "score" in mixed[p][1]) - j
                 for j, (key, kw_) in enumerate(mixed)
                 if "label" in kw_ and all(k != key for k, _ in mixed[:j])]
        assert (lossy.stats["dropped"], lossy.stats["unmatched"], lossy.stats["early"],
                lossy.stats["early_lead"]) == (0, early, early, max(leads))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(_STREAM, st.integers(2, 5), st.randoms(use_true_random=False))
def test_a_period_window_with_a_time_wait_loses_nothing(stream, block, rnd):
    n, scores, labels, delays = stream
    events = _ordered(n, scores, labels, delays)
    keep = min(len(events), 5 * block)  # the first eviction is at time 4: kept in order
    mixed = _shuffled(events, block, rnd, keep)

    def times(j):
        return float((j - 1) // block)

    plain = Monitor(period=4.0, min_window=2)
    _, want = _feed(plain, events, block, keep, times)
    assert plain.stats["dropped"] == 0
    m = Monitor(period=4.0, min_window=2, label_wait_period=1.0)
    m, got = _feed(m, mixed, block, keep, times, roundtrip=(len(mixed) // 3,))
    assert got == want
    assert (m.stats["dropped"], m.stats["unmatched"], m.waiting) == (0, 0, 0)
    assert m.stats["labeled"] == plain.stats["labeled"]


# --------------------------------------------------------------------------- by hand
def test_a_label_waits_n_events_then_counts_unmatched():
    m = Monitor(window=10, min_window=2, label_wait=3)
    m.observe("x", label=1)                     # event 1: waits during events 2..4
    assert (m.waiting, m.stats["dropped"]) == (1, 0)
    m.observe("a", score=0.2, label=0)
    m.observe("b", score=0.3, label=0)
    m.observe("x", score=0.9)                   # event 4: joins, labeled at once
    assert (m.waiting, m.stats["joined"], m.n, m.pending) == (0, 1, 3, 0)
    assert m.counts.auc == 1.0 and m.stats["late"] == 0
    m.observe("y", label=0)                     # event 5: waits during 6..8
    for k in "cde":
        m.observe(k, score=0.5)
    m.observe("y", score=0.1)                   # event 9: too late, a new prediction
    assert (m.waiting, m.stats["unmatched"], m.stats["joined"]) == (0, 1, 1)
    assert ("y", None, 0.1, 1, None) in list(m.items())
    assert m.stats["dropped"] == 0
    m._check()


def test_a_time_wait_runs_out_at_its_start_plus_the_period():
    m = Monitor(window=10, min_window=2, label_wait_period=5)
    m.observe("x", label=1, time=10.0)
    m.observe("y", label=0, time=3.0)           # an old time: the wait starts at the clock
    m.observe("x", score=0.8, time=14.5)
    assert (m.waiting, m.stats["joined"]) == (1, 1)
    m.observe("z", score=0.4, time=15.0)        # 15 - 5 >= 10: "y" runs out
    assert (m.waiting, m.stats["unmatched"]) == (0, 1)
    with pytest.raises(ValueError, match="'time' parameter of Monitor.observe must be a "
                                         "finite number \\(the monitor has a period "
                                         "label wait\\)"):
        m.observe("w", score=0.1)
    m._check()


def test_a_label_for_an_evicted_id_is_dropped_at_once():
    m = Monitor(window=2, min_window=2, label_wait=100)
    for k in "abc":                             # "a" leaves the window
        m.observe(k, score=0.5)
    m.observe("a", label=1)
    assert (m.stats["dropped"], m.waiting) == (1, 0)
    m.observe("a", weight=2)                    # a weight too
    assert m.stats["dropped"] == 2
    m.observe("d", score=0.1)                   # evictions 2 ("b") and 3 ("c"): "a",
    m.observe("e", score=0.1)                   # the first, is past the last window=2
    m.observe("a", label=1)                     # forgotten: it waits
    assert (m.stats["dropped"], m.waiting) == (2, 1)
    m.observe("c", label=0)                     # remembered: dropped
    assert (m.stats["dropped"], m.waiting) == (3, 1)
    m._check()


def test_the_evicted_ids_of_a_period_window_are_kept_for_one_period():
    m = Monitor(period=10, min_window=2, label_wait=5)
    m.observe("a", score=0.5, time=0.0)
    m.observe("b", score=0.5, time=10.0)        # "a" leaves at clock 10
    m.observe("a", label=1, time=10.0)
    assert (m.stats["dropped"], m.waiting) == (1, 0)
    m.observe("c", score=0.5, time=19.5)
    m.observe("a", label=1, time=19.5)          # 10 > 19.5 - 10: still remembered
    assert m.stats["dropped"] == 2
    m.observe("a", label=1, time=20.0)          # judged at the clock before it, 19.5:
    assert m.stats["dropped"] == 3              # dropped; the clock moves, "b" leaves
    m.observe("a", label=1, time=20.0)          # 10 > 20 - 10 no more: forgotten, waits
    m.observe("b", label=1, time=20.0)
    assert (m.stats["dropped"], m.waiting) == (4, 1)
    m._check()


def test_a_waiting_label_moves_no_clock():
    m = Monitor(period=60, min_window=2, label_wait=10)
    m.observe("a", score=0.2, label=0, time=100.0)
    m.observe("x", label=1, time=130.0)     # logged after its prediction, shipped before
    assert m.clock == 100.0 and m.waiting == 1
    m.observe("x", score=0.9, time=110.0)   # not back in time: it joins
    assert (m.clock, m.stats["joined"], m.counts.auc) == (110.0, 1, 1.0)
    m._check()
    lossy = Monitor(period=60, min_window=2)  # without a wait the label moves the clock
    lossy.observe("a", score=0.2, label=0, time=100.0)
    lossy.observe("x", label=1, time=130.0)
    with pytest.raises(ValueError, match="at least the clock 130.0"):
        lossy.observe("x", score=0.9, time=110.0)


def test_a_time_wait_starts_at_the_label_time_or_the_clock_the_later():
    m = Monitor(window=10, min_window=2, label_wait_period=5)
    m.observe("a", score=0.2, time=100.0)
    m.observe("x", label=1, time=130.0)     # starts at 130 (the clock stays 100)
    m.observe("b", score=0.3, time=134.5)
    assert m.waiting == 1
    m.observe("c", score=0.3, time=135.0)
    assert (m.waiting, m.stats["unmatched"]) == (0, 1)
    m._check()


def test_several_waiting_events_the_last_wins_and_the_prediction_own_wins():
    m = Monitor(window=10, min_window=2, label_wait=10)
    m.observe("x", label=1)
    m.observe("x", weight=3)
    m.observe("x", label=0)                     # the last label wins, the weight stays
    m.observe("x", score=0.4)
    assert list(m.items()) == [("x", 0.0, 0.4, 3, None)]
    m.observe("y", label=1, weight=2)
    m.observe("y", score=0.6, weight=5)         # the prediction's own weight wins
    assert list(m.items())[-1] == ("y", 1.0, 0.6, 5, None)
    m.observe("y", score=0.1)                   # then a re-score, as usual
    assert m.stats["rescored"] == 1 and m.stats["joined"] == 2
    m._check()


def test_a_wait_keeps_its_first_start():
    m = Monitor(window=10, min_window=2, label_wait=2)
    m.observe("x", label=1)                     # event 1: waits during 2..3
    m.observe("x", label=0)                     # event 2: replaces the label only
    m.observe("a", score=0.3)
    m.observe("x", score=0.4)                   # event 4: ran out at it
    assert (m.stats["unmatched"], m.stats["joined"], m.n) == (1, 0, 0)


def test_binary_labels_check_a_waiting_label_when_it_joins():
    m = Monitor(window=10, min_window=2, labels="binary", label_wait=10)
    m.observe("a", score=0.1, label=0)
    m.observe("b", score=0.2, label=1)
    with pytest.raises(ValueError, match="at most two labels"):
        m.observe("x", label=2)                 # checked when it arrives ...
    assert m.waiting == 0
    m2 = Monitor(window=10, min_window=2, labels="binary", label_wait=10)
    m2.observe("x", label=2)                    # ... and when it joins
    m2.observe("a", score=0.1, label=0)
    m2.observe("b", score=0.2, label=1)
    before = m2.to_bytes()
    with pytest.raises(ValueError, match="at most two labels"):
        m2.observe("x", score=0.5)
    assert m2.to_bytes() == before
    m2.observe("x", score=0.5, label=1)         # its own label wins: joins
    assert m2.stats["joined"] == 1 and m2.waiting == 0


def test_the_per_event_paths_come_back_once_nothing_waits():
    m = Monitor(window=4, min_window=2, label_wait=5)
    for i in range(6):
        m.observe(i, score=float(i), label=i % 2)
    assert m._fast
    m.observe("x", label=1)
    assert not m._fast and m.waiting == 1
    m.observe("x", score=0.5)
    assert m._fast and m.waiting == 0
    m.observe("y", label=1)
    for i in range(6, 12):
        m.observe(i, score=float(i))
    assert m._fast and m.stats["unmatched"] == 1
    m._check()


def test_without_a_wait_nothing_waits_and_late_and_unmatched_labels_are_apart():
    """Without a wait a label for an id never seen is unmatched at once (not late); a
    label for an id evicted lately is late, dropped; a prediction that comes after an
    unmatched label shows it was early, by how many events."""
    m = Monitor(window=3, min_window=2)
    m.observe("x", label=1)                 # event 1: no prediction of x yet
    assert (m.stats["dropped"], m.stats["unmatched"], m.waiting, m.stats["joined"]) \
        == (0, 1, 0, 0)
    assert m._join.waits is None
    for i in range(4):                      # events 2-5: prediction 0 is evicted at 5
        m.observe(i, score=i / 4)
    m.observe(0, label=1)                   # event 6: late, dropped
    m.observe("x", score=0.9)               # event 7: x's label was 7 - 1 events early
    m._check()
    assert (m.stats["dropped"], m.stats["unmatched"], m.stats["early"],
            m.stats["early_lead"], m.n) == (1, 1, 1, 6, 0)


def test_metrics_expose_the_wait():
    m = Monitor(window=4, min_window=2, label_wait=2)
    m.observe("x", label=1)
    m.observe("y", label=0)
    m.observe("x", score=0.3)
    d = m.metrics()
    assert (d["joined_labels"], d["unmatched_labels"], d["waiting_labels"]) == (1, 0, 1)
    m.observe("z", score=0.3)
    m.observe("w", score=0.3)
    d = m.metrics()
    assert (d["joined_labels"], d["unmatched_labels"], d["waiting_labels"]) == (1, 1, 0)


# --------------------------------------------------------------------------- snapshots
def _run(m, events):
    for key, kw in events:
        m.observe(key, **kw)
    return m


def _state(m):
    return repr((list(m.items()), m.stats, m._join.rows(), m._gone.rows(), m.clock,
                 m.reference_counts, m._fast, [r.counts for r in m.history]))


@pytest.mark.parametrize("kw", [{"window": 3, "label_wait": 4},
                                {"period": 3.0, "label_wait_period": 2.0},
                                {"window": 3, "label_wait_period": 2.0}])
@pytest.mark.parametrize("keys", ["int", "str"])
def test_a_resumed_run_equals_an_uninterrupted_one(kw, keys):
    def key(i):
        return i if keys == "int" else f"k{i}"

    events = []
    for i in range(30):
        t = float(i // 2)
        if i % 3 == 0:
            events.append((key(i + 1), {"label": i % 2, "weight": 2, "time": t}))
        if i % 5 == 1:      # evicted: remembered (count windows: the last 3 of them)
            events.append((key(i - (4 if "window" in kw else 8)), {"label": 1, "time": t}))
        events.append((key(i), {"score": (i * 7 % 10) / 10, "time": t}))
        if i % 4 == 0:
            events.append((key(10_000 + i), {"label": 0, "time": t}))  # never matched
    whole = Monitor(min_window=2, **kw)
    for j, (k, e) in enumerate(events):
        whole.observe(k, **e)
        if j % 7 == 0:
            whole.report()
    cut = len(events) // 2
    for cut in (cut, cut + 1, cut + 2):
        part = Monitor(min_window=2, **kw)
        for j, (k, e) in enumerate(events[:cut]):
            part.observe(k, **e)
            if j % 7 == 0:
                part.report()
        assert part.waiting or part._gone
        part = Monitor.from_bytes(part.to_bytes())
        part._check()
        for j, (k, e) in enumerate(events[cut:], cut):
            part.observe(k, **e)
            if j % 7 == 0:
                part.report()
        part._check()
        assert _state(part) == _state(whole)
    assert whole.stats["joined"] and whole.stats["unmatched"] and whole.stats["dropped"]
    assert Monitor.from_bytes(whole.to_bytes()).label_wait == kw.get("label_wait")


def test_snapshots_from_before_the_wait_are_refused():
    """Snapshots written before the label wait (version 1, development formats) are
    refused with the version error, not loaded with nothing waiting."""
    from streamrank.exceptions import SnapshotError

    for name in ("monitor_count_window_v1.npz", "monitor_period_window_v1.npz"):
        with pytest.raises(SnapshotError, match="snapshot version 1 not supported"):
            Monitor.from_bytes((DATA / "snapshots" / name).read_bytes())


def test_a_damaged_wait_in_a_snapshot_is_refused():
    import io

    import numpy as np

    from streamrank.exceptions import SnapshotError

    m = Monitor(window=3, label_wait=4)
    m.observe(1, score=0.5)
    m.observe(2, label=1)
    arrays = dict(np.load(io.BytesIO(m.to_bytes())))
    arrays["wait_keys"] = np.array([1], dtype=np.int64)     # a key in the window
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with pytest.raises(SnapshotError, match="waiting labels"):
        Monitor.from_bytes(buf.getvalue())
    plain = Monitor(window=3)
    arrays2 = dict(np.load(io.BytesIO(plain.to_bytes())))
    for name in ("wait_keys", "wait_keys_type", "wait_y", "wait_w", "wait_start"):
        arrays2[name] = arrays[name]
    arrays2["wait_keys"] = np.array([7], dtype=np.int64)
    buf = io.BytesIO()
    np.savez(buf, **arrays2)
    with pytest.raises(SnapshotError, match="without a label wait"):
        Monitor.from_bytes(buf.getvalue())


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kw, match", [
    ({"label_wait": 0}, "'label_wait' parameter of Monitor must be a positive int or None"),
    ({"label_wait": 1.5}, "'label_wait' parameter of Monitor must be a positive int"),
    ({"label_wait": True}, "'label_wait' parameter of Monitor must be a positive int"),
    ({"label_wait": "3"}, "'label_wait' parameter of Monitor must be a positive int"),
    ({"label_wait_period": 0}, "'label_wait_period' parameter of Monitor must be a "
                               "positive finite number"),
    ({"label_wait_period": -1.0}, "'label_wait_period' parameter"),
    ({"label_wait_period": math.inf}, "'label_wait_period' parameter"),
    ({"label_wait_period": math.nan}, "'label_wait_period' parameter"),
    ({"label_wait_period": True}, "'label_wait_period' parameter"),
    ({"label_wait": 3, "label_wait_period": 2.0},
     "'label_wait' parameter of Monitor must be None when 'label_wait_period' is given"),
])
def test_bad_label_wait_parameters_raise(kw, match):
    with pytest.raises(ValueError, match=match):
        Monitor(window=5, **kw)


def test_a_bad_event_changes_nothing_while_labels_wait():
    m = Monitor(window=3, min_window=2, label_wait=3)
    m.observe("x", label=1)
    before = m.to_bytes()
    for kw in ({"label": math.nan}, {"weight": -1}, {"score": math.inf}):
        with pytest.raises(ValueError):
            m.observe("y", **kw)
        assert m.to_bytes() == before and m.waiting == 1


def test_a_wait_runs_out_right_after_its_last_chance():
    """``label_wait=1``: the label may join the next event only; after it, it is
    unmatched at once (the buffer holds at most N waits)."""
    m = Monitor(window=5, label_wait=1, min_window=2)
    m.observe("a", label=1)
    assert m.waiting == 1
    m.observe("b", label=0)                  # a's last chance passed
    m._check()
    assert (m.waiting, m.stats["unmatched"]) == (1, 1)
    m.observe("b", score=0.3)                # b joins on its last chance
    assert (m.waiting, m.stats["joined"], m.stats["unmatched"]) == (0, 1, 1)


def test_advance_runs_out_time_waits_and_forgets_old_evictions():
    m = Monitor(period=10.0, label_wait_period=3.0, min_window=2)
    m.observe("p", score=0.5, time=0.0)
    m.observe("a", label=1, time=0.0)
    m.advance(100.0)
    m._check()
    assert (m.waiting, m.stats["unmatched"]) == (0, 1)
    m = Monitor(period=3.0, label_wait_period=2.0, min_window=2)
    m.observe("p", score=0.5, time=0.0)
    for t in (3.5, 6.4, 6.6, 6.7):
        m.observe("p", label=1, time=t)
        m._check()
    again = Monitor.from_bytes(m.to_bytes())
    again._check()


def test_an_unhashable_key_is_refused_by_name_on_every_path():
    m = Monitor(window=3, min_window=2)
    for i in range(5):                       # the reference freezes: the per-event paths
        m.observe(i, score=0.1 * i, label=i % 2)
    before = m.to_bytes()
    for kw in ({"score": 0.5}, {"label": 1.0}, {"score": 0.5, "label": 1.0}):
        with pytest.raises(TypeError, match="'key' parameter of Monitor.observe.*\\[1\\]"):
            m.observe([1], **kw)
    assert m.to_bytes() == before
