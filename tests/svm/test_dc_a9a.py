"""Narasimhan & Agarwal (2017), Table 4, a9a column, SVM_pAUC^dc: the hinge pAUC surrogate
by CCCP (Algorithm 4)."""

import time
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

from pauc.svm import PartialAUCSVM

from _paper_protocol import PAPER_C_GRID_PAUC, select_and_test


@pytest.mark.slow(seconds=40)
def test_paper_table_4_a9a_hinge_by_cccp():
    """pAUC(0.02, 0.05) on the shipped a9a test split of PartialAUCSVM(surrogate="hinge"),
    C chosen from the paper's grid {1e-5, ..., 1e3} by 3-fold validation on the training
    data, tolerance epsilon = 1e-4 (App. B.2), as the SVM_pAUC row of the same table
    (tests/svm/test_estimators.py).  Paper: 0.3650; we ask for >= 0.33.

    The init="tight" start is the paper's Algorithm 1 (method="cutting_plane"): the tight
    surrogate's optimum on a9a is w = 0, where CCCP stalls; the paper's start is where
    Algorithm 1 stopped, within C tol of it (the proximal default returns w = 0 there)."""
    from pauc.datasets import load_a9a

    X, y, X_test, y_test = load_a9a()
    window = (0.02, 0.05)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        c_dc, dc_svm = select_and_test(
            lambda C: PartialAUCSVM(window, C=C, surrogate="hinge", tol=1e-4, max_iter=5000,
                                    method="cutting_plane"),
            PAPER_C_GRID_PAUC, X, y, X_test, y_test, window)
    seconds = time.perf_counter() - start
    print(f"\nTable 4 a9a: SVM_pAUC^dc {dc_svm:.4f} (C={c_dc:g}; paper 0.3650), {seconds:.0f} s")
    assert dc_svm >= 0.33
