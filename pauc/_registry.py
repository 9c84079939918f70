"""The rankers the command line knows, in one place.

Each entry names an estimator class by import path (imported only when used,
so a missing optional family never breaks the others) and says how to build
it for a given FPR range.  A new estimator appears in ``pauc compare`` by
adding one entry here; the command-line code does not change.
"""

from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class Method:
    name: str
    target: str                     # "module:Class"
    description: str
    params: dict = field(default_factory=dict)
    uses_fpr_range: bool = False    # pass fpr_range=(alpha, beta) to the constructor
    grid: dict = field(default_factory=dict)   # searched by `pauc compare --tune`
    # "module:Class" of the estimator that chooses C itself by cross-validation over
    # grid["C"] (the structural SVMs' warm-started paths): `pauc compare` uses it
    # unless --no-tune
    cv_target: str = ""

    def make(self, fpr_range, **overrides):
        return self._build(self.target, fpr_range, overrides)

    def make_cv(self, fpr_range, **overrides):
        """The ``cv_target`` estimator: the fixed parameters but ``C``, ``Cs`` from the grid."""
        fixed = {k: v for k, v in self.params.items() if k != "C"}
        return self._build(self.cv_target, fpr_range, {"Cs": list(self.grid["C"]), **overrides},
                           fixed)

    def _build(self, target, fpr_range, overrides, params=None):
        module, cls = target.split(":")
        params = dict(self.params if params is None else params)
        if self.uses_fpr_range:
            params["fpr_range"] = tuple(fpr_range)
        params.update(overrides)
        return getattr(import_module(module), cls)(**params)


METHODS = {
    m.name: m
    for m in [
        Method("logreg", "sklearn.linear_model:LogisticRegression",
               "scikit-learn's logistic regression (the familiar baseline)",
               {"C": 1.0, "max_iter": 1000},
               grid={"C": [0.01, 0.1, 1.0, 10.0]}),
        Method("aucboost", "pauc.boost:AUCBoost",
               "AdaBoost on the balanced mixture with Lemma 4 ranking stumps (Long & Servedio)",
               {"n_estimators": 200, "random_state": 0},
               grid={"n_estimators": [50, 200, 500]}),
        Method("martirank", "pauc.boost:MartiRank",
               "MartiRank branching program of ranking stumps (Long & Servedio, §4-5)",
               {"n_levels": 10, "random_state": 0},
               grid={"n_levels": [5, 10, 20]}),
        Method("treerank", "pauc.tree:TreeRank",
               "TreeRank ranking tree with LeafRank splits (Clémençon & Vayatis)",
               {"max_depth": 8, "leafrank_max_depth": 4, "random_state": 0},
               grid={"max_depth": [4, 8, 10], "leafrank_max_depth": [1, 4]}),
        Method("rankingforest", "pauc.tree:RankingForest",
               "Ranking Forest: bagged, feature-randomised TreeRank trees, Kendall median "
               "(Clémençon 2010)",
               {"n_estimators": 50, "n_jobs": 2, "random_state": 0},
               grid={"leafrank_max_features": ["sqrt", None],
                     "aggregation": ["kemeny", "mean_rank"]}),
        Method("svm-auc", "pauc.svm:AUCSVM",
               "SVM_AUC: Joachims' structural SVM for the full AUC (cutting plane)",
               {"C": 100.0}, grid={"C": [1.0, 10.0, 100.0, 1000.0]},
               cv_target="pauc.svm:AUCSVMCV"),
        Method("gbm", "pauc.gbm:GradientBoostingRanker",
               "gradient-boosted trees (LightGBM) on log-loss and window losses, cross-fitted: "
               "chosen on the out-of-fold window pAUC, fold models averaged",
               {"random_state": 0}, uses_fpr_range=True,
               grid={"num_leaves": [15, 31, 63], "learning_rate": [0.05, 0.1]}),
        Method("svm-pauc", "pauc.svm:PartialAUCSVM",
               "SVM_pAUC: tight structural SVM for the partial AUC in [alpha, beta]",
               {"C": 10.0}, uses_fpr_range=True, grid={"C": [1.0, 10.0, 100.0]},
               cv_target="pauc.svm:PartialAUCSVMCV"),
    ]
}
