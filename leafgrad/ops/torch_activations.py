"""Activations PyTorch has as ``torch.X`` and ``Tensor.X`` too: ``hardshrink`` (the op in
``shrink``, after the checks) and ``prelu``.

``prelu`` is PyTorch's ``_prelu_kernel`` of the input and the weight viewed to broadcast
over it (``ops/prelu.py``).
"""

from __future__ import annotations

from .._exposure import exports, public
from .._tensor import Tensor
from . import prelu as _prelu
from . import shrink
from ._inputs import same_dtype

_KINDS = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
          "int64": "Long"}  # fmt: skip


def _floating(op: str, input, error) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.is_floating_point():
        kind = _KINDS.get(str(input.dtype).removeprefix("torch."), str(input.dtype))
        raise error(
            f"{op}: not implemented for '{kind}' inputs, as in PyTorch; it takes floating-point "
            "tensors (convert with .float())"
        )


@public()
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``0`` on ``[-lambd, lambd]``, else ``x``."""
    _floating("hardshrink", input, NotImplementedError)
    return shrink.hardshrink(input, lambd=lambd)


@public()
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, else ``weight * x``; ``weight`` has 1 or ``C`` (dim 1) elements."""
    _floating("prelu", input, RuntimeError)
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' must be a Tensor, not {type(weight).__name__}")
    same_dtype(input, weight, lambda a, b: f"prelu: Type promoting not supported. Got {a} and {b}")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: weight must be a scalar or 1-D, got {weight.dim()}-D")
    count = weight.numel()
    if count != 1:
        channels = input.shape[1] if input.dim() > 1 else 1
        if input.dim() == 0 or channels != count:
            raise RuntimeError(
                f"prelu: weight has {count} parameters but the input of shape "
                f"{list(input.shape)} has {channels} channels (dim 1); use 1 or {channels}"
            )
    if input.dim() != weight.dim():  # viewed to broadcast, as PyTorch's (ViewBackward0)
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = count
        weight = weight.reshape(shape)
    return _prelu.prelu_kernel(input, weight)


__all__ = exports(globals())
