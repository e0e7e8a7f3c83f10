"""The input side of ``streamrank monitor``: its checks before any work (output folders, a
checkpoint's input, columns and options against this run), the messages of rows it
skips or refuses, read errors, and the progress bar."""

from __future__ import annotations

import gzip
import os
import re
import sys
import zlib

import click

from ._common import InputError, check_output_folder, location
from ._monitor_wait import LabelWait

__all__ = ["_READ_ERRORS", "_check_input", "_check_outputs", "_detector", "_name", "_note",
           "_note_skip", "_option_differences", "_progress_bar", "_read_error", "_rejected",
           "as_typed"]

_MONITOR_OPTIONS = ("window", "period", "reference", "test", "alpha", "detector",
                    "detector_signal", "min_window", "labels", "max_history", "label_wait",
                    "estimate", "detect_drop", "score_drift", "score_reference",
                    "score_alert")

_SHOWN_SKIPS = 10


def _note_skip(count, message) -> None:
    """The first skipped rows, on stderr (then one line saying the rest are counted)."""
    if count <= _SHOWN_SKIPS:
        click.echo(f"streamrank monitor: skipped {message}", err=True)
    elif count == _SHOWN_SKIPS + 1:
        click.echo("streamrank monitor: more rows skipped (counted in the summary)",
                   err=True)


def _name(source):
    return "<stdin>" if source == "-" else source


#: The functions whose parameter errors name an event's field (`_rejected`).
_OBSERVE = ("Monitor.observe", "PairedMonitor.observe", "SegmentedMonitor.observe")


_SECONDS = re.compile(r"-?\d+(?:\.\d*)?(?:e[+-]?\d+)?")


def _rejected(name, row, exc, event_columns, line=None, iso_time=False) -> str:
    """A row the `Monitor` refused (a prediction back in time, a third label with
    ``--labels binary``), located like an `EventError`: file, line and row, the column.
    With ISO 8601 input times (``iso_time``), the times of a refused time are written
    so too."""
    param = getattr(exc, "param", None) if getattr(exc, "func", None) in _OBSERVE else None
    column = event_columns.get(param)
    if column is None:
        return f"{location(name, row, line=line)}: {exc}"
    text = f"{exc.expected}. Got {exc.got} instead."
    if param == "time" and iso_time:
        from ..io.events import format_time

        text = _SECONDS.sub(lambda t: format_time(float(t.group())), text)
    return f"{location(name, row, column, line=line)}: must be {text}"


def _note(text) -> None:
    click.echo(f"streamrank monitor: {text}", err=True)


#: What reading an input may raise besides `EventError`: a damaged or truncated gzip
#: stream (OSError, EOFError, zlib.error), a failing disk, a bad Parquet file.
_READ_ERRORS = (OSError, EOFError, ValueError, zlib.error)


def _read_error(exc) -> str:
    if isinstance(exc, EOFError):
        return f"the compressed stream ends early: the file is truncated ({exc})"
    if isinstance(exc, (zlib.error, gzip.BadGzipFile)):
        return f"the compressed stream is damaged ({exc})"
    if isinstance(exc, OSError):
        return f"cannot read it ({exc.strerror or exc})"
    return f"cannot read it ({exc})"


def _check_outputs(source, checkpoint, plot) -> None:
    """Before any work: the output files' folders exist and can be written, no output is
    the input, and the checkpoint is a regular file or a new one (`checkpoint_target`:
    a `CheckpointError` for a named pipe, a device, a directory, a socket; a symbolic
    link's target is what is written)."""
    from ..monitor.checkpoint import checkpoint_target

    outputs = [(opt, path) for opt, path in (("--checkpoint", checkpoint), ("--plot", plot))
               if path is not None]
    for opt, path in outputs:
        check_output_folder(path, opt)
        target = checkpoint_target(path) if opt == "--checkpoint" else path
        folder = os.path.dirname(os.path.abspath(target))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise click.BadParameter(f"the folder {folder!r} is not writable.",
                                     param_hint=f"'{opt}'")
        if source != "-" and os.path.exists(path) and os.path.samefile(path, source):
            raise click.BadParameter(f"{path!r} is the input file.", param_hint=f"'{opt}'")
    if len(outputs) == 2 and os.path.abspath(checkpoint) == os.path.abspath(plot):
        raise click.UsageError("--checkpoint and --plot name the same file.")


def _detector(ctx, param, value):
    """``--detector NAME[:PARAM=VALUE,...]``: checked here (exit 2 with the parse error),
    passed on in its canonical form (`streamrank.monitor.detectors.parse_detector`), so
    that equal settings compare equal against a checkpoint's."""
    if value is None:
        return None
    from ..monitor.detectors import parse_detector

    try:
        return parse_detector(value, None)[0]
    except (ValueError, TypeError) as exc:
        raise click.BadParameter(str(exc)) from None


