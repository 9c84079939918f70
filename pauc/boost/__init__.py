"""Boosting for ranking.

* :class:`GradientBoostingRanker` -- gradient-boosted trees (LightGBM) on
  window losses, stopped and selected on the validation partial AUC of the
  FPR window (the losses are in :mod:`pauc.objectives`);
* :class:`AUCBoost` -- AdaBoost on ½D+ + ½D− with each weak ranker turned into a
  balanced-error classifier by Lemma 4 (Long & Servedio, "Boosting the Area
  Under the ROC Curve", §3, Theorem 2);
* :class:`MartiRank` -- the layered branching program with the SMartiRank
  freezing rule and the noise-tolerant estimators for a known noise rate
  (§4-5, Theorems 8-10);
* :class:`RankingStump` -- the default weak ranker of AUCBoost: the feature and
  sign (and, for ``criterion="split_auc"``, the threshold) of highest weighted
  AUC, one Cython sweep per feature.
"""

from ._aucboost import AUCBoost
from ._gbm import GradientBoostingRanker
from ._martirank import MartiRank
from ._stump import RankingStump

__all__ = ["AUCBoost", "GradientBoostingRanker", "MartiRank", "RankingStump"]
