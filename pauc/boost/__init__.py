"""Boosting the AUC (Long & Servedio): AdaBoost on balanced errors and MartiRank.

* :class:`AUCBoost` -- AdaBoost on ½D+ + ½D− with each weak ranker turned into a
  balanced-error classifier by Lemma 4 (Long & Servedio, "Boosting the Area
  Under the ROC Curve", §3, Theorem 2);
* :class:`MartiRank` -- the layered branching program with the SMartiRank
  freezing rule and the noise-tolerant estimators for a known noise rate
  (§4-5, Theorems 8-10);
* :class:`RankingStump` -- the default weak ranker of AUCBoost: the feature and
  sign (and, for ``criterion="split_auc"``, the threshold) of highest weighted
  AUC, one Cython sweep per feature.

Gradient-boosted trees on the FPR window (:class:`pauc.GradientBoostingRanker`)
live in :mod:`pauc.gbm`; ``pauc.boost.GradientBoostingRanker`` is the same
class, kept for the scripts that import it from here.
"""

from ..gbm import GradientBoostingRanker
from ._aucboost import AUCBoost
from ._martirank import MartiRank
from ._stump import RankingStump

__all__ = ["AUCBoost", "GradientBoostingRanker", "MartiRank", "RankingStump"]
