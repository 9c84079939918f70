"""Structural SVMs for the AUC and the partial AUC (Narasimhan & Agarwal, 2017).

:class:`AUCSVM` and :class:`PartialAUCSVM` (with ``C`` chosen by cross-validation, the
grid search done well: :class:`AUCSVMCV`, :class:`PartialAUCSVMCV`) fit linear scoring
functions by the cutting-plane method (:class:`CuttingPlaneSolver`) with the
most-violated-constraint searches of :mod:`pauc.svm.oracles`.  The package's layout is
described in the developer guide: the surrogates are the rows of the one loss table
(:mod:`pauc._loss`, whose Cython searches are ``pauc/_loss/_structural.pyx``) with a
structural cut (``_surrogates.py``: the SVM's view of it, and ``Problem``), the data
as a design (``_design.py``), the solver (``_cutting_plane.py``, ``_master.py``), CCCP
(``_dc.py``), the coarse-to-fine start (``_coarse_to_fine.py``), the estimators
(``_estimators.py``) and their cross-validation over ``C`` (``_cv.py``).

References
----------
Narasimhan & Agarwal (2017); Joachims (2005). Full entries in
``docs/references.rst``.
"""

from ._cutting_plane import CuttingPlaneSolver
from ._cv import AUCSVMCV, PartialAUCSVMCV
from ._estimators import AUCSVM, PartialAUCSVM
from .oracles import (
    auc_oracle,
    pauc_naive_oracle,
    pauc_tight_oracle,
    structural_surrogate,
)

__all__ = [
    "AUCSVM",
    "AUCSVMCV",
    "PartialAUCSVM",
    "PartialAUCSVMCV",
    "CuttingPlaneSolver",
    "auc_oracle",
    "pauc_tight_oracle",
    "pauc_naive_oracle",
    "structural_surrogate",
]
