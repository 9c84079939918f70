"""Data sets: the bundled a9a split, svmlight files, and the papers' generators."""

from ._csv import load_csv
from ._generators import (ideal_tree_auc, make_ranking_forest_data, make_treerank_gaussian,
                          optimal_auc)
from ._svmlight import load_a9a, load_svmlight

__all__ = ["load_a9a", "load_csv", "load_svmlight", "ideal_tree_auc",
           "make_ranking_forest_data", "make_treerank_gaussian", "optimal_auc"]
