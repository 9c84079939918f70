"""One contract, two paths: GradientBoostingRanker.fit in memory and on a 2-worker
LocalCluster (dask data) answer the same rules the same way -- few positives, NaN and
infinity, feature names, ``cv``, ``n_jobs`` (issue 35: the copies had drifted)."""

import numpy as np
import pytest

pytest.importorskip("xgboost.dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from _boosting_problems import nonlinear  # noqa: E402
from pauc.gbm import GradientBoostingRanker  # noqa: E402
from pauc.gbm._candidates import LARGE_DATA, SELECTION_MIN_POSITIVES  # noqa: E402

PATHS = ("memory", "cluster")
COLUMNS = ["a", "b", "c", "d", "e", "f"]


def _as(path, X, y=None, frame=False):
    """``X`` (and ``y``) as the path takes them: numpy / pandas in memory, dask
    arrays / dataframes (two row chunks) on the cluster."""
    rows = -(-X.shape[0] // 2)
    if frame:
        X = pd.DataFrame(X, columns=COLUMNS[:X.shape[1]])
        X = X if path == "memory" else dd.from_pandas(X, npartitions=2)
    elif path == "cluster":
        X = da.from_array(X, chunks=(rows, -1))
    if y is None:
        return X
    if path == "cluster":
        y = da.from_array(y, chunks=(rows,)) if not frame else dd.from_pandas(pd.Series(y), 2)
    return X, y


def _ranker(**kwargs):
    params = dict(engine="xgboost", n_estimators=10, n_iter_no_change=3, random_state=0)
    params.update(kwargs)
    return GradientBoostingRanker((0.0, 0.2), **params)


def _few_positives(n_pos, n=800, seed=0):
    X, _ = nonlinear(n, seed=seed)
    score = X[:, 0] + np.random.RandomState(seed).randn(n)
    y = np.zeros(n, dtype=np.int64)
    y[np.argsort(-score)[:n_pos]] = 1
    return X, y


@pytest.mark.parametrize("path", PATHS)
def test_few_positives_keep_the_reference_alone(path, cluster_client):
    """Fewer than SELECTION_MIN_POSITIVES positives: only the reference is boosted
    (the cluster boosted every candidate and kept 'mean' with 40, 'logloss-small'
    with 2) -- in memory, on small data, beside its own trees' fixed budget."""
    for n_pos in (40, 2):
        X, y = _few_positives(n_pos)
        model = _ranker(cv=2).fit(*_as(path, X, y))
        assert n_pos < SELECTION_MIN_POSITIVES
        boosted = [n for n, r in zip(model.cv_results_["candidate"],
                                     model.cv_results_["boosted_rounds"]) if r is not None]
        if path == "cluster":
            # no shape known: the large-data reference, alone
            assert model.cv_results_["candidate"] == [model.selected_] == [LARGE_DATA[0].name]
            assert len(model.validation_history_) == 1
        else:
            # 800 x 6 rows: the small-data reference and its fixed budget
            assert boosted == ["logloss-oblivious", "logloss-fixed"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_infinity_are_refused_with_one_message(path, bad, cluster_client):
    X, y = nonlinear(600)
    X[17, 2] = bad
    what = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=f"Input X contains {what}"):
        _ranker().fit(*_as(path, X, y))
    # at scoring time too (lazily on the cluster: when the scores are computed)
    X_ok, y_ok = nonlinear(600)
    model = _ranker(early_stopping=False, n_estimators=3).fit(*_as(path, X_ok, y_ok))
    with pytest.raises(ValueError, match=f"Input X contains {what}"):
        scores = model.decision_function(_as(path, X))
        if path == "cluster":
            scores.compute()


@pytest.mark.parametrize("path", PATHS)
def test_feature_names_are_kept_and_checked(path, cluster_client):
    """A dataframe's column names are the model's; columns in another order are
    refused (the cluster kept no names and scored reordered columns silently)."""
    X, y = nonlinear(800)
    model = _ranker(early_stopping=False, n_estimators=5).fit(*_as(path, X, y, frame=True))
    assert model.feature_names_in_.tolist() == COLUMNS and model.n_features_in_ == 6
    frame = _as(path, X, frame=True)
    ok = model.decision_function(frame)
    if path == "cluster":
        ok = ok.compute()
    np.testing.assert_allclose(ok, model.decision_function(X), rtol=1e-6)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.decision_function(frame[COLUMNS[::-1]])
    with pytest.raises(ValueError, match="X has 5 features, but GradientBoostingRanker is "
                                         "expecting 6"):
        model.decision_function(_as(path, X[:, :5]))
    column = X[:, 0] if path == "memory" else da.from_array(X[:, 0], chunks=400)
    with pytest.raises(ValueError, match="2-d|2D array"):
        model.decision_function(column)
    # fitted on an array: no names, and scoring a frame warns as scikit-learn does
    bare = _ranker(early_stopping=False, n_estimators=5).fit(*_as(path, X, y))
    assert not hasattr(bare, "feature_names_in_")


@pytest.mark.parametrize("path", PATHS)
def test_cv_values_and_their_errors(path, cluster_client):
    X, y = nonlinear(900)
    model = _ranker(cv=3).fit(*_as(path, X, y))
    assert model.n_splits_ == 3 and len(model.cv_results_["rounds"][0]) == 3
    res = model.cv_results_
    assert set(res) == {"candidate", "oof_score", "oof_std_error", "win_share", "rounds",
                        "stopping", "boosted_rounds", "capped_folds", "dropped", "weights",
                        "selected"}
    assert len({len(v) for v in res.values()}) == 1
    # in memory a candidate's folds stop together; the cluster boosts one fold at a
    # time, each stopped on its own held-out rows
    assert {s for s in res["stopping"] if s is not None} == {
        "memory": {"pooled"}, "cluster": {"per fold"}}[path]
    assert [n for n, kept in zip(res["candidate"], res["selected"]) if kept] == [model.selected_]
    with pytest.raises(ValueError, match="cv=400 folds need at least 400 rows of each"):
        _ranker(cv=400).fit(*_as(path, X, y))
    # one validation split of validation_fraction: the same plan on either path
    split = _ranker(cv=1, validation_fraction=0.2).fit(*_as(path, X, y))
    assert split.n_splits_ == 1 and len(split.cv_results_["rounds"][0]) == 1
    # a splitter draws in-memory folds; the cluster assigns its folds on the workers
    from sklearn.model_selection import StratifiedKFold
    if path == "memory":
        assert _ranker(cv=StratifiedKFold(3)).fit(X, y).n_splits_ == 3
    else:
        # refused before any pass over the rows, with early stopping or without
        for stopping in (True, False):
            with pytest.raises(ValueError, match="takes cv='auto' or an int, not a splitter"):
                _ranker(cv=StratifiedKFold(3), early_stopping=stopping).fit(*_as(path, X, y))


@pytest.mark.slow(seconds=15)
@pytest.mark.parametrize("path", PATHS)
def test_n_jobs_does_not_change_the_model(path, cluster_client):
    """n_jobs is threads, never a different model; on the cluster it is each worker's
    XGBoost threads capped at the worker's own (one here: n_jobs=2 and -1 were 28-58
    times slower, every worker's XGBoost contending for one core)."""
    from pauc.gbm.engines import effective_threads
    from pauc.distributed._cluster_trainer import _n_threads
    X, y = nonlinear(900)
    one = _ranker(cv=2, n_jobs=1).fit(*_as(path, X, y))
    two = _ranker(cv=2, n_jobs=2).fit(*_as(path, X, y))
    assert one.cv_results_["rounds"] == two.cv_results_["rounds"]
    np.testing.assert_allclose(one.decision_function(X), two.decision_function(X))
    assert [_n_threads(cluster_client, effective_threads(n))
            for n in (None, 1, 2, -1)] == [1, 1, 1, 1]


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_any_fitted_model_scores_dask_data_lazily(engine, cluster_client):
    """The fitted model (pauc.gbm._plan.Model) scores each block on its worker,
    whichever engine grew it: the in-memory scores, a blend's too."""
    X, y = nonlinear(1200)
    model = GradientBoostingRanker((0.0, 0.2), engine=engine, n_estimators=20,
                                   n_iter_no_change=5, cv=2, random_state=0).fit(X, y)
    lazy = model.decision_function(_as("cluster", X))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.decision_function(X), rtol=1e-12)
    np.testing.assert_array_equal(model.predict(_as("cluster", X)).compute(),
                                  model.predict(X))


def test_a_column_that_is_not_numeric_is_refused_by_name_and_dtype(monkeypatch):
    """A dask dataframe's ``category`` column was refused by fit as "dtype object" (the
    dtype of the array ``to_dask_array`` makes of every column): the refusal names the
    column and its dtype, before a cluster is needed.  (In memory, scikit-learn
    converts a category column of numbers; a dask column is the user's to convert.)"""
    X, y = nonlinear(200)
    frame = pd.DataFrame(X, columns=COLUMNS)
    frame["c"] = pd.Series(np.arange(200) % 3).astype("category")
    frame["e"] = pd.Series(np.arange(200) % 2, dtype="Int64")
    lazy = dd.from_pandas(frame, npartitions=2)
    labels = dd.from_pandas(pd.Series(y), npartitions=2)
    message = r"X must be numeric, got columns 'c' \(dtype category\), 'e' \(dtype Int64\)"
    with pytest.raises(ValueError, match=message):
        _ranker().fit(lazy, labels)
    with pytest.raises(ValueError, match=r"got column 'c' \(dtype category\): convert"):
        _ranker().fit(lazy.drop(columns="e"), labels)
    # with a client too (a stand-in: the refusal comes before any use of it)
    monkeypatch.setattr("pauc.distributed._cluster_trainer.distributed_client", lambda: object())
    with pytest.raises(ValueError, match=message):
        _ranker().fit(lazy, labels)
    # a dask array says its dtype as before
    with pytest.raises(ValueError, match="X must be numeric, got dtype <U1"):
        _ranker().fit(da.from_array(np.full((200, 6), "a"), chunks=(100, -1)),
                      da.from_array(y, chunks=100))
