"""Dask: chunked structural SVMs, chunked metrics, joblib's dask backend (issue 9).

Exactness is checked where it is claimed: the chunked oracles against the
in-memory ones (coefficients and loss equal, ties included) and the chunked
metrics against the in-memory ones (equal), by hypothesis on small data run
with dask's synchronous scheduler (the graphs are the same as on a cluster).
The fits, the metrics and the grid search then run on a real
``dask.distributed.LocalCluster`` of two in-process workers.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

import joblib  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402

from pauc.metrics import (partial_auc, partial_auc_scorer, roc_auc,  # noqa: E402
                          two_way_partial_auc)
from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402
from pauc.svm._chunk_actors import bytes_received  # noqa: E402
from pauc.svm.oracles import auc_oracle, pauc_tight_oracle  # noqa: E402


# --------------------------------------------------------------------------
# Exactness on small data (synchronous scheduler)
# --------------------------------------------------------------------------

@st.composite
def chunked_problems(draw, max_n=24):
    """Scores on a coarse grid (many ties, also across the +-1 margin), labels
    with both classes, and a row split into chunks of uneven sizes (one chunk,
    chunks without positives or without negatives all occur)."""
    n = draw(st.integers(2, max_n))
    scores = np.array(draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n)),
                      dtype=np.float64) / 2.0
    labels = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if labels.all() or not labels.any():
        labels[draw(st.integers(0, n - 1))] ^= True
    n_cuts = draw(st.integers(0, min(4, n - 1)))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), min_size=n_cuts, max_size=n_cuts)))
    chunks = tuple(int(c) for c in np.diff([0, *cuts, n]))
    return scores, labels, chunks


def _as_dask(chunks, *arrays):
    return [da.from_array(a, chunks=(chunks,)) for a in arrays]


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.data())
def test_chunked_tight_oracle_equals_in_memory(problem, data):
    scores, labels, chunks = problem
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    with dask.config.set(scheduler="synchronous"):
        coef, loss = pauc_tight_oracle(*_as_dask(chunks, scores, labels), j_alpha, j_beta)
        coef = coef.compute()
    expected_coef, expected_loss = pauc_tight_oracle(scores, labels, j_alpha, j_beta)
    np.testing.assert_array_equal(coef, expected_coef)
    assert loss == expected_loss


@settings(max_examples=500, deadline=None)
@given(chunked_problems())
def test_chunked_auc_oracle_equals_in_memory(problem):
    scores, labels, chunks = problem
    with dask.config.set(scheduler="synchronous"):
        coef, loss = auc_oracle(*_as_dask(chunks, scores, labels))
        coef = coef.compute()
    expected_coef, expected_loss = auc_oracle(scores, labels)
    np.testing.assert_array_equal(coef, expected_coef)
    assert loss == expected_loss


@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_chunked_metrics_equal_in_memory(problem, a, b):
    scores, labels, chunks = problem
    alpha, beta = min(a, b), max(a, b)
    if beta - alpha < 1e-3:
        beta = min(1.0, alpha + 0.1) if alpha < 0.9 else 1.0
        alpha = min(alpha, beta - 0.05)
    y = labels.astype(np.int64)
    with dask.config.set(scheduler="synchronous"):
        dy, ds = _as_dask(chunks, y, scores)
        auc = roc_auc(dy, ds)
        pauc = partial_auc(dy, ds, fpr_range=(alpha, beta))
        mcclish = partial_auc(dy, ds, fpr_range=(alpha, beta), normalize="mcclish")
        # numpy labels with dask scores are split to match
        auc_mixed = roc_auc(y, ds)
        two_way = two_way_partial_auc(dy, ds, max_fpr=beta, min_tpr=alpha)
    assert auc == roc_auc(y, scores) == auc_mixed
    assert two_way == two_way_partial_auc(y, scores, max_fpr=beta, min_tpr=alpha)
    assert pauc == partial_auc(y, scores, fpr_range=(alpha, beta))
    assert mcclish == partial_auc(y, scores, fpr_range=(alpha, beta), normalize="mcclish")


@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.floats(0.0, 1.0), st.data())
def test_chunked_weighted_metrics_equal_in_memory(problem, beta, data):
    scores, labels, chunks = problem
    beta = max(beta, 0.05)
    weight = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]),
                                         min_size=len(scores), max_size=len(scores))))
    if weight[labels].sum() == 0 or weight[~labels].sum() == 0:
        weight[:] = 1.0
    y = labels.astype(np.int64)
    with dask.config.set(scheduler="synchronous"):
        dy, ds, dw = _as_dask(chunks, y, scores, weight)
        auc = roc_auc(dy, ds, sample_weight=dw)
        pauc = partial_auc(dy, ds, fpr_range=(0.0, beta), sample_weight=weight)
    assert auc == roc_auc(y, scores, sample_weight=weight)
    assert pauc == partial_auc(y, scores, fpr_range=(0.0, beta), sample_weight=weight)


def test_chunked_oracle_rejects_bad_input(synchronous):
    scores = da.from_array(np.array([0.0, np.nan, 1.0, 2.0]), chunks=2)
    y = da.from_array(np.array([True, False, False, True]), chunks=2)
    with pytest.raises(ValueError, match="NaN or infinity"):
        auc_oracle(scores, y)
    good = da.from_array(np.arange(4.0), chunks=2)
    with pytest.raises(ValueError, match="not aligned"):
        auc_oracle(good, y.rechunk(3))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        auc_oracle(good[good > 0], y[:3])
    with pytest.raises(ValueError, match="one class"):
        pauc_tight_oracle(good, da.zeros(4, chunks=2, dtype=bool), 0, 1)
    with pytest.raises(ValueError, match="exceeds"):
        pauc_tight_oracle(good, y, 0, 3)


def test_import_pauc_does_not_import_dask(tmp_path):
    code = ("import sys, pauc, pauc.metrics, pauc.svm, pauc.svm.oracles;"
            "assert 'dask' not in sys.modules, 'dask imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


# --------------------------------------------------------------------------
# On a LocalCluster
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    # In-process workers: starts in well under a second and needs no spawned
    # interpreters (CI time); the graphs and the transfers are the real ones.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _problem(n=500, d=6, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = (X @ rng.randn(d) + rng.randn(n) > 0.8).astype(np.int64)
    return X, y


UNEVEN = (37, 113, 150, 200)


def _sorted_by_label_chunks(X, y):
    """Rows ordered so that the first chunk holds only negatives and the last only positives."""
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    n_neg = int((y == 0).sum())
    chunks = (n_neg - 40, 80, X.shape[0] - n_neg - 40)
    return X, y, chunks


ESTIMATORS = [
    pytest.param(lambda: AUCSVM(C=10.0), id="auc"),
    pytest.param(lambda: PartialAUCSVM((0.0, 0.2), C=10.0), id="tight-0-beta"),
    pytest.param(lambda: PartialAUCSVM((0.05, 0.3), C=10.0), id="tight-alpha-beta"),
    pytest.param(lambda: PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge"),
                 id="hinge-alpha-beta"),
]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_chunked_fit_equals_in_memory(client, make):
    X, y = _problem()
    expected = make().fit(X, y)
    fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)), da.from_array(y, chunks=UNEVEN))
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                               atol=1e-6 * np.abs(expected.coef_).max())
    assert fitted.n_iter_ == expected.n_iter_
    assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    if isinstance(expected, PartialAUCSVM):
        assert (fitted.j_alpha_, fitted.j_beta_) == (expected.j_alpha_, expected.j_beta_)
        if expected.dc_history_ is not None:
            np.testing.assert_allclose(fitted.dc_history_, expected.dc_history_, rtol=1e-9)


@pytest.mark.parametrize("make", [ESTIMATORS[0], ESTIMATORS[2]])
def test_chunked_fit_one_class_chunks_single_chunk_and_sparse(client, make):
    X, y = _problem(seed=1)
    Xs, ys, chunks = _sorted_by_label_chunks(X, y)
    expected = make().fit(Xs, ys)
    for dX, dy in [
            (da.from_array(Xs, chunks=(chunks, -1)), da.from_array(ys, chunks=chunks)),
            (da.from_array(Xs, chunks=-1), da.from_array(ys, chunks=-1)),
            # blocks of scipy.sparse CSR, and numpy labels split to match
            (da.from_array(Xs, chunks=(chunks, -1)).map_blocks(sp.csr_matrix), ys)]:
        fitted = make().fit(dX, dy)
        np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                                   atol=1e-6 * np.abs(expected.coef_).max())


def test_chunked_scoring_and_metrics_on_the_cluster(client):
    X, y = _problem(n=400, seed=2)
    est = PartialAUCSVM((0.0, 0.2), C=10.0).fit(X, y)
    dX = da.from_array(X, chunks=(150, -1))
    dy = da.from_array(y, chunks=150)
    scores = est.decision_function(dX)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), est.decision_function(X), rtol=1e-12)
    s = est.decision_function(X)
    ds = da.from_array(s, chunks=150)
    assert roc_auc(dy, ds) == roc_auc(y, s)
    assert partial_auc(dy, ds, fpr_range=(0.05, 0.3)) == partial_auc(y, s, fpr_range=(0.05, 0.3))
    labels = est.predict(dX)
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), est.predict(X))
    assert AUCSVM(C=1.0).fit(X, y).score(X, y) == pytest.approx(
        AUCSVM(C=1.0).fit(X, y).score(dX, dy), rel=1e-12)


def test_chunked_fit_sends_less_than_one_float_per_row_to_the_client(client):
    """Per iteration, PartialAUCSVM((0, 0.1)) on 10 chunks receives only O(d) numbers."""
    X, y = _problem(n=4000, d=5, seed=3)
    received = []
    gather = client.gather

    def counting_gather(futures, *args, **kwargs):
        result = gather(futures, *args, **kwargs)
        received.append(dask.sizeof.sizeof(result))
        return result

    dX = da.from_array(X, chunks=(400, -1))
    dy = da.from_array(y, chunks=400)
    est = PartialAUCSVM((0.0, 0.1), C=10.0)
    client.gather = counting_gather
    from_actors = bytes_received()
    try:
        est.fit(dX, dy)
    finally:
        client.gather = gather
    # task results (labels, threshold) and the actors' replies (iterations)
    received.append(bytes_received() - from_actors)
    assert received[-1] > 0
    per_iteration = sum(received) / est.n_iter_
    assert per_iteration / (8 * X.shape[0]) < 0.1


def test_chunked_fit_errors(client):
    X, y = _problem(n=100)
    dX = da.from_array(X, chunks=(50, -1))
    dy = da.from_array(y, chunks=50)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        AUCSVM().fit(dX[dX[:, 0] > 0], dy[dX[:, 0] > 0])
    with pytest.raises(ValueError, match="not aligned"):
        AUCSVM().fit(dX, dy.rechunk(30))
    with pytest.raises(ValueError, match="rows"):
        AUCSVM().fit(dX, y[:-1])
    with pytest.raises(NotImplementedError, match="naive"):
        PartialAUCSVM(surrogate="naive").fit(dX, dy)
    with pytest.raises(NotImplementedError, match="sample_weight"):
        AUCSVM().fit(dX, dy, sample_weight=np.ones(100))
    with pytest.raises(ValueError, match="one class"):
        AUCSVM().fit(dX, da.zeros(100, chunks=50, dtype=np.int64))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        AUCSVM().fit(da.from_array(bad, chunks=(50, -1)), dy)


def test_grid_search_under_the_dask_joblib_backend(client):
    X, y = _problem(n=300, seed=4)
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
    from pauc.tree import RankingForest

    X, y = _problem(n=200, d=4, seed=5)
    expected = RankingForest(n_estimators=4, n_jobs=2, random_state=0).fit(X, y)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")     # dask may warn about large graphs
        fitted = RankingForest(n_estimators=4, n_jobs=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fitted.decision_function(X), expected.decision_function(X))
    assert len(stream.data) > 0


@settings(max_examples=500, deadline=None)
@given(chunked_problems(), st.data())
def test_tie_ranks_across_chunks_follow_row_order(problem, data):
    """The negatives' ranks when the rows ``r_i`` do split a tie group at ``j_alpha``.

    Exact scores never produce it (see ``_straddling_value``), rounding can:
    here the rows are drawn directly -- ``j_alpha`` or a count ``#{T > q}`` --
    and the coefficients are checked against ranking the selected negatives
    by (score, row number), as the in-memory key sort does.
    """
    from pauc.svm import _chunked

    scores, labels, chunks = problem
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    neg_rows = np.flatnonzero(~labels)
    order = np.lexsort((neg_rows, -scores[neg_rows]))       # top first, ties: first rows
    selected = neg_rows[order[:j_beta]]
    top = np.sort(scores[selected])
    bounds = np.cumsum((0,) + chunks)
    parts = []
    for k in range(len(chunks)):
        s, pos = scores[bounds[k]:bounds[k + 1]], labels[bounds[k]:bounds[k + 1]]
        rows = np.array([j_alpha if data.draw(st.booleans())
                         else int((top > data.draw(st.sampled_from([-9.0, *top, 9.0]))).sum())
                         for _ in range(int(pos.sum()))], dtype=np.int64)
        neg = s[~pos]
        straddle = _chunked._straddling_value(top, j_alpha)
        parts.append({"rows": rows, "hist": np.bincount(rows, minlength=j_beta + 1),
                      "loss": 0, "above": int((neg > top[0]).sum()),
                      "at": int((neg == top[0]).sum()),
                      "straddle": 0 if straddle is None else int((neg == straddle).sum())})
    plan = _chunked._window_plan(j_alpha, j_beta, top, *parts)
    coef = np.concatenate([
        _chunked._window_coef(scores[bounds[k]:bounds[k + 1]], labels[bounds[k]:bounds[k + 1]],
                              top, parts[k], plan, k, 1.0, None)[0]
        for k in range(len(chunks))])
    # reference: ascending by (score, row); rank from the top j = size - position
    ascending = selected[np.lexsort((selected, scores[selected]))]
    expected = np.zeros_like(coef)
    expected[labels] = np.concatenate([part["rows"] for part in parts])
    all_rows = np.concatenate([part["rows"] for part in parts])
    counts = np.array([np.count_nonzero(all_rows >= j) for j in range(j_beta + 1)])
    expected[ascending] = -counts[j_beta - np.arange(j_beta)]
    np.testing.assert_array_equal(coef, expected)


# --------------------------------------------------------------------------
# The fit's actors (pauc.svm._chunk_actors)
# --------------------------------------------------------------------------

def _actor_design(client, scores, labels, chunks):
    """An ActorDesign over X = I (so ``X @ w = w`` and ``X.T @ coef = coef``
    exactly): the oracles' coefficients come back as ``X.T @ cut``."""
    from pauc.svm._chunk_actors import ActorDesign
    from pauc.svm._chunked import ChunkedDesign, _label_column

    n = scores.shape[0]
    design = ChunkedDesign(da.from_array(np.eye(n), chunks=(chunks, -1)))
    y = _label_column(da.from_array(labels.astype(np.int64), chunks=(chunks,)),
                      design.row_chunks)
    engine = ActorDesign(design, y, client)
    assert engine.distinct_labels().tolist() == sorted(set(labels.astype(int).tolist()))
    labels_ = engine.set_positive(y == 1, 1)
    assert labels_.n_pos == labels.sum()
    return engine, labels_


