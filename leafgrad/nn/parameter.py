"""Parameter: a leaf Tensor that a Module registers when it is assigned as an attribute."""

from __future__ import annotations

from .. import Tensor, empty


class Parameter(Tensor):
    """A Tensor that ``Module`` treats as one of its parameters.

    ``Parameter(data)`` shares ``data``'s values but is always a new leaf, requiring grad
    unless ``requires_grad=False`` (also under ``no_grad``). Ops on a Parameter return plain
    Tensors; only the Parameter itself is registered by a Module.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter: data must be a Tensor, got {type(data).__name__}; wrap it first, "
                "e.g. nn.Parameter(torch.tensor(data))"
            )
        param = object.__new__(cls)
        param.data = data  # shares the values; a fresh leaf with no history
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__; Tensor.__init__ would replace the data

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)
