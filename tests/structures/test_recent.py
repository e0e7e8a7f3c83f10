"""`streamrank.structures._crecent.Recent` against a plain model: every remembered id and
its mark after random notes, blocks of notes, prunes, trims and takes, `_check` after
every step, and pickle and copy round trips."""

import copy
import pickle

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from streamrank.structures._crecent import Recent

KEYS = st.sampled_from(["a", "b", "c", 1, 2, (3, 4)])


class Model:
    """Every (key, mark) noted, in order; an id is remembered at its latest note unless
    that note was pruned, trimmed or taken."""

    def __init__(self, span):
        self.span, self.items, self.gone = span, [], set()   # gone: indexes forgotten

    def _live(self):
        latest = {k: i for i, (k, _) in enumerate(self.items)}
        return [i for i in sorted(latest.values()) if i not in self.gone]

    def rows(self):
        return [self.items[i] for i in self._live()]

    def note(self, key, mark):
        """(An id noted again at the mark it is remembered at keeps its note.)"""
        if (key, mark) not in self.rows():
            self.items.append((key, mark))

    def prune(self, bound):
        self.gone.update(i for i, (_, m) in enumerate(self.items) if m <= bound)

    def forget_oldest(self, k):
        self.gone.update(self._live()[:k])

    def take(self, key):
        self.gone.update(i for i in self._live() if self.items[i][0] == key)


class RecentMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.span = 5
        self.r, self.model, self.clock = Recent(self.span), Model(self.span), 0

    @rule(key=KEYS, step=st.integers(0, 3))
    def note(self, key, step):
        self.clock += step
        self.r.note(key, self.clock)
        self.model.note(key, self.clock)
        self.model.prune(self.clock - self.span)

    @rule(keys=st.lists(KEYS, max_size=9))
    def note_many(self, keys):
        self.r.note_many(keys, self.clock + 1)
        for k in keys:
            self.clock += 1
            self.model.note(k, self.clock)
        if keys:
            self.model.prune(self.clock - self.span)

    @rule(back=st.integers(-2, 6))
    def prune(self, back):
        self.r.prune(self.clock - back)
        self.model.prune(self.clock - back)

    @rule(n=st.integers(0, 4))
    def trim(self, n):
        self.r.trim(n)
        self.model.forget_oldest(max(0, len(self.model.rows()) - n))

    @precondition(lambda self: self.model.rows())
    @rule(data=st.data())
    def take(self, data):
        k, m = data.draw(st.sampled_from(self.model.rows()))
        assert self.r.take(k) == m
        self.model.take(k)

    @rule()
    def round_trip(self):
        self.r = pickle.loads(pickle.dumps(self.r)) if self.clock % 2 else copy.deepcopy(
            self.r)
        assert self.r.span == self.span

    @invariant()
    def same_ids(self):
        self.r._check()
        assert self.r.rows() == self.model.rows()
        assert self.r.mark == dict(self.model.rows())
        assert len(self.r) == len(self.model.rows())


RecentMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=40,
                                          deadline=None)
TestRecent = RecentMachine.TestCase
