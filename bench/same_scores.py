"""Whether a change of code leaves the fitted GradientBoostingRanker on a9a bit for bit.

Fits ``GradientBoostingRanker(random_state=0)`` (the defaults; the seed fixes the
folds and every engine's seed) on a9a's training split and records the test
scores, ``threshold_``, the kept candidate, ``n_iter_``, the feature
importances and ``cv_results_``.  Run it on the tree before a change (``save``)
and after (``compare``)::

    python bench/same_scores.py save /tmp/before.pkl      # on the old tree
    python bench/same_scores.py compare /tmp/before.pkl   # on the new tree

``compare`` prints, per record, whether it is identical (scores: bit for bit).
"""

import pickle
import sys
import time

import numpy as np

from pauc import GradientBoostingRanker
from pauc.datasets import load_a9a


def record():
    X_train, y_train, X_test, _ = load_a9a()
    start = time.perf_counter()
    model = GradientBoostingRanker(random_state=0).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    return {"scores": model.decision_function(X_test), "threshold": model.threshold_,
            "selected": model.selected_, "n_iter": model.n_iter_,
            "importances": model.feature_importances_, "cv_results": repr(model.cv_results_),
            "class": f"{type(model).__module__}.{type(model).__name__}"}, seconds


def main(action, path):
    new, seconds = record()
    print(f"{new['class']}: kept {new['selected']}, threshold {new['threshold']!r}, "
          f"fit {seconds:.1f} s")
    if action == "save":
        with open(path, "wb") as f:
            pickle.dump(new, f)
        return
    with open(path, "rb") as f:
        old = pickle.load(f)
    for key in ("scores", "threshold", "selected", "n_iter", "importances", "cv_results"):
        same = (np.array_equal(old[key], new[key]) if isinstance(new[key], np.ndarray)
                else old[key] == new[key])
        print(f"{key:<12} {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
