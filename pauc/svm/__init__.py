"""Structural SVMs for the AUC and the partial AUC (paper 002)."""
