"""TreeRank and Ranking Forests (papers 000 and 003)."""

from ._treerank import TreeRank
from ._forest import RankingForest

__all__ = ["RankingForest", "TreeRank"]
