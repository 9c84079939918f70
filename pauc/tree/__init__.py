"""TreeRank (Clémençon & Vayatis, IEEE Trans. Inf. Theory 2009) and Ranking Forests
(Clémençon, Depecker & Vayatis, JMLR 2013): see the estimators' References."""

from ._treerank import TreeRank
from ._forest import RankingForest

__all__ = ["RankingForest", "TreeRank"]
