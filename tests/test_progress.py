"""The progress line of ``pauc compare`` shows the cutting-plane iteration mid-fit, delivered
by the solver's callback (lightning's way; nothing polls the estimator from a thread)."""

import io
import pickle
import time

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from pauc.__main__ import _Progress
from pauc.svm import AUCSVM, PartialAUCSVM, PartialAUCSVMCV
from pauc.svm._design import InMemoryDesign


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] - X[:, 1] + rng.normal(size=120) > 0.5).astype(int)
    return X, y


def _spy(monkeypatch, seen, progress, delay=0.0):
    """Wrap the in-memory design's cut (the oracle call of each iteration) so that
    each call records the progress line of that moment."""
    original = InMemoryDesign.cut

    def cut(self, w, problem):
        seen.append(progress[0]._line())
        time.sleep(delay)
        return original(self, w, problem)

    monkeypatch.setattr(InMemoryDesign, "cut", cut)


def test_line_shows_the_iteration_of_the_callback(data, monkeypatch):
    X, y = data
    est = AUCSVM(C=10.0, tol=1e-4)
    seen, progress = [], [None]
    progress[0] = _Progress("svm-auc", est, io.StringIO(), enabled=False)
    assert callable(est.callback)
    _spy(monkeypatch, seen, progress)
    assert "iteration" not in progress[0]._line()
    est.fit(X, y)
    # The k-th oracle call happens during iteration k, after the callback of
    # iteration k - 1; the comparison with w = 0 calls no oracle after the solve.
    assert len(seen) == est.n_iter_ and est.n_iter_ >= 3
    for k, line in enumerate(seen[1:], start=1):
        assert line.endswith(f"iteration {k}"), line
    assert progress[0]._line().endswith(f"iteration {est.n_iter_}")
    # the fitted estimator pickles (its callback is a plain function of the CLI)
    est.set_params(callback=None)
    assert pickle.loads(pickle.dumps(est)).n_iter_ == est.n_iter_


def test_grid_search_and_cv_estimators_report_too(data):
    """Under --tune the clones of a grid search report: clone copies a function as itself."""
    X, y = data
    for est in (GridSearchCV(PartialAUCSVM((0.0, 0.3)), {"C": [0.1, 1.0]}, cv=2),
                PartialAUCSVMCV((0.0, 0.3), Cs=2, cv=2)):
        progress = _Progress("svm-pauc", est, io.StringIO(), enabled=False)
        est.fit(X, y)
        assert progress.iteration is not None and progress.iteration >= 1


def test_methods_without_iterations_show_time_only(data):
    from pauc.tree import TreeRank
    progress = _Progress("treerank", TreeRank(), io.StringIO(), enabled=False)
    assert "iteration" not in progress._line()


class _Terminal(io.StringIO):
    """A stream that says it is a terminal (the live line is for terminals only)."""

    def isatty(self):
        return True


def _slow_fit_text(data, monkeypatch, stream):
    """What _Progress writes to ``stream`` while AUCSVM fits, 0.2 s per oracle call (a fit
    of >= 4 iterations outlasts one 0.5 s redraw interval of the live line)."""
    X, y = data
    est = AUCSVM(C=10.0, tol=1e-4)
    _spy(monkeypatch, [], [_Progress("spy", AUCSVM(), io.StringIO(), False)], delay=0.2)
    with _Progress("svm-auc", est, stream, enabled=True):
        est.fit(X, y)
    return stream.getvalue()


def test_live_line_prints_iterations(data, monkeypatch):
    """On a terminal the callback redraws the line (at most every 0.5 s)."""
    text = _slow_fit_text(data, monkeypatch, _Terminal())
    assert "\rfitting svm-auc" in text and "iteration " in text
    assert text.rstrip().endswith("done")


def test_plain_lines_when_not_a_terminal(data, monkeypatch):
    """In a pipe or a log file no line is rewritten: one plain line per method, no \\r."""
    text = _slow_fit_text(data, monkeypatch, io.StringIO())
    assert "\r" not in text
    assert text.count("\n") == 1 and text.startswith("fitting svm-auc") \
        and text.rstrip().endswith("done")


def test_the_degenerate_warning_of_a_grid_is_shown_once():
    """Issue 27: the main job printed the same degenerate warning once per C of its grid."""
    from pauc.__main__ import _fit
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (rng.random(200) < 0.3).astype(int)          # no signal: the optimum is w = 0
    est = PartialAUCSVMCV((0.0, 0.05), Cs=[0.1, 1.0, 10.0], cv=2)
    messages = _fit(est, X, y)
    degenerate = [m for m in messages if m.startswith("DegenerateSolutionWarning")]
    assert len(degenerate) == 1, messages
    assert "other fits of the grid warned the same way" in degenerate[0]
    assert f"C={est.C_:g}" in degenerate[0]            # the refit's, at the chosen C
