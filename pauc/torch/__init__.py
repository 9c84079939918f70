"""Window losses for deep networks (the optional extra ``pauc[torch]``).

:class:`WindowLoss` is pauc's partial-AUC surrogate of an FPR window
``[alpha, beta]`` as a ``torch.nn.Module`` on raw scores: any batch, any
sampler, any device, several processes; :class:`NegativeMemory` places the
window on more negatives than one batch holds.  :mod:`pauc.torch.functional`
holds the same loss as a function, :func:`pauc.torch.functional.window_loss`
(the module's ``forward`` calls it), as ``torch.nn.functional`` does for
torch's losses.  ``import pauc`` never imports torch; ``import pauc.torch``
does.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

from pauc.torch import functional
from pauc.torch._loss import WindowLoss
from pauc.torch._memory import NegativeMemory

__all__ = ["WindowLoss", "NegativeMemory", "functional"]