def _in_memory_threshold(scores, labels, operating_fpr):
    est = AUCSVM()
    est._set_threshold(scores, labels, operating_fpr)
    return est.threshold_


@settings(max_examples=300, deadline=None)
@given(chunked_problems(), st.data())
def test_actor_oracles_and_threshold_equal_in_memory(client, problem, data):
    """Each step of the actors (AUC cut, tight cut, threshold) against memory,
    on tie-heavy scores, uneven chunks and chunks of one class."""
    scores, labels, chunks = problem
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    operating = data.draw(st.sampled_from([None, 0.0, 0.3, 1.0]))
    engine, chunked_labels = _actor_design(client, scores, labels, chunks)
    try:
        for cut_of, expected in [
                (lambda s: auc_oracle(s, chunked_labels), auc_oracle(scores, labels)),
                (lambda s: pauc_tight_oracle(s, chunked_labels, j_alpha, j_beta),
                 pauc_tight_oracle(scores, labels, j_alpha, j_beta))]:
            chunk_scores = engine @ scores
            cut, loss = cut_of(chunk_scores)
            np.testing.assert_array_equal(engine.T @ cut, expected[0])
            assert loss == expected[1]
            assert chunk_scores @ cut == pytest.approx(scores @ expected[0], rel=1e-12,
                                                       abs=1e-12)
            scaled = cut * 2.0
            np.testing.assert_array_equal(engine.T @ scaled, 2.0 * expected[0])
        assert engine.threshold(scores, operating) == _in_memory_threshold(scores, labels,
                                                                           operating)
    finally:
        engine.close()


