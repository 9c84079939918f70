"""The loss table's Cython kernels as an autograd function (CPU tensors).

On the CPU, one call of a row's ``derivatives`` kernel (:mod:`pauc._loss._window`,
the boosting objectives' own code) gives the window loss and its gradient in
the scores in one pass, O(b log b); the torch forms of
:mod:`pauc.torch._pairwise` cost some forty small tensor operations forward
and backward, which on a small network weigh as much as the network's step.
The value and gradient are the same (the tests check both forms against the
brute force).

The kernel reads the scores' own memory (``tensor.numpy()``, no copy) and the
labels as the ``uint8`` flags that the loss's checks already made;
the only allocation per call is the gradient that the backward pass keeps.
The squared hinge runs :func:`pauc._loss._window.squared_hinge_gradient`, the
table kernel's window and walk in one C pass without the Hessian: on a
training step's batch the numpy calls of the boosting kernel (selections, a
sort, allocations) cost several times its arithmetic.  On the default path
(squared hinge, common label dtypes, no ``bce_weight``) the loss does not use
:class:`TableKernel` at all: one call of
:func:`pauc._loss._window.squared_hinge_batch` checks the batch and gives the
value and gradient, which :func:`known_gradient` hands to autograd.
"""

import math

import numpy as np
import torch

from pauc._loss._window import squared_hinge_gradient

_FLOAT32_MAX = float(np.finfo(np.float32).max)

#: rows whose kernel has a gradient-only form (same value and gradient, no Hessian)
GRADIENT_ONLY = {"squared_hinge": squared_hinge_gradient}


class TableKernel(torch.autograd.Function):
    """``TableKernel.apply(scores, values, flags, row, n_pos, j_alpha, j_beta, hess)``:
    the window loss of the table ``row`` at CPU ``scores`` (float32/float64),
    differentiable in them.  ``values`` is ``scores``' C-contiguous numpy view,
    ``flags`` the ``uint8`` positive flags (``n_pos`` of them set), ``hess`` a
    float64 scratch array of the batch's length for the kernel's Hessian
    diagonal, which the loss does not use."""

    @staticmethod
    def forward(ctx, scores, values, flags, row, n_pos, j_alpha, j_beta, hess):
        grad = np.zeros(values.shape[0])
        gradient_only = GRADIENT_ONLY.get(row.name)
        if gradient_only is not None:
            value = gradient_only(values, flags, n_pos, j_alpha, j_beta, grad)
        else:
            value = row.derivatives(values, flags, n_pos, j_alpha, j_beta, grad, hess)
        if values.dtype == np.float32:
            # the rounding of ``.to(torch.float32)``: beyond float32's range, inf
            with np.errstate(over="ignore"):
                grad = grad.astype(np.float32)
            if abs(value) > _FLOAT32_MAX:
                # torch refuses to convert such a float ("cannot be converted to type
                # float without overflow"); the torch forms give inf, so does this
                value = math.copysign(math.inf, value)
        ctx.grad = torch.from_numpy(grad)    # a constant of the step, not a tensor input
        return torch.scalar_tensor(value, dtype=scores.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        first_order_only()
        return grad_output * ctx.grad, None, None, None, None, None, None, None


#: why a backward pass with ``create_graph=True`` stops at the kernel paths
SECOND_ORDER = (
    "WindowLoss's CPU kernels give first derivatives only (the gradient is computed in C, "
    "a constant of the step), so backward(create_graph=True) cannot differentiate it "
    "again.  For second derivatives (Hessian-vector products, MAML-style updates) run "
    "the loss under torch.func (torch.func.grad, torch.func.hessian, jvp of grad, with "
    "torch.func.functional_call for a module): there it uses its differentiable torch "
    "forms, whose second derivative is that of the pairwise sums with the window held "
    "fixed.")


def first_order_only(*_):
    """A backward pass that builds a graph (``create_graph=True``, grad mode on inside
    the backward) reached a kernel's gradient: refuse it clearly, rather than let
    autograd report an unconnected gradient or, through parameters, silently drop
    the loss's curvature."""
    if torch.is_grad_enabled():
        raise RuntimeError(SECOND_ORDER)


def known_gradient(scores, value, grad):
    """The scalar ``value`` (a float) in ``scores``' dtype, whose gradient in
    ``scores`` is the tensor ``grad``, both computed together
    (:func:`pauc._loss._window.squared_hinge_batch`).

    The dot product ``<scores, grad>`` has the gradient ``grad``; its value is
    then overwritten with ``value`` through a detached view (the dot's backward
    reads its inputs, never its output).  Two native operations with a native
    backward: on a small network's training step a Python
    ``autograd.Function`` (its context, its backward call) cost about a tenth
    of the step.  It has no second derivative: a backward pass with
    ``create_graph=True`` raises :data:`SECOND_ORDER` (a hook on the dot's node,
    some microseconds per step)."""
    out = torch.dot(scores, grad)
    try:
        out.detach().fill_(value)
    except RuntimeError:             # a loss beyond float32's range: inf, as torch gives
        out.detach().fill_(math.inf)
    if out.grad_fn is not None:
        out.grad_fn.register_prehook(first_order_only)
    return out
