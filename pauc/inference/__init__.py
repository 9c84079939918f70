"""Inference on ROC areas: what :mod:`pauc.metrics` offers beyond the point estimates.

The public face is :mod:`pauc.metrics` (same names); the work is done here:

* confidence intervals and paired tests of the AUC and the partial AUC
  (:mod:`._intervals`: DeLong's variance :mod:`._delong`, the stratified
  bootstrap :mod:`._resampling` with its kernels ``_bootstrap.pyx``);
* clustered rows (:mod:`._clusters`, Obuchowski's variance :mod:`._obuchowski`,
  the cluster bootstrap ``_cluster_bootstrap.pyx``);
* many rankers at once (:mod:`._many_rankers`) with adjusted p-values
  (:mod:`._p_adjust`); Venkatraman's test of two curves (:mod:`._venkatraman`);
* the TPR at a false-positive rate (:mod:`._tpr_interval`); power and sample
  size (:mod:`._power`);
* multi-reader multi-case studies (:mod:`._reader_study`, left-one-out
  figures of merit :mod:`._leave_one_out` and their kernels
  ``_reader_kernels.pyx``).
"""
