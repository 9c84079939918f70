"""Data sets: the bundled a9a split and Van Dyke reader study, svmlight files, generators."""

from ._csv import load_csv
from ._generators import (ideal_tree_auc, make_ranking_forest_data, make_treerank_gaussian,
                          optimal_auc)
from ._reader_study import load_vandyke
from ._svmlight import load_a9a, load_svmlight

__all__ = ["load_a9a", "load_csv", "load_svmlight", "load_vandyke", "ideal_tree_auc",
           "make_ranking_forest_data", "make_treerank_gaussian", "optimal_auc"]
