"""gradcheck / gradgradcheck: analytical Jacobians against central finite differences."""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype
from .._engine.entry import grad as _grad
from .._tensor import Tensor, _wrap
from ..testing import make_tensor
from . import forward_ad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians differ."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs) -> list:
    return [o for o in _as_tuple(outputs) if isinstance(o, Tensor) and o._requires_grad]


def _numerical_jacobian(func, inputs, wrt, eps, outputs) -> list:
    """J[i][j]: (numel(input wrt[i]), numel(output j)) by central differences, for the
    output positions ``outputs``."""
    # No no_grad() here: func may itself differentiate (gradgradcheck's vjp).
    outs = _outs(func, inputs, outputs)
    jac = []
    for i in wrt:
        x = inputs[i]
        flat = x._data.reshape(-1)  # a view: perturbing it perturbs the input in place
        blocks = [np.zeros((x._data.size, o._data.size)) for o in outs]
        for k in range(flat.size):
            orig = flat[k].item()
            flat[k] = orig + eps
            plus = _flat_values(func, inputs, outputs)
            flat[k] = orig - eps
            minus = _flat_values(func, inputs, outputs)
            flat[k] = orig
            for b, p, m in zip(blocks, plus, minus):
                b[k] = (p - m) / (2 * eps)
        jac.append(blocks)
    return jac


def _outs(func, inputs, outputs) -> list:
    results = _as_tuple(func(*inputs))
    return [results[j] for j in outputs]


def _flat_values(func, inputs, outputs) -> list:
    return [o._data.astype(np.float64).reshape(-1).copy() for o in _outs(func, inputs, outputs)]


def _analytical_jacobian(func, inputs, wrt, outputs) -> list:
    """Reverse mode, one ``grad`` per output element: J[i][j] as ``_numerical_jacobian``."""
    tensors = _outs(func, inputs, outputs)
    jac = [[np.zeros((inputs[i]._data.size, o._data.size)) for o in tensors] for i in wrt]
    targets = [inputs[i] for i in wrt]
    for j, out in enumerate(tensors):
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


def _tangents_out(func, inputs, i, tangent, outputs) -> list:
    """Forward mode: the outputs' tangents (flat float64) when input ``i`` moves along
    ``tangent`` (an array of its shape)."""

    with forward_ad.dual_level():
        duals = list(inputs)
        x = inputs[i]
        duals[i] = forward_ad.make_dual(x, _wrap(tangent.astype(x._data.dtype)))
        outs = _outs(func, duals, outputs)
        result = []
        for o in outs:
            t = forward_ad.unpack_dual(o).tangent
            if t is None:
                result.append(np.zeros(o._data.size))
            else:
                result.append(t._data.astype(np.float64).reshape(-1).copy())
    return result


def _forward_jacobian(func, inputs, wrt, outputs) -> list:
    """Forward mode, one JVP per input element: J[i][j] as ``_numerical_jacobian``."""
    jac = []
    for i in wrt:
        x = inputs[i]
        blocks = None
        for k in range(x._data.size):
            tangent = np.zeros(x._data.size)
            tangent[k] = 1
            columns = _tangents_out(func, inputs, i, tangent.reshape(x._data.shape), outputs)
            if blocks is None:
                blocks = [np.zeros((x._data.size, c.size)) for c in columns]
            for b, c in zip(blocks, columns):
                b[k] = c
        jac.append(blocks or [])
    return jac


