"""pauc: bipartite ranking for the AUC and the partial AUC in any FPR range [alpha, beta].

Estimators (scikit-learn API: ``fit``, ``decision_function``, ``score``):

* :class:`AUCSVM`, :class:`PartialAUCSVM` -- structural SVMs (Narasimhan & Agarwal), and
  :class:`AUCSVMCV`, :class:`PartialAUCSVMCV` choosing their ``C`` by cross-validation;
* :class:`TreeRank`, :class:`RankingForest` -- ranking trees and forests (Clémençon et al.);
* :class:`AUCBoost`, :class:`MartiRank` -- AUC boosting (Long & Servedio), in :mod:`pauc.boost`;
* :class:`GradientBoostingRanker` -- gradient-boosted trees (LightGBM or XGBoost, and
  pauc's own oblivious trees on small data) that target the FPR window, with the window
  losses of :mod:`pauc.objectives`, in :mod:`pauc.gbm`.

Metrics, their confidence intervals and paired tests in :mod:`pauc.metrics` (computed in
:mod:`pauc.inference`), surrogates in :mod:`pauc.surrogates`, data in
:mod:`pauc.datasets`, pictures in :mod:`pauc.plotting` (matplotlib optional), warnings
in :mod:`pauc.exceptions`.
Dask arrays of row chunks are fitted, scored and measured by the same
functions, through :mod:`pauc.distributed` (imported on first use; ``import
pauc`` does not import dask).  The papers are listed in the documentation's
references page.
"""

from . import datasets, exceptions, metrics, objectives, surrogates
from .boost import AUCBoost, MartiRank
from .gbm import GradientBoostingRanker
from .metrics import (compare_rankers, partial_auc, partial_auc_ci, roc_auc, roc_auc_ci,
                      roc_curve, tpr_at_fpr)
from .svm import AUCSVM, AUCSVMCV, PartialAUCSVM, PartialAUCSVMCV
from .tree import RankingForest, TreeRank

__version__ = "0.1.0"

__all__ = [
    "AUCBoost",
    "AUCSVM",
    "AUCSVMCV",
    "GradientBoostingRanker",
    "MartiRank",
    "PartialAUCSVM",
    "PartialAUCSVMCV",
    "RankingForest",
    "TreeRank",
    "compare_rankers",
    "datasets",
    "exceptions",
    "metrics",
    "objectives",
    "partial_auc",
    "partial_auc_ci",
    "roc_auc",
    "roc_auc_ci",
    "roc_curve",
    "surrogates",
    "tpr_at_fpr",
]
