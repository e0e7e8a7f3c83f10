"""`streamrank demo` through the real entry point, and the claims it prints.

The demo's default run (the one a user gets from ``streamrank demo``) is run once through
click's runner and once as ``python -m streamrank.cli demo``; its drift stream is also run
directly to check what the output claims: the alert fires after the drift point and never
before it, the exact rolling AUC equals scikit-learn's on the same window, and the
monitor's counts equal a recount at every report.
"""

import math
import re
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import roc_auc_score

from streamrank.cli import demo as cli_demo
from streamrank.cli import main
from streamrank.cli.demo_run import (
    compare_metrics,
    monitor_stream,
    phishing_predictions,
    phishing_stream,
    sine_drift_stream,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _check_png(path):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert 10_000 < len(data) < 5_000_000, len(data)   # a real picture, not a stub


@pytest.fixture(scope="module")
def drift_run():
    """The demo's drift stage, with the CLI's own settings."""
    return monitor_stream(sine_drift_stream(cli_demo.DRIFT_AT), n_events=cli_demo.DRIFT_EVENTS,
                          window=cli_demo.DRIFT_WINDOW, every=cli_demo.DRIFT_EVERY,
                          alpha=cli_demo.ALPHA, drift_at=cli_demo.DRIFT_AT)


@pytest.fixture(scope="module")
def phishing_run():
    stream = phishing_stream()
    return monitor_stream(stream, n_events=stream.n_samples, window=cli_demo.PHISHING_WINDOW,
                          every=cli_demo.PHISHING_EVERY, alpha=cli_demo.ALPHA)


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory):
    """The default demo, through click's runner, with a plot path in a temporary folder."""
    plot = tmp_path_factory.mktemp("demo") / "demo.png"
    result = CliRunner().invoke(main, ["demo", "--no-progress", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    return result.output, plot


# --- what the demo computes ------------------------------------------------------------


def test_alert_fires_after_the_drift_and_not_before(drift_run):
    assert drift_run.first_alert_before_drift is None, drift_run.alert_events
    first = drift_run.first_alert_after_drift
    assert first is not None
    assert cli_demo.DRIFT_AT < first <= cli_demo.DRIFT_AT + cli_demo.DRIFT_WINDOW // 2
    # the model's AUC visibly drops: near 1 before the drift, about 0.9 a window after it
    by_event = {c.events: c.auc for c in drift_run.checkpoints}
    assert by_event[cli_demo.DRIFT_AT] > 0.99
    assert by_event[cli_demo.DRIFT_AT + 2 * cli_demo.DRIFT_WINDOW] < 0.95


def test_no_alert_on_phishing(phishing_run):
    assert phishing_run.alert_events == []


@pytest.mark.parametrize("which", ["drift", "phishing"])
def test_exact_rolling_auc_equals_sklearn_on_the_window(which, drift_run, phishing_run):
    run = drift_run if which == "drift" else phishing_run
    checked = 0
    for c in run.checkpoints:
        lo = max(0, c.events - run.window)
        y, s = run.y[lo:c.events], run.scores[lo:c.events]
        if 0 < y.sum() < y.size:
            assert abs(c.auc - roc_auc_score(y, s)) <= 1e-12, c
            checked += 1
    assert checked >= len(run.checkpoints) - 1


def test_counts_equal_a_recount_at_every_report(drift_run, phishing_run):
    for run in (drift_run, phishing_run):
        assert run.recounts_equal == len(run.reports) == len(run.checkpoints)


def test_river_rocauc_is_close_but_binned(drift_run):
    # River's ROCAUC over the same window is an approximation: close, rarely equal
    assert 0 < drift_run.max_river_diff < 0.05


def test_demo_metrics_agree_with_every_peer():
    y, p = phishing_predictions()
    assert y.size == 1250 and 0 < y.sum() < y.size
    rows = compare_metrics(y, p, repeats=1)
    peers = [r for r in rows if not math.isnan(r.peer_value)]
    assert len(peers) >= 6
    for row in peers:
        assert row.abs_diff <= 1e-12, row
    auc = next(r for r in rows if r.metric == "ROC AUC")
    assert 0.9 < auc.streamrank < 1.0  # an online logistic regression learns Phishing well


def test_phishing_predictions_are_the_monitored_ones(phishing_run):
    y, p = phishing_predictions()
    np.testing.assert_array_equal(y, phishing_run.y)
    np.testing.assert_array_equal(p, phishing_run.scores)


# --- the command -----------------------------------------------------------------------


def test_demo_command_prints_every_stage(demo_output):
    out, _ = demo_output
    for text in ("[1/3] Phishing", "[2/3] Concept drift", "[3/3] Exactness", "exact AUC",
                 "River ROCAUC", "p-value", "no alert before the drift", "ROC AUC",
                 "sklearn roc_auc_score", "done in"):
        assert text in out, text
    assert re.search(r"drift injected at event 5,000; alert raised at event 5,\d{3} "
                     r"\(p = [0-9.e+-]+\)", out), out
    assert re.search(r"counts equal a recount \(pair_counts of the window\) at all \d+ "
                     r"reports", out), out


def test_demo_tables_fit_100_columns(demo_output):
    """The reports and the peer table, indented, fit a terminal of 100 columns (the
    plot's path is a path)."""
    out, _ = demo_output
    wide = [ln for ln in out.splitlines() if len(ln) > 100 and not ln.startswith("plot:")]
    assert not wide, wide
    assert "metric                     streamrank  |diff|  ms ours/peer  peer" in out


def test_demo_command_writes_the_plot(demo_output):
    out, plot = demo_output
    _check_png(plot)
    assert f"plot: {plot}" in out


def test_demo_no_plot(tmp_path):
    plot = tmp_path / "never.png"
    result = CliRunner().invoke(main, ["demo", "--no-progress", "--no-plot", "--repeats", "1",
                                       "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert not plot.exists() and "plot:" not in result.output


def test_demo_progress_bar():
    result = CliRunner().invoke(main, ["demo", "--progress", "--no-plot", "--repeats", "1"])
    assert result.exit_code == 0, result.output
    assert "Sine drift" in result.output and "events/s" in result.output   # tqdm, on stderr


def test_demo_plot_folder_must_exist(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--no-progress",
                                       "--plot", str(tmp_path / "missing" / "x.png")])
    assert result.exit_code == 2
    assert "Invalid value for '--plot'" in result.output and "does not exist" in result.output
    assert "[1/3]" not in result.output             # refused before the run, not after it


def test_console_script(tmp_path):
    plot = tmp_path / "out.png"
    out = subprocess.run([sys.executable, "-m", "streamrank.cli", "demo", "--no-progress",
                          "--repeats", "1", "--plot", str(plot)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "alert raised at event" in out.stdout and f"plot: {plot}" in out.stdout
    _check_png(plot)


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "streamrank.cli", "demo", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0
    for option in ("--plot", "--no-plot", "--no-progress", "--repeats"):
        assert option in out.stdout
