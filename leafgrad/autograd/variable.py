"""``torch.autograd.Variable``: PyTorch's deprecated alias, which now makes plain tensors."""

from __future__ import annotations

from .._creation import tensor
from .._tensor import Tensor
from .._warn import warn_at_user


class _VariableMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor)  # every tensor is a Variable, as in PyTorch


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a leaf sharing ``data``'s values."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None):
        if _grad_fn is not None:
            raise RuntimeError(
                "_grad_fn argument to legacy Variable constructor is no longer supported. "
                "Call the Function (Function.apply) to get a tensor with it as its grad_fn."
            )
        if volatile:
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
            warn_at_user(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
            )
        if data is None:
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