def _option_differences(ctx, given, mon, period, meta, every) -> list:
    """The options given on the command line that differ from the checkpoint's run."""
    current = {"window": mon.window, "period": mon.period, "reference": mon.reference,
               "test": mon.test, "alpha": mon.alpha, "detector": mon.detector,
               "detector_signal": getattr(mon, "champion", mon).detector_signal,
               "min_window": mon.min_window, "labels": mon.labels,
               "max_history": mon.max_history, "label_wait": LabelWait.of(mon),
               "estimate": mon.estimate, "detect_drop": mon.detect_drop,
               "score_drift": mon.score_drift, "score_reference": mon.score_reference,
               "score_alert": mon.score_alert,
               "alert_on": getattr(mon, "alert_on", None)}     # a PairedMonitor's
    out = []
    for name in _MONITOR_OPTIONS + ("alert_on",) * (current["alert_on"] is not None):
        if name in given:
            value = period if name == "period" else ctx.params[name]
            if value != current[name]:
                out.append(f"{as_typed(name, value)}: the checkpoint's run has "
                           f"{as_typed(name, current[name])} (which a resumed run keeps)")
    if "every" in given and "every" in meta and every != meta["every"]:
        out.append(f"--every {every}: the checkpoint's run reported every {meta['every']}")
    return out


def _check_input(meta, src, wanted, differences, on_mismatch) -> bool:
    """Compare the input and columns with the checkpoint's; a different format is an
    error whatever --force-resume says, the rest goes to ``differences``. True when the
    input is a plain file that does not start with the checkpoint's bytes: rotated or
    rewritten since (--force-resume reads it from its start)."""
    name = src.name
    if meta.get("input_format") and meta["input_format"] != src.format:
        raise InputError(f"{name}: the checkpoint was taken on {meta['input_format']} "
                         f"input, this is {src.format}")
    if meta.get("header") is not None and meta["header"] != src.header:
        differences.append(f"{name}: its header {src.header} differs from the "
                           f"checkpoint's {meta['header']}")
    source = meta["source"]
    # a plain file is known by its device and inode (a compressed or Parquet file, read
    # from its start, by its path and first bytes)
    was = (source["device"], source["inode"]) if (
        src.seekable and source.get("inode") is not None) else None
    same = was is not None and tuple(src.file_id) == was
    other = was is not None and not same
    if source.get("identity") != src.identity and same:
        _note(f"{name} is the checkpoint's file (device {was[0]}, inode {was[1]}), "
              f"renamed: it was {source.get('identity')}")
    elif source.get("identity") != src.identity:
        differences.append(f"the input is {src.identity}; the checkpoint was taken on "
                           f"{source.get('identity')}")
    old = meta.get("columns") or {}
    for role, column in wanted.items():
        if old.get(role) != column:
            differences.append(f"--{role.replace('_', '-')} is {_shown(column)}; the "
                               f"checkpoint's run read {_shown(old.get(role))}")
    mismatched = []
    src.expect_head(source["head_bytes"], source["head_sha256"],
                    lambda message: (mismatched.append(message), on_mismatch(message)))
    rotated = src.seekable and bool(mismatched)
    if other:
        differences.append(_another_file(name, src, was, meta, rotated))
    return rotated


def _another_file(name, src, was, meta, rotated) -> str:
    """The checkpoint's file is no longer at the path: what changed, where it went (when
    it is beside), what to do."""
    folder = os.path.dirname(os.path.abspath(src.path))
    try:
        moved = [e.path for e in os.scandir(folder) if e.inode() == was[1]
                 and e.stat(follow_symlinks=False).st_dev == was[0]]
    except OSError:
        moved = []
    text = (f"{name} is another file (device {src.file_id[0]}, inode {src.file_id[1]}) "
            f"than the one the checkpoint was taken on (device {was[0]}, inode {was[1]}, "
            f"read up to row {meta['rows']}, byte {meta['offset']}): it was replaced or "
            "rotated since")
    if moved:
        text += (f"; that file is now {moved[0]}: resume on it first (the rows it got "
                 "after the checkpoint)")
    if rotated:
        text += (f"{', then' if moved else '.'} --force-resume on {name} reads it from its "
                 "start")
    return text


def _shown(column) -> str:
    return "(none)" if column is None else repr(column)


def as_typed(name, value) -> str:
    """An option and its value as a user types them: ``--max-history 500``, ``--period
    3600`` (seconds), ``--label-wait 15m``; ``no --detector`` for a value left out.

    >>> as_typed("max_history", 500), as_typed("detector", None), as_typed("alpha", 0.05)
    ('--max-history 500', 'no --detector', '--alpha 0.05')
    >>> as_typed("estimate", True), as_typed("estimate", False)
    ('--estimate', 'no --estimate')
    >>> as_typed("score_alert", True)
    '--alert-on score-shift'
    """
    option = "--alert-on score-shift" if name == "score_alert" else \
        "--" + name.replace("_", "-")
    if value is None or value is False:     # (an option left out, a flag not given)
        return f"no {option}"
    if value is True:
        return option
    return f"{option} {value:g}" if isinstance(value, float) else f"{option} {value}"


def _progress_bar(progress, src, follow):
    if progress is None:
        progress = sys.stderr.isatty() and not follow
    if not progress or not src.seekable or follow:
        return None
    from tqdm import tqdm

    total = os.path.getsize(src.path)
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="monitor", file=sys.stderr,
               leave=False)
    bar.update(src.position.offset or 0)
    return bar
