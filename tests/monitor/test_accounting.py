"""Every label accounted for: late (its prediction left the window) apart from unmatched
(no prediction: early, or never predicted), with or without a label wait, in `Monitor`,
`PairedMonitor` and `SegmentedMonitor` (stats, reports, metrics, snapshots).

Each expectation is counted from the generated events by a plain loop over them (which
ids were predicted when, which were evicted), not by calling the monitor.
"""

import random

from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor
from streamrank.monitor._join import ORPHANS


def _labels_first(n, seed=0):
    """``n`` label events, then the ``n`` predictions of the same ids (in the same
    order): every label is early, by exactly ``n`` events."""
    rnd = random.Random(seed)
    labels = [(f"k{i}", {"label": rnd.randint(0, 1)}) for i in range(n)]
    preds = [(f"k{i}", {"score": rnd.random()}) for i in range(n)]
    return labels + preds


def _count(events, window):
    """The oracle: feed ``events`` to plain lists (a count window of ``window``
    predictions, no wait) and count each label by the documented rules: late if its id
    is among the last ``window`` evicted, else unmatched; an unmatched id predicted
    afterwards is early, by the events between."""
    held, evicted, orphans = [], [], {}
    dropped = unmatched = early = lead = 0
    for number, (key, kw) in enumerate(events, 1):
        if "score" in kw:
            if key in held:
                continue
            if key in orphans:
                early += 1
                lead = max(lead, number - orphans.pop(key))
            held.append(key)
            if len(held) > window:
                evicted.append(held.pop(0))
        elif key not in held:
            if key in evicted[-window:]:
                dropped += 1
            else:
                unmatched += 1
                orphans.setdefault(key, number)     # the first label's
    return dropped, unmatched, early, lead


def test_labels_before_their_predictions_are_unmatched_and_early_not_late():
    """300 label rows, then their 300 predictions, window 100: nothing is late; all 300
    are unmatched, and all came 300 events before their prediction (the wait that would
    have joined them); reports, as_dict and metrics say the same."""
    events = _labels_first(300)
    m = Monitor(window=100, min_window=2)
    for key, kw in events:
        m.observe(key, **kw)
    want = _count(events, 100)
    assert want == (0, 300, 300, 300)
    st = m.stats
    assert (st["dropped"], st["unmatched"], st["early"], st["early_lead"]) == want
    r = m.report()
    assert (r.dropped, r.unmatched) == want[:2]
    assert (r.as_dict()["dropped"], r.as_dict()["unmatched"]) == want[:2]
    d = m.metrics()
    assert (d["late_dropped"], d["unmatched_labels"]) == want[:2]
    m._check()
    # the wait the stats suggest joins every label (and nothing is unmatched then)
    w = Monitor(window=100, min_window=2, label_wait=st["early_lead"])
    for key, kw in events:
        w.observe(key, **kw)
    assert (w.stats["joined"], w.stats["unmatched"], w.stats["dropped"]) == (300, 0, 0)
    short = Monitor(window=100, min_window=2, label_wait=st["early_lead"] - 1)
    for key, kw in events:
        short.observe(key, **kw)
    assert (short.stats["joined"], short.stats["unmatched"]) == (0, 300)


def test_a_mixed_stream_counts_late_and_unmatched_as_the_loop_does():
    """Random streams: labels for ids in the window, evicted lately, evicted long ago,
    never predicted, and predicted later; with snapshot round trips."""
    for seed in range(8):
        rnd = random.Random(seed)
        window = rnd.randint(3, 12)
        events, nxt = [], 0
        for _ in range(400):
            r = rnd.random()
            if r < 0.5 or not nxt:
                events.append((f"k{nxt}", {"score": rnd.random()}))
                nxt += 1
            elif r < 0.8:       # a label for an id predicted before (in or out)
                events.append((f"k{rnd.randrange(nxt)}", {"label": rnd.randint(0, 1)}))
            else:               # a label for an id predicted later, or never
                events.append((f"k{nxt + rnd.randrange(30)}", {"label": 1}))
        m = Monitor(window=window, min_window=2)
        for i, (key, kw) in enumerate(events):
            m.observe(key, **kw)
            if i % 97 == 96:
                m = Monitor.from_bytes(m.to_bytes())
        m._check()
        st = m.stats
        got = (st["dropped"], st["unmatched"], st["early"], st["early_lead"])
        assert got == _count(events, window), seed
        assert st["dropped"] and st["unmatched"] and st["early"]


