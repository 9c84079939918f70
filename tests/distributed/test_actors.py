"""The chunked designs (pauc.distributed): each cut and the threshold against
memory, and the life of the fit's actors on a cluster."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from _chunked_problems import (ESTIMATORS, UNEVEN, actors_left, assert_same_fit,  # noqa: E402
                               chunked_problems, problem)

from pauc._threshold import operating_threshold  # noqa: E402
from pauc.distributed import _actors  # noqa: E402
from pauc.distributed._actors import ActorDesign, assign_chunks  # noqa: E402
from pauc.distributed._svm_fit import training_design  # noqa: E402
from pauc.distributed._graphs import TaskGraphDesign  # noqa: E402
from pauc.svm import AUCSVM, PartialAUCSVM  # noqa: E402
from pauc.svm._surrogates import Problem  # noqa: E402
from pauc.svm.oracles import auc_oracle, pauc_tight_oracle  # noqa: E402


def _positive_is_one(classes, y):
    return 1


def _check_design_against_memory(design, scores, labels, j_alpha, j_beta, operating):
    """X = I (so ``X @ w = w`` and ``X.T @ coef = coef`` exactly): the cuts'
    vectors are the in-memory oracles' coefficients."""
    n_neg = int((~labels).sum())
    for problem, expected in [
            (Problem("tight", 0, n_neg), auc_oracle(scores, labels)),
            (Problem("tight", j_alpha, j_beta),
             pauc_tight_oracle(scores, labels, j_alpha, j_beta))]:
        cut = design.cut(scores, problem)
        np.testing.assert_array_equal(cut.g, expected[0])
        assert cut.loss == expected[1]
        assert cut.risk == pytest.approx(expected[1] - scores @ expected[0], rel=1e-12,
                                         abs=1e-12)
        # the scaled problems of the CCCP steps
        scaled = design.cut(scores, Problem("tight", problem.j_alpha, problem.j_beta,
                                            scale=2.0))
        np.testing.assert_array_equal(scaled.g, 2.0 * expected[0])
        assert scaled.loss == 2.0 * expected[1]
    assert design.threshold(scores, operating) == operating_threshold(scores, labels,
                                                                      operating)


def _identity_design(scores, labels, chunks):
    design = training_design(da.from_array(np.eye(scores.shape[0]), chunks=(chunks, -1)),
                             da.from_array(labels.astype(np.int64), chunks=(chunks,)),
                             None, _positive_is_one)
    assert design.n_pos == labels.sum() and design.n_neg == (~labels).sum()
    return design


def _draw_window(labels, data):
    n_neg = int((~labels).sum())
    j_alpha = data.draw(st.integers(0, n_neg - 1))
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    return j_alpha, j_beta, data.draw(st.sampled_from([None, 0.0, 0.3, 1.0]))


@pytest.mark.slow(seconds=20)
@settings(max_examples=300, deadline=None)
@given(chunked_problems(), st.data())
def test_actor_cuts_and_threshold_equal_in_memory(client, problem, data):
    """Each step of the actors (AUC cut, tight cut, threshold) against memory,
    on tie-heavy scores, uneven chunks and chunks of one class."""
    scores, labels, chunks = problem
    design = _identity_design(scores, labels, chunks)
    try:
        assert isinstance(design, ActorDesign)
        _check_design_against_memory(design, scores, labels, *_draw_window(labels, data))
    finally:
        design.close()


@pytest.mark.slow(seconds=15)
@settings(max_examples=150, deadline=None)
@given(chunked_problems(), st.data())
def test_task_graph_cuts_and_threshold_equal_in_memory(problem, data):
    """The same for the design of fits without a distributed client."""
    scores, labels, chunks = problem
    with dask.config.set(scheduler="synchronous"):
        design = _identity_design(scores, labels, chunks)
        assert isinstance(design, TaskGraphDesign)
        _check_design_against_memory(design, scores, labels, *_draw_window(labels, data))


def test_actor_chunks_balanced_and_kept_where_they_are():
    # chunks stay on their workers when the balance allows
    assert assign_chunks((10, 10, 10, 10), ["a", "b", "a", "b"], ["a", "b"]) == {
        "a": [0, 2], "b": [1, 3]}
    # all on one worker: the later chunks move to the idle one
    assert assign_chunks((10, 10, 10, 10), ["a"] * 4, ["a", "b"]) == {"a": [0, 1], "b": [2, 3]}
    # more workers than chunks: one actor per chunk
    assert assign_chunks((5, 7), ["a", "a"], ["a", "b", "c"]) == {"a": [0], "b": [1]}
    # a single chunk bigger than an equal share stays whole
    assert assign_chunks((100, 1, 1), ["a", "a", "a"], ["a", "b"]) == {"a": [0], "b": [1, 2]}


def test_actor_fit_errors_reach_the_client(client):
    """A failure on one worker's actor is raised, not hung on by its peer."""
    X, y = problem(n=200)
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


def test_actor_steps_in_worker_threads_give_the_same_fit(client, monkeypatch):
    """Big chunks run each step's work in a thread off the worker's event loop."""
    monkeypatch.setattr(_actors, "_INLINE_VALUES", 0)   # in-process workers see it
    X, y = problem(seed=7)
    for make in (ESTIMATORS[0], ESTIMATORS[2]):
        make = make.values[0]
        expected = make().fit(X, y)
        fitted = make().fit(da.from_array(X, chunks=(UNEVEN, -1)),
                            da.from_array(y, chunks=UNEVEN))
        assert_same_fit(fitted, expected)


def test_actors_are_released_after_fits_and_failed_fits(client):
    X, y = problem(n=300, seed=8)
    dX = da.from_array(X, chunks=(100, -1))
    dy = da.from_array(y, chunks=100)
    PartialAUCSVM((0.05, 0.3), C=1.0, surrogate="hinge").fit(dX, dy)
    bad = X.copy()
    bad[250, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        AUCSVM(C=1.0).fit(da.from_array(bad, chunks=(100, -1)), dy)
    assert actors_left(client) == 0


def test_errors_computing_the_chunks_reach_the_user(client):
    X, y = problem(n=300, seed=9)

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
    assert actors_left(client) == 0