def _fast_checks(func, inputs, wrt, outputs, eps, check_forward_ad, check_backward_ad) -> list:
    """Fast mode: for random ``u`` (per output) and ``v`` (per input), ``u^T J v`` by finite
    differences and by each mode: ``[(mode, i, j, numerical, analytical)]``."""
    rng = np.random.default_rng(0)
    tensors = _outs(func, inputs, outputs)
    us = [rng.uniform(-1, 1, o._data.size) for o in tensors]
    vs = {i: rng.uniform(-1, 1, inputs[i]._data.size) for i in wrt}
    checks = []
    for i in wrt:
        x = inputs[i]
        flat = x._data.reshape(-1)
        orig = flat.copy()
        flat += eps * vs[i].astype(flat.dtype)
        plus = _flat_values(func, inputs, outputs)
        flat[...] = orig - eps * vs[i].astype(flat.dtype)
        minus = _flat_values(func, inputs, outputs)
        flat[...] = orig
        numerical = [float(u @ ((p - m) / (2 * eps))) for u, p, m in zip(us, plus, minus)]
        if check_backward_ad:
            for j, out in enumerate(tensors):
                seed = _wrap(us[j].astype(out._data.dtype).reshape(out._data.shape))
                (g,) = _grad(out, [x], seed, retain_graph=True, allow_unused=True)
                value = 0.0 if g is None else float(g._data.astype(np.float64).reshape(-1) @ vs[i])
                checks.append(("backward", i, j, numerical[j], value))
        if check_forward_ad:
            columns = _tangents_out(func, inputs, i, vs[i].reshape(x._data.shape), outputs)
            for j, c in enumerate(columns):
                checks.append(("forward", i, j, numerical[j], float(us[j] @ c)))
    return checks


def _reentrant(first, second, nondet_tol) -> bool:
    """Whether two analytical Jacobians agree within ``nondet_tol`` (absolute)."""
    return all(
        np.all(np.abs(np.asarray(a) - np.asarray(b)) <= nondet_tol)
        for blocks_a, blocks_b in zip(first, second)
        for a, b in zip(blocks_a, blocks_b)
    )


def _fail(raise_exception: bool, message: str) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


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
    """True when ``func``'s derivatives match central differences at ``inputs``.

    Reverse mode is checked unless ``check_backward_ad=False``; forward mode when
    ``check_forward_ad=True`` (at least one of them). ``fast_mode`` compares ``u^T J v``
    for random vectors instead of whole Jacobians. Outputs that do not require grad are
    skipped; when none does, the numerical Jacobian must be zero. Inputs that require grad
    should be float64 (a UserWarning says so otherwise). On a mismatch raises GradcheckError
    (a RuntimeError) unless ``raise_exception=False``.
    """
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "gradcheck: nothing to check; set check_backward_ad or check_forward_ad to True"
        )
    for i in wrt:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(
                f"gradcheck: input {i} requires grad but is {inputs[i].dtype}, not float64; "
                "finite differences in single precision are unreliable",
                UserWarning,
                stacklevel=2,
            )
    results = _as_tuple(func(*inputs))
    tensors = [j for j, o in enumerate(results) if isinstance(o, Tensor)]
    outputs = [j for j in tensors if results[j]._requires_grad]
    if not outputs:
        for blocks in _numerical_jacobian(func, inputs, wrt, eps, tensors):
            if any(np.any(np.abs(b) > atol) for b in blocks):
                return _fail(
                    raise_exception,
                    "Numerical gradient for function expected to be zero: no output "
                    "requires grad, but the outputs change with the inputs (gradcheck); make "
                    "the outputs differentiable, or constant in the inputs",
                )
        return True
    if fast_mode:
        checks = _fast_checks(func, inputs, wrt, outputs, eps, check_forward_ad, check_backward_ad)
        for mode, i, j, n, a in checks:
            if not np.isclose(a, n, rtol=rtol, atol=atol):
                return _fail(
                    raise_exception,
                    f"Jacobian ({mode} mode) mismatch for output {j} with respect to input {i} "
                    f"in fast mode (u^T J v for random u, v): numerical {n}, analytical {a} "
                    f"(eps={eps}, atol={atol}, rtol={rtol}); rerun with fast_mode=False to "
                    "see the whole Jacobians",
                )
        if check_batched_grad and check_backward_ad:
            problem = _batched_grad_problem(func, inputs, wrt, outputs, atol, rtol)
            if problem is not None:
                return _fail(raise_exception, problem)
        return True
    numerical = _numerical_jacobian(func, inputs, wrt, eps, outputs)
    analyticals = []
    if check_backward_ad:
        first = _analytical_jacobian(func, inputs, wrt, outputs)
        if not _reentrant(first, _analytical_jacobian(func, inputs, wrt, outputs), nondet_tol):
            # as PyTorch: the same backward twice must agree (within nondet_tol)
            return _fail(
                raise_exception,
                "gradcheck: Backward is not reentrant: two backward passes with the same "
                f"inputs and grad_outputs gave different gradients (nondet_tol={nondet_tol}); "
                "raise nondet_tol if the backward is nondeterministic on purpose",
            )
        analyticals.append(("", first))
    if check_forward_ad:
        analyticals.append((" (forward mode)", _forward_jacobian(func, inputs, wrt, outputs)))
    for mode, analytical in analyticals:
        for a_blocks, n_blocks, i in zip(analytical, numerical, wrt):
            for j, (a, n) in enumerate(zip(a_blocks, n_blocks)):
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    return _fail(
                        raise_exception,
                        f"Jacobian{mode} mismatch for output {outputs[j]} with respect to "
                        f"input {i}:\nnumerical:\n{n}\nanalytical:\n{a}\n"
                        f"(eps={eps}, atol={atol}, rtol={rtol})",
                    )
    if check_batched_grad and check_backward_ad:
        problem = _batched_grad_problem(func, inputs, wrt, outputs, atol, rtol)
        if problem is not None:
            return _fail(raise_exception, problem)
    return True


