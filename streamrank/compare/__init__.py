"""Multi-criteria model comparison by generalized stochastic dominance (GSD).

Compare k models evaluated on m data sets (or m time windows of a live model) by several
metrics at once, some cardinal (differences mean something) and some ordinal (only the
order does), without inventing weights: model ``C'`` GSD-dominates ``C`` when its expected
utility is at least as high for every utility compatible with what the metrics say. A
linear program decides it (`gsd_statistic`), a permutation test says whether it is
significant (`gsd_test`), and the GSD front is the set of models nothing dominates
(`gsd_front`). The method is the one of Jansen et al. (JMLR 2023, UAI 2023, NeurIPS 2024:
[J23a], [J23b], [J24] in the references of docs/compare.md) exactly as the authors
implemented it, on a reduced constraint set with the same feasible set and 30-300 times
fewer rows (docs/compare.md explains the method and lists every deliberate difference).

Inputs are declared with `performance_table` (or read from a CSV, TSV, Parquet or
JSON-lines file by `read_performance_table`) and the metric declarations `cardinal` and
`ordinal`; results are small frozen dataclasses. The command line is
``streamrank.cli.compare.compare`` (``streamrank compare FILE ...``) and the figures are
`streamrank.plot.plot_comparison`; neither is imported here, so importing this
package does not import click or matplotlib. ``examples/gsd_drift.py`` applies the test to
the drift of a live model (last week against the previous week, days as data sets).

>>> from streamrank.compare import cardinal, ordinal, performance_table, gsd_front
>>> table = performance_table(
...     {"model": ["fast"] * 3 + ["accurate"] * 3 + ["old"] * 3,
...      "dataset": ["d1", "d2", "d3"] * 3,
...      "auc": [0.80, 0.78, 0.85, 0.86, 0.84, 0.90, 0.79, 0.77, 0.83],
...      "latency": [10, 12, 9, 40, 45, 38, 50, 60, 55]},
...     metrics=[cardinal("auc"), ordinal("latency", direction="smaller")])
>>> front = gsd_front(table)
>>> front.front, front.edges
(('fast', 'accurate'), [('fast', 'old'), ('accurate', 'old')])
"""

from ._front import GSDFront, gsd_front, pareto_front
from ._permutation import GSDTestResult, PairwiseTest, gsd_test
from ._read import read_performance_table
from ._statistic import GSDStatistic, gsd_statistic
from ._table import Metric, PerformanceTable, cardinal, ordinal, performance_table, quantile_bins

__all__ = [
    "GSDFront",
    "GSDStatistic",
    "GSDTestResult",
    "Metric",
    "PairwiseTest",
    "PerformanceTable",
    "cardinal",
    "gsd_front",
    "gsd_statistic",
    "gsd_test",
    "ordinal",
    "pareto_front",
    "performance_table",
    "quantile_bins",
    "read_performance_table",
]
