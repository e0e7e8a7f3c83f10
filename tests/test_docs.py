"""The documentation site builds with warnings as errors, and its API reference lists every
public name.

The guides' examples run as doctests with the rest of the suite (``docs/`` is in the test
paths); this builds the site (``mkdocs build --strict``: a broken link, a docstring that
does not parse, a page missing from the navigation all fail) into a scratch folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs", reason="mkdocs is not installed (the 'docs' extra)")
pytest.importorskip("mkdocstrings_handlers.python",
                    reason="mkdocstrings[python] is not installed (the 'docs' extra)")


def test_the_site_builds_strict(tmp_path):
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stdout + res.stderr
    page = (tmp_path / "site" / "api" / "streamrank" / "index.html").read_text()
    assert 'id="streamrank.roc_auc_score"' in page


def test_the_reference_lists_every_public_name():
    import streamrank

    listed = set(re.findall(r"^\s+- (\w+)$", (ROOT / "docs/api/streamrank.md").read_text(),
                            re.M))
    assert listed == set(streamrank.__all__)
