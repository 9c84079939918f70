"""The one place where pauc calls LightGBM's training API.

Every :func:`lightgbm.Dataset` and :func:`lightgbm.train` of
:class:`pauc.boost.GradientBoostingRanker` goes through :func:`boost`, so that
another engine can stand beside it behind the same three-argument call.

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.
"""

import lightgbm as lgb
import numpy as np


def _dataset(X, is_pos, seed, reference=None):
    # feature_pre_filter off: on small data LightGBM would otherwise drop every
    # feature that min_data_in_leaf cannot split, and refuse a custom objective
    return lgb.Dataset(X, label=is_pos.astype(np.float64), reference=reference,
                       params={"verbosity": -1, "seed": seed, "feature_pre_filter": False},
                       free_raw_data=False)


def boost(params, n_rounds, train, valid=None, *, feval=None, callbacks=()):
    """Boost ``n_rounds`` rounds of ``params`` on ``train = (X, is_pos)``.

    Parameters
    ----------
    params : dict
        LightGBM parameters (``params["seed"]`` also seeds the binning).
    n_rounds : int
    train, valid : (X, is_pos) or None
        Training rows, and the rows LightGBM evaluates every round (named
        ``"validation"`` in ``env.evaluation_result_list``).
    feval, callbacks
        As :func:`lightgbm.train`.

    Returns
    -------
    lightgbm.Booster
    """
    train_set = _dataset(*train, params["seed"])
    extra = {}
    if valid is not None:
        extra = {"valid_sets": [_dataset(*valid, params["seed"], reference=train_set)],
                 "valid_names": ["validation"], "feval": feval}
    # keep_training_booster: LightGBM would otherwise write the model to a string
    # and parse it back at the end of training (a sixth of a small cross-fitted fit)
    booster = lgb.train(params, train_set, num_boost_round=n_rounds,
                        callbacks=list(callbacks), keep_training_booster=True, **extra)
    booster.free_dataset()
    return booster


def stop_boosting(n_rounds):
    """Raised by a callback: stop, and keep the first ``n_rounds`` rounds."""
    raise lgb.callback.EarlyStopException(n_rounds - 1, [])


def log_every_round():
    """LightGBM's own per-round log of the validation metrics (``verbose >= 2``)."""
    return lgb.log_evaluation(1)
