"""Where the tests find the repository: its root, the package, the data files of the tests."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
