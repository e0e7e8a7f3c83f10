"""``streamrank monitor FILE|-``: exact rolling AUC of an event stream, with drift alerts.

Reads prediction events (CSV or TSV with a header, JSON lines, or Parquet replayed; text
may be gzip-compressed, ``.csv.gz``) from a file, a named pipe or standard input, one row
at a time (`streamrank.io.events`), feeds them to a `streamrank.monitor.Monitor`, and prints
a report line every ``--every`` events. The semantics of windows, late labels,
re-scores, the reference window and the test are the `Monitor`'s (see
`streamrank.monitor`). Blank lines are skipped (they keep their row number).

Follow mode (``--follow``, a regular file): a line is read only once its newline is
written, whatever stops the run (``--max-idle``, SIGTERM, Ctrl-C, a kill): a half-written
last line is left for the next run, and the position (and checkpoint) stays before it.
Without ``--follow``, and on a pipe once it closes, the end is real and a last line
without a newline is a row. The file is followed across log rotation, as ``tail -F``
(`streamrank.io._follow`): truncated (``copytruncate``) or rewritten, it is read again
from its start; renamed and replaced by a new file, the old one is read to its end, then
the new one from its start (its CSV header again, which must name the same columns); a
path briefly missing is waited for. Each is said in one line on stderr, and a checkpoint
is written at the new content's start.

Checkpoints: ``--checkpoint PATH`` writes, every ``--checkpoint-every`` rows and at the
end, the monitor's whole state and the input position (rows consumed and, for plain
files, the byte offset just past them) in one file, atomically
(`streamrank.monitor.checkpoint`): a crash leaves either the previous checkpoint or the
new one, never half of one; the rows read after the last checkpoint are read again on
``--resume``, which restores the state as of that checkpoint: nothing lost, nothing
counted twice. The last checkpoint is written before the final (off-schedule) report, so
a resumed run's reports, statistics and detector equal those of one uninterrupted run.
On standard input or a compressed file, resuming skips the rows already consumed (the
producer must replay the same stream). The checkpoint's folder, and that PATH is a
regular file or a new one (not a named pipe, a device, a directory or a socket; a
symbolic link has its target written), are checked before any work. A resumed run's
report lines continue the previous run's (`._monitor_append`): no header again, no
report repeated, and standard output appended to the same file (``>> out.csv``) is cut
back to the checkpoint's size first, so that the file is one uninterrupted run's output.

A checkpoint records what it belongs to: the input (the real path of the file and its
device and inode, or ``<stdin>``; a SHA-256 of its first bytes up to the position, at
most 64 KiB; the header and format), the columns, ``--every`` and the monitor's
settings (its state). ``--resume`` on anything else exits 2 listing every difference,
before any row is read and leaving the checkpoint as it was: another file (one rotated
since: the message says where the old one went, when it is beside it), a file rewritten
in its first bytes or truncated, other columns (``--score`` and ``--label`` swapped), a
monitor option or ``--every`` given with another value. The same file renamed is no
difference. Options left out come from the checkpoint. ``--force-resume`` (implies
``--resume``) goes on anyway, printing the differences (e.g. a file that was copied);
the checkpoint's monitor settings still win, the position is used as it is (a plain file
that does not start with the checkpoint's bytes, rotated or rewritten since, is read from
its start), and a different format or a file shorter than the position stays an error. A
file that is not a checkpoint, a damaged one and one of another streamrank version are
errors (exit 2) saying which. ``--resume`` without a checkpoint file starts from the
beginning (with a note), so a supervisor can always pass it.

Exit codes: 0 ok; 1 with ``--fail-on-alert`` when any report raised an alert (or the
detector fired); 2 a usage or input error, never a traceback: the message names the
file, line, row, column and value (a malformed row, a field over Python's CSV limit of 128 KiB,
a number too large for a float, bytes that are not UTF-8, CR-only line ends, a column
named twice in the header, a truncated gzip stream, another compression or UTF-16 text).
Ctrl-C (SIGINT), SIGTERM or SIGHUP (or ``--max-idle`` with ``--follow``) ends the stream
cleanly, between two rows (`streamrank.io.events.StopGate`: a signal never interrupts an
update): the final report, checkpoint, plot and summary (naming the signal) are written,
and the exit code is as at the end of the input.

Every label is accounted for: with its prediction, late (its prediction in the window),
late dropped (its prediction evicted lately), joined (``--label-wait``), or unmatched (no
prediction seen lately: early, or never predicted; the summary says how many came before
their prediction and the ``--label-wait`` that would have joined them). A file whose
every row is a prediction says so with ``--require-score``: a row without a score is then
a bad row (``--on-error``), not a label for an earlier prediction.
"""

