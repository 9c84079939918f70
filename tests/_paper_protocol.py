"""Model selection of Narasimhan & Agarwal's experiments (2017, App. B.2), shared by the
slow Table 4 tests."""

import numpy as np
from sklearn.model_selection import StratifiedKFold

from pauc.metrics import partial_auc

PAPER_C_GRID_AUC = [10.0 ** k for k in range(-5, 5)]     # App. B.2: {1e-5, ..., 1e4}
PAPER_C_GRID_PAUC = [10.0 ** k for k in range(-5, 4)]    # a9a: {1e-5, ..., 1e3}


def select_and_test(make, grid, X, y, X_test, y_test, window):
    """C from the grid by the mean validation pAUC over a 3-fold split of the training
    data (one held-out third is too noisy: the window [0.02, 0.05] holds ~250
    validation negatives), then refit on all the training data and test.

    Returns the chosen C and the test pAUC (normalize="range") over ``window``.
    """
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))

    def validation(C):
        return np.mean([partial_auc(y[va], make(C).fit(X[tr], y[tr]).decision_function(X[va]),
                                    fpr_range=window) for tr, va in folds])

    best = max(grid, key=validation)
    final = make(best).fit(X, y)
    return best, partial_auc(y_test, final.decision_function(X_test), fpr_range=window)
