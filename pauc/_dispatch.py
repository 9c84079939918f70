"""Row-chunked input: recognised here, handled by :mod:`pauc.distributed`.

The in-memory code (the estimators of :mod:`pauc.svm`, :mod:`pauc.metrics`,
the public oracles) imports neither dask nor :mod:`pauc.distributed`.  Where
it accepts a dask array it has one branch::

    if is_chunked(X, y):
        return chunked("training_design")(X, y, ...)

:func:`is_chunked` answers without importing dask (no object can be a dask
array before dask is imported), and :func:`chunked` returns the function that
:mod:`pauc.distributed` registered under that name with :func:`register`,
importing :mod:`pauc.distributed` the first time one is asked for.  So the
imports point one way -- :mod:`pauc.distributed` imports the in-memory code,
never the reverse -- and ``import pauc`` stays free of dask.

The names, and the in-memory code that hands over under them:

====================  =====================================================
``training_design``   ``fit`` of the structural SVMs: a design over chunked
                      ``X`` and ``y`` (:class:`pauc.svm._design.Design`)
``linear_scores``     their ``decision_function``: lazy chunked ``X @ coef``
``oracle``            :mod:`pauc.svm.oracles` on chunked scores
``raw_area``          :mod:`pauc.metrics` on chunked scores and labels
``boosting_trainer``  ``GradientBoostingRanker.fit`` on dask arrays or
                      dataframes: the cluster's trainer of its plan
                      (``xgboost.dask`` on the global window)
``dask_schema``       a zero-row stand-in of dask ``X`` for scikit-learn's
                      checks of the features
``model_scores``      its ``decision_function`` on them: lazy dask scores
====================  =====================================================
"""

import importlib
import sys

__all__ = ["is_chunked", "is_dask_collection", "chunked", "register"]

# The package that registers the handlers (imported on first use).
_PROVIDER = "pauc.distributed"
_HANDLERS = {}


def is_chunked(*objects):
    """True if any of ``objects`` is a :class:`dask.array.Array` (dask is not imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and any(isinstance(obj, module.Array) for obj in objects)


def is_dask_collection(*objects):
    """True if any of ``objects`` is a dask dataframe or series (dask is not imported)."""
    module = sys.modules.get("dask.dataframe")
    return module is not None and any(isinstance(obj, (module.DataFrame, module.Series))
                                      for obj in objects)


def register(name, function):
    """Make ``function`` the handler of chunked input under ``name``."""
    _HANDLERS[name] = function


def chunked(name):
    """The handler registered under ``name`` (importing :mod:`pauc.distributed` once)."""
    if name not in _HANDLERS:
        importlib.import_module(_PROVIDER)
    return _HANDLERS[name]
