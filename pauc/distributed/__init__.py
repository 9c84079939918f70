"""Everything of pauc that knows Dask: fits, searches and metrics on row-chunked data.

Nothing in pauc imports this package: the in-memory code recognises a dask
array with :func:`pauc._dispatch.is_chunked` and hands the call to the
handler registered here (:mod:`pauc._dispatch`), which imports this package
the first time.  So ``import pauc`` needs no dask, and the imports point one
way, from here to the in-memory code.

* ``AUCSVM().fit(X, y)`` / ``PartialAUCSVM().fit(X, y)`` with ``X`` a dask
  array of row chunks: the estimator asks :func:`._svm_fit.training_design` for
  a *design* (:mod:`pauc.svm._design`) and runs the same solver, CCCP loop
  and threshold rule as in memory.  On a ``dask.distributed`` cluster the
  design keeps the chunks in actors, one per worker, one call per worker and
  iteration (:mod:`._actors`); otherwise each cut is a task graph
  (:mod:`._graphs`).  Both run the same per-chunk steps (:mod:`._chunks`),
  which call the in-memory Cython kernels, so the chunked fit equals the
  in-memory one up to the summation order of ``X.T @ coef``.
* ``decision_function`` / ``predict`` of a dask ``X``: lazy dask vectors.
* :func:`pauc.svm.auc_oracle` and :func:`pauc.svm.pauc_tight_oracle` on dask
  scores: the in-memory cut, ``coef`` as a persisted dask vector.
* :func:`pauc.metrics.roc_auc`, :func:`~pauc.metrics.partial_auc` and
  :func:`~pauc.metrics.two_way_partial_auc` on dask scores: the in-memory
  value, exactly (:mod:`._chunked_metrics`).

* ``GradientBoostingRanker(engine="xgboost").fit(X, y)`` with dask arrays or
  dataframes: ``xgboost.dask`` training whose window objective reduces
  across the workers with XGBoost's collective, every round on the exact
  global window (:mod:`._cluster_trainer`, :mod:`._xgboost_window`,
  :mod:`._global_window`, :mod:`._rank_selection`), stopped on the exact global
  validation pAUC.
* :func:`exact_metric`: the exact global AUC or window pAUC as a custom
  metric of plain ``xgboost.dask`` training (XGBoost's own distributed
  ``auc`` averages per-worker areas).

Forests and grid searches stay on joblib: ``joblib.parallel_backend("dask")``
moves them onto a cluster unchanged.
"""

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - dask is in the test extra
    raise ImportError("chunked (dask) input needs dask and distributed: "
                      "pip install 'pauc[dask]'") from exc

from .._dispatch import register
from ._cluster_trainer import ClusterTrainer, dask_schema, model_scores
from ._exact_metric import ExactMetric, exact_metric
from ._svm_fit import linear_scores, training_design
from ._graphs import oracle
from ._chunked_metrics import raw_area

__all__ = ["exact_metric", "ExactMetric"]

register("training_design", training_design)
register("linear_scores", linear_scores)
register("oracle", oracle)
register("raw_area", raw_area)
register("boosting_trainer", ClusterTrainer)
register("dask_schema", dask_schema)
register("model_scores", model_scores)
