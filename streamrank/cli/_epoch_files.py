"""The epoch files of ``streamrank epochs`` aligned to the label file.

The label file gives the items (their labels, weights and ids); every epoch file gives one
score per item, matched by id (``--id``) or by row position. `load_labels` reads the items,
`Items.align` maps an epoch file's rows onto them, and the two passes of the command
(`collect`, then `aligned_epochs`) yield one aligned score vector per epoch, with the items
of bad rows dropped from every epoch under ``--on-error skip``. The rules -- which mismatch
is an error, which row is skipped -- are those of the `streamrank.cli.epochs` docstring;
every problem is an `InputError` naming the file, the line and the row, the column and the
value (in the words of the readers' errors: `streamrank.cli._common.location`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._common import InputError, location, read_error

__all__ = ["Items", "Labels", "Skips", "aligned_epochs", "collect", "load_labels"]

#: How many bad rows are quoted in the summary (as `streamrank.io.tables.MAX_FIRST_ERRORS`,
#: not imported here: the reader imports pyarrow, which ``--help`` should not wait for).
_MAX_NOTES = 5

#: In ``--on-error skip`` mode, aligned score vectors kept in memory between the checking
#: pass and the counting pass; past this the files are read again.
_CACHE_BYTES = 256 * 2**20


def _read(path, *, numeric=(), keys=(), on_error="fail"):
    """`streamrank.io.tables.read_columns` with its errors as `InputError` (exit code 2).

    ``finite=False``: NaN and infinite values come through, so that this module can drop
    the item they belong to from every epoch (or name it), whatever the alignment."""
    from ..io.tables import TableError, read_columns

    try:
        return read_columns(path, numeric=tuple(numeric), keys=tuple(keys),
                            on_error=on_error, progress=False, finite=False)
    except (TableError, OSError) as exc:
        raise read_error(exc, path) from None


def _source_rows(cols):
    """1-based data-row numbers of the rows read, or ``None`` when the reader skipped rows
    (it does not say which)."""
    if cols.skipped:
        return None
    return np.arange(1, cols.n_rows + 1, dtype=np.int64)


def _item_keys(cols, file, id_col):
    """``(keys, rows, ids)`` of the rows read: the keys that match them to the items are
    the ids with ``--id``, else the row numbers (an error when rows were skipped)."""
    rows = _source_rows(cols)
    if id_col:
        # The reader gives int64 ids when every id is a whole number, float64 for other
        # numbers (compared as text here), else text.
        ids = cols.data[id_col]
        ids = ids.astype(str) if ids.dtype.kind == "f" else ids
        return ids, rows, ids
    if rows is None:
        raise InputError(_unmatched_rows_message(file, cols.skipped))
    return rows, rows, None


def _same_kind(keys, other):
    """``keys`` comparable with ``other``: both numeric, or both text (``17`` -> ``"17"``)."""
    if (keys.dtype.kind in "iu") == (other.dtype.kind in "iu"):
        return keys
    return keys.astype(str)


def _lines_of(cols, rows, at) -> list:
    """The lines of the file where the rows read at positions ``at`` (0-based) start, as
    the reader's errors name them (`streamrank.io._collect.Columns.line_of`, one reading
    of the file for all of them); None for each when not known (Parquet, standard input,
    or rows skipped by the reader, which leave the row numbers unknown too)."""
    at = np.asarray(at, dtype=np.intp).reshape(-1)
    if rows is None or cols.line_of is None or not at.size:
        return [None] * at.size
    return [v if v > 0 else None for v in np.asarray(cols.line_of(rows[at])).tolist()]


def _where(file, i, column, value, rows, ids, line=None) -> str:
    """Where row ``i`` (0-based among the rows read) is, for a message: file, ``line``
    (from `_lines_of`) and row, column, value and id."""
    text = location(file, None if rows is None else int(rows[i]), column, value, line=line)
    if ids is not None:
        text += f" (id {ids[i].item()!r})"
    return text


@dataclass
class Skips:
    """Rows skipped per file and the first messages, for the summary."""

    rows: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def add(self, file, count, messages=()):
        if count:
            self.rows[file] = self.rows.get(file, 0) + int(count)
        for m in messages:
            if len(self.notes) < _MAX_NOTES:
                self.notes.append(str(m))


@dataclass
class Labels:
    """The items of the label file: labels, weights and keys of the rows kept."""

    file: str
    y: np.ndarray
    w: np.ndarray | None
    keys: np.ndarray          # item keys: the ids (int64 or str) or, without --id, data rows
    unreadable: int           # rows the reader skipped (their keys are unknown)
    dropped: np.ndarray       # keys of rows dropped here for a bad label or weight
    first_scores: object = None  # the Columns of the first epoch when it is the label file


def load_labels(file, label_col, weight_col, id_col, on_error, skips, score_col=None):
    """Read the items of ``file``: `Labels` of the rows with a finite label (and a positive
    finite weight); under ``on_error="skip"`` the others are dropped and noted in
    ``skips``, else the first is an `InputError`. ``score_col``: the label file is the
    first epoch file, whose scores are read with it (``Labels.first_scores``)."""
    numeric = [label_col] + ([weight_col] if weight_col else []) + \
        ([score_col] if score_col else [])
    cols = _read(file, numeric=numeric, keys=[id_col] if id_col else [], on_error=on_error)
    skips.add(file, cols.skipped, cols.first_errors)
    keys, rows, ids = _item_keys(cols, file, id_col)
    y = np.asarray(cols.data[label_col], dtype=np.float64)
    w = np.asarray(cols.data[weight_col], dtype=np.float64) if weight_col else None
    ok = np.ones(y.size, dtype=bool)
    for column, values, good, reason in (
            (label_col, y, np.isfinite(y), "is not a finite number"),
            (weight_col, w, None if w is None else np.isfinite(w) & (w > 0),
             "is not a positive finite weight")):
        if values is None:
            continue
        bad = np.flatnonzero(~good & ok)
        if not bad.size:
            continue
        noted = bad[:1] if on_error == "fail" else bad[:_MAX_NOTES]
        messages = [f"{_where(file, i, column, values[i].item(), rows, ids, line)} "
                    f"{reason}" for i, line in zip(noted, _lines_of(cols, rows, noted))]
        if on_error == "fail":
            raise InputError(f"{messages[0]} (--on-error skip drops the item).")
        skips.add(file, bad.size, messages)
        ok[bad] = False
    labels = Labels(file, y[ok], None if w is None else w[ok], keys[ok], int(cols.skipped),
                    keys[~ok])
    if score_col:
        labels.first_scores = cols
    return labels


def _unmatched_rows_message(file, skipped) -> str:
    return (f"{file}: {skipped} unreadable row(s) skipped, and without --id the rows of the "
            "label and epoch files are matched by position, which skipping breaks: pass "
            "--id COL to match items by id.")


class Items:
    """The labelled items, and the map from an epoch file's rows onto them."""

    def __init__(self, labels: Labels, id_col):
        self.labels = labels
        self.id_col = id_col
        self.n = labels.keys.size
        keys = labels.keys
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]
        dup = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        if dup.size:
            a, b = sorted(self.order[dup[0]:dup[0] + 2])
            raise InputError(f"{labels.file}: id {keys[a].item()!r} appears more than once "
                             f"(items {a + 1} and {b + 1} of the file; ids must be unique).")
        self._text = None  # (sorted ids as text, their order), built on first need

    def _locate(self, keys) -> np.ndarray:
        """Item index of every key, ``-1`` for a key not among the items."""
        if keys.size == self.n and keys.dtype.kind == self.labels.keys.dtype.kind and \
                np.array_equal(keys, self.labels.keys):
            return np.arange(self.n)  # the common case: same items in the same order
        if not self.n or not keys.size:
            return np.full(keys.size, -1)
        sorted_keys, keys = self.sorted, _same_kind(keys, self.sorted)
        if sorted_keys.dtype.kind != keys.dtype.kind:  # text ids here, integers in labels
            if self._text is None:
                as_text = self.labels.keys.astype(str)
                order = np.argsort(as_text, kind="stable")
                self._text = (as_text[order], order)
            sorted_keys, order = self._text
        else:
            order = self.order
        # Sorted needles: a shuffled copy of the label ids sorts to exactly the sorted ids
        # (no search at all), and otherwise the binary searches walk the ids in order,
        # several times faster than random needles on text ids.
        by_key = np.argsort(keys, kind="stable")
        needles = keys[by_key]
        idx = np.empty(keys.size, dtype=np.intp)
        if needles.size == self.n and np.array_equal(needles, sorted_keys):
            idx[by_key] = order
            return idx
        at = np.minimum(np.searchsorted(sorted_keys, needles), self.n - 1)
        idx[by_key] = np.where(sorted_keys[at] == needles, order[at], -1)
        return idx

    def align(self, cols, file, score_col, on_error, skips, count_unreadable=True):
        """The scores of ``cols`` in item order (NaN where an item has no valid score) and
        the mask of those items; every structural problem is an `InputError`.

        ``count_unreadable=False``: the reader's skipped rows were already counted (the
        label file is this epoch file)."""
        label_file = self.labels.file
        scores = cols.data[score_col]
        keys, rows, ids = _item_keys(cols, file, self.id_col)
        if not self.id_col:
            total = scores.size + cols.skipped
            expected = self.n + self.labels.unreadable + self.labels.dropped.size
            if on_error == "fail" and total != expected:
                raise InputError(
                    f"{file} has {total} rows but {label_file} has {expected}: without --id "
                    "the rows of every epoch file are matched to the labels by position, so "
                    "each file needs one row per label row (or pass --id COL).")
        idx = self._locate(keys)
        unknown = idx < 0
        if unknown.any():
            extra = unknown.copy()
            dropped = self.labels.dropped
            if dropped.size:  # rows of items dropped for a bad label: expected
                extra &= ~np.isin(_same_kind(keys, dropped), _same_kind(dropped, keys))
            n_extra = int(extra.sum())
            if n_extra and (on_error == "fail" or n_extra > self.labels.unreadable):
                i = int(np.flatnonzero(extra)[0])
                more = f" ({n_extra} such rows)" if n_extra > 1 else ""
                line = _lines_of(cols, rows, [i])[0]
                if self.id_col:
                    where = location(file, None if rows is None else int(rows[i]),
                                     self.id_col, keys[i].item(), line=line)
                    raise InputError(f"{where} is not an id of {label_file}{more}.")
                raise InputError(f"{location(file, int(keys[i]), line=line)}: {label_file} "
                                 f"has no such row{more}; without --id rows are matched by "
                                 "position.")
        found = np.flatnonzero(~unknown)
        item = idx[found]
        counts = np.bincount(item, minlength=self.n)
        if (counts > 1).any():
            dup_item = int(np.flatnonzero(counts > 1)[0])
            at = found[item == dup_item][:2]
            where = "two rows"
            if rows is not None:
                where = f"rows {rows[at[0]]} and {rows[at[1]]}"
                lines = _lines_of(cols, rows, at)
                if None not in lines:
                    where = f"lines {lines[0]} and {lines[1]} ({where})"
            raise InputError(f"{file}, {where}, column {self.id_col!r}: id "
                             f"{self.labels.keys[dup_item].item()!r} appears more than once (ids "
                             "must be unique).")
        missing = counts == 0
        n_missing = int(missing.sum())
        if n_missing and (on_error == "fail" or n_missing > cols.skipped):
            first = ", ".join(repr(k) for k in self.labels.keys[missing][:3].tolist())
            more = ", ..." if n_missing > 3 else ""
            what = "ids" if self.id_col else "rows"
            raise InputError(f"{file} lacks {n_missing} of the {self.n} {what} of "
                             f"{label_file}: {first}{more}.")
        aligned = np.full(self.n, np.nan)
        aligned[item] = scores[found]
        bad_rows = found[~np.isfinite(scores[found])]
        if bad_rows.size:
            noted = bad_rows[:1] if on_error == "fail" else bad_rows[:_MAX_NOTES]
            messages = [f"{_where(file, i, score_col, scores[i].item(), rows, ids, line)}"
                        " is not a finite number"
                        for i, line in zip(noted, _lines_of(cols, rows, noted))]
            if on_error == "fail":
                raise InputError(f"{messages[0]} (--on-error skip drops the item from every "
                                 "epoch).")
            skips.add(file, bad_rows.size, messages)
        if count_unreadable:
            skips.add(file, cols.skipped, cols.first_errors)
        return aligned, ~np.isfinite(aligned)