def _batched_grad_problem(func, inputs, wrt, outputs, atol, rtol) -> str | None:
    """What is wrong with gradients for a batch of grad_outputs (is_grads_batched=True, as
    vmap over autograd.grad) compared with one autograd.grad per grad_output; None if nothing."""
    results = _as_tuple(func(*inputs))
    outs = [results[j] for j in outputs]
    targets = [inputs[i] for i in wrt]
    rng = np.random.default_rng(0)
    batch = 2
    gos = [
        _wrap(rng.standard_normal((batch,) + tuple(o.shape)).astype(o._data.dtype)) for o in outs
    ]
    try:
        batched = _grad(
            outs, targets, gos, retain_graph=True, allow_unused=True, is_grads_batched=True
        )
    except RuntimeError as exc:
        return f"gradcheck: while computing batched gradients, got: {exc}"
    for b in range(batch):
        expected = _grad(outs, targets, [g[b] for g in gos], retain_graph=True, allow_unused=True)
        for i, got, want in zip(wrt, batched, expected):
            got = np.zeros(inputs[i].shape) if got is None else got[b].detach().numpy()
            want = np.zeros(inputs[i].shape) if want is None else want.detach().numpy()
            if not np.allclose(got, want, rtol=rtol, atol=atol):
                return (
                    f"gradcheck: for input {i}, the batched gradient (is_grads_batched=True) of "
                    f"example {b} does not match the unbatched one:\nbatched:\n{got}\n"
                    f"unbatched:\n{want}\nA batching rule of an op used by the function (or "
                    "a custom Function's backward) is likely wrong"
                )
    return None


def _random_grad_outputs(outputs, noncontiguous: bool) -> tuple:
    """PyTorch's draw of gradgradcheck's grad_outputs: ``make_tensor`` in [-1, 1) from the
    global generator (float64 for non-floating outputs), so a seeded script's later random
    values are PyTorch's too."""
    return tuple(
        make_tensor(
            o.shape,
            dtype=o.dtype if o.is_floating_point() else _dtype.float64,
            device=o.device,
            low=-1,
            high=1,
            requires_grad=True,
            noncontiguous=noncontiguous,
        )
        for o in outputs
    )


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

    Random ``grad_outputs`` are drawn as PyTorch draws them when not given.
    """
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        grad_outputs = _random_grad_outputs(outputs, gen_non_contig_grad_outputs)
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
        nondet_tol=nondet_tol,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
    )