from __future__ import annotations

import os
import signal
import zlib
from functools import wraps

import click
from click.core import ParameterSource

from ..exceptions import SnapshotError
from ..monitor.checkpoint import (CheckpointError, continue_from, read_checkpoint,
                                  write_checkpoint)
from ..monitor.table import shape_of
from ._common import (EXIT_ALERT, InputError, check_distinct_columns, format_option,
                      on_error_option, progress_option, read_error)
from ._monitor_append import continue_output, output_state
from ._monitor_feed import Feed
from ._monitor_input import (_READ_ERRORS, _check_input, _check_outputs, _detector, _name,
                             _note, _progress_bar, _read_error)
from ._monitor_output import _Printer, champion_history, has_detector
from ._monitor_summary import summary as _summary
from ._monitor_wait import label_wait_option, wait_columns
from ._monitor_start import alerts_on, start_monitor

# read_checkpoint and write_checkpoint: streamrank.monitor.checkpoint's, named here too
__all__ = ["monitor", "read_checkpoint", "write_checkpoint"]



# --------------------------------------------------------------------------- command
def _checkpoint_errors(command):
    """A `CheckpointError` (a checkpoint file that cannot be used) exits 2 like any input
    error, its message naming the file."""
    @wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except CheckpointError as exc:
            raise InputError(str(exc)) from None
    return run


