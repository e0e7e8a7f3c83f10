"""Test configuration: importable helpers and reproducible Hypothesis profiles.

* ``tests/`` goes on ``sys.path`` so that test modules can ``from oracle import ...`` and
  ``from strategies import ...`` under any pytest import mode.
* Under CI (``CI`` set) a skipped test fails (`ci_skips`): a missing reference is an
  error there, not a silent pass.
* Hypothesis runs derandomized (the same examples on every run and machine) with no
  deadline (a shared 2-core CI box has noisy timings). Pick a profile with the
  ``HYPOTHESIS_PROFILE`` environment variable:

  ``ci`` (default)  modest example counts, the whole suite stays well under 90 s;
  ``dev``           5x more examples, still derandomized;
  ``explore``       randomized and many examples, for hunting bugs by hand (not for CI).
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from ci_skips import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=40, derandomize=True, database=None, **_COMMON)
settings.register_profile("dev", max_examples=200, derandomize=True, database=None, **_COMMON)
settings.register_profile("explore", max_examples=2000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def eager_switching():
    """Threads switch every microsecond within the test (``sys.setswitchinterval``), so
    that their calls interleave as much as they can."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)
