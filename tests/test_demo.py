"""`streamrank demo` through the real entry point, and the agreement it displays."""

import math
import subprocess
import sys

from click.testing import CliRunner

from streamrank.cli import main
from streamrank.demo import compare_metrics, phishing_predictions


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


def test_demo_command_runs():
    result = CliRunner().invoke(main, ["demo", "--repeats", "1", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "ROC AUC" in result.output and "concordant=" in result.output


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "streamrank.cli", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "demo" in out.stdout
