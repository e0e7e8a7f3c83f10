"""The batch API: every pair count and metric of whole numpy arrays, in ``O(n log n)``.

`pair_counts` (`pairs`) counts every concordant, discordant and tied pair once; ROC AUC
(binary and multiclass) and group AUC (`auc`), the ROC and precision-recall curves and
average precision (`curves`), Kendall's tau, Somers' D and gamma (`correlation`) and Harrell's
C-index (`survival`) read those counts; `roc_auc_ci` (`delong`), `delong_test` (`paired`),
`concordance_ci` and `concordance_variance` (`concordance`, any labels) and `bootstrap_ci`
(`bootstrap`) say how sure those numbers are, each interval an `Interval` naming its metric
(`AUCInterval` for the ROC AUC). The kernels under them
(`_kernels`, and the compiled `_ckernels`, `_clevels`, `_cgroups` and `_ccurves`) sort,
merge and count without a Python loop per element.
"""

from .auc import GroupAUCResult, group_auc_score, roc_auc_score
from .bootstrap import bootstrap_ci
from .concordance import concordance_ci, concordance_variance
from .curves import average_precision_score, precision_recall_curve, roc_curve
from .correlation import goodman_kruskal_gamma, kendall_tau, somers_d
from .delong import roc_auc_ci
from .paired import PairedAUCMatrix, PairedAUCTest, delong_test
from .pairs import pair_counts
from .survival import concordance_index
from ..intervals import AUCInterval, Interval

__all__ = ["AUCInterval", "GroupAUCResult", "Interval", "PairedAUCMatrix", "PairedAUCTest",
           "average_precision_score", "bootstrap_ci", "concordance_ci", "concordance_index",
           "concordance_variance", "delong_test",
           "goodman_kruskal_gamma", "group_auc_score", "kendall_tau", "pair_counts",
           "precision_recall_curve", "roc_auc_ci", "roc_auc_score", "roc_curve", "somers_d"]
