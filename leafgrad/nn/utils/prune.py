"""``torch.nn.utils.prune``: zero out entries of a module's tensors through a mask.

Pruning ``name`` moves the parameter to ``<name>_orig``, keeps the mask as the buffer
``<name>_mask`` and makes ``<name>`` a plain attribute, ``mask * <name>_orig``, recomputed
before every call by the pruning method itself, registered as a forward pre-hook. Pruning the
same tensor again turns that hook into a ``PruningContainer`` whose masks combine; ``remove``
makes the pruned values the parameter again. The random methods draw what PyTorch's draw
(``rand_like`` / ``rand`` on the same stream), so a seeded run prunes the same entries.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import kthvalue, norm, ones_like, rand, rand_like, topk, zeros_like
from ..._memory_format import contiguous_format
from ..._tensor import Tensor
from ..module import Module
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured",
    "PruningContainer", "RandomStructured", "RandomUnstructured", "custom_from_mask",
    "global_unstructured", "identity", "is_pruned", "l1_unstructured", "ln_structured",
    "random_structured", "random_unstructured", "remove",
]  # fmt: skip


class BasePruningMethod(ABC):
    """A way of computing a mask; applied to a module, also the hook that re-applies it."""

    _tensor_name: str

    def __call__(self, module: Module, inputs) -> None:
        """Forward pre-hook: refresh ``module.<name>`` from its original and mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t``, pruning further what ``default_mask`` already prunes."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_mask * <name>_orig`` (in the graph: gradients reach the original)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, on top of earlier pruning."""
        method = _composite_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        scores = _checked_scores(importance_scores, orig, f"parameter {name} of {module}")
        first = not isinstance(method, PruningContainer)
        if first:
            _reparametrize(module, name, orig)
            default_mask = ones_like(orig)
        else:
            # The container prunes on top of the mask in use, which stays in place if it fails.
            mask = getattr(module, name + "_mask")
            default_mask = mask.detach().clone(memory_format=contiguous_format)
        try:
            module.register_buffer(name + "_mask", method.compute_mask(scores, default_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                _restore(module, name)
            raise
        return method

    def prune(self, t: Tensor, default_mask=None, importance_scores=None) -> Tensor:
        """``t`` with this method's mask applied (no module involved)."""
        scores = _checked_scores(importance_scores, t, "tensor t")
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a parameter holding the pruned values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        # The original Parameter object stays (optimizers hold it), with the pruned values.
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _checked_scores(scores, like: Tensor, what: str) -> Tensor:
    """The importance scores to rank by: ``like`` itself unless given, then of its shape."""
    if scores is None:
        return like
    if scores.shape != like.shape:
        raise AssertionError(
            f"importance_scores should have the same shape as {what}, "
            f"got {scores.shape} vs {like.shape}"
        )
    return scores


def _composite_method(cls, module: Module, name: str, args, kwargs) -> BasePruningMethod:
    """The new method, or the container holding the earlier hook on ``name`` and it; the
    earlier hook leaves the module (``apply`` registers the result)."""
    hooks = module._forward_pre_hooks
    found = [k for k, h in hooks.items() if _prunes(h, name)]
    if len(found) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    old = hooks.pop(found[0]) if found else None
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    container = PruningContainer(old)
    container.add_pruning_method(method)
    return container


def _prunes(hook, name: str) -> bool:
    """Whether the pre-hook ``hook`` is a pruning method acting on ``name``."""
    return isinstance(hook, BasePruningMethod) and hook._tensor_name == name


def _reparametrize(module: Module, name: str, orig) -> None:
    """Move the parameter ``name`` to ``<name>_orig`` (state_dict order as PyTorch's)."""
    module.register_parameter(name + "_orig", orig)
    del module._parameters[name]


def _restore(module: Module, name: str) -> None:
    """Undo ``_reparametrize`` after a failed first pruning."""
    module.register_parameter(name, getattr(module, name + "_orig"))
    del module._parameters[name + "_orig"]


class PruningContainer(BasePruningMethod):
    """The pruning history of one tensor: each new method prunes what the earlier ones kept."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:  # wrapping one applied method: it names the tensor
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method`` (which must act on the same tensor) to the history."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. "
                f"Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` with the latest method's mask written over the part it may prune."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        where = _unpruned_part(method, t, default_mask)
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _unpruned_part(method: BasePruningMethod, t: Tensor, mask: Tensor):
    """The index of what ``method`` still prunes from: the kept entries (unstructured), the
    kept channels along its ``dim`` (structured), or everything (global)."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "structured":
        if not hasattr(method, "dim"):
            raise AttributeError(
                'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                "`dim` defined."
            )
        n_dims = t.dim()
        dim = method.dim + n_dims if method.dim < 0 else method.dim
        if dim < 0:
            raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
        # A channel is kept while any of its entries is.
        keep = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
        return tuple(keep if d == dim else slice(None) for d in range(n_dims))
    if kind == "global":
        return (slice(None),) * len(t.shape)
    raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a module that looks pruned)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str):
        """Reparametrize ``module.<name>`` with an all-ones mask."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count or a fraction) chosen uniformly at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if k != 0:  # no draw when nothing is pruned, as PyTorch: the stream stays in step
            scores = rand_like(t)
            mask.view(-1)[topk(scores.view(-1), k=k).indices] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount):
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if k != 0:
            mask.view(-1)[topk(t.abs().view(-1), k=k, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, importance_scores=None):
        """Prune the ``amount`` smallest entries of ``module.<name>`` (or of the scores)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Keep the channels whose random draw is above the ``amount``-th smallest."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _checked_count(self.amount, channels)
        if k == 0:
            return default_mask
        draws = rand(channels)
        keep = draws > kthvalue(draws, k=k).values
        mask = _channel_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, dim: int = -1):
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Keep the channels of largest ``n``-norm."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        k = _checked_count(self.amount, channels)
        # PyTorch ranks the norms even when nothing is pruned; so do we (same errors).
        kept = topk(_compute_norm(t, self.n, self.dim), k=channels - k, largest=True).indices
        if k == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, kept)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount, n, dim: int, importance_scores=None):
        """Prune the ``amount`` channels of ``module.<name>`` of smallest ``n``-norm."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


def _channel_mask(t: Tensor, dim: int, kept) -> Tensor:
    """Zeros like ``t`` with ones in the channels ``kept`` (a bool mask or indices) of ``dim``."""
    mask = zeros_like(t)
    mask[tuple(kept if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match "
                f"self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor):
        """Prune ``module.<name>`` where ``mask`` is zero."""
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    """Reparametrize ``module.<name>`` with an all-ones mask; returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount) -> Module:
    """Prune ``amount`` random entries of ``module.<name>``; returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount, importance_scores=None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of least magnitude; returns it."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount, dim: int) -> Module:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns it."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount, n, dim: int, importance_scores=None):
    """Prune the ``amount`` channels of ``module.<name>`` of least ``n``-norm; returns it."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune ``(module, name)`` pairs as one tensor with an unstructured method, each pair
    then masked by its slice of the common mask (``CustomFromMask``)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    # (A generator is consumed here, as in PyTorch, which then prunes nothing.)
    scores = parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)) for m, n in parameters]
    )
    default_mask = parameters_to_vector(
        [getattr(m, n + "_mask", ones_like(getattr(m, n))) for m, n in parameters]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
            f"Found method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + size].view_as(param))
        start += size


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` where ``mask`` is zero; returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent and drop its hook; returns the module."""
    hooks = module._forward_pre_hooks
    for k, hook in hooks.items():
        if _prunes(hook, name):
            hook.remove(module)
            del hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any descendant has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )


def _validate_pruning_amount_init(amount) -> None:
    """An amount is a non-negative integer count or a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    """A count can be at most the number of entries (or channels) there are."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t: Tensor) -> None:
    """Structured pruning needs channels: at least two dimensions."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    """A count as is; a fraction of ``tensor_size``, rounded half to even as Python's round."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _checked_count(amount, tensor_size: int) -> int:
    """How many of ``tensor_size`` to prune, refused when more than there are."""
    k = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(k, tensor_size)
    return k


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    """``dim`` must name a dimension of ``t`` (negative ones are checked later, by indexing)."""
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n, dim: int) -> Tensor:
    """The ``n``-norm of each channel of ``t`` along ``dim`` (over every other dimension)."""
    dim = dim + t.dim() if dim < 0 else dim
    return norm(t, p=n, dim=[d for d in range(t.dim()) if d != dim])