def _period(ctx, param, value):
    if value is None:
        return None
    from ..io.events import parse_period

    try:
        return parse_period(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command()
@click.argument("source", metavar="FILE|-")
@click.option("--id", "id_col", default=None, metavar="COLUMN",
              help="Id column (joins late labels and re-scores to their prediction). "
                   "[default: 'id' if the file has it, else the row number]")
@click.option("--score", "score_col", default="score", show_default=True, metavar="COLUMN",
              help="Score column.")
@click.option("--label", "label_col", default="label", show_default=True, metavar="COLUMN",
              help="Label column (empty: not known yet).")
@click.option("--require-score", is_flag=True,
              help="Every row is a prediction (a file written whole, e.g. by pandas, "
                   "which writes a missing score as an empty cell): a row without a score "
                   "(or, with --challenger-score, without the challenger's) is a bad row "
                   "(--on-error), not a label row for an earlier prediction.  [default: "
                   "a row without a score carries a label or weight for its id]")
@click.option("--weight", "weight_col", default=None, metavar="COLUMN",
              help="Weight column (frequency weights, default 1).")
@click.option("--time", "time_col", default=None, metavar="COLUMN",
              help="Time column: numbers, or ISO 8601 timestamps (as POSIX seconds).")
@click.option("--window", type=click.IntRange(min=2), default=None,
              help="Hold the last N predictions.  [default: 1000, unless --period]")
@click.option("--period", callback=_period, default=None, metavar="DURATION",
              help="Hold the predictions of the last DURATION instead: seconds, or with a "
                   "unit s/m/h/d/w (15m, 1h); needs --time.")
@click.option("--reference", type=click.IntRange(min=2), default=None, metavar="N",
              help="Reference window: the first N labeled predictions.  [default: the "
                   "first full window]")
@click.option("--every", type=click.IntRange(min=1), default=1000, show_default=True,
              metavar="N", help="Print a report (and test) every N events.")
@click.option("--test", type=click.Choice(["hanley-mcneil", "delong"]),
              default="hanley-mcneil", show_default=True,
              help="Variance of the one-sided AUC test (binary labels). Non-binary labels "
                   "are tested by their concordance with its U-statistic variance.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.01, show_default=True, help="Alert when p < alpha.")
@click.option("--detector", callback=_detector, default=None, metavar="SPEC",
              help="Feed each newly labeled prediction's placement (its share of the "
                   "window's other class ordered correctly; the mean is the AUC) to this "
                   "River drift detector: adwin or page-hinkley, with River parameters "
                   "if wanted: adwin:delta=0.002,clock=1, page-hinkley:threshold=50,"
                   "delta=0.005,mode=down (default mode down). A report's drift is true "
                   "when it fired since the previous report.")
@click.option("--detector-signal", type=click.Choice(["reference", "window"]),
              default="reference", show_default=True,
              help="What --detector's placements are taken against: the frozen reference "
                   "window (independent values: the detector's false-alarm rate holds; "
                   "nothing is fed before it freezes) or the window (a shorter delay, "
                   "many more false alarms).")
@click.option("--min-window", type=click.IntRange(min=2), default=30, show_default=True,
              metavar="N", help="Labeled predictions needed before a test runs.")
@click.option("--estimate", is_flag=True,
              help="Keep the calibration estimate of the window's AUC, which needs no "
                   "label: every prediction, labeled or not, a positive of weight p and a "
                   "negative of weight 1 - p at its score p (the scores must be "
                   "probabilities in [0, 1]); JSON and CSV get estimated_auc and "
                   "estimated_auc_labeled (the same from the labeled predictions: its "
                   "distance from auc says whether the scores are calibrated).")
@click.option("--detect-drop", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=None, metavar="D",
              help="A drop of the AUC that matters: JSON and CSV say at each report how "
                   "many more labeled predictions the window needs before its test "
                   "detects it with power 0.8 (labels_to_detect); every report also has "
                   "detectable_drop, the smallest drop it detects now.")
@click.option("--score-drift", is_flag=True,
              help="Compare the window's predicted scores, labeled or not, with a frozen "
                   "reference of them: JSON and CSV get score_shift (P(a window score > "
                   "a reference score), ties 1/2; 0.5: no shift) with score_shift_se and "
                   "its two-sided score_shift_p, and ks (the Kolmogorov-Smirnov "
                   "statistic) with ks_p. No alert unless --alert-on score-shift.")
@click.option("--score-reference", type=click.IntRange(min=2), default=None, metavar="N",
              help="With --score-drift: the scores' reference is the first N predictions "
                   "(default: the first full window).")
@click.option("--labels", type=click.Choice(["auto", "binary", "ordinal", "continuous"]),
              default="auto", show_default=True,
              help="Label kind; non-binary labels get the concordance (C + T/2)/P and its "
                   "one-sided test (U-statistic variance, O(W log W) per report).")
@click.option("--max-history", type=click.IntRange(min=1), default=10000, show_default=True,
              metavar="N", help="Reports kept for the plot and the checkpoint (the last N).")
@click.option("--fail-on-alert", is_flag=True, help="Exit with code 1 if any alert fired.")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None,
              help="Write the state and input position here (atomically; a regular file "
                   "or a new one, or a symbolic link's target).")
@click.option("--checkpoint-every", type=click.IntRange(min=1), default=10000,
              show_default=True, metavar="N", help="Rows between checkpoints.")
@click.option("--resume", is_flag=True,
              help="Continue from --checkpoint (state and input position). It must have "
                   "been taken on this input (same file and first bytes, header, "
                   "columns, options): anything else is an error.")
@click.option("--force-resume", is_flag=True,
              help="--resume even on another input (a rotated file: from its start), "
                   "other columns or options (the differences are printed; the "
                   "checkpoint's monitor settings still win).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Write a PNG of the metric over events (or time) with alerts, at the end.")
@click.option("--follow", "-f", is_flag=True,
              help="Keep reading as the file grows, across log rotation (tail -F); stop "
                   "with Ctrl-C or --max-idle.")
@click.option("--max-idle", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
              help="With --follow: stop after SECONDS without a new line.")
@click.option("--poll", type=click.FloatRange(min=0.001), default=0.2, show_default=True,
              metavar="SECONDS", help="With --follow: seconds between polls at the end.")
@click.option("--input-format",
              type=click.Choice(["auto", "csv", "tsv", "jsonl", "parquet"]),
              default="auto", show_default=True,
              help="Input format (auto: by extension, else by the first bytes or line). "
                   "Gzip-compressed text (.csv.gz) is read too.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Serve Prometheus metrics on http://HOST:PORT/metrics while running "
                   "(0: a free port, printed to stderr).")
@click.option("--metrics-host", default="127.0.0.1", show_default=True, metavar="HOST",
              help="With --metrics-port: the address to listen on.")
@click.option("--name", "model_name", default="model", show_default=True, metavar="NAME",
              help="The model's name: the 'model' label of the metrics.")
@click.option("--challenger-score", "challenger_col", default=None, metavar="COLUMN",
              help="A challenger's score column (on the prediction rows, or on rows of "
                   "its own per id): both models' windows, DeLong's paired test of their "
                   "AUCs on the ids labeled in both, an alert per --alert-on.")
@click.option("--challenger-name", default="challenger", show_default=True, metavar="NAME",
              help="With --challenger-score: the challenger's 'model' label of the "
                   "metrics.")
@click.option("--alert-on", type=click.Choice(["worse", "better", "both", "score-shift"]),
              multiple=True,
              help="With --challenger-score: alert when the challenger's AUC is "
                   "significantly below the champion's (one-sided), above it (one-sided), "
                   "or either (two-sided; the default), at --alpha. score-shift (with "
                   "--score-drift; may be given beside one of those): alert when the "
                   "scores shift from their reference (score_shift_p < --alpha).")
@label_wait_option
@click.option("--segment", "segment_col", default=None, metavar="COLUMN",
              help="One window per value of this column (country, device, ...), each "
                   "tested against its own reference; a report line per segment and a "
                   "total (the group AUC). Label rows may leave it empty (joined by id).")
@click.option("--max-segments", type=click.IntRange(min=1), default=64, show_default=True,
              metavar="N", help="With --segment: values with a window of their own; the "
                                "rest are pooled into '(other)'.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni"]), default="holm",
              show_default=True, help="With --segment: the p-values' correction across "
                                      "segments (an alert when the corrected p < alpha).")
