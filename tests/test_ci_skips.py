"""`ci_skips`: under CI a skip (in a test, in its setup, or of a whole module at
collection) fails with its reason; outside CI it stays a skip; an xfail stays an xfail.
Checked by running pytest on a small suite in a subprocess, with and without ``CI``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ci_skips import in_ci

TESTS = Path(__file__).resolve().parent

SUITE = {
    "test_inner.py": '''
import pytest

def test_passes():
    assert True

def test_skips():
    pytest.skip("the reference could not be fetched")

@pytest.mark.skipif(True, reason="a peer is not installed")
def test_skipif():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail():
    assert False
''',
    "test_module_skip.py": '''
import pytest

peer = pytest.importorskip("no_such_module_anywhere")

def test_never_runs():
    pass
''',
}


def _run(tmp_path, ci):
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "ci_skips", "-p", "no:randomly",
         "-p", "no:cacheprovider", "-o", "addopts=", "-rfEs", "--continue-on-collection-errors",
         "--rootdir", str(tmp_path),
         "-c", os.devnull, str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    return res


def _tally(out):
    last = out.strip().splitlines()[-1]
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|xfailed|error)",
                                             last)}


def test_a_skip_is_an_error_under_ci(tmp_path):
    res = _run(tmp_path, "true")
    assert res.returncode == 1, res.stdout
    # (a skip at setup, skipif's, is an error of the setup)
    assert _tally(res.stdout) == {"passed": 1, "failed": 1, "xfailed": 1, "error": 2}, \
        res.stdout
    assert "a skip is an error under CI" in res.stdout
    for reason in ("the reference could not be fetched", "a peer is not installed",
                   "no_such_module_anywhere"):
        assert reason in res.stdout, reason


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_a_skip_stays_a_skip_outside_ci(tmp_path, ci):
    res = _run(tmp_path, ci)
    assert res.returncode == 0, res.stdout
    assert _tally(res.stdout) == {"passed": 1, "skipped": 3, "xfailed": 1}, res.stdout


def test_ci_is_read_from_the_environment(monkeypatch):
    for value, want in [("true", True), ("1", True), ("yes", True), ("", False),
                        ("false", False), ("0", False)]:
        monkeypatch.setenv("CI", value)
        assert in_ci() is want, value
    monkeypatch.delenv("CI")
    assert not in_ci()
