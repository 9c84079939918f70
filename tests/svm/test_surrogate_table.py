"""The surrogate table (pauc.svm._surrogates) is the one place that knows the surrogates:
a row added there is a surrogate of PartialAUCSVM, of pauc.surrogates and of the
chunked fits (the developer guide's recipe, "Adding a surrogate")."""

import numpy as np
import pytest

from pauc.surrogates import surrogate_at_scores
from pauc.svm import PartialAUCSVM
from pauc.svm import _oracles
from pauc.svm._surrogates import SURROGATES, Problem, Surrogate, surrogate_row


def _data(seed=0, n=200, d=5):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    X = rng.normal(size=(n, d)) + np.outer(y, np.linspace(1.0, 0.0, d))
    return X, y


def test_rows_of_the_table():
    assert set(SURROGATES) == {"tight", "naive", "hinge"}
    for name, row in SURROGATES.items():
        assert row.name == name and row.solver in ("cutting_plane", "cccp")
        assert row.convex == (row.solver == "cutting_plane")
    assert not SURROGATES["naive"].chunked and SURROGATES["tight"].chunked
    with pytest.raises(ValueError, match="surrogate must be one of"):
        surrogate_row("hinged")
    # a non-convex row is a problem of Algorithm 1 only where it is convex
    Problem("hinge", 0, 3)
    with pytest.raises(ValueError, match="not convex"):
        Problem("hinge", 1, 3)


def test_a_new_row_is_all_a_surrogate_needs(monkeypatch):
    calls = []

    def renamed_tight(scores, is_pos, n_pos, j_alpha, j_beta):
        calls.append(j_beta)
        return _oracles.tight_cut(scores, is_pos, n_pos, j_alpha, j_beta)

    row = Surrogate("renamed", renamed_tight, convex=True, solver="cutting_plane",
                    chunked=False, equations="eq. (18)", summary="the tight search, renamed")
    monkeypatch.setitem(SURROGATES, "renamed", row)
    X, y = _data()
    # the estimator: validated against the table, solved by the row's kernel
    fitted = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="renamed").fit(X, y)
    expected = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="tight").fit(X, y)
    assert calls and len(calls) >= fitted.n_iter_
    np.testing.assert_array_equal(fitted.coef_, expected.coef_)
    # the surrogate values
    s = X @ expected.coef_
    assert surrogate_at_scores("renamed", s, y, fpr_range=(0.05, 0.3))[0] == \
        surrogate_at_scores("tight", s, y, fpr_range=(0.05, 0.3))[0]
    # a name outside the table is refused, naming the table's names
    with pytest.raises(ValueError, match="'renamed'"):
        PartialAUCSVM(surrogate="other").fit(X, y)


def test_a_row_without_chunked_support_is_refused_on_chunks(monkeypatch):
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    row = Surrogate("renamed", _oracles.tight_cut, convex=True, solver="cutting_plane",
                    chunked=False, equations="eq. (18)", summary="the tight search, renamed")
    monkeypatch.setitem(SURROGATES, "renamed", row)
    X, y = _data(1)
    with dask.config.set(scheduler="synchronous"), \
            pytest.raises(NotImplementedError, match="renamed"):
        PartialAUCSVM((0.05, 0.3), surrogate="renamed").fit(
            da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50))