def test_the_memory_of_unmatched_ids_is_bounded():
    """Only the last `ORPHANS` unmatched ids are remembered: a prediction for an id
    forgotten is not known to be early; the memory's deque stays within twice its ids
    even when every remembered id is predicted (taken out)."""
    m = Monitor(window=5, min_window=2)
    extra = 25
    for i in range(ORPHANS + extra):
        m.observe(i, label=1)
    assert len(m._join.orphans) == ORPHANS and m.stats["unmatched"] == ORPHANS + extra
    for i in range(ORPHANS + extra):
        m.observe(i, score=0.5)
    assert m.stats["early"] == ORPHANS        # the first `extra` were forgotten
    assert m.stats["early_lead"] == ORPHANS + extra
    for i in range(3 * ORPHANS):              # labels predicted at once: taken out
        m.observe(("x", i), label=0)
        m.observe(("x", i), score=0.1)
    assert len(m._join.orphans) == 0 and len(m._join.orphans.order) <= 16
    m._check()


def test_a_period_window_and_a_time_wait():
    """A period window: a label for a prediction evicted within the last period is late;
    one evicted before, or for an id never seen, is unmatched. With a time wait, a wait
    that runs out is unmatched, and early is counted from the event it ran out at."""
    m = Monitor(period=10.0, min_window=2)
    m.observe("a", score=0.5, time=0.0)
    m.observe("b", score=0.5, time=12.0)       # "a" leaves (evicted at clock 12)
    m.observe("a", label=1, time=13.0)         # evicted lately: late
    m.observe("z", label=1, time=14.0)         # never seen: unmatched
    m.observe("c", score=0.5, time=30.0)       # "b" leaves at 30; "a" was at 12
    m.observe("a", label=0, time=30.0)         # 12 <= 30 - 10: forgotten, unmatched
    m.observe("b", label=0, time=31.0)         # 30 > 31 - 10: late
    assert (m.stats["dropped"], m.stats["unmatched"]) == (2, 2)
    m.observe("z", score=0.2, time=32.0)       # event 8: z's label (4) 4 events early
    assert (m.stats["early"], m.stats["early_lead"]) == (1, 4)
    m._check()
    t = Monitor(window=10, min_window=2, label_wait_period=5.0)
    t.observe("x", label=1, time=0.0)          # event 1: waits until the clock passes 5
    t.observe("p", score=0.3, time=6.0)        # event 2: the wait runs out here
    t.observe("x", score=0.9, time=7.0)        # event 3: one event after the run-out
    assert (t.stats["unmatched"], t.stats["joined"], t.stats["early"],
            t.stats["early_lead"]) == (1, 0, 1, 1)
    t._check()


