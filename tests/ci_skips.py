"""Under CI a skip is a failure (a pytest plugin; `conftest` registers its hooks).

A test skips when something it compares against is missing: River's own tests (their
source distribution could not be fetched, `_river_sdist`), a peer library
(``pytest.importorskip``), mypy, dask. On a developer's machine that is a skip with its
reason; CI installs everything (``pip install -e ".[test]"``) and runs with the
environment variable ``CI`` set (``CI=true``), so there a skip means a reference went
missing and the tests it backs passed without checking anything: the test (or the module,
when it skipped at collection) fails instead, with the skip's reason. An expected failure
(``xfail``) is not a skip.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["in_ci", "pytest_make_collect_report", "pytest_runtest_makereport"]


def in_ci() -> bool:
    """Whether ``CI`` is set to anything but empty, ``0``, ``false`` or ``no``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _fail(report) -> None:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else longrepr
    report.outcome = "failed"
    report.longrepr = (f"a skip is an error under CI (CI={os.environ.get('CI')!r}): "
                       f"{reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and in_ci():
        _fail(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci():
        _fail(report)
