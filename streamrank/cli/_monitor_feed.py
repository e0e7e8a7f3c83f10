"""The loop of ``streamrank monitor``: what the input yields, into the monitor.

The source yields blocks of plain CSV rows already parsed into columns
(`streamrank.io.events.EventSource.blocks`), and any other row one at a time. A block
goes to the monitor's ``observe_many`` in slices that end where a report or a checkpoint
is due, so reports, checkpoints and ``--on-error`` act at the same rows as row by row; a
row the monitor refuses is located by the block (its row, line and position). Between
slices (at most `SLICE` rows) the loop looks at the stop signals, the reader of standard
output and the progress bar, and a ``/metrics`` scrape may take the lock.
"""

from __future__ import annotations

from ..io._blockread import Block
from ..io.events import EventError
from ._common import read_error
from ._monitor_input import _note_skip, _rejected

__all__ = ["SLICE", "Feed"]

#: The most rows handed to ``observe_many`` at once.
SLICE = 4096


class Feed:
    """One run's loop (module docstring). ``status``: the command's shared state
    (``error``, ``at``: where to checkpoint when the loop stopped early, ``skipped``)."""

    def __init__(self, mon, src, parser, *, shape, every, checkpoint_every, on_error,
                 printer, save, lock, bar, gate, name, event_columns, status) -> None:
        self.mon, self.src, self.parser = mon, src, parser
        self.paired, self.segmented = shape
        self.every, self.checkpoint_every, self.on_error = every, checkpoint_every, on_error
        self.printer, self.save, self.bar, self.gate = printer, save, bar, gate
        self.name, self.event_columns, self.status = name, event_columns, status
        self.observe, self.observe_many, self.report = (mon.observe, mon.observe_many,
                                                        mon.report)
        if lock is not None:
            from ._monitor_metrics import locked

            self.observe, self.observe_many, self.report = (
                locked(lock, self.observe), locked(lock, self.observe_many),
                locked(lock, self.report))
        self.since_ckpt = 0

    def run(self) -> None:
        """Feed every row the source yields, until its end, an error that stops the run,
        a stop signal or a closed standard output."""
        for item in self.src.blocks(self.parser.block):
            go_on = self._block(item) if type(item) is Block else self._row(*item)
            if not go_on:
                break

    # ------------------------------------------------------------------ one row
    def _row(self, row, rec) -> bool:
        try:
            self._observe_row(row, rec)
        except (ValueError, TypeError) as exc:   # EventError, or the monitor's
            if not self._refused(exc, row, self.src.line, (self.src.before,
                                                            self.src.consumed_before)):
                return False
        else:
            self._maybe_report()
        self.since_ckpt += 1
        if self.since_ckpt >= self.checkpoint_every:
            self.save(self.src.position, self.src.consumed, self.printer.last_events)
            self.since_ckpt = 0
        bar = self.bar
        if bar is not None and row % 4096 == 0:
            bar.update(self.src.position.offset - bar.n)
        return not (self.gate.requested or self.printer.closed)

    def _observe_row(self, row, rec) -> None:
        values = self.parser(row, rec)
        key, score, label, weight, t = values[:5]
        extra = {}
        if self.paired:
            extra["challenger"] = values[5]
        if self.segmented:
            extra["segment"] = values[-1]
        self.observe(key, score=score, label=label, weight=weight, time=t, **extra)

    # ------------------------------------------------------------------ one block
    def _block(self, blk: Block) -> bool:
        keys, cols = blk.columns
        i, n = 0, blk.n
        every = self.every
        while i < n:        # (the monitor's stats anew: a checkpoint renews its state)
            stop = min(n, i + SLICE, i + every - self.mon.stats["events"] % every,
                       i + self.checkpoint_every - self.since_ckpt)
            try:
                self.observe_many(keys[i:stop], **{c: v[i:stop] for c, v in cols.items()})
            except (ValueError, TypeError) as exc:
                j = i + getattr(exc, "index", 0)
                self.since_ckpt += j - i
                if not self._refused(exc, blk.row(j), blk.line(j),
                                     (blk.position(j - 1), blk.consumed(j - 1))):
                    return False
                self.since_ckpt += 1        # (a skipped row counts, as row by row)
                done = j + 1
            else:
                self.since_ckpt += stop - i
                done = stop
                self._maybe_report()
            i = done
            if self.since_ckpt >= self.checkpoint_every:
                self.save(blk.position(i - 1), blk.consumed(i - 1), self.printer.last_events)
                self.since_ckpt = 0
            if self.bar is not None and blk.seekable:
                self.bar.update(blk.consumed(i - 1) - self.bar.n)
            if self.gate.requested or self.printer.closed:
                if i < n:   # the rows after `i` were read, not fed: resume there
                    self.status["at"] = (blk.position(i - 1), blk.consumed(i - 1))
                return False
        return True

    # ------------------------------------------------------------------ shared
    def _maybe_report(self) -> None:
        if self.mon.stats["events"] % self.every == 0:
            self.printer(self.report())

    def _refused(self, exc, row, line, before) -> bool:
        """A bad row (``before``: the position and bytes before it): skipped and told
        (True: go on), or the run's error with ``--on-error fail`` (False)."""
        status, name = self.status, self.name
        message = (read_error(exc, name).message if isinstance(exc, EventError) else
                   _rejected(name, row, exc, self.event_columns, line,
                             self.parser.iso_time))
        if self.on_error == "fail":
            status["error"] = message + " (use --on-error skip to skip bad rows)"
            status["at"] = before
            return False
        status["skipped"] += 1
        _note_skip(status["skipped"], message)
        return True
