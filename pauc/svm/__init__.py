"""Structural SVMs for the AUC and the partial AUC (paper 002)."""

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
