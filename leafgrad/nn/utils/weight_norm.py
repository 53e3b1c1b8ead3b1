"""Legacy weight normalisation (``torch.nn.utils.weight_norm``): ``w = g * v / ||v||``.

The weight is replaced by parameters ``<name>_g`` (the norms) and ``<name>_v`` (the
direction) and recomputed by a forward pre-hook before every call.
"""

from __future__ import annotations

import warnings

from ... import Tensor
from ..module import Module
from ..parameter import Parameter

__all__ = ["norm_except_dim", "remove_weight_norm", "weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, kept broadcastable to ``v``
    (``dim=-1``: the norm of the whole tensor)."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(d for d in range(v.dim()) if d != dim)
    if not dims:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dim=dims, keepdim=True)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / ||v||)`` with the norm over every dimension but ``dim``."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        for hook in module.__dict__.get("_forward_pre_hooks", {}).values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if not isinstance(weight, Parameter):
            raise TypeError(
                f"weight_norm: '{name}' of {type(module).__name__} is not a Parameter "
                f"(got {type(weight).__name__}); weight normalisation needs a parameter"
            )
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrise ``module.<name>`` as ``g * v / ||v||`` (deprecated in PyTorch: warns)."""
    warnings.warn(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Turn ``module.<name>`` back into one parameter holding its current value."""
    hooks = module.__dict__.get("_forward_pre_hooks", {})
    for k, hook in list(hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
