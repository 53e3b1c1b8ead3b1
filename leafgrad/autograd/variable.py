"""``torch.autograd.Variable``: PyTorch's deprecated alias, which now makes plain tensors."""

from __future__ import annotations

from .._creation import tensor
from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor)  # every tensor is a Variable, as in PyTorch


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a leaf sharing ``data``'s values."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
