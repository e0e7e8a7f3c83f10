"""A pure-Python merge-sort pair counter (the project's first prototype), ported to Python 3
as a benchmark peer.

The "pure-Python merge-sort counter" that ``benchmarks/bench_batch.py`` measures streamrank
against. It is the prototype's ``InversionCounter`` (written for Python 2)
with only the changes Python 3 requires:

* ``n/2`` -> ``n // 2`` (true division would make a float slice index);
* ``zip(...)`` is a lazy iterator in Python 3: ``vals = zip(...); vals.sort()`` becomes
  ``vals = list(zip(...)); vals.sort()``;
* ``class InversionCounter(object)`` -> ``class InversionCounter``.

Everything else -- the recursion on list slices, the tuple comparisons, the ``groupby``
pass, the method names -- is the prototype's, so its timings are the prototype's cost. The prototype's
names, for a pair of samples with ``true_i < true_j`` (the pairs it builds: labels differ):

==============================  ===============================  ==========================
method                          pairs counted                    `PairCounts` attribute
==============================  ===============================  ==========================
``merge_sort_count_strict_right``  ``pred_i < pred_j``           ``concordant`` (C)
``merge_sort_count_strict_wrong``  ``pred_i > pred_j``           ``discordant`` (D)
``merge_sort_count_pair``          labels differ                 ``comparable`` (P)
``merge_sort_count_right``         ``Pair - StrictWrong``        ``right`` (C + T)
``merge_sort_count_wrong``         ``Pair - StrictRight``        ``wrong`` (D + T)
==============================  ===============================  ==========================

StrictWrong sorts by ``(true, pred)`` and counts the strict inversions of ``pred``: within
equal labels the preds are already ascending, so pairs of equal labels never invert, and
ties in pred (``<=`` in the merge) are not inversions. StrictRight is the same on
``-pred``. Runtime complexity: ``O(n log n)`` Python-level steps per count (the prototype's
claim), against ``O(n^2)`` for the pair loop.

Caveats kept from the prototype: NaN makes the merge loop spin forever (neither ``<=`` nor ``>``
holds), and there are no weights. Inputs should be Python lists of numbers (``.tolist()``
of a numpy array); numpy scalars work but are slower.

Run ``python benchmarks/mergesort_peer.py`` for a self-check against an O(n^2) pair loop.
"""

from itertools import groupby

__all__ = ["InversionCounter", "prototype_counts"]


class InversionCounter:
    @classmethod
    def merge_sort_count_sub(cls, vals):
        if len(vals) <= 1:
            return vals, 0

        n = len(vals)
        left_vals, left_cnt = cls.merge_sort_count_sub(vals[:n // 2])
        right_vals, right_cnt = cls.merge_sort_count_sub(vals[n // 2:])

        left_i = 0
        right_i = 0

        mid_cnt = 0
        new_vals = []
        while True:
            if left_vals[left_i][1] <= right_vals[right_i][1]:
                new_vals.append(left_vals[left_i])
                left_i += 1
            elif left_vals[left_i][1] > right_vals[right_i][1]:
                mid_cnt += (len(left_vals) - left_i)
                new_vals.append(right_vals[right_i])
                right_i += 1

            if left_i == len(left_vals):
                new_vals.extend(right_vals[right_i:])
                break
            if right_i == len(right_vals):
                new_vals.extend(left_vals[left_i:])
                break

        return new_vals, left_cnt + mid_cnt + right_cnt

    @classmethod
    def merge_sort_count_strict_right(cls, trues, preds):
        neg_preds = (-p for p in preds)
        vals = list(zip(trues, neg_preds))
        vals.sort()
        return cls.merge_sort_count_sub(vals)[1]

    @classmethod
    def merge_sort_count_strict_wrong(cls, trues, preds):
        vals = list(zip(trues, preds))
        vals.sort()
        return cls.merge_sort_count_sub(vals)[1]

    @classmethod
    def merge_sort_count_right(cls, trues, preds):
        return cls.merge_sort_count_pair(trues) - cls.merge_sort_count_strict_wrong(trues, preds)

    @classmethod
    def merge_sort_count_wrong(cls, trues, preds):
        return cls.merge_sort_count_pair(trues) - cls.merge_sort_count_strict_right(trues, preds)

    @classmethod
    def merge_sort_count_pair(cls, trues, preds=None):
        '''
            preds: dummpy variable, no need inside function
        '''
        trues = sorted(trues)
        acc_num = 0
        pair = 0
        for k, ks in groupby(trues):
            current_num = sum(1 for _ in ks)
            acc_num += current_num
            pair += (len(trues) - acc_num) * current_num

        return pair


def prototype_counts(trues, preds):
    """``(C, D, P)`` the way a user of the prototype gets them: StrictRight, StrictWrong and Pair, one
    prototype call each (three sorts and two merge-sort passes). This is what the benchmark
    times as the prototype's equivalent of ``streamrank.pair_counts``; every other prototype count
    follows from these three (``Right = P - D``, ``Wrong = P - C``).
    """
    c = InversionCounter.merge_sort_count_strict_right(trues, preds)
    d = InversionCounter.merge_sort_count_strict_wrong(trues, preds)
    p = InversionCounter.merge_sort_count_pair(trues)
    return c, d, p


def _brute_force(trues, preds):
    """O(n^2) (C, D, P) over the pairs with different labels."""
    c = d = p = 0
    for i in range(len(trues)):
        for j in range(len(trues)):
            if trues[i] < trues[j]:
                p += 1
                c += preds[i] < preds[j]
                d += preds[i] > preds[j]
    return c, d, p


if __name__ == "__main__":
    import random

    rng = random.Random(0)
    for trial in range(200):
        n = rng.randint(0, 40)
        trues = [rng.randint(0, 3) for _ in range(n)]
        preds = [rng.choice([0.1, 0.2, 0.3, rng.random()]) for _ in range(n)]
        assert prototype_counts(trues, preds) == _brute_force(trues, preds), (trues, preds)
        c, d, p = prototype_counts(trues, preds)
        assert InversionCounter.merge_sort_count_right(trues, preds) == p - d
        assert InversionCounter.merge_sort_count_wrong(trues, preds) == p - c
    print("mergesort_peer: 200 random inputs agree with the O(n^2) pair loop")
