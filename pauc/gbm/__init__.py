"""Gradient-boosted trees on the FPR window: :class:`GradientBoostingRanker`.

The estimator (:mod:`._ranker`) writes its fit as a plan (:mod:`._plan`):
candidate losses and tree shapes (:mod:`._candidates`), cross-fitted folds
(:mod:`._crossfit`), the stopping rule (:mod:`._stopping`), the race that
drops candidates early (:mod:`._race`), the schedule of their rounds on the
threads (:mod:`._schedule`), the in-process trainer (:mod:`._local_trainer`)
and the selection on the held-out window (:mod:`._selection`).  Trees are
grown by an engine (:mod:`pauc.gbm.engines`: LightGBM, XGBoost, pauc's
oblivious trees); the window losses are LightGBM / XGBoost objectives and
metrics (:mod:`pauc.objectives`, with the XGBoost metric in
:mod:`._xgboost_metric`).  On a Dask cluster the same plan runs through
:mod:`pauc.distributed`'s trainer.
"""

from ._ranker import GradientBoostingRanker

__all__ = ["GradientBoostingRanker"]
