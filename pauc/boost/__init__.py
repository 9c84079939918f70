"""AUC boosting (paper 001)."""