def test_paired_split_rows_share_the_ids_label_and_one_join():
    """A label is the id's, not a model's: a label before the challenger's score row
    (split rows) labels the champion's prediction, and the challenger's prediction takes
    it when it comes; a label for an id neither model holds is counted once, by the
    pair's join, and both models' stats (and the report's columns) show that count."""
    m = PairedMonitor(window=3, min_window=2)
    m.observe("a", score=0.9)
    m.observe("a", label=1)                 # the champion's "a" is labeled ...
    m.observe("a", challenger=0.4)          # ... and the challenger's prediction takes it
    assert m.champion.prediction("a") == (1.0, 0.9, 1)
    assert m.challenger.prediction("a") == (1.0, 0.4, 1)
    m.observe("z", label=1)                 # no model holds "z": unmatched, once
    for k in "bcd":
        m.observe(k, score=0.5, challenger=0.5)
    m.observe("a", label=0)                 # "a" left both windows lately: late, once
    a, b = m.champion.stats, m.challenger.stats
    for st in (a, b, m.stats):
        assert (st["dropped"], st["unmatched"], st["early"]) == (1, 1, 0)
    assert (a["events"], b["events"], m.stats["events"]) == (5, 4, 8)
    assert (a["labeled"], b["labeled"]) == (1, 1)
    m.observe("z", score=0.2, challenger=0.3)   # "z"'s label came first: early
    assert a["early"] == b["early"] == 1 and a["early_lead"] == b["early_lead"] == 5
    row = m.report().as_dict()
    assert (row["dropped"], row["unmatched"], row["challenger_dropped"],
            row["challenger_unmatched"]) == (1, 1, 1, 1)
    m._check()


def test_segmented_labels_without_a_segment_are_late_or_unmatched_at_the_wrapper():
    """Labels without a segment for an id in no window: late when its segment's window
    evicted it lately, else unmatched (and early when it is predicted afterwards);
    totals, the report's total row and the metrics add the segments' own; a snapshot
    keeps the memory of the unmatched ids."""
    m = SegmentedMonitor(window=2, min_window=2)
    m.observe("q", label=1)                             # event 1: unmatched here
    m.observe("a", segment="fr", score=0.3, label=0)
    m.observe("b", segment="fr", score=0.6)
    m.observe("c", segment="fr", score=0.5)             # "a" leaves "fr"
    m.observe("a", label=1)                             # late, at the wrapper
    m.observe("zz", label=1, segment="fr")              # in "fr"'s unit: unmatched there
    m = SegmentedMonitor.from_bytes(m.to_bytes())
    m.observe("q", segment="de", score=0.8)             # event 7: q was 6 events early
    st = m.stats
    assert (st["dropped"], st["unmatched"], st["early"], st["early_lead"]) == (1, 1, 1, 6)
    assert m.unit("fr").stats["unmatched"] == 1
    tot = m.totals()
    assert (tot["dropped"], tot["unmatched"], tot["early"]) == (1, 2, 1)
    r = m.report()
    total = r.rows()[-1]
    assert total["segment"] is None and (total["dropped"], total["unmatched"]) == (1, 2)
    assert (r.dropped, r.unmatched) == (1, 2)
    d = m.metrics()
    assert (d["late_dropped"], d["unmatched_labels"]) == (1, 1)
    assert d["segments"]["fr"]["unmatched_labels"] == 1
    back = SegmentedMonitor.from_bytes(m.to_bytes())
    assert (back.history[-1].dropped, back.history[-1].unmatched) == (1, 2)
    m._check()


def test_an_id_with_two_early_labels_is_early_from_the_first():
    """Two labels (or weights) of one id before its prediction: the lead counts from the
    first, as a wait keeps its first start, so the suggested wait joins them."""
    events = ([("a", {"label": 1})] + [(i, {"score": 0.5}) for i in range(5)]
              + [("a", {"weight": 2})] + [(i, {"score": 0.4}) for i in range(5, 8)]
              + [("a", {"score": 0.9})])
    first = next(j for j, (k, kw) in enumerate(events) if k == "a")
    pred = next(j for j, (k, kw) in enumerate(events) if k == "a" and "score" in kw)
    m = Monitor(window=100, min_window=2)
    for key, kw in events:
        m.observe(key, **kw)
    assert (m.stats["unmatched"], m.stats["early"], m.stats["early_lead"]) == (
        2, 1, pred - first)
    w = Monitor(window=100, min_window=2, label_wait=m.stats["early_lead"])
    for key, kw in events:
        w.observe(key, **kw)
    assert (w.stats["joined"], w.stats["unmatched"]) == (1, 0)
    assert [(y, wt) for k, y, _, wt, _ in w.items() if k == "a"] == [(1, 2)]
