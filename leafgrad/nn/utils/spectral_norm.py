"""Legacy spectral normalisation (``torch.nn.utils.spectral_norm``): ``w = w_orig / sigma``.

The weight becomes the parameter ``<name>_orig`` with buffers ``<name>_u``/``<name>_v``; a
forward pre-hook recomputes ``<name>``, advancing the power iteration in training mode.
"""

from __future__ import annotations

from ... import Tensor, dot, no_grad
from .._normalization_functions import normalize
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets ``<name>`` to ``<name>_orig / sigma``."""

    _version = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``weight`` as a matrix with dim ``self.dim`` as its rows."""
        if self.dim != 0:
            rest = [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(self.dim, *rest)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                # In place: the buffers keep their identity, as PyTorch's out= does.
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(weight_mat.t().matmul(u), dim=0, eps=self.eps))
                    u.copy_(normalize(weight_mat.matmul(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        sigma = dot(u, weight_mat.matmul(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float):
        for hook in module.__dict__.get("_forward_pre_hooks", {}).values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = normalize(weight.new_empty((h,)).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty((w,)).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by ``n_power_iterations``
    power-iteration steps per training forward; ``dim`` defaults to 0 (1 for transposed
    convolutions)."""
    if dim is None:
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Turn ``module.<name>`` back into one parameter holding its current normalised value."""
    hooks = module.__dict__.get("_forward_pre_hooks", {})
    for key, hook in list(hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
