"""The metrics as scikit-learn scorers inside GridSearchCV."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

from pauc.metrics import (partial_auc, partial_auc_scorer, roc_auc, roc_auc_scorer,
                          tpr_at_fpr_scorer)


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


# ---------------------------------------------------------------- positive class (issue 21, item 3)

SCORERS = {"partial_auc": partial_auc_scorer(), "roc_auc": roc_auc_scorer(),
           "tpr_at_fpr": tpr_at_fpr_scorer()}


@pytest.mark.parametrize("name", sorted(SCORERS))
@pytest.mark.parametrize("encode", [lambda y: y + 1, lambda y: np.where(y == 1, "b", "a"),
                                    lambda y: y - 1],
                         ids=["{1,2}", "strings", "{-1,0}"])
def test_grid_search_scores_labels_beyond_the_default_rule(data, name, encode):
    """The issue's reproducer: GridSearchCV(LogisticRegression(), ..., cv=3).fit(X, y + 1)
    gave NaN for every candidate.  The scorer takes the positive class from the
    estimator's classes_ (classes_[1]), as scikit-learn's "roc_auc" scorer does."""
    X, y = data
    labels = encode(y)
    search = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]}, scoring=SCORERS[name],
                          cv=3, error_score="raise").fit(X, labels)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all() and scores.min() > 0.3
    if name == "roc_auc":
        reference = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]}, scoring="roc_auc",
                                 cv=3).fit(X, labels)
        np.testing.assert_allclose(scores, reference.cv_results_["mean_test_score"],
                                   rtol=0, atol=1e-12)


def test_scorer_positive_class_follows_the_estimator(data):
    """Without pos_label: classes_[1]; with pos_label = classes_[0] the scores are negated
    (decision_function) or the other probability column is used (predict_proba)."""
    from sklearn.ensemble import RandomForestClassifier

    X, y = data
    labels = np.where(y == 1, "yes", "no")      # classes_ = ["no", "yes"]
    for model in (LogisticRegression().fit(X, labels),
                  RandomForestClassifier(n_estimators=10, random_state=0).fit(X, labels)):
        s = (model.decision_function(X) if hasattr(model, "decision_function")
             else model.predict_proba(X)[:, 1])
        assert roc_auc_scorer()(model, X, labels) == pytest.approx(
            roc_auc(labels, s, pos_label="yes"))
        assert roc_auc_scorer(pos_label="no")(model, X, labels) == pytest.approx(
            roc_auc(labels, -s if hasattr(model, "decision_function") else 1 - s,
                    pos_label="no"))
        with pytest.raises(ValueError, match="pos_label='maybe'"):
            roc_auc_scorer(pos_label="maybe")(model, X, labels)


def test_scorer_with_a_pauc_ranker_uses_its_pos_label(data):
    """A pauc ranker with pos_label=0 has classes_ = [1, 0]: the scorer ranks class 0 on top."""
    from pauc.svm import AUCSVM

    X, y = data
    model = AUCSVM(pos_label=0).fit(X, y)
    assert model.classes_.tolist() == [1, 0]
    assert roc_auc_scorer()(model, X, y) == pytest.approx(
        roc_auc(y, model.decision_function(X), pos_label=0))
    assert roc_auc_scorer()(model, X, y) == pytest.approx(model.score(X, y))
    assert roc_auc_scorer()(model, X, y) > 0.8


def test_scorer_sample_weight_and_metadata_routing(data):
    """Weights reach the metric; under metadata routing the scorer asks for them like
    make_scorer's scorers do (set_score_request), and refuses them unasked."""
    import sklearn

    X, y = data
    w = np.random.default_rng(0).random(y.shape[0])
    model = LogisticRegression().fit(X, y)
    scorer = partial_auc_scorer(fpr_range=(0, 0.3))
    assert scorer(model, X, y, sample_weight=w) == pytest.approx(
        partial_auc(y, model.decision_function(X), fpr_range=(0, 0.3), sample_weight=w))
    grid = {"C": [0.01, 1.0]}
    with sklearn.config_context(enable_metadata_routing=True):
        est = LogisticRegression(solver="liblinear").set_fit_request(sample_weight=False)
        with pytest.raises(ValueError, match="set_score_request"):
            GridSearchCV(est, grid, scoring=partial_auc_scorer(), cv=3).fit(X, y, sample_weight=w)
        weighted = GridSearchCV(est, grid, cv=3,
                                scoring=partial_auc_scorer().set_score_request(sample_weight=True)
                                ).fit(X, y, sample_weight=w)
    plain = GridSearchCV(LogisticRegression(solver="liblinear"), grid, cv=3,
                         scoring=partial_auc_scorer()).fit(X, y)
    scores = weighted.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all()
    assert not np.allclose(scores, plain.cv_results_["mean_test_score"])
