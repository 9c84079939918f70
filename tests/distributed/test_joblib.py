"""Grid searches and forests stay on joblib: its dask backend runs them on a cluster."""

import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")

import joblib  # noqa: E402
from _chunked_problems import problem  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402

from pauc.metrics import partial_auc_scorer  # noqa: E402
from pauc.svm import PartialAUCSVM  # noqa: E402
from pauc.tree import RankingForest  # noqa: E402


def test_grid_search_under_the_dask_joblib_backend(client):
    X, y = problem(n=300, seed=4)
    grid = {"C": [0.1, 10.0], "fpr_range": [(0.0, 0.1), (0.0, 0.3)]}

    def search():
        return GridSearchCV(PartialAUCSVM(), grid, scoring=partial_auc_scorer((0.0, 0.1)),
                            cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=-1)

    expected = search().fit(X, y)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        fitted = search().fit(X, y)
    assert fitted.best_params_ == expected.best_params_
    np.testing.assert_allclose(fitted.cv_results_["mean_test_score"],
                               expected.cv_results_["mean_test_score"], rtol=1e-12)
    assert len(stream.data) > 0          # the fits ran on the cluster's workers


def test_forest_under_the_dask_joblib_backend(client):
    X, y = problem(n=200, d=4, seed=5)
    expected = RankingForest(n_estimators=4, n_jobs=2, random_state=0).fit(X, y)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")     # dask may warn about large graphs
        fitted = RankingForest(n_estimators=4, n_jobs=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), expected.decision_function(X))
    assert len(stream.data) > 0
