"""The window losses as LightGBM and XGBoost objectives and metrics (the public path).

The objects live in :mod:`pauc.gbm.objectives`, beside the ranker they serve;
``pauc.objectives`` names the same objects.
"""

from .gbm.objectives import (LOSSES, PAIRWISE_CURVATURE, WINDOW_LOSSES, WindowMetric,
                             WindowObjective, XGBoostWindowMetric, refuse_sample_weights,
                             window_metric, window_objective, xgboost_metric)

__all__ = ["LOSSES", "WINDOW_LOSSES", "PAIRWISE_CURVATURE", "WindowObjective", "WindowMetric",
           "window_objective", "window_metric", "refuse_sample_weights", "XGBoostWindowMetric",
           "xgboost_metric"]
