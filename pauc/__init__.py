"""pauc: bipartite ranking for the AUC and the partial AUC in any FPR range [alpha, beta]."""

from . import datasets, metrics
from .metrics import partial_auc, roc_auc, roc_curve, tpr_at_fpr

__version__ = "0.1.0"

__all__ = ["datasets", "metrics", "partial_auc", "roc_auc", "roc_curve", "tpr_at_fpr"]
