"""In-place comparisons and logic (``eq_``, ``lt_``, ``logical_and_`` ...): the answer written
into the tensor, as 0/1 of its own dtype.

PyTorch gives an in-place comparison a derivative: zero, for ``self`` and for a tensor
``other``, recorded as ``EqBackward0`` (a number) or ``EqBackward1`` (a tensor), so the tensor
keeps requiring grad. The in-place logical ops have no derivative at all: they write the
values and bump the version, leaving the tensor's history as it was.
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor
from ._optable import PiecewiseLinear
from ._primitive import primitive
from .comparison import logical_and, logical_not, logical_or, logical_xor
from .inplace import _check_target, apply_inplace, no_gradient
from .view_history import refresh_views


def _compare_twin(name: str, ufunc):
    """``name_`` (e.g. ``eq_``): the comparison's answer cast to the target's dtype."""

    def forward(x, y):
        return ufunc(x, y).astype(x.dtype)

    node = f"{name.capitalize()}Backward"
    scalar = primitive(
        f"{name}_",
        forward,
        (no_gradient, None),
        kind=PiecewiseLinear(),
        overload="Scalar",
        node_name=f"{node}0",
        dtype_rule="keep",
        broadcast=True,
        scalars=True,
        plain_rules=True,
    )
    tensor = primitive(
        f"{name}_",
        forward,
        (no_gradient, no_gradient),
        kind=PiecewiseLinear(),
        overload="Tensor",
        node_name=f"{node}1",
        dtype_rule="keep",
        broadcast=True,
        plain_rules=True,
    )

    def method(self: Tensor, other) -> Tensor:
        _check_target(self, f"{name}_")
        op = tensor if isinstance(other, Tensor) else scalar
        return apply_inplace(self, op(self, other), f"{name}_")

    method.__name__ = method.__qualname__ = f"{name}_"
    return public(function=False)(method)


eq_ = _compare_twin("eq", np.equal)
ne_ = _compare_twin("ne", np.not_equal)
lt_ = _compare_twin("lt", np.less)
le_ = _compare_twin("le", np.less_equal)
gt_ = _compare_twin("gt", np.greater)
ge_ = _compare_twin("ge", np.greater_equal)
greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_


def _write_values(target: Tensor, values: Tensor, op: str) -> Tensor:
    """Write ``values`` into ``target`` (cast to its dtype) and bump its version, leaving its
    history alone: what PyTorch does for an in-place op without a derivative."""
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}: expected a Tensor to modify, got {type(target).__name__}")
    data = values._data
    if data.shape != target._data.shape:
        if np.broadcast_shapes(data.shape, target._data.shape) != target._data.shape:
            raise RuntimeError(
                f"output with shape {list(target._data.shape)} doesn't match the broadcast shape "
                f"{list(data.shape)} ({op}: an in-place op cannot change the shape of its target)"
            )
    np.copyto(target._data, np.broadcast_to(data, target._data.shape), casting="unsafe")
    counter = target._shared_version_counter()
    counter[0] += 1
    if len(counter) > 1:  # views of changed memory get their histories regenerated
        refresh_views(counter)
    return target


def _logical_twin(name: str, fn, binary: bool = True):
    if binary:

        def method(self: Tensor, other: Tensor) -> Tensor:
            return _write_values(self, fn(self, other), f"{name}_")
    else:

        def method(self: Tensor) -> Tensor:
            return _write_values(self, fn(self), f"{name}_")

    method.__name__ = method.__qualname__ = f"{name}_"
    return public(function=False)(method)


logical_and_ = _logical_twin("logical_and", logical_and)
logical_or_ = _logical_twin("logical_or", logical_or)
logical_xor_ = _logical_twin("logical_xor", logical_xor)
logical_not_ = _logical_twin("logical_not", logical_not, binary=False)

__all__ = exports(globals())
