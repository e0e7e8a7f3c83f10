"""Training epochs: exact pair counts of fixed labels under scores that move every epoch.

* `EpochTracker` (``_tracker``): the incremental counter, one epoch at a time.
* `summarize_epochs`, `early_stopping`, `natural_key` (``_summary``): a whole run of
  epochs at once, as ``streamrank epochs`` reports it -- per-epoch counts, metric, churn,
  best epoch and the early-stopping replay -- and the file-name order of the epochs.

Pickles of earlier releases name ``streamrank.epochs.EpochTracker`` and
``streamrank.epochs._Runs``; both still load from here.
"""

from __future__ import annotations

from ._summary import early_stopping, natural_key, summarize_epochs
from ._tracker import EpochTracker, _DroppedRuns

__all__ = ["EpochTracker", "early_stopping", "natural_key", "summarize_epochs"]


def __getattr__(name):
    """``_Runs``: the name earlier trackers' pickles ask this module for (`_DroppedRuns`)."""
    if name == "_Runs":
        return _DroppedRuns
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
