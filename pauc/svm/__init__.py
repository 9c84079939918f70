"""Structural SVMs for the AUC and the partial AUC (Narasimhan & Agarwal, 2017).

:class:`AUCSVM` and :class:`PartialAUCSVM` fit linear scoring functions by the
cutting-plane method (:class:`CuttingPlaneSolver`) with the most-violated-
constraint searches of :mod:`pauc.svm.oracles`.  The package's layout is
described in the developer guide: one surrogate table (``_surrogates.py``),
the Cython searches (``_oracles.pyx``, contract in ``_oracles.pxd``), the data
as a design (``_design.py``), the solver (``_cutting_plane.py``,
``_master.py``), CCCP (``_dc.py``), the coarse-to-fine start
(``_coarse_to_fine.py``) and the estimators (``_estimators.py``).

References
----------
Narasimhan & Agarwal (2017); Joachims (2005). Full entries in
``docs/references.rst``.
"""

from ._cutting_plane import CuttingPlaneSolver
from ._estimators import AUCSVM, PartialAUCSVM
from .oracles import (
    auc_oracle,
    pauc_naive_oracle,
    pauc_tight_oracle,
    structural_surrogate,
)

__all__ = [
    "AUCSVM",
    "PartialAUCSVM",
    "CuttingPlaneSolver",
    "auc_oracle",
    "pauc_tight_oracle",
    "pauc_naive_oracle",
    "structural_surrogate",
]
