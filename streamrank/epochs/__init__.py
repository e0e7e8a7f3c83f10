"""Training epochs: exact pair counts of fixed labels under scores that move every epoch.

* `EpochTracker` (``_tracker``): the incremental counter, one epoch at a time.
* `summarize_epochs`, `early_stopping`, `natural_key` (``_summary``): a whole run of
  epochs at once, as ``streamrank epochs`` reports it -- per-epoch counts, metric, churn,
  best epoch and the early-stopping replay -- and the file-name order of the epochs.
"""

from __future__ import annotations

from ._summary import early_stopping, natural_key, summarize_epochs
from ._tracker import EpochTracker

__all__ = ["EpochTracker", "early_stopping", "natural_key", "summarize_epochs"]

