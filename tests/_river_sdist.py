"""River's own metric tests, from the source distribution of the installed River version.

River's wheel ships no tests; its source distribution has ``tests/metrics/test_metrics.py``
with ``test_metric`` (every prefix against scikit-learn, with weights) and
``test_rolling_metric`` (every window of ``utils.Rolling`` against the tail). This helper
reads the ``.tar.gz`` link of the installed version from the package index's simple page
(``pip download`` of the sdist tries to build River's Rust metadata and fails), checks the
file's sha256 against the link's fragment, extracts only that module into a cache
(``$STREAMRANK_TEST_CACHE``, else ``~/.cache/streamrank-tests``) and imports it from there.
Nothing of River's is copied into this repository.

`river_test_metrics` returns the imported module, or calls ``pytest.skip`` with the reason
when the index cannot be reached and nothing is cached: a skip on a developer's machine
without network, an error under CI (`ci_skips`), where 105 tests would otherwise pass
having checked nothing. Once fetched, the cache serves every later run offline.
"""

from __future__ import annotations

import hashlib
import html.parser
import importlib.util
import io
import os
import sys
import tarfile
import urllib.parse
import urllib.request
from importlib import metadata
from pathlib import Path

import pytest

INDEX = os.environ.get("STREAMRANK_SIMPLE_INDEX", "https://pypi.org/simple/river/")
MEMBER = "tests/metrics/test_metrics.py"
TIMEOUT_S = 60


def cache_dir() -> Path:
    root = os.environ.get("STREAMRANK_TEST_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "streamrank-tests"


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.extend(v for k, v in attrs if k == "href" and v)


def sdist_url(version: str) -> tuple[str, str | None]:
    """The sdist's URL and sha256 (from the ``#sha256=`` fragment) on the simple page."""
    req = urllib.request.Request(INDEX, headers={"Accept": "text/html"})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
        page = resp.read().decode("utf-8", "replace")
    parser = _Links()
    parser.feed(page)
    name = f"river-{version}.tar.gz"
    for href in parser.links:
        url = urllib.parse.urljoin(INDEX, href)
        path, _, fragment = url.partition("#")
        if path.rsplit("/", 1)[-1] == name:
            digest = fragment.partition("sha256=")[2] or None
            return path, digest
    raise LookupError(f"{name} is not listed on {INDEX}")


def fetch_test_module(version: str) -> Path:
    """Download the sdist once and keep only ``tests/metrics/test_metrics.py``."""
    target = cache_dir() / f"river-{version}" / "test_metrics.py"
    if target.exists():
        return target
    url, digest = sdist_url(version)
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:
        data = resp.read()
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        raise OSError(f"sha256 mismatch for {url}")
    member = f"river-{version}/{MEMBER}"
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        source = tar.extractfile(member)
        if source is None:
            raise LookupError(f"{member} is not in {url}")
        text = source.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(text)
    tmp.replace(target)  # atomic: parallel runs never see half a file
    return target


def river_test_metrics():
    """River's ``test_metrics`` module for the installed version (or ``pytest.skip``: an
    error under CI)."""
    version = metadata.version("river")
    name = f"_river_{version.replace('.', '_')}_test_metrics"
    if name in sys.modules:
        return sys.modules[name]
    try:
        path = fetch_test_module(version)
    except (OSError, LookupError) as exc:  # URLError is an OSError
        pytest.skip(f"River {version}'s source distribution could not be fetched from "
                    f"{INDEX} ({exc}); its metric tests need network access once "
                    f"(then {cache_dir()} caches them)")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
