"""Exact pair counts, AUC, Kendall's tau, C-index, GAUC, NDCG, MAP on Dask (``streamrank[dask]``).

The functions here take ``dask.dataframe`` or ``dask.array`` inputs (also Parquet/CSV
files through `evaluate_file`) and return exactly what the numpy functions of streamrank
return on the same data: the same `PairCounts` (equal Python ints with unit weights), the
same AUC, tau and C-index floats. Nothing is binned or approximated, and no machine ever
holds more than one range of the data.

Method
------
Exact rank metrics do not need a global sort; one range-partitioned shuffle and a few
exact cross terms per pair of ranges suffice.

1. **Scan** (one task per input partition): validate, count the rows, find the label
   levels (up to ``MAX_HIST_LEVELS``) and draw a random sample of the composite keys.
2. **Boundaries** (client): the weighted quantiles of the sampled keys cut the key space
   into ``B`` ranges ("buckets"). The key is composite, ``(score, label, row id)``, with
   the row id ``(partition << 40) | row``: every row has a distinct key, so a single score
   value held by half of the rows still spreads over several buckets, and a bucket never
   overlaps the next one. Two rows with equal scores *can* sit in different buckets.
3. **Shuffle** (one task per input partition, then one per bucket): each partition splits
   its rows by bucket (a radix sort of the bucket ids); each bucket gathers its pieces and
   counts its own pairs with the numpy core (`streamrank.batch._kernels.count_pairs`), exactly.
4. **Cross terms** (client, Python ints): a pair across buckets ``q < p`` always has
   ``s_q <= s_p``. It is tied in score exactly when a score run spans the boundary, and it
   is never discordant then (inside a run the key orders the labels ascending). So::

       Ts_x  = pairs of equal score across buckets      (run walk over score runs)
       Tyy_x = pairs of equal (score, label) across      (run walk over (score, label) runs)
       D_x   = pairs q < p with y_q > y_p                 (label inversions across buckets)
       Ty_x  = pairs q < p with y_q == y_p
       T_x   = Ts_x - Tyy_x,   C_x = W_x - D_x - Ty_x - T_x,   W_x = sum_{q<p} W_q W_p

   A *run walk* needs from every bucket only its first and last key and the weight of the
   rows that carry them (a run that spans buckets is the last run of one bucket, whole
   buckets, and the first run of another). ``D_x`` and ``Ty_x`` come, for few label levels,
   from the buckets' label histograms (``O(B L)``); for continuous labels from a *second*
   range-partitioned shuffle by ``(label, bucket, row id)``: inside each label range the
   pairs ``b_i < b_j, y_i > y_j`` are a merge-sort inversion count, across label ranges they
   follow from per-range histograms of the bucket ids, and equal labels across ranges are
   again a run walk.

   The censored C-index is the same computation with the exit order ``(time, censored)``
   in the role of the score, the score in the role of the label, and an asymmetric pair
   weight (only an observed event may be the earlier element of a comparable pair).
5. **Group metrics** (GAUC, NDCG, MAP): rows are shuffled by a hash of the group (query)
   id, every group lands whole in one bucket, and the per-group values of the numpy
   functions (`streamrank.group_auc_score`, `streamrank.ranking`) are concatenated and
   averaged on the client in group order (so the float result is the numpy one).

Exactness at scale: every bucket's counts are Python ints from the numpy core (which
sums int64 partial counts only while they cannot overflow); the cross terms and totals
are Python ints computed on the client, never summed by the engine (Dask and numpy sums
wrap silently past 2**63). With sample weights the counts are float64 sums, as in numpy.

Memory: a bucket holds about ``n / B`` rows (``rows_per_partition``, default 4M, ~40
bytes per row while counting); the shuffled pieces are ordinary task results, which a
``distributed`` worker spills to disk past its memory limit. Cost: one extra read of the
input (the scan), one shuffle (two for continuous labels or scores), ``O(n log n)`` work in
total, and ``O(B L)`` or ``O(B^2)`` Python-int work on the client.

Layout
------
``_spec`` (the inputs: roles, per-partition validation, delayed partitions), ``_rows``
(rows in the count's roles), ``_partition`` (scan, boundaries, bucketing, split, number
of buckets), ``_count`` (plan, per-bucket counts and summaries, the exact combine),
``_pairs`` (`pair_counts`, `roc_auc_score`, `kendall_tau`), ``_survival``
(`concordance_index`), ``_groups`` (the group shuffle and `group_auc_score`),
``_ranking`` (`ndcg_at_k`, `map_score`), ``_files`` (`evaluate_file`).

Examples
--------
>>> import dask.array as da, numpy as np
>>> from streamrank import pair_counts as np_pair_counts
>>> from streamrank.dask import pair_counts, roc_auc_score
>>> y = da.from_array(np.array([0, 0, 1, 1, 0, 1]), chunks=2)
>>> s = da.from_array(np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.4]), chunks=2)
>>> pc = pair_counts(y, s, npartitions=3, scheduler="sync")
>>> pc == np_pair_counts(y.compute(), s.compute())
True
>>> roc_auc_score(y, s, scheduler="sync")
0.666666...
"""

from __future__ import annotations

from .._extras import require

require("dask.dataframe", "dask", "streamrank.dask")

from ._files import evaluate_file
from ._groups import group_auc_score
from ._pairs import kendall_tau, pair_counts, roc_auc_score
from ._partition import MAX_HIST_LEVELS, ROWS_PER_PARTITION
from ._ranking import map_score, ndcg_at_k
from ._survival import concordance_index

__all__ = [
    "MAX_HIST_LEVELS",
    "ROWS_PER_PARTITION",
    "concordance_index",
    "evaluate_file",
    "group_auc_score",
    "kendall_tau",
    "map_score",
    "ndcg_at_k",
    "pair_counts",
    "roc_auc_score",
]
