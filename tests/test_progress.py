"""The live progress line of ``pauc compare`` shows the cutting-plane iteration mid-fit."""

import io
import pickle
import time

import numpy as np
import pytest

from pauc.__main__ import _Progress
from pauc.svm import AUCSVM, PartialAUCSVM
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


def test_line_shows_the_live_iteration(data, monkeypatch):
    X, y = data
    est = AUCSVM(C=10.0, tol=1e-4)
    seen, progress = [], [None]
    progress[0] = _Progress("svm-auc", est, io.StringIO(), enabled=False)
    _spy(monkeypatch, seen, progress)
    assert est.current_iteration is None
    assert "iteration" not in progress[0]._line()
    est.fit(X, y)
    # The k-th oracle call happens during iteration k, and the line says so; two more
    # follow the solve: the objective at w and at w = 0 (pauc.svm._degenerate).
    assert len(seen) == est.n_iter_ + 2 and est.n_iter_ >= 3
    for k, line in enumerate(seen[:est.n_iter_], start=1):
        assert line.endswith(f"iteration {k}"), line
    # After fit: no live solver left, the estimator pickles, the line is time only.
    assert est.current_iteration is None
    assert "iteration" not in progress[0]._line()
    assert pickle.loads(pickle.dumps(est)).n_iter_ == est.n_iter_


def test_partial_auc_svm_reports_iterations(data, monkeypatch):
    X, y = data
    est = PartialAUCSVM(fpr_range=(0.0, 0.3), C=10.0, tol=1e-4)
    seen, progress = [], [None]
    progress[0] = _Progress("svm-pauc", est, io.StringIO(), enabled=False)
    _spy(monkeypatch, seen, progress)
    est.fit(X, y)
    assert len(seen) == est.n_iter_ + 2 and est.n_iter_ >= 2    # + w and 0 compared
    assert seen[est.n_iter_ - 1].endswith(f"iteration {est.n_iter_}")


class _Terminal(io.StringIO):
    """A stream that says it is a terminal (the live line is for terminals only)."""

    def isatty(self):
        return True


def _slow_fit_text(data, monkeypatch, stream):
    """What _Progress writes to ``stream`` while AUCSVM fits, 0.2 s per oracle call (a fit
    of >= 3 iterations outlasts one 0.5 s tick of the live line)."""
    X, y = data
    est = AUCSVM(C=10.0, tol=1e-4)
    progress = [None]
    # 0.2 s per oracle call: a fit of >= 3 iterations outlasts one 0.5 s tick.
    _spy(monkeypatch, [], progress, delay=0.2)
    with _Progress("svm-auc", est, stream, enabled=True) as p:
        progress[0] = p
        est.fit(X, y)
    return stream.getvalue()


def test_live_thread_prints_iterations(data, monkeypatch):
    """The background thread (every 0.5 s) catches the iteration of a slow fit."""
    text = _slow_fit_text(data, monkeypatch, _Terminal())
    assert "\rfitting svm-auc" in text and "iteration " in text
    assert text.rstrip().endswith("done")


def test_plain_lines_when_not_a_terminal(data, monkeypatch):
    """In a pipe or a log file no line is rewritten: one plain line per method, no \\r."""
    text = _slow_fit_text(data, monkeypatch, io.StringIO())
    assert "\r" not in text
    assert text.count("\n") == 1 and text.startswith("fitting svm-auc") \
        and text.rstrip().endswith("done")
