"""The stopping rule of :class:`pauc.boost.GradientBoostingRanker` as an XGBoost callback.

The same rule as the LightGBM callback of :mod:`pauc.boost._gbm`: the
validation criterion (the window pAUC, averaged with a widened window's when
the window holds few validation negatives) averaged over the last ``width``
rounds, boosting stopped once that average has not improved for ``patience``
rounds, the kept round the middle of the best stretch.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.
"""

import json

import numpy as np
import xgboost as xgb

__all__ = ["XGBoostWindowStopping"]


class XGBoostWindowStopping(xgb.callback.TrainingCallback):
    """XGBoost callback: the stopping rule of :class:`pauc.boost.GradientBoostingRanker`.

    Parameters
    ----------
    values : callable
        ``values()`` returns the records of the validation metric so far, one
        dict per round: ``"value"`` the criterion, unrounded, and with
        ``with_logloss`` ``"logloss"`` the validation log-loss.
    patience : int
        Rounds without improvement before stopping.
    width : int
        Rounds of the trailing mean of the criterion.
    with_logloss : bool, default=False
        Also track the round of least validation log-loss, and stop only when
        both rules have run out of patience (log-loss boosting).

    Notes
    -----
    At the end the kept rounds and the criterion's history are stored as
    booster attributes (``pauc_best_round``, ``pauc_loss_round``,
    ``pauc_best``, ``pauc_history``), so that they come back with the booster
    from a distributed training.  Every worker of a distributed training sees
    the same criterion (the global metric), so every worker stops at the same
    round.
    """

    def __init__(self, values, patience, width, with_logloss=False):
        super().__init__()
        self.values, self.patience, self.width = values, patience, width
        self.with_logloss = with_logloss
        self.history, self.best, self.best_end = [], -np.inf, 0
        self.loss_best, self.loss_round = np.inf, 0

    @property
    def best_round(self):
        """The kept number of rounds by the criterion: the middle of the best stretch."""
        return max(1, self.best_end + 1 - (self.width - 1) // 2)

    def after_iteration(self, model, epoch, evals_log):
        record = self.values()[-1]
        self.history.append(record["value"])
        t = len(self.history) - 1
        mean = float(np.mean(self.history[max(0, t + 1 - self.width):]))
        if mean > self.best:
            self.best, self.best_end = mean, t
        done = t - self.best_end >= self.patience
        if self.with_logloss:
            if record["logloss"] < self.loss_best:
                self.loss_best, self.loss_round = record["logloss"], t + 1
            done = done and t + 1 - self.loss_round >= self.patience
        return bool(done)

    def after_training(self, model):
        model.set_attr(pauc_best_round=str(self.best_round),
                       pauc_loss_round=str(max(1, self.loss_round)),
                       pauc_best=repr(float(self.best)),
                       pauc_history=json.dumps([float(v) for v in self.history]))
        return model
