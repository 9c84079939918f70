"""The stopping rule of :class:`pauc.gbm.GradientBoostingRanker` as an XGBoost callback.

The rule itself is :class:`pauc.gbm._stopping.Stopping`, the one LightGBM's
callback feeds too (:mod:`pauc.gbm.engines`); XGBoost asks its callbacks
whether to stop (``TrainingCallback.after_iteration`` returns True) where
LightGBM's raise, and its evaluation log rounds custom metric values: the
callback reads the metric's unrounded records instead.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import json

import xgboost as xgb

__all__ = ["XGBoostStopping", "stopping_attributes"]


class XGBoostStopping(xgb.callback.TrainingCallback):
    """XGBoost callback: feed a :class:`~pauc.gbm._stopping.Stopping` every round.

    Parameters
    ----------
    stopping : pauc.gbm._stopping.Stopping
    values : callable
        ``values()`` returns the metric's records so far, one dict per round:
        ``"value"`` the held-out criterion (None if not computed) and
        ``"logloss"`` the held-out log-loss (None if not computed).

    Notes
    -----
    At the end the kept rounds, the kept criterion and the criterion's history
    are stored as booster attributes (:func:`stopping_attributes` reads them),
    so that they come back with the booster from a distributed training, where
    this callback runs on the workers.  Every worker of a distributed training
    sees the same global metric, so every worker stops at the same round.
    """

    def __init__(self, stopping, values):
        super().__init__()
        self.stopping, self.values = stopping, values

    def after_iteration(self, model, epoch, evals_log):
        record = self.values()[-1]
        return bool(self.stopping.update(record.get("value"), record.get("logloss")))

    def after_training(self, model):
        model.set_attr(pauc_best_round=str(self.stopping.best_round),
                       pauc_best=repr(float(self.stopping.best)),
                       pauc_history=json.dumps([float(v) for v in self.stopping.history]))
        return model


def stopping_attributes(booster):
    """``(best_round, best, history)`` that :class:`XGBoostStopping` left on ``booster``."""
    return (int(booster.attr("pauc_best_round")), float(booster.attr("pauc_best")),
            json.loads(booster.attr("pauc_history")))
