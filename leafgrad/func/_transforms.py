"""The transforms of ``leafgrad.func``: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian.

A reverse-mode transform runs ``func`` on its own copies of the differentiated arguments
(``_Level``): a detached leaf for an argument that does not require grad, a view for one
that does (so the caller's graph continues through it). After differentiating, every result
is *unwrapped*: it keeps its graph only if that graph reaches a tensor from outside the
transform (an argument that requires grad, a captured parameter) and grad mode was on when
the transform was called; otherwise it is detached. That is what makes the transforms
compose: inside ``grad(grad(f))`` the inner transform sees the outer one's leaf as an
outside tensor and keeps the graph the outer one differentiates, and the outer one then
drops it. Tangents of enclosing forward-mode transforms survive both the copy and the
unwrapping, so ``jacfwd(jacrev(f))`` (forward over reverse) works.
"""

from __future__ import annotations

import functools
import itertools

from .._batched import STATE as _VMAP
from .._batched import levels_of, physical, requires_grad_leaf, with_levels
from .._engine.entry import grad as _autograd_grad
from .._engine.grad_mode import enable_grad, is_grad_enabled
from .._tensor import Tensor, _zeros_like
from ..autograd import forward_ad as fwAD
from ..autograd._functional_vectorized import _unpack
from ._pytree import spec_str, tree_flatten, tree_map, tree_unflatten

# ----- argument checking -----