@format_option
@on_error_option
@progress_option
@click.pass_context
@_checkpoint_errors
def monitor(ctx, source, id_col, score_col, label_col, require_score, weight_col, time_col,
            window, period,
            reference, every, test, alpha, detector, detector_signal, min_window, estimate,
            detect_drop, score_drift, score_reference, labels, max_history,
            fail_on_alert, checkpoint, checkpoint_every, resume, force_resume, plot, follow,
            max_idle, poll, input_format, metrics_port, metrics_host, model_name,
            challenger_col, challenger_name, alert_on, label_wait, segment_col, max_segments,
            correction, fmt, on_error, progress):
    """Monitor a stream of prediction events: exact rolling AUC, alerts on a drop.

    FILE holds one event per row (CSV or TSV with a header, JSON lines, or Parquet; text
    may be gzip-compressed); '-' reads standard input. A row with a new id and a score is a prediction; a later row with the
    same id and a label is its (late) label; a new score re-scores it. Every --every
    events a report line is printed (--format table|json|csv: the table shows the main
    columns in at most 100 characters, JSON and CSV every column); an alert fires when the
    window's AUC is significantly below the reference window's (one-sided test, --test,
    --alpha). A label that arrives before its prediction is dropped, unless
    --label-wait lets it wait for it (N events, or a DURATION of --time). A summary
    goes to stderr at the end. --resume continues from a
    --checkpoint taken on the same input with the same columns and options (anything
    else is an error unless --force-resume). --challenger-score COL compares a second
    model scored on the same traffic (a shadow deployment): extra report columns
    (challenger_auc, diff, paired_z, paired_p_value, challenger_alert, ...; in the table a
    'challenger' line under each report), its line on the plot, its metrics under
    --challenger-name. --segment COL keeps one window per
    value of COL (a line per segment, Holm- or Bonferroni-corrected alerts, and a total
    line with the group AUC of the window); with --challenger-score too, both models and
    the paired test per segment (corrected across segments apart from the drop tests).

    \b
    Example:
      streamrank monitor events.csv --time ts --period 1h --every 500 \\
          --checkpoint mon.ckpt --plot auc.png --fail-on-alert
    """
    from ..io.events import (HEAD_BYTES, Columns, EventError, EventParser, EventSource,
                          InputMismatch, Position, StopGate)
    resume = resume or force_resume
    if window is not None and period is not None:
        raise click.UsageError("--window and --period are exclusive (a window of events or "
                               "of time).")
    if period is not None and time_col is None:
        raise click.UsageError("--period needs --time (the time column).")
    if label_wait is not None and label_wait[1] is not None and time_col is None:
        raise click.UsageError(f"--label-wait {label_wait} (a duration) needs --time (the "
                               "time column); a plain integer waits that many events.")
    if resume and checkpoint is None:
        raise click.UsageError(f"--{'force-' if force_resume else ''}resume needs "
                               "--checkpoint PATH.")
    check_distinct_columns({"--id": id_col, "--score": score_col, "--label": label_col,
                            "--weight": weight_col, "--time": time_col,
                            "--challenger-score": challenger_col, "--segment": segment_col})
    if source != "-" and not os.path.exists(source):
        raise InputError(f"{source}: no such file")
    if source != "-" and os.path.isdir(source):
        raise InputError(f"{source}: a directory, not a file")
    if follow and (source == "-" or not os.path.isfile(source)):
        raise click.UsageError("--follow is for files; standard input is read until it "
                               "closes." if source == "-" else "--follow is for regular "
                               "files; a pipe is read until it closes.")
    if follow and input_format == "parquet" or (
            follow and source.lower().endswith((".parquet", ".pq"))):
        raise click.UsageError("--follow cannot follow a Parquet file (it is replayed).")
    _check_outputs(source, checkpoint, plot)
    name = _name(source)
    given = {p for p in ctx.params
             if ctx.get_parameter_source(p) is ParameterSource.COMMANDLINE}
    if "metrics_host" in given and metrics_port is None:
        raise click.UsageError("--metrics-host needs --metrics-port PORT.")
    if challenger_col is not None and challenger_name == model_name:
        raise click.UsageError(f"--name and --challenger-name are both {model_name!r}: the "
                               "two models need two names (the 'model' label of the "
                               "metrics).")
    alerts_on(ctx, given, alert_on, challenger_col)
    if score_reference is not None and not score_drift:
        raise click.UsageError("--score-reference needs --score-drift.")
    if "challenger_name" in given and challenger_col is None:
        raise click.UsageError("--challenger-name needs --challenger-score COLUMN.")
    for opt in ("max_segments", "correction"):
        if opt in given and segment_col is None and not resume:
            raise click.UsageError(f"--{opt.replace('_', '-')} needs --segment COLUMN.")

    # ---- state: fresh, or from the checkpoint
    meta, mon, differences, every, segment_col = start_monitor(ctx, given, resume)
    segmented, models = shape_of(mon)
    paired = models == 2
    if paired != (challenger_col is not None):
        raise click.UsageError(
            "the checkpoint's monitor compares a challenger: it needs --challenger-score."
            if paired else "the checkpoint's monitor has no challenger: --challenger-score "
            "cannot be added to a resumed run.")
    base = mon.template() if segmented else mon
    if (base.period is not None or base.label_wait_period is not None) and time_col is None:
        raise click.UsageError("the checkpoint's monitor has a period window or label "
                               "wait: it needs --time.")
    skipped = 0 if meta is None else int(meta.get("skipped", 0))
    start = None if meta is None else Position(meta["rows"], meta["offset"])

    # ---- input
    columns = Columns(id=id_col or "id", id_required=id_col is not None, score=score_col,
                      label=label_col, weight=weight_col, time=time_col,
                      challenger=challenger_col, segment=segment_col,
                      score_required=require_score)
    wanted = {"id": columns.id, "score": score_col, "label": label_col,
              "weight": weight_col, "time": time_col}
    if paired:
        wanted["challenger_score"] = challenger_col
    if segmented:
        wanted["segment"] = segment_col
    gate = StopGate()
    status = {"error": None, "at": None, "decided": False, "save": None,
              "skipped": skipped}
    lock = None
    if metrics_port is not None:    # /metrics reads the monitor at each scrape
        import threading

        from ._monitor_metrics import serve_metrics

        lock = threading.Lock()     # a scrape reads between events, never inside one
        server = serve_metrics(mon, lambda: status["skipped"], metrics_host, metrics_port,
                               model_name, challenger_name if paired else None, lock)
        ctx.call_on_close(lambda: (server.shutdown(), server.server_close()))

    def on_mismatch(message):
        text = f"{name}: {message}"
        if not status["decided"]:
            differences.append(text)
        elif force_resume:
            _note(f"--force-resume: {text}")
        else:
            raise InputMismatch(f"{message}. The checkpoint {checkpoint} was taken on "
                                "another input; use --force-resume to resume it anyway.")

    def on_rotate(message):     # a followed file's new content: checkpoint at its start
        _note(message)
        if status["save"] is not None:
            status["save"](src.position, src.consumed, printer.last_events)

    with gate:   # from here on Ctrl-C, SIGTERM and SIGHUP stop between rows
        try:
            src = EventSource(source, fmt=input_format, follow=follow, poll=poll,
                              max_idle=max_idle, start=start, gate=gate,
                              header=None if meta is None else meta.get("header"),
                              on_rotate=on_rotate)
        except KeyboardInterrupt:      # stopped while waiting for the first line
            src = None
        except EventError as exc:
            raise read_error(exc, name) from None
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{name}: {_read_error(exc)}") from None
        except ValueError as exc:   # cannot follow a compressed file, not Parquet, ...
            raise InputError(f"{name}: {exc}") from None
        if src is None:
            _summary(mon, skipped, None, gate.signal or signal.SIGINT,
                     bool(meta and meta.get("iso_time")))
            return
        try:
            try:
                parser = EventParser(src, columns)
            except EventError as exc:
                raise read_error(exc, name) from None
            if meta is not None:
                rotated = _check_input(meta, src, wanted, differences, on_mismatch)
                if differences and not force_resume:
                    raise InputError(
                        f"{checkpoint}: the checkpoint belongs to another run:\n  - "
                        + "\n  - ".join(differences)
                        + "\nUse --force-resume to resume it anyway.")
                for text in differences:
                    _note(f"--force-resume: {text}")
                if rotated:
                    src.from_start()
                    _note(f"--force-resume: reading {name} from its start (as a new file, "
                          "after a rotation)")
                status["decided"] = True
                if meta.get("iso_time"):
                    parser.iso_time = True
                if meta.get("columns") == wanted and meta.get("resolved"):
                    parser.restore(meta["resolved"])
            printer = _Printer(fmt, lambda: parser.iso_time,
                               show_time=time_col is not None, paired=paired,
                               segmented=segmented,
                               extra=wait_columns(mon), drift=has_detector(mon),
                               estimate=mon.estimate, score_drift=mon.score_drift)
            if meta is not None:    # resumed: go on with the checkpoint's run's output
                header, printer.last_events = continue_output(meta, mon)
                printer.started = not header
            event_columns = {"score": score_col, "label": label_col,
                             "weight": weight_col, "time": time_col,
                             "challenger": challenger_col, "segment": segment_col}

            def save(position, head, reported):
                if checkpoint is None:
                    return
                # the bytes before the position (a replayed Parquet file: its start)
                n, digest = src.head(None if src.format == "parquet"
                                     else min(HEAD_BYTES, head))
                device, inode = src.file_id or (None, None)
                meta_out = {
                    "source": {"identity": src.identity, "head_bytes": n,
                               "head_sha256": digest, "device": device, "inode": inode},
                    "output": output_state(reported),
                    "input_format": src.format, "rows": position.rows,
                    "offset": position.offset, "header": src.header, "skipped": status["skipped"],
                    "iso_time": parser.iso_time, "columns": wanted,
                    "resolved": parser.resolved, "every": every}
                if segmented:
                    meta_out["segmented"] = True
                state = mon.to_bytes()
                try:
                    write_checkpoint(checkpoint, state, meta_out)
                except OSError as exc:
                    raise InputError(f"{checkpoint}: cannot write the checkpoint "
                                     f"({exc.strerror or exc})") from None
                try:        # go on as a run resumed from it does, bit for bit
                    continue_from(mon, state, lock)
                except SnapshotError as exc:
                    raise InputError(f"{checkpoint}: the checkpoint just written does not "
                                     f"read back ({exc}); please report it") from None

            status["save"] = save

            bar = _progress_bar(progress, src, follow)
            feed = Feed(mon, src, parser, shape=(paired, segmented), every=every,
                        checkpoint_every=checkpoint_every, on_error=on_error,
                        printer=printer, save=save, lock=lock, bar=bar, gate=gate,
                        name=name, event_columns=event_columns, status=status)
            try:
                feed.run()
            except KeyboardInterrupt:
                pass
            except InputMismatch as exc:  # nothing read: the checkpoint stays as it is
                raise read_error(exc, name) from None
            except EventError as exc:
                status["error"] = read_error(exc, name).message
            except _READ_ERRORS as exc:   # a damaged gzip stream, a failing disk, ...
                status["error"] = (f"{name}, row {src.position.rows + 1}: "
                                   f"{_read_error(exc)}")
            finally:
                if bar is not None:
                    bar.close()
        finally:
            src.close()
    stopped_by = gate.signal if gate.requested else None
    if printer.closed:
        _note(f"standard output was closed (its reader left): stopped after event "
              f"{mon.stats['events']}.")

    # ---- the end: checkpoint, final report, plot, summary. The checkpoint comes first:
    # the final report is off the --every schedule, and a resumed run must not find it
    # (nor the value it fed the detector) in the state it continues from.
    done = mon.stats["events"]
    final = bool(done) and (mon.history[-1].events if mon.history else None) != done
    save(*(status["at"] or (src.position, src.consumed)),
         done if final else printer.last_events)
    if final:
        last = feed.report()
        if printer.last_events != done:   # (else printed by the run resumed from)
            printer(last)
    if plot is not None:
        from ..plot import plot_history, plot_segments

        try:
            (plot_segments if segmented else plot_history)(
                champion_history(mon) if segmented else mon.history, plot, title=f"streamrank monitor: {name}",
                dates=parser.iso_time)
        except OSError as exc:
            raise InputError(f"{plot}: cannot write the plot ({exc.strerror or exc})") \
                from None
    _summary(mon, status["skipped"], plot, stopped_by, parser.iso_time)
    if status["error"]:
        raise InputError(status["error"])
    if fail_on_alert and mon.stats["alerts"]:
        ctx.exit(EXIT_ALERT)
