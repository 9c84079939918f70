"""The metrics as scikit-learn scorers inside GridSearchCV."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

from pauc.metrics import partial_auc, partial_auc_scorer, roc_auc_scorer, tpr_at_fpr_scorer


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=400, n_features=8, weights=[0.8], random_state=0)


@pytest.mark.parametrize("scorer", [partial_auc_scorer(fpr_range=(0, 0.1)), roc_auc_scorer(),
                                    tpr_at_fpr_scorer(fpr=0.1)])
def test_scorers_work_in_grid_search(data, scorer):
    X, y = data
    search = GridSearchCV(LinearSVC(), {"C": [0.01, 1.0]}, scoring=scorer, cv=3).fit(X, y)
    assert np.isfinite(search.best_score_)


def test_partial_auc_scorer_uses_decision_function(data):
    X, y = data
    model = LinearSVC(C=1.0).fit(X, y)
    scorer = partial_auc_scorer(fpr_range=(0.05, 0.2))
    assert scorer(model, X, y) == pytest.approx(
        partial_auc(y, model.decision_function(X), fpr_range=(0.05, 0.2)))


def test_partial_auc_scorer_falls_back_to_predict_proba(data):
    from sklearn.ensemble import RandomForestClassifier

    X, y = data
    model = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    scorer = partial_auc_scorer(fpr_range=(0.0, 0.3))
    assert scorer(model, X, y) == pytest.approx(
        partial_auc(y, model.predict_proba(X)[:, 1], fpr_range=(0.0, 0.3)))


def test_scorer_with_string_labels(data):
    X, y = data
    labels = np.where(y == 1, "yes", "no")
    model = LogisticRegression().fit(X, labels)
    scorer = partial_auc_scorer(fpr_range=(0, 0.2), pos_label="yes")
    assert scorer(model, X, labels) == pytest.approx(
        partial_auc(y, model.decision_function(X), fpr_range=(0, 0.2)))


def test_scorer_refuses_bad_range():
    with pytest.raises(ValueError, match="fpr_range"):
        partial_auc_scorer(fpr_range=(0.5, 0.1))
