"""gradcheck / gradgradcheck: analytical Jacobians against central finite differences."""

from __future__ import annotations

import warnings

import numpy as np

from .._creation import tensor as _tensor
from .._engine.entry import grad as _grad
from .._tensor import Tensor, _wrap


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians differ."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs) -> list:
    return [o for o in _as_tuple(outputs) if isinstance(o, Tensor) and o._requires_grad]


def _numerical_jacobian(func, inputs, wrt, eps) -> list:
    """J[i][j]: (numel(input wrt[i]), numel(output j)) by central differences."""
    # No no_grad() here: func may itself differentiate (gradgradcheck's vjp).
    outs = _outs(func, inputs)
    jac = []
    for i in wrt:
        x = inputs[i]
        flat = x._data.reshape(-1)  # a view: perturbing it perturbs the input in place
        blocks = [np.zeros((x._data.size, o._data.size)) for o in outs]
        for k in range(flat.size):
            orig = flat[k].item()
            flat[k] = orig + eps
            plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outs(func, inputs)]
            flat[k] = orig - eps
            minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outs(func, inputs)]
            flat[k] = orig
            for b, p, m in zip(blocks, plus, minus):
                b[k] = (p - m) / (2 * eps)
        jac.append(blocks)
    return jac


def _outs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _analytical_jacobian(func, inputs, wrt) -> list:
    outputs = _as_tuple(func(*inputs))
    tensors = [o for o in outputs if isinstance(o, Tensor)]
    jac = [[np.zeros((inputs[i]._data.size, o._data.size)) for o in tensors] for i in wrt]
    targets = [inputs[i] for i in wrt]
    for j, out in enumerate(tensors):
        if not out._requires_grad:
            continue
        for k in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[k] = 1
            grads = _grad(
                out,
                targets,
                _wrap(seed.reshape(out._data.shape)),
                retain_graph=True,
                allow_unused=True,
            )
            for i, g in enumerate(grads):
                if g is not None:
                    jac[i][j][:, k] = g._data.reshape(-1)
    return jac


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """True when ``func``'s backward matches central differences at ``inputs``.

    Inputs that require grad should be float64 (a UserWarning says so otherwise). On a
    mismatch raises GradcheckError (a RuntimeError) unless ``raise_exception=False``.
    """
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in wrt:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(
                f"gradcheck: input {i} requires grad but is {inputs[i].dtype}, not float64; "
                "finite differences in single precision are unreliable",
                UserWarning,
                stacklevel=2,
            )
    outputs = _as_tuple(func(*inputs))
    if not _differentiable_outputs(outputs):
        if raise_exception:
            raise GradcheckError("gradcheck: no output of func requires grad; nothing to check")
        return False
    analytical = _analytical_jacobian(func, inputs, wrt)
    numerical = _numerical_jacobian(func, inputs, wrt, eps)
    for a_blocks, n_blocks, i in zip(analytical, numerical, wrt):
        for j, (a, n) in enumerate(zip(a_blocks, n_blocks)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(
                        f"Jacobian mismatch for output {j} with respect to input {i}:\n"
                        f"numerical:\n{n}\nanalytical:\n{a}\n"
                        f"(eps={eps}, atol={atol}, rtol={rtol})"
                    )
                return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """gradcheck of the map (inputs, grad_outputs) -> vector-Jacobian product.

    Random float64 ``grad_outputs`` are drawn when not given.
    """
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _tensor(rng.standard_normal(o._data.shape).astype(o._data.dtype), requires_grad=True)
            for o in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]

    def vjp(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(func(*ins))
        grads = _grad(outs, [ins[i] for i in wrt], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        vjp,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