def test_actor_chunks_balanced_and_kept_where_they_are():
    from pauc.svm._chunk_actors import _assign

    # chunks stay on their workers when the balance allows
    assert _assign((10, 10, 10, 10), ["a", "b", "a", "b"], ["a", "b"]) == {
        "a": [0, 2], "b": [1, 3]}
    # all on one worker: the later chunks move to the idle one
    assert _assign((10, 10, 10, 10), ["a"] * 4, ["a", "b"]) == {"a": [0, 1], "b": [2, 3]}
    # more workers than chunks: one actor per chunk
    assert _assign((5, 7), ["a", "a"], ["a", "b", "c"]) == {"a": [0], "b": [1]}
    # a single chunk bigger than an equal share stays whole
    assert _assign((100, 1, 1), ["a", "a", "a"], ["a", "b"]) == {"a": [0], "b": [1, 2]}


def test_actor_fit_errors_reach_the_client(client):
    """A failure on one worker's actor is raised, not hung on by its peer."""
    X, y = _problem(n=200)
    bad = X.copy()
    bad[150, 2] = np.inf
    dX = da.from_array(bad, chunks=(50, -1))
    dy = da.from_array(y, chunks=50)
    with pytest.raises(ValueError, match="NaN or infinity"):
        PartialAUCSVM((0.05, 0.3), C=1.0).fit(dX, dy)
    with pytest.raises(ValueError, match="NaN or infinity"):
        AUCSVM(C=1.0).fit(dX, dy)
    # and the cluster still fits afterwards
    good = AUCSVM(C=1.0).fit(da.from_array(X, chunks=(50, -1)), dy)
    np.testing.assert_allclose(good.coef_, AUCSVM(C=1.0).fit(X, y).coef_, rtol=1e-6)


