"""The candidate models of GradientBoostingRanker's ``loss="auto"``.

A candidate is a loss, a tree configuration, a stopping rule and, for pauc's
own oblivious trees, an engine.  On small data (``n_rows x n_features`` at most
``OBLIVIOUS_MAX_CELLS``, at most ``OBLIVIOUS_MAX_FEATURES`` features) the
reference is log-loss on oblivious trees (:mod:`pauc.gbm.engines._oblivious`: CatBoost's tree shape, score function, random
strength and minimal variance sampling, learning rate 0.1 with early stopping),
which carries what makes CatBoost's defaults win on small sets; LightGBM's
log-loss and window exponential loss compete with it.  On larger data the
reference is LightGBM's log-loss, with the window exponential loss and two
regularised LightGBM configurations as competitors.  With fewer than
``SELECTION_MIN_POSITIVES`` training positives the out-of-fold comparison of so
few positives chooses by noise: the reference is boosted alone, and on small data
beside its fixed budget (the same trees boosted as CatBoost's defaults boost them,
:func:`fixed_reference`), which replaces it only past the selection's bar -- or, where the window is
saturated (:data:`pauc.gbm._plan.SATURATED_CRITERION`), is kept and boosted once
on every row.

The estimator's own parameters (``learning_rate``, ``num_leaves``,
``min_child_samples``, ``reg_lambda``) make LightGBM's *base* configuration;
the larger-data *small-tree* configuration is a regularised one: 7 leaves,
learning rate 0.03, 10 rows per leaf, an L2 penalty of 3 on the leaf values,
and rows and features subsampled to 80 % per tree; the *extra-trees*
configuration draws one random threshold per feature at each node (Geurts et
al. 2006).  They were LightGBM's approximations of CatBoost's strengths
before pauc grew its own oblivious trees; what each brought on the real-data
panel is in ``docs/developer/measurements.rst``.

References
----------
Geurts, P., Ernst, D. and Wehenkel, L. "Extremely randomized trees." Machine
Learning 63(1), 2006.

Prokhorenkova, L., Gusev, G., Vorobev, A., Dorogush, A. V. and Gulin, A.
"CatBoost: unbiased boosting with categorical features." NeurIPS 2018.

Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.
"""

from dataclasses import dataclass, field

from .._loss import loss_row

# LightGBM parameters of the small-tree configuration (module docstring)
SMALL_TREES = {"num_leaves": 7, "learning_rate": 0.03, "min_data_in_leaf": 10,
               "lambda_l2": 3.0, "bagging_fraction": 0.8, "bagging_freq": 1,
               "feature_fraction": 0.8}
# ... with extremely randomised splits: one random threshold per feature and node
EXTRA_TREES = dict(SMALL_TREES, extra_trees=True)


@dataclass(frozen=True)
class Candidate:
    """One boosted candidate.

    Attributes
    ----------
    name : str
        Its name in ``cv_results_``.
    loss : str
        ``"logloss"`` (LightGBM's binary objective) or a window loss of
        :mod:`pauc.objectives`.
    rule : {"logloss", "window"}
        What stops it on a held-out fold: its log-loss, or the window criterion.
    config : dict
        LightGBM parameters replacing the base configuration's (with
        ``engine=None``), or the named engine's own parameters.
    engine : str or None
        The engine that boosts it (:mod:`pauc.gbm.engines`); None: the
        estimator's ``engine``.
    """

    name: str
    loss: str
    rule: str
    config: dict = field(default_factory=dict, hash=False)
    engine: str = None


# pauc's oblivious trees are boosted on data of at most this many cells (n_rows x
# n_features) and features: a level scans 2**level leaves x 255 bins of every feature,
# and draws a noise value per border, so wide data cost far more than LightGBM's trees
# (measured: docs/developer/measurements.rst, 'The size limit of the oblivious trees')
OBLIVIOUS_MAX_CELLS = 1_000_000
OBLIVIOUS_MAX_FEATURES = 100
# their parameters (pauc.gbm.engines._oblivious.OBLIVIOUS_DEFAULTS otherwise).  The L2
# penalty on the leaf values is a tenth of CatBoost's 3: CatBoost's models barely move
# with l2_leaf_reg (its leaves take ten Newton steps), pauc's trees with one step
# underfit at 3, and as the cross-fitted candidate 0.3 did better than 3 (measured:
# docs/developer/measurements.rst, 'The L2 penalty of the oblivious candidate')
OBLIVIOUS = {"learning_rate": 0.1, "l2_leaf_reg": 0.3}

LOGLOSS = Candidate("logloss", "logloss", "logloss")
EXPONENTIAL = Candidate("exponential", "exponential", "window")
# loss="auto": the candidates boosted, the reference first (module docstring)
SMALL_DATA = (Candidate("logloss-oblivious", "logloss", "logloss", dict(OBLIVIOUS), "oblivious"),
              LOGLOSS, EXPONENTIAL)
LARGE_DATA = (LOGLOSS, EXPONENTIAL,
              Candidate("logloss-small", "logloss", "logloss", dict(SMALL_TREES)),
              Candidate("logloss-extra", "logloss", "logloss", dict(EXTRA_TREES)))