# ---------------------------------------------------------------------- the two passes
def _epoch_columns(k, file, items, score_col, on_error):
    """The columns of epoch ``k``'s file, and whether they were read with the labels."""
    if k == 0 and items.labels.first_scores is not None:
        return items.labels.first_scores, True
    keys = [items.id_col] if items.id_col else []
    return _read(file, numeric=[score_col], keys=keys, on_error=on_error), False


def collect(files, items, score_col, on_error, skips, wrap=None):
    """Pass 1 of ``--on-error skip``: read and align every epoch file, find the items that
    lack a valid score somewhere; keep the aligned scores while they fit the cache.

    ``wrap``: wraps the list of files (a progress bar). Returns ``(bad, cache)``: the mask
    of the items to drop and the aligned score vectors of the first files."""
    bad = np.zeros(items.n, dtype=bool)
    cache = []
    for k, file in enumerate(files if wrap is None else wrap(files)):
        cols, shared = _epoch_columns(k, file, items, score_col, on_error)
        aligned, missing = items.align(cols, file, score_col, on_error, skips,
                                       count_unreadable=not shared)
        bad |= missing
        if (len(cache) + 1) * aligned.nbytes <= _CACHE_BYTES:
            cache.append(aligned)
    return bad, cache


def aligned_epochs(files, items, score_col, on_error, keep=None, cache=()):
    """The aligned score vector of every epoch, read lazily (``keep``: items kept)."""
    for k, file in enumerate(files):
        if k < len(cache):
            aligned = cache[k]
        else:
            cols, _ = _epoch_columns(k, file, items, score_col, on_error)
            # Under "fail" nothing is skipped; under "skip" this is pass 2, whose skipped
            # rows pass 1 has counted already.
            aligned, _ = items.align(cols, file, score_col, on_error, Skips())
        yield aligned if keep is None else aligned[keep]
