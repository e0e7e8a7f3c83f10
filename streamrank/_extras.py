"""The optional dependencies: which extra brings each, and the one error a missing one gives.

``pip install streamrank`` brings numpy, scipy and sortedcontainers: every batch metric,
interval, curve, counter, window, epoch tracker, ranking metric, model comparison and the
monitor library. The rest comes with an extra, named by the error a missing one raises:

============  ================================================  ==========================
extra         packages                                          what needs them
============  ================================================  ==========================
``river``     river                                             `streamrank.metrics`, the
                                                                ranking River metrics, the
                                                                monitor's detectors
``cli``       click, tqdm, pyarrow, prometheus_client           the ``streamrank`` command,
                                                                `streamrank.io` (files)
``plot``      matplotlib                                        `streamrank.plot`
``dask``      dask[dataframe], distributed, pyarrow             `streamrank.dask`
============  ================================================  ==========================

``all`` is the four; ``docs`` and ``test`` add what the documentation site and the test
suite need.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .exceptions import MissingExtraError

__all__ = ["require"]


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or raise `MissingExtraError` naming ``extra``.

    >>> require("math", "cli", "the command line").__name__
    'math'
    >>> require("no_such_module_xyz", "river", "streamrank.metrics")
    Traceback (most recent call last):
    ...
    streamrank.exceptions.MissingExtraError: streamrank.metrics needs no_such_module_xyz, which is not installed: pip install "streamrank[river]"
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is None or module.split(".")[0] != exc.name.split(".")[0]:
            raise                   # the package is there but broken: its own error
        raise MissingExtraError(
            f"{feature} needs {module.split('.')[0]}, which is not installed: "
            f'pip install "streamrank[{extra}]"', name=exc.name) from None