# Fewer training positives than this: the reference alone.  The pooled out-of-fold
# window pAUC of so few positives cannot tell the candidates apart, and choosing among
# them by it cost test pAUC below this count; with a few hundred positives the choice
# was even, with a thousand and more it gained (measured:
# docs/developer/measurements.rst, 'The choice among candidates on few positives').
SELECTION_MIN_POSITIVES = 100


# Thin evidence (small data with fewer than SELECTION_MIN_POSITIVES training positives):
# a fold's stopping round rests on a dozen held-out positives.  Besides the reference
# (stopped on each fold's log-loss) the reference's trees are boosted as CatBoost's
# defaults boost them -- the round cap (n_estimators; "auto": 1000, CatBoost's
# iterations) without stopping, at a learning rate set from the number of rows, each
# leaf 10 damped Newton steps on every row, the random strength fading as the model
# grows (FIXED_OBLIVIOUS) -- and the
# selection keeps it where the out-of-fold rows show it better (SELECTION_CONFIDENCE):
# on the panel's near-separable sets (car-good, kr-vs-k) the fixed budget ranks as
# CatBoost does and stopping trails it, on its noisy sets (abalone, yeast) stopping
# leads, so neither replaces the other outright (docs/developer/measurements.rst).
# CatBoost 1.2's learning rate for 1000 rounds of log-loss (read from a fitted
# CatBoostClassifier's get_all_params() at 100 to 100,000 rows): a power of the number
# of rows, 0.003854 at 100, 0.010302 at 1000, 0.027538 at 10,000, 0.07361 at 100,000
FIXED_RATE_AT_1000_ROWS = 0.010302
FIXED_RATE_EXPONENT = 0.427
# ... the rounds that rate is CatBoost's for (its default iterations)
FIXED_RATE_ROUNDS = 1000
# the fixed budget's trees: CatBoost's leaf estimation (10 Newton steps, every row)
# and its random-strength schedule; its L2 penalty 3 (its steps walk towards each
# leaf's optimum, so the penalty only damps them)
FIXED_OBLIVIOUS = {"leaves": "all", "leaf_iterations": 10, "strength_decay": True,
                   "l2_leaf_reg": 3.0}


def fixed_learning_rate(n_rows):
    """The learning rate of the fixed budget on ``n_rows`` training rows:
    ``FIXED_RATE_AT_1000_ROWS * (n_rows / 1000) ** FIXED_RATE_EXPONENT`` (CatBoost's
    rule for 1000 rounds, measured), at most 0.5."""
    return min(0.5, FIXED_RATE_AT_1000_ROWS * (n_rows / 1000.0) ** FIXED_RATE_EXPONENT)


def thin_evidence(loss, shape, n_pos):
    """Whether ``loss="auto"`` boosts the thin-evidence pool (the reference and its
    fixed budget, :func:`fixed_reference`): small data (:func:`is_small`) with fewer
    than ``SELECTION_MIN_POSITIVES`` positives."""
    return (loss == "auto" and is_small(shape) and n_pos is not None
            and n_pos < SELECTION_MIN_POSITIVES)


def fixed_reference(n_rows):
    """The reference's trees boosted for a fixed budget on ``n_rows`` training rows
    (``"logloss-fixed"``: CatBoost's defaults, :data:`FIXED_OBLIVIOUS`, at
    :func:`fixed_learning_rate`, no stopping)."""
    reference = SMALL_DATA[0]
    return Candidate("logloss-fixed", reference.loss, "fixed",
                     dict(reference.config, **FIXED_OBLIVIOUS,
                          learning_rate=fixed_learning_rate(n_rows)),
                     reference.engine)


def is_small(shape):
    """Whether data of ``shape = (n_rows, n_features)`` take the small-data candidates."""
    return (shape is not None and shape[1] <= OBLIVIOUS_MAX_FEATURES
            and shape[0] * shape[1] <= OBLIVIOUS_MAX_CELLS)


def candidates(loss, shape=None, n_pos=None):
    """The candidates boosted for the estimator's ``loss`` on data of ``shape``
    (None: large) with ``n_pos`` positives (None: many); the first is the
    reference of the selection.  ``"auto"``: ``SMALL_DATA`` or ``LARGE_DATA``
    (module docstring); below ``SELECTION_MIN_POSITIVES`` positives the reference
    alone, on small data with its fixed budget (:func:`thin_evidence`).  A named
    loss: that loss alone on LightGBM (or XGBoost), base configuration (log-loss
    stopped on its log-loss)."""
    if loss == "auto":
        if thin_evidence(loss, shape, n_pos):
            return SMALL_DATA[:1] + (fixed_reference(shape[0]),)
        pool = SMALL_DATA if is_small(shape) else LARGE_DATA
        return pool[:1] if n_pos is not None and n_pos < SELECTION_MIN_POSITIVES else pool
    # a window loss stops on the window criterion, the pointwise log-loss on itself
    return (Candidate(loss, loss, "window" if loss_row(loss).window else "logloss"),)
