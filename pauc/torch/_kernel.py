"""The loss table's Cython kernels as an autograd function (CPU tensors).

On the CPU, one call of a row's ``derivatives`` kernel (:mod:`pauc._loss._window`,
the boosting objectives' own code) gives the window loss and its gradient in
the scores in one pass, O(b log b); the torch forms of
:mod:`pauc.torch._pairwise` cost some forty small tensor operations forward
and backward, which on a small network weigh as much as the network's step.
The value and gradient are the same (the tests check both forms against the
brute force).
"""

import numpy as np
import torch


class TableKernel(torch.autograd.Function):
    """``TableKernel.apply(scores, is_pos, row, n_pos, j_alpha, j_beta)``: the window
    loss of the table ``row`` at CPU ``scores`` (float32/float64, ``n_pos`` of them
    positive), differentiable in them."""

    @staticmethod
    def forward(ctx, scores, is_pos, row, n_pos, j_alpha, j_beta):
        values = scores.detach().contiguous().numpy()
        flags = np.ascontiguousarray(is_pos.numpy()).view(np.uint8)
        grad = np.zeros(values.shape[0])
        value = row.derivatives(values, flags, n_pos, j_alpha, j_beta, grad,
                                np.empty(values.shape[0]))   # the Hessian is not needed
        ctx.save_for_backward(torch.from_numpy(grad).to(scores.dtype))
        return torch.tensor(value, dtype=scores.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        return grad_output * grad, None, None, None, None, None
