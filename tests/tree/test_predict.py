"""TreeRank and RankingForest are classifiers to scikit-learn like every pauc ranker:
``predict`` at an operating point chosen on the training data, and stratified folds
in ``GridSearchCV(cv=int)``."""

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold, check_cv

from pauc import RankingForest, TreeRank
from pauc._threshold import operating_threshold
from pauc.metrics import partial_auc_scorer

RANKERS = [lambda **kw: TreeRank(max_depth=4, random_state=0, **kw),
           lambda **kw: RankingForest(n_estimators=5, max_depth=3, random_state=0, **kw),
           lambda **kw: RankingForest(n_estimators=5, max_depth=3, aggregation="mean_score",
                                      random_state=0, **kw)]
IDS = ["TreeRank", "RankingForest", "RankingForest-mean_score"]


@pytest.fixture(scope="module")
def data():
    return make_classification(600, 6, n_informative=3, weights=[0.8], random_state=0)


@pytest.mark.parametrize("make", RANKERS, ids=IDS)
def test_classifier_with_stratified_folds(make):
    est = make()
    assert is_classifier(est)
    assert isinstance(check_cv(3, np.r_[np.zeros(90), np.ones(10)], classifier=is_classifier(est)),
                      StratifiedKFold)


@pytest.mark.parametrize("make", RANKERS, ids=IDS)
@pytest.mark.parametrize("operating_fpr", [None, 0.0, 0.05, 0.3])
def test_predict_is_the_training_operating_point(data, make, operating_fpr):
    X, y = data
    est = make(operating_fpr=operating_fpr).fit(X, y)
    scores = est.decision_function(X)
    assert est.threshold_ == operating_threshold(scores, y == 1, operating_fpr)
    predicted = est.predict(X)
    np.testing.assert_array_equal(predicted, np.where(scores >= est.threshold_, 1, 0))
    if operating_fpr is not None and operating_fpr > 0:
        # the package's rule: the most negatives a threshold admits without passing
        # ceil(n f) (a tie group reaching past the ceil(n f)-th negative stays out whole)
        neg = scores[y == 0]
        k = int(np.ceil(neg.shape[0] * operating_fpr))
        most = max((neg >= c).sum() for c in np.append(np.unique(neg), np.inf)
                   if (neg >= c).sum() <= k)
        assert ((predicted == 1) & (y == 0)).sum() == most


@pytest.mark.parametrize("make", RANKERS, ids=IDS)
def test_predict_returns_the_labels_given(data, make):
    X, y = data
    labels = np.array(["legit", "fraud"])[y]
    est = make(pos_label="fraud").fit(X, labels)
    assert set(est.predict(X)) <= {"legit", "fraud"}
    assert list(est.classes_) == ["legit", "fraud"]


def test_grid_search_with_rare_positives_and_int_cv():
    """7 positives in 300 rows: unstratified KFold(3) can leave a fold without positives
    (the scorer then fails and the search returns NaN scores); stratified folds cannot."""
    X, y = make_classification(300, 5, weights=[0.977], flip_y=0, random_state=3)
    assert 5 <= y.sum() <= 9
    search = GridSearchCV(TreeRank(max_depth=3, min_samples_split=10, min_samples_leaf=2,
                                   random_state=0),
                          {"max_depth": [2, 3]}, cv=3,
                          scoring=partial_auc_scorer(fpr_range=(0.0, 0.3)), error_score="raise")
    search.fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
