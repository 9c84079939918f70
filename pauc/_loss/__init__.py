"""The one loss layer: the Cython kernels of every window loss and surrogate, and
the table that says what each can do.

* :mod:`pauc._loss._structural` -- the structural SVM's most-violated-constraint
  searches (Algorithms 2 and 3 of Narasimhan & Agarwal, Joachims' AUC search);
* :mod:`pauc._loss._window` -- value, gradient and Hessian diagonal of the window
  losses and of the log-loss (boosting's hot loops);
* :mod:`pauc._loss._table` -- one row per loss with its capabilities (convex,
  Hessian, structural cut, chunkable, global, solver) and its calling protocol
  (curvature, normalisation), read by :mod:`pauc.objectives`,
  :mod:`pauc.surrogates`, :mod:`pauc.svm`, ``GradientBoostingRanker`` and
  :mod:`pauc.distributed`;
* :mod:`pauc._loss._bound` -- a row bound to the training labels and the window,
  ``gradient_hessian(scores, out=)``: boosting's one caller of the kernels.

At import this package loads, of pauc, three root modules and no family's package:
:mod:`pauc._validation` (:mod:`._bound`), :mod:`pauc._ranking` (imported and
cimported by the kernels) and :mod:`pauc._sort` (whose ``sort`` ``_window.pyx``
cimports: a cimported function loads its module when the kernel is imported), so
every family can import it without running another family's ``__init__``.  One
kernel of the table lives in a family that imports this one: the distributed
exponential loss's all-reduce (``pauc.distributed._global_window``), which the
table names by its path and imports when it is first called.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

from ._table import CAPABILITIES, LOSSES, Loss, loss_names, loss_row

__all__ = ["CAPABILITIES", "LOSSES", "Loss", "loss_names", "loss_row"]
