"""The range partition of the keys: the scan (row counts, label levels, a key sample),
the boundaries at the sample's weighted quantiles, the bucket of every row, the split of a
partition's rows by bucket, and the number of buckets.

A key is a tuple of columns compared lexicographically, e.g. ``(score, label, row id)``;
with the row id every row has a distinct key, so a bucket never overlaps the next one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._validation import describe, param_error
from ..batch._kernels import encode_labels
from ._rows import _Rows, _to_rows
from ._spec import _extract, _Spec

#: Labels (C-index: scores) with at most this many distinct values take the histogram path
#: for the cross-bucket terms (``O(B L)`` on the client); more take the second shuffle.
MAX_HIST_LEVELS = 64

#: Default rows per bucket: the numpy core needs ~40 bytes per row while counting, so a
#: bucket of 4M rows peaks near 160 MB.
ROWS_PER_PARTITION = 1 << 22

_SAMPLE_ROWS = 20_000  # keys sampled in total, spread over the input partitions


@dataclass
class _ScanResult:
    n_rows: int
    n_kept: int
    levels: np.ndarray | None       # distinct Z values if few, else None
    sample: list                    # key columns (X..., Z, rid) of the sampled rows
    sample_weight: float            # rows represented by each sampled row


def _scan(part, pid: int, spec: _Spec, k: int) -> _ScanResult:
    """Stage 1: one input partition validated, its rows counted, its levels of ``Z`` found
    (up to `MAX_HIST_LEVELS`) and ``k`` of its keys sampled (``O(n)``)."""
    rows, n_rows = _to_rows(_extract(part, spec, pid), spec, pid)
    n = rows.size
    levels = None
    if n:
        enc = encode_labels(rows.z, MAX_HIST_LEVELS)
        if enc is not None:
            levels = np.asarray(enc[1])
    else:
        levels = np.zeros(0, dtype=rows.z.dtype)
    rng = np.random.default_rng([spec.seed, pid])
    take = min(n, k)
    idx = np.sort(rng.choice(n, size=take, replace=False)) if take < n else np.arange(n)
    sample = [c[idx] for c in rows.xcols] + [rows.z[idx], rows.rid[idx]]
    return _ScanResult(n_rows, n, levels, sample, n / take if take else 0.0)


def _lex_order(cols: list) -> np.ndarray:
    return np.lexsort(tuple(reversed(cols)))


def _lex_bucket(bounds: list, cols: list) -> np.ndarray:
    """For each row, the number of boundary keys ``<=`` its key (lexicographic over the
    columns); ``bounds`` are lexicographically sorted boundary columns.

    Boundaries that share a leading value are contiguous and sorted by the next column, so
    rows whose leading value hits a boundary are refined on the next column against that
    block only: vectorized, one pass per distinct hit block and column.
    """
    n = cols[0].size
    out = np.zeros(n, dtype=np.int64)
    if bounds[0].size == 0 or n == 0:
        return out
    last = len(cols) - 1
    stack = [(None, 0, bounds[0].size, 0)]  # (rows or None for all, block lo, hi, column)
    while stack:
        idx, lo0, hi0, depth = stack.pop()
        b = bounds[depth][lo0:hi0]
        c = cols[depth] if idx is None else cols[depth][idx]
        hi = _search_right(b, c)
        if lo0:
            hi += lo0
        if depth < last:
            # A row ties a boundary value only if the boundary just below it is equal;
            # those rows are refined on the next column against the block of equal values.
            below = hi - 1 - lo0
            hit = np.flatnonzero(b[np.maximum(below, 0)] == c)
            hit = hit[below[hit] >= 0]
        else:
            hit = None
        if idx is None:
            out = hi
        else:
            out[idx] = hi
        if hit is None or hit.size == 0:
            continue
        lo = np.searchsorted(b, c[hit], side="left") + lo0
        rows = hit if idx is None else idx[hit]
        hi_h = hi[hit]  # before out (which may be hi itself) is overwritten
        out[rows] = lo  # provisional: the refinement adds the boundaries below the row
        for v in np.unique(lo):
            m = lo == v
            stack.append((rows[m], int(v), int(hi_h[m][0]), depth + 1))
    return out


def _search_right(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``np.searchsorted(b, c, side="right")``; for a few boundaries, one vectorized
    comparison per boundary is several times faster than a binary search per row."""
    if b.size > 24:
        return np.searchsorted(b, c, side="right")
    out = np.zeros(c.size, dtype=np.int64)
    for v in b:
        out += c >= v
    return out


def _quantile_bounds(cols: list, weights: np.ndarray, nb: int) -> list:
    """``nb - 1`` boundary keys at the weighted quantiles of the sampled keys."""
    if nb <= 1 or cols[0].size == 0:
        return [c[:0] for c in cols]
    order = _lex_order(cols)
    cum = np.cumsum(weights[order])
    targets = cum[-1] * np.arange(1, nb) / nb
    pick = np.unique(np.minimum(np.searchsorted(cum, targets, side="left"), cum.size - 1))
    return [c[order][pick] for c in cols]

def _split_rows(rows: _Rows, bounds, keycols, nb) -> tuple:
    """``rows`` cut into ``nb`` pieces (``None`` when empty) by the bucket of their keys."""
    if nb == 1:
        return (rows,)
    b = _lex_bucket(bounds, keycols)
    dtype = np.int16 if nb < 2**15 else np.int32
    order = np.argsort(b.astype(dtype), kind="stable")  # a radix sort of small ints
    cuts = np.cumsum(np.bincount(b, minlength=nb))[:-1]
    return tuple(rows.take(p) if p.size else None for p in np.split(order, cuts))



def _check_npartitions(npartitions, func: str):
    """``None`` or ``npartitions`` as a positive int; `ValueError` naming it otherwise."""
    if npartitions is None:
        return None
    if not (isinstance(npartitions, (int, np.integer)) and npartitions >= 1):
        raise param_error("npartitions", func, "a positive int", describe(npartitions))
    return int(npartitions)


def _n_buckets(npartitions, n_parts: int, scheduler, n_rows: int = 0,
               rows_per_partition: int = ROWS_PER_PARTITION) -> int:
    """``npartitions`` (checked by `_check_npartitions`) if given; else at least one bucket
    per input partition, two per worker thread (so that the counting keeps them all busy),
    and enough that no bucket holds more than ``rows_per_partition`` of ``n_rows``."""
    if npartitions is not None:
        return int(npartitions)
    return max(n_parts, -(-n_rows // rows_per_partition), 2 * _worker_threads(scheduler))


def _worker_threads(scheduler) -> int:
    """Worker threads of the distributed client in use, else this machine's cores."""
    client = scheduler if hasattr(scheduler, "nthreads") else None
    if client is None and scheduler is None:
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # pragma: no cover - a client that cannot answer
            pass
    return os.cpu_count() or 1

