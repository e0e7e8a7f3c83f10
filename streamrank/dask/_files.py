"""`evaluate_file`: exact metrics of a Parquet, CSV or JSON-lines file read partition by
partition by Dask, the hook of ``streamrank eval --dask``."""

from __future__ import annotations

import os
import warnings
from typing import Any

import dask.dataframe as dd
import numpy as np

from .._typing import Gain, Number, Ties
from .._validation import describe, param_error
from ..batch.auc import _Weighting
from ..exceptions import UndefinedMetricWarning
from ._groups import group_auc_score
from ._pairs import _pair_counts
from ._partition import ROWS_PER_PARTITION
from ._ranking import map_score, ndcg_at_k
from ._spec import _pairs_spec
from ._survival import _censored_file_counts

_FILE_FORMATS = ("parquet", "csv", "tsv", "jsonl")


def _read(path, fmt, columns, blocksize):
    """A dask DataFrame of the ``columns`` of ``path`` (format by ``fmt``, else by the
    file's extension, else Parquet); a local directory is one data set of one format, as
    `streamrank.io.tables.read_columns` reads it (a `ValueError` for several formats)."""
    if isinstance(path, (str, os.PathLike)) and os.path.isdir(path):
        from ..io.tables import TableError, directory_files

        try:
            fmt, files = directory_files(path, fmt)
        except TableError as exc:
            raise ValueError(exc.reason) from None
        if fmt != "parquet":        # (Parquet: the directory, Hive partitions too)
            # one read per file: each its own compression (dask infers the first one's)
            return dd.concat([_read(f, fmt, columns, blocksize) for f in files])
    if fmt is None:
        p = str(path).lower().rstrip("/")
        p = p[:-3] if p.endswith(".gz") else p
        fmt = ("csv" if p.endswith(".csv") else "tsv" if p.endswith((".tsv", ".tab"))
               else "jsonl" if p.endswith((".jsonl", ".ndjson", ".json")) else "parquet")
    fmt = {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet"}.get(fmt, fmt)
    gz = str(path).lower().endswith(".gz")
    if fmt == "parquet":
        # One partition per row group: the scan and the split stream through the file.
        return dd.read_parquet(path, columns=columns, split_row_groups=True)
    if fmt in ("csv", "tsv"):
        # A gzip stream cannot be split: one partition (blocksize=None) then.
        kw = {"blocksize": None} if gz else {} if blocksize is None else {"blocksize": blocksize}
        return dd.read_csv(path, usecols=columns, sep="\t" if fmt == "tsv" else ",", **kw)
    if fmt == "jsonl":
        kw = {} if gz else {"blocksize": blocksize or 2**26}
        return dd.read_json(path, lines=True, **kw)[columns]
    raise param_error("format", "evaluate_file", f"one of {_FILE_FORMATS}", describe(fmt))


def evaluate_file(path: str | os.PathLike[str], *, label: str | None = None, score: str,
                  weight: str | None = None, group: str | None = None,
                  query: str | None = None, time: str | None = None,
                  event: str | None = None, pos_label: Number | None = None,
                  k: int | None = None, gain: Gain | None = None, ties: Ties = "average",
                  format: str | None = None, scheduler: Any = None,
                  n_workers: int | None = None, npartitions: int | None = None,
                  rows_per_partition: int = ROWS_PER_PARTITION,
                  blocksize: int | str | None = None,
                  weighting: _Weighting = "impressions") -> dict[str, object]:
    """Exact metrics of a Parquet, CSV or JSON-lines file (or directory / glob), read
    partition by partition by Dask: the hook of ``streamrank eval --dask
    SCHEDULER_ADDRESS|local``.

    One of three evaluations, by the columns given:

    * ``label`` and ``score`` (default): every count and metric of `PairCounts.as_dict`
      (``auc`` is meaningful for binary labels only) and the numbers of distinct labels
      and scores (``"label_levels"``, ``"score_levels"``), plus the group AUC with
      ``group``;
    * ``query``, ``label`` (graded relevance) and ``score``: NDCG@k and MAP@k averaged over
      queries, as `ndcg_at_k` / `map_score` (a query with no relevant document counts as
      0);
    * ``time``, ``score`` and optionally ``event``: the censored pair counts and C-index
      of `concordance_index` (no ``label``).

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet file, directory or glob, or a CSV / TSV / JSON-lines file or glob (by
        extension, or ``format``).
    label, score : str
        Column names of the labels and the scores.
    weight : str, optional
        Column of nonnegative sample weights (not with ``query``).
    group : str, optional
        Column of group ids: adds ``"group_auc"`` and ``"group_auc_groups"`` /
        ``"group_auc_skipped"`` (binary labels only).
    query : str, optional
        Column of query ids: ranking metrics instead of pair counts; adds ``"queries"``
        and ``"queries_without_relevant"`` (queries with no relevant document, counted as
        0 in both means).
    time, event : str, optional
        Columns of survival times and event indicators (1 = observed, 0 = censored;
        default all observed): the censored C-index instead of pair counts.
    pos_label : optional
        The positive label: labels become ``label == pos_label`` (one against the rest).
    k, gain, ties : ranking options of `ndcg_at_k` (``k`` also for MAP@k; ``k=None``:
        every document of the query); ``gain=None`` is the default gain of
        `streamrank.ranking.ndcg_at_k`.
    format : {"parquet", "csv", "tsv", "jsonl"}, optional
    scheduler : str or distributed.Client, optional
        ``None``: the active client, else Dask's default (threads). ``"local"``: start a
        ``distributed.LocalCluster`` for this call (``n_workers`` processes) and close it.
        ``"tcp://host:8786"`` (any address): connect to that scheduler. ``"threads"``,
        ``"processes"``, ``"sync"``: Dask's single-machine schedulers.
    npartitions, rows_per_partition : see `pair_counts`.
    blocksize : CSV / JSON block size (``dask.dataframe.read_csv``).

    Returns
    -------
    dict
    """
    func = "evaluate_file"
    if time is None and label is None:
        raise param_error("label", func, "a column name (or time= for the C-index)", "None",
                          TypeError)
    if time is not None and (label is not None or group is not None or query is not None):
        raise param_error("time", func, "used without label, group and query",
                          describe(time))
    if event is not None and time is None:
        raise param_error("event", func, "used with time", describe(event))
    if query is not None and (group is not None or weight is not None):
        raise param_error("query", func, "used without group and weight", describe(query))
    if pos_label is not None and (group is not None or query is not None):
        raise param_error("pos_label", func, "used without group and query",
                          describe(pos_label))
    columns = [c for c in dict.fromkeys((label, score, weight, group, query, time, event))
               if c is not None]
    client = cluster = None
    sched = scheduler
    if isinstance(scheduler, str) and scheduler not in ("threads", "processes", "sync",
                                                        "synchronous", "single-threaded"):
        from distributed import Client, LocalCluster

        if scheduler == "local":
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(scheduler)
        sched = client
    try:
        ddf = _read(path, format, columns, blocksize)
        if time is not None:
            return _censored_file_counts(ddf, time, score, event, weight, npartitions,
                                         rows_per_partition, sched)
        if query is not None:
            out = {"n": None}
            for key, fn, kw in (("ndcg", ndcg_at_k, dict(gain=gain)),  # None: its default
                                ("map", map_score, {})):
                # "skip" marks the queries without a relevant document (NaN) so that they
                # are counted; they then count as 0, the default: the same mean as empty=0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UndefinedMetricWarning)
                    r = fn(ddf, query=query, label=label, score=score, k=k, ties=ties,
                           empty="skip", return_per_query=True, npartitions=npartitions,
                           scheduler=sched, **kw)
                empty = np.isnan(r.values)
                out[key] = float(np.where(empty, 0.0, r.values).mean())
                out["queries"] = int(r.values.size)
                out["queries_without_relevant"] = int(empty.sum())
            out["n"] = int(ddf.shape[0].compute(scheduler=sched))
            return out
        spec, parts = _pairs_spec(func, ddf, ddf, None, label, score, weight, None,
                                  pos_label=pos_label)
        pc = _pair_counts(spec, parts, npartitions, rows_per_partition, sched)
        out = pc.as_dict()
        out.update(label_levels=pc.n_label_levels, score_levels=pc.n_score_levels)
        if group is not None:
            r = group_auc_score(ddf, label=label, score=score, group=group, weight=weight,
                                weighting=weighting, return_details=True, scheduler=sched)
            out.update(group_auc=r.score, group_auc_groups=r.n_groups,
                       group_auc_skipped=r.n_skipped)
        return out
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