@pytest.mark.parametrize("make", [ESTIMATORS[0], ESTIMATORS[3]])
def test_chunked_fit_without_a_distributed_client_runs_as_task_graphs(make):
    """No distributed scheduler: the iterations run as task graphs, same model."""
    X, y = _problem(seed=6)
    expected = make().fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)),
                            da.from_array(y, chunks=UNEVEN))
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                               atol=1e-6 * np.abs(expected.coef_).max())
    assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)


def test_actor_steps_in_worker_threads_give_the_same_fit(client, monkeypatch):
    """Big chunks run each step's work in a thread off the worker's event loop."""
    from pauc.svm import _chunk_actors

    monkeypatch.setattr(_chunk_actors, "_INLINE_VALUES", 0)   # in-process workers see it
    X, y = _problem(seed=7)
    for make in (ESTIMATORS[0], ESTIMATORS[2]):
        make = make.values[0]
        expected = make().fit(X, y)
        fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)),
                            da.from_array(y, chunks=UNEVEN))
        np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                                   atol=1e-6 * np.abs(expected.coef_).max())
        assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)


def _actors_left(client, timeout=10.0):
    """Actors still held by the workers, once their release (asynchronous:
    the scheduler forgets the keys, then the workers drop them) has settled."""
    import gc
    import time

    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        left = sum(len(actors) for actors in
                   client.run(lambda dask_worker: list(dask_worker.state.actors)).values())
        if left == 0 or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def test_actors_are_released_after_fits_and_failed_fits(client):
    X, y = _problem(n=300, seed=8)
    dX = da.from_array(X, chunks=(100, -1))
    dy = da.from_array(y, chunks=100)
    PartialAUCSVM((0.05, 0.3), C=1.0, surrogate="hinge").fit(dX, dy)
    bad = X.copy()
    bad[250, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        AUCSVM(C=1.0).fit(da.from_array(bad, chunks=(100, -1)), dy)
    assert _actors_left(client) == 0


def test_errors_computing_the_chunks_reach_the_user(client):
    X, y = _problem(n=300, seed=9)

    def fails_on_the_last_block(block, block_info=None):
        if block_info[0]["chunk-location"][0] == 2:
            raise RuntimeError("cannot read block 2")
        return block

    dX = da.from_array(X, chunks=(100, -1)).map_blocks(fails_on_the_last_block, dtype=float)
    dy = da.from_array(y, chunks=100)
    with pytest.raises(RuntimeError, match="cannot read block 2"):
        AUCSVM(C=1.0).fit(dX, dy)
    dy_bad = dy.map_blocks(fails_on_the_last_block, dtype=y.dtype)
    with pytest.raises(RuntimeError, match="cannot read block 2"):
        AUCSVM(C=1.0).fit(da.from_array(X, chunks=(100, -1)), dy_bad)
    assert _actors_left(client) == 0


@pytest.mark.parametrize("make", ESTIMATORS)
def test_chunked_fit_on_three_workers(make):
    """More than one peer per actor, and more chunks than workers."""
    X, y = _problem(n=400, seed=10)
    expected = make().fit(X, y)
    chunks = (50, 90, 60, 120, 80)
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as three:
        fitted = make().fit(da.from_array(X, chunks=(chunks, -1)),
                            da.from_array(y, chunks=chunks))
        assert _actors_left(three) == 0
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                               atol=1e-6 * np.abs(expected.coef_).max())
    assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)


def test_chunked_fit_on_worker_processes():
    """The actors' messages between processes (serialised), and their release there."""
    X, y = _problem(n=300, seed=11)
    expected = PartialAUCSVM((0.05, 0.3), C=10.0).fit(X, y)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as processes:
        fitted = PartialAUCSVM((0.05, 0.3), C=10.0).fit(
            da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100))
        assert _actors_left(processes) == 0
    np.testing.assert_allclose(fitted.coef_, expected.coef_, rtol=1e-6,
                               atol=1e-6 * np.abs(expected.coef_).max())
    assert fitted.threshold_ == pytest.approx(expected.threshold_, rel=1e-9, abs=1e-12)
