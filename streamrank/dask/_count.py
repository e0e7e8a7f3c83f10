"""The exact pair count on a range partition: the plan, the per-bucket counts and
summaries (stages 3a-3c of the method in `streamrank.dask`), and the client-side combine
of the cross-bucket terms as Python ints (stage 4).

`_run` drives it all and returns the totals that `streamrank.dask._pairs` (pair counts)
and `streamrank.dask._survival` (censored pairs) assemble into their results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import dask
import numpy as np

from .._validation import check_binary_levels
from ..batch._kernels import count_inversions, count_pairs, dense_ranks
from ..batch.survival import _pairs_before, censored_counts
from ._partition import (MAX_HIST_LEVELS, _SAMPLE_ROWS, _check_npartitions, _lex_bucket,
                         _n_buckets, _quantile_bounds, _scan, _split_rows)
from ._rows import _concat_rows, _Rows, _to_rows
from ._spec import _compute_kwargs, _extract, _Spec


# ============================================================================ summaries
@dataclass
class _Ends:
    """First and last key of a bucket and the weights (a, r) of the rows carrying them."""

    first: tuple
    first_a: object
    first_r: object
    last: tuple
    last_a: object
    last_r: object

    @property
    def single(self) -> bool:
        return self.first == self.last


def _wsum(x, m):
    if x is None:
        return int(np.count_nonzero(m))
    v = x[m].sum()
    return int(v) if x.dtype.kind in "iub" else float(v)


def _extreme_rows(cols: list, fn) -> tuple[tuple, np.ndarray]:
    """The lexicographic min (``fn=np.min``) or max key and the mask of its rows."""
    m = np.ones(cols[0].size, dtype=bool)
    key = []
    for c in cols:
        v = fn(c[m])
        key.append(v.item())
        m &= c == v
    return tuple(key), m


def _ends(cols: list, a, r) -> _Ends:
    k1, m1 = _extreme_rows(cols, np.min)
    k2, m2 = _extreme_rows(cols, np.max)
    return _Ends(k1, _wsum(a, m1), _wsum(r, m1), k2, _wsum(a, m2), _wsum(r, m2))


def _run_walk(ends: list) -> tuple[object, int]:
    """``sum a_i r_j`` over pairs of equal key in different buckets ``q < p`` (``i`` in
    ``q``), and the number of bucket boundaries a run crosses (for distinct counts).

    A run of equal keys that spans buckets is the last run of bucket ``q``, zero or more
    single-key buckets, and the first run of bucket ``p``: keep the earlier buckets' weight
    ``acc`` of the open run; a bucket whose first key continues it pairs with all of it.
    """
    total, joins = 0, 0
    open_key, acc = None, 0
    for e in ends:
        if e is None:
            continue
        if open_key is not None and e.first == open_key:
            total += acc * e.first_r
            joins += 1
            if e.single:
                acc += e.first_a
                continue
        open_key, acc = e.last, e.last_a
    return total, joins


@dataclass
class _XSummary:
    """One bucket of the range partition by ``(X, Z, row id)``."""

    counts: tuple                 # within-bucket counts (see _count_within)
    n_x_levels: int               # distinct X in the bucket (pairs: distinct scores)
    a_sum: object
    r_sum: object
    x_ends: _Ends
    xz_ends: _Ends
    hist_a: list | None = None    # per Z level, Python numbers (histogram path)
    hist_r: list | None = None


@dataclass
class _ZSummary:
    """One range of the second shuffle by ``(Z, bucket, row id)`` (continuous Z)."""

    inv: object                   # pairs b_i < b_j, z_i > z_j inside the range
    eq: object                    # pairs b_i < b_j, z_i == z_j inside the range
    n_z_levels: int
    hist_a: list
    hist_r: list
    z_ends: _Ends
    zb_ends: _Ends


def _py(values: np.ndarray, exact: bool) -> list:
    if exact:
        return np.rint(values).astype(np.int64).tolist() if values.dtype.kind == "f" \
            else values.astype(np.int64).tolist()
    return values.astype(np.float64).tolist()


def _hist(codes, weights, size, exact):
    h = np.bincount(codes, weights=weights, minlength=size)
    return _py(h, exact)


# ============================================================================ plan
@dataclass
class _Plan:
    spec: _Spec
    x_bounds: list
    nb: int
    levels: np.ndarray | None = None
    z_bounds: list | None = None
    nz: int = 0
    exact: bool = True
    extra: dict = field(default_factory=dict)


def _split(part, pid: int, plan: _Plan) -> tuple:
    """Stage 3a: one input partition's rows split by bucket of ``(X, Z, row id)``. The row
    ids travel on only when the second shuffle needs them (continuous Z)."""
    rows, _ = _to_rows(_extract(part, plan.spec, pid), plan.spec, pid)
    keycols = rows.xcols + [rows.z, rows.rid]
    # The row ids travel on only for the second shuffle (continuous Z).
    rows.rid = None if plan.levels is not None else rows.rid.materialize()
    return _split_rows(rows, plan.x_bounds, keycols, plan.nb)


def _count_within(rows: _Rows, kind: str):
    """Exact counts of the pairs inside one bucket, by the numpy core."""
    if kind == "pairs":
        pc = count_pairs(rows.z, rows.xcols[0], rows.w)
        return (pc.concordant, pc.discordant, pc.tied_score, pc.tied_label, pc.tied_both), \
            pc.n_score_levels
    t, s = rows.xcols[0], rows.z
    return censored_counts(t, s, rows.e, rows.w), 0  # distinct exits: not needed


def _x_bucket(pieces: list, b: int, plan: _Plan) -> tuple:
    """Stage 3b: one bucket's exact counts and summary, and (continuous Z) its rows split
    by ``(Z, b, row id)`` for the second shuffle."""
    rows = _concat_rows(pieces)
    if rows is None:
        return (None,) + (None,) * plan.nz
    counts, n_x = _count_within(rows, plan.spec.kind)
    exact = plan.exact
    a_sum = _wsum(rows.a, slice(None)) if rows.a is not None else rows.size
    r_sum = _wsum(rows.r, slice(None)) if rows.r is not None else rows.size
    summary = _XSummary(counts, n_x, a_sum, r_sum, _ends(rows.xcols, rows.a, rows.r),
                        _ends(rows.xcols + [rows.z], rows.a, rows.r))
    if plan.levels is not None:
        codes = np.searchsorted(plan.levels, rows.z)
        L = plan.levels.size
        summary.hist_a = _hist(codes, rows.a, L, exact)
        summary.hist_r = summary.hist_a if rows.r is rows.a else _hist(codes, rows.r, L, exact)
        return (summary,)
    bcol = np.full(rows.size, b, dtype=np.int64)
    zrows = _Rows([bcol], rows.z, rows.a, rows.r, None, None, rows.rid)
    if plan.nz == 1:
        return (summary, zrows)
    return (summary,) + _split_rows(zrows, plan.z_bounds, [rows.z, bcol, rows.rid], plan.nz)


def _z_bucket(pieces: list, plan: _Plan) -> _ZSummary | None:
    """Stage 3c (continuous Z): pairs of different buckets ``b_i < b_j`` inside one Z range,
    inverted (``z_i > z_j``) or tied in Z, weighted ``a_i r_j``."""
    rows = _concat_rows(pieces)
    if rows is None:
        return None
    b, z = rows.xcols[0], rows.z
    zr, n_z = dense_ranks(z)
    bbits = max(1, int(plan.nb - 1).bit_length())
    a, r = rows.a, rows.r
    # Strict inversions of z in (b, z) order: pairs b_i < b_j with z_i > z_j (equal b are
    # sorted by z, so they never invert).
    o1 = np.lexsort((zr, b))
    if a is None and r is None:
        inv = count_inversions(zr[o1])
    else:
        inv = count_inversions(zr[o1], None if a is None else a[o1],
                               None if r is None else r[o1])
    # Equal z, smaller b: keys (z rank, b) sorted, left weight of the smaller b in the run.
    key = (zr << bbits) | b
    o2 = np.argsort(key, kind="stable")
    ones = np.ones(rows.size, dtype=np.int64)
    la = ones if a is None else a[o2]
    ra = ones if r is None else r[o2]
    eq = _pairs_before(key[o2], bbits, la, ra)
    exact = plan.exact
    ha = _hist(b, a, plan.nb, exact)
    hr = ha if r is a else _hist(b, r, plan.nb, exact)
    return _ZSummary(inv, eq, n_z, ha, hr, _ends([z], a, r), _ends([z, b], a, r))


# ============================================================================ combine
def _zeros(n, exact):
    return np.array([0] * n, dtype=object) if exact else np.zeros(n)


def _cross_hist(hist_a: list, hist_r: list, exact: bool):
    """``(inv, eq)`` over ordered pairs of buckets ``q < p`` from their histograms over the
    levels of Z: ``inv = sum a_i r_j [z_i > z_j]``, ``eq = sum a_i r_j [z_i == z_j]`` with
    ``i`` in ``q``, ``j`` in ``p``. Python ints when exact. ``O(B L)``."""
    inv = eq = 0 if exact else 0.0
    acc = None
    for ha, hr in zip(hist_a, hist_r):
        if ha is None:
            continue
        va = np.array(ha, dtype=object if exact else np.float64)
        vr = np.array(hr, dtype=object if exact else np.float64)
        if acc is None:
            acc = _zeros(va.size, exact)
        # Earlier weight with a strictly higher level than each level z.
        above = np.concatenate((np.cumsum(acc[::-1])[::-1][1:], _zeros(1, exact)))
        inv += (vr * above).sum()
        eq += (vr * acc).sum()
        acc = acc + va
    return inv, eq


def _cross_between_ranges(ranges: list, nb: int, exact: bool):
    """Pairs ``b_i < b_j`` with ``z_i > z_j`` whose rows lie in different Z ranges
    ``c(j) < c(i)``: ``sum_{c<c'} sum_{b<b'} A[c'][b] R[c][b']``. Equal z across ranges
    always have ``b_i >= b_j`` (the key orders b inside a z run), so none is counted."""
    inv = 0 if exact else 0.0
    acc = _zeros(nb, exact)
    for zs in ranges:
        if zs is None:
            continue
        va = np.array(zs.hist_a, dtype=object if exact else np.float64)
        vr = np.array(zs.hist_r, dtype=object if exact else np.float64)
        above = np.concatenate((np.cumsum(acc[::-1])[::-1][1:], _zeros(1, exact)))
        inv += (va * above).sum()
        acc = acc + vr
    return inv


def _pairs_between(sums_a: list, sums_r: list):
    """``sum_{q<p} A_q R_p`` (Python ints when the sums are)."""
    total, acc = 0, 0
    for sa, sr in zip(sums_a, sums_r):
        total += acc * sr
        acc += sa
    return total


def _combine(xs: list, zs: list | None, plan: _Plan) -> dict:
    """Every exact total from the bucket summaries (client side, Python ints)."""
    exact = plan.exact
    live = [x for x in xs if x is not None]
    within = [sum(x.counts[k] for x in live) for k in range(len(live[0].counts))] if live else None
    total_x = _pairs_between([x.a_sum for x in live], [x.r_sum for x in live])
    run_x, joins_x = _run_walk([x.x_ends for x in live])
    run_xz, _ = _run_walk([x.xz_ends for x in live])
    if plan.levels is not None:
        inv, eq = _cross_hist([x.hist_a for x in live], [x.hist_r for x in live], exact)
        tot_a = [0] * plan.levels.size
        for x in live:
            tot_a = [u + v for u, v in zip(tot_a, x.hist_a)]
        n_z = sum(1 for v in tot_a if v > 0)
    else:
        zl = [z for z in zs if z is not None]
        inv = sum(z.inv for z in zl) + _cross_between_ranges(zl, plan.nb, exact)
        run_z, joins_z = _run_walk([z.z_ends for z in zl])
        run_zb, _ = _run_walk([z.zb_ends for z in zl])
        eq = sum(z.eq for z in zl) + run_z - run_zb
        n_z = sum(z.n_z_levels for z in zl) - joins_z
    n_x = sum(x.n_x_levels for x in live) - joins_x
    return dict(within=within, total_x=total_x, run_x=run_x, run_xz=run_xz, inv=inv, eq=eq,
                n_x=n_x, n_z=n_z, a_sum=sum(x.a_sum for x in live),
                r_sum=sum(x.r_sum for x in live))



# ============================================================================ driver
def _run(parts: list, spec: _Spec, npartitions, rows_per_partition, scheduler) -> tuple:
    """Scan, plan, shuffle and combine; returns ``(totals, n_rows, plan)`` (``totals`` and
    ``plan`` are None when no row has a positive weight)."""
    npartitions = _check_npartitions(npartitions, spec.func)
    compute = _compute_kwargs(scheduler)
    M = len(parts)
    k = max(64, _SAMPLE_ROWS // max(M, 1))
    scans = dask.compute(*[dask.delayed(_scan, pure=True)(p, i, spec, k)
                           for i, p in enumerate(parts)], **compute)
    n_rows = sum(sc.n_rows for sc in scans)
    n_kept = sum(sc.n_kept for sc in scans)
    exact = spec.names.get("w") is None
    levels = [sc.levels for sc in scans]
    if spec.binary:
        # Partitions with many levels list some of them through their sampled labels.
        seen = [v for v in levels if v is not None] + [sc.sample[-2] for sc in scans]
        check_binary_levels(np.concatenate(seen), spec.names["y"], spec.func,
                            more=any(v is None for v in levels))
    if n_kept == 0:
        return None, n_rows, None
    nb = _n_buckets(npartitions, M, scheduler, n_kept, rows_per_partition)
    nb = max(1, min(nb, n_kept))
    ncols = len(scans[0].sample)
    sample = [np.concatenate([sc.sample[c] for sc in scans]) for c in range(ncols)]
    sw = np.concatenate([np.full(sc.sample[0].size, sc.sample_weight) for sc in scans])
    x_bounds = _quantile_bounds(sample, sw, nb)
    nb = x_bounds[0].size + 1
    plan = _Plan(spec, x_bounds, nb, exact=exact)
    if all(v is not None for v in levels):
        union = np.unique(np.concatenate(levels))
        if union.size <= MAX_HIST_LEVELS:
            plan.levels = union
    if plan.levels is None:
        sb = _lex_bucket(x_bounds, sample)
        z_bounds = _quantile_bounds([sample[-2], sb, sample[-1]], sw, nb)
        plan.z_bounds, plan.nz = z_bounds, z_bounds[0].size + 1

    split = [dask.delayed(_split, nout=nb, pure=True)(p, i, plan) for i, p in enumerate(parts)]
    nout = 1 + (plan.nz if plan.levels is None else 0)
    xb = [dask.delayed(_x_bucket, nout=nout, pure=True)([split[i][b] for i in range(M)], b, plan)
          for b in range(nb)]
    xs = [x[0] for x in xb]
    if plan.levels is None:
        zb = [dask.delayed(_z_bucket, pure=True)([xb[b][1 + c] for b in range(nb)], plan)
              for c in range(plan.nz)]
        xs, zs = dask.compute(xs, zb, **compute)
    else:
        (xs,) = dask.compute(xs, **compute)
        zs = None
    return _combine(list(xs), zs, plan), n_rows, plan