def _check_argnums(argnums, num_args: int) -> tuple[int, ...]:
    """The positions selected by ``argnums`` (an int or a non-empty tuple of unique ints)."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        positions = (argnums,)
    elif isinstance(argnums, tuple) and all(
        isinstance(a, int) and not isinstance(a, bool) for a in argnums
    ):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        positions = argnums
    else:
        raise RuntimeError(
            f"argnums must be an int or a tuple of ints, got {type(argnums).__name__}"
        )
    out = []
    for a in positions:
        if not -num_args <= a < num_args:
            raise RuntimeError(
                f"argnums={a} is out of range: the function was called with {num_args} "
                "positional argument(s)"
            )
        out.append(a % num_args)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(out)


def _check_leaf(x) -> Tensor:
    if not isinstance(x, Tensor):
        raise ValueError(
            f"leafgrad.func transforms differentiate with respect to Tensors only; got a "
            f"{type(x).__name__} among the differentiated arguments (pass it through a "
            "closure or another argnum instead)"
        )
    return x


def _split_aux(output, has_aux: bool, caller: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{caller}: with has_aux=True the function must return a tuple (output, aux), "
            f"got {type(output).__name__}"
            + (f" of length {len(output)}" if isinstance(output, tuple) else "")
        )
    return output[0], _check_aux(output[1], caller)


def _tensor_leaves(tree, caller: str, what: str = "outputs") -> tuple[list, object]:
    leaves, spec = tree_flatten(tree)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(
                f"{caller}: expected the function's {what} to contain only Tensors, got a "
                f"{type(x).__name__}"
            )
    return leaves, spec


def _output_leaves(output, caller: str) -> tuple[list, object]:
    """vjp's and jvp's outputs: at least one Tensor (RuntimeError for none, or only None, as
    PyTorch's), and only Tensors."""
    leaves, _ = tree_flatten(output)
    if not leaves or (len(leaves) == 1 and leaves[0] is None):
        raise RuntimeError(
            f"{caller}: expected f to be a function that has non-empty output (got output = "
            f"{leaves}); return at least one Tensor"
        )
    return _tensor_leaves(output, caller)


def _check_aux(aux, caller: str):
    leaves, _ = tree_flatten(aux)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{caller}: aux must contain only Tensors, got a {type(x).__name__}")
    return aux


def _detach_keeping_tangents(t: Tensor) -> Tensor:
    """``t.detach()`` that keeps the tangents of enclosing forward-mode transforms."""
    out = t.detach()
    if t._tangents:
        out._tangents = dict(t._tangents)
    return out


# ----- one application of a reverse-mode transform -----

_level_ids = itertools.count()


class _Level:
    """The transform's own copies of its arguments, and the unwrapping of its results."""

    def __init__(self) -> None:
        self.outer_grad = is_grad_enabled()
        # Levels are numbered as made: those made after this one, while it runs, are nested
        # in it. Each copy a level makes carries the level's number.
        self.id = next(_level_ids)

    def wrap(self, x: Tensor) -> Tensor:
        """A new Tensor object for argument ``x`` that requires grad (call under enable_grad).

        Under vmap the copy is batched at every active level, so that its gradient is the
        per-example gradient even where ``x`` itself is the same for every example; not at
        jacfwd's levels, which batch tangents only (no primal, so no gradient, depends on them).
        """
        _check_leaf(x)
        if _VMAP.active:
            own = set(levels_of(x))
            levels = [lv.level for lv in _VMAP.active if not lv.tangent_only or lv.level in own]
            x = with_levels(x, tuple(reversed(levels)))
        if x.requires_grad:
            return x.view_as(x)  # a new object that stays in the caller's graph
        leaf = requires_grad_leaf(_detach_keeping_tangents(x))
        physical(leaf)._transform_leaf = self.id  # see reaches_outside
        return leaf

    def reaches_outside(self, t: Tensor) -> bool:
        """Whether ``t``'s graph leads to a leaf that requires grad and is not this level's."""
        if not t.requires_grad:
            return False
        if t.grad_fn is None:
            return self._outside(physical(t))
        stack, seen = [t.grad_fn], set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if hasattr(node, "variable"):  # a leaf's AccumulateGrad
                if self._outside(node.variable):
                    return True
                continue
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return False

    def _outside(self, leaf: Tensor) -> bool:
        """Whether a leaf is outside this level: the caller's, or an enclosing level's copy.
        This level's copies are not, nor those of a transform nested in it (made for an
        argument that did not require grad: nothing outside is behind them)."""
        return getattr(leaf, "_transform_leaf", -1) < self.id

    def unwrap(self, t, grad_enabled: bool | None = None):
        """``t`` with its graph if that graph is the caller's business, else detached."""
        if not isinstance(t, Tensor) or not t.requires_grad:
            return t
        enabled = self.outer_grad if grad_enabled is None else grad_enabled
        if enabled and self.reaches_outside(t):
            return t
        out = _detach_keeping_tangents(t)
        if out._tangents:  # a tangent computed here is unwrapped too (PyTorch's are)
            for lv, tangent in out._tangents.items():
                if tangent.requires_grad and not (enabled and self.reaches_outside(tangent)):
                    out._tangents[lv] = tangent.detach()
        return out

    def gradients(self, outputs, seeds, inputs, create_graph: bool) -> list:
        """d(outputs)/d(inputs) contracted with ``seeds``; zeros where nothing flows."""
        pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
        if not pairs:
            return [_zeros_like(x) for x in inputs]
        grads = _autograd_grad(
            tuple(o for o, _ in pairs),
            tuple(inputs),
            tuple(s for _, s in pairs),
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
        return [_zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _wrap_args(level: _Level, args: tuple, positions: tuple) -> tuple[list, list, list]:
    """Arguments with the selected ones replaced by the level's copies; the copies' leaves
    (flat) and, per selected argument, its spec and how many leaves it has."""
    new_args = list(args)
    flat, specs = [], []
    for p in positions:
        leaves, spec = tree_flatten(args[p])
        wrapped = [level.wrap(_check_leaf(x)) for x in leaves]
        new_args[p] = tree_unflatten(wrapped, spec)
        flat.extend(wrapped)
        specs.append((spec, len(wrapped)))
    return new_args, flat, specs


def _per_argument(flat: list, specs: list, argnums) -> object:
    """Flat per-leaf results regrouped like the selected arguments (a tuple for tuple argnums)."""
    grouped, start = [], 0
    for spec, n in specs:
        grouped.append(tree_unflatten(flat[start : start + n], spec))
        start += n
    return grouped[0] if isinstance(argnums, int) else tuple(grouped)


# ----- grad, grad_and_value, vjp -----


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``func`` -> a function returning ``(gradient, value)`` (``(gradient, (value, aux))``
    with ``has_aux``) of a ``func`` that returns a 0-dim Tensor.

    The gradient has the structure of ``args[argnums]`` (a tuple of those for tuple
    ``argnums``); keyword arguments are passed through undifferentiated.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        caller = "grad_and_value(f)(*args)"
        level = _Level()
        positions = _check_argnums(argnums, len(args))
        with enable_grad():
            new_args, inputs, specs = _wrap_args(level, args, positions)
            output, aux = _split_aux(func(*new_args, **kwargs), has_aux, caller)
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"{caller}: expected f(*args) to return a Tensor, got {type(output).__name__}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    f"{caller}: expected f(*args) to return a scalar (0-dim) Tensor, got "
                    f"shape {list(output.shape)}; reduce it (e.g. .sum()) or use vjp or jacrev"
                )
            create_graph = level.outer_grad and level.reaches_outside(output)
            grads = level.gradients([output], [None], inputs, create_graph)
        grads = [level.unwrap(g) for g in grads]
        result = _per_argument(grads, specs, argnums)
        value = level.unwrap(output)
        if has_aux:
            return result, (value, tree_map(level.unwrap, aux))
        return result, value

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """``func`` -> its gradient function (``(gradient, aux)`` with ``has_aux``); ``func`` must
    return a 0-dim Tensor. Composes: ``grad(grad(f))`` is the second derivative."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = inner(*args, **kwargs)
        if has_aux:
            return gradient, value[1]
        return gradient

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)`` (and ``aux`` with ``has_aux``).

    ``vjp_fn(cotangents)`` takes cotangents with the structure and shapes of the output and
    returns a tuple with one gradient per primal (each with that primal's structure). It may
    be called many times.
    """
    caller = "vjp(f, *primals)"
    level = _Level()
    with enable_grad():
        new_args, inputs, specs = _wrap_args(level, primals, tuple(range(len(primals))))
        output, aux = _split_aux(func(*new_args), has_aux, caller)
        out_leaves, out_spec = _output_leaves(output, caller)
        for o in out_leaves:
            if not o.is_floating_point():
                raise RuntimeError(
                    "vjp(f, ...): all outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {o.dtype}"
                )
        reaches = any(level.reaches_outside(o) for o in out_leaves)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "vjp_fn: the cotangents must have the structure of the function's output; "
                f"cotangents: {spec_str(ct_spec)}, output: {spec_str(out_spec)}"
            )
        seeds = []
        for i, (ct, out) in enumerate(zip(ct_leaves, out_leaves)):
            if not isinstance(ct, Tensor):
                raise RuntimeError(
                    f"vjp_fn: cotangent {i} must be a Tensor, got {type(ct).__name__}"
                )
            if ct.shape != out.shape:
                raise RuntimeError(
                    f"vjp_fn: cotangent {i} has shape {list(ct.shape)} but output {i} has "
                    f"shape {list(out.shape)}"
                )
            seeds.append(ct if ct.dtype == out.dtype else ct.to(out.dtype))
        enabled = is_grad_enabled()
        if create_graph is None:
            create_graph = enabled and (reaches or any(s.requires_grad for s in seeds))
        with enable_grad():
            grads = level.gradients(out_leaves, seeds, inputs, create_graph)
        grads = [level.unwrap(g, enabled) for g in grads]
        start, result = 0, []
        for spec, n in specs:
            result.append(tree_unflatten(grads[start : start + n], spec))
            start += n
        return tuple(result)

    out = tree_map(level.unwrap, output)
    if has_aux:
        return out, vjp_fn, tree_map(level.unwrap, aux)
    return out, vjp_fn


# ----- jvp (forward mode) -----


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)`` by forward-mode AD (and ``aux`` with ``has_aux``).

    ``primals`` is a tuple of arguments (pytrees of Tensors); ``tangents`` has exactly the same
    structure and shapes. Outputs that do not depend on the primals get zero tangents.
    """
    caller = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{caller}: primals must be a tuple, so that f(*primals) is a valid call; got "
            f"{type(primals).__name__}"
        )
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{caller}: primals and tangents must have the same structure; primals: "
            f"{spec_str(p_spec)}, tangents: {spec_str(t_spec)}"
        )
    if not p_leaves:
        raise RuntimeError(f"{caller}: primals must contain at least one Tensor")
    for what, leaves in (("primals", p_leaves), ("tangents", t_leaves)):
        for x in leaves:
            if not isinstance(x, Tensor):
                raise RuntimeError(
                    f"{caller}: {what} must contain only Tensors, got a {type(x).__name__}"
                )
    with fwAD.dual_level() as level:
        duals = []
        for p, t in zip(p_leaves, t_leaves):
            # (an integer tangent is make_dual's ValueError, as in PyTorch, not converted)
            if t.dtype != p.dtype and t.shape == p.shape and t.is_floating_point():
                t = t.to(p.dtype)
            duals.append(fwAD.make_dual(p, t, level=level))
        output, aux = _split_aux(func(*tree_unflatten(duals, p_spec)), has_aux, caller)
        out_leaves, out_spec = _output_leaves(output, caller)
    unpacked = _unpack(out_leaves, level)
    aux_leaves, aux_spec = tree_flatten(aux)
    aux = tree_unflatten([p for p, _ in _unpack(aux_leaves, level)], aux_spec)
    primals_out = [p for p, _ in unpacked]
    tangents_out = [_zeros_like(p) if t is None else t for p, t in unpacked]
    result = (tree_unflatten(primals_out, out_spec), tree_unflatten(tangents_out, out_spec))
    return result + (aux,) if has_aux else result
