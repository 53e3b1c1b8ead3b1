"""PyTorch's ``CopySlices`` node: an in-place op's node folded into the history of the base
it wrote through a view of.

PyTorch's ``CopySlices`` holds the in-place op's node ``fn`` instead of pointing at it: its
edges are the base's old history and ``fn``'s edges after the first (the first led to the
view, which the base's edge stands for now). Its backward runs ``fn`` on the gradient's part
under the view and writes ``fn``'s first gradient back into that part. So
``base[1:3].add_(y)`` shows ``CopySlices -> (base's node, y's)``, no ``AddBackward0``.
"""

from __future__ import annotations

import numpy as np

from .._engine.graph import NOT_PLAIN, Node, OpNode
from .._tensor import Tensor, _wrap
from .view_history import (
    _embed_region_forward,
    _replayed_on,
    _zero_region_forward,
    embed_region,
    zero_region,
)


class CopySlices(Node):
    """``fn`` (the in-place op's node) applied to the part of the base's gradient where
    ``view_fn`` looks; ``next_functions``: the base's edge, then ``fn``'s other edges."""

    __slots__ = ("fn", "view_fn")

    def __init__(self, base_edge: tuple, fn: OpNode, view_fn) -> None:
        super().__init__((base_edge, *fn.next_functions[1:]))
        self.fn, self.view_fn = fn, view_fn

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    __module__ = "builtins"  # printed as PyTorch's C++ class is (see AccumulateGrad)

    def apply(self, grads: list, needs: list) -> list:
        grad, view_fn = grads[0], self.view_fn
        # fn's first gradient is wanted where the base's is (it lands in the base's part).
        res = self.fn.apply([_replayed_on(grad, view_fn)], list(needs))
        base_grad = None
        if needs[0]:
            base_grad = zero_region(grad, view_fn=view_fn)
            if res[0] is not None:
                written = embed_region(res[0], shape=tuple(grad.shape), view_fn=view_fn)
                base_grad = base_grad + written
        return [base_grad, *res[1:]]

    def apply_on_arrays(self, grads: list, needs: list):
        grad, view_fn = grads[0]._data, self.view_fn
        # A copy of the part: fn's rule may pass its gradient on as it is.
        part = _wrap(np.array(_replayed_on(grad, view_fn)))
        res = self.fn.apply_on_arrays([part], list(needs))
        if res is NOT_PLAIN:
            return NOT_PLAIN
        base_grad = None
        if needs[0]:
            base = _zero_region_forward(grad, view_fn=view_fn)
            first = res[0]
            if first is not None:
                base += _embed_region_forward(first._data, shape=grad.shape, view_fn=view_fn)
            base_grad = _wrap(base)
        return [base_grad, *res[1:]]

    def release(self) -> None:
        self.fn.release()

    def check_saved(self) -> None:
        self.fn.check_saved()

    def saved_result_moved_to(self, tensor: Tensor) -> None:
        self.fn.saved_result_moved_to(tensor)


def folds(fn, out: Tensor, view: Tensor) -> bool:
    """Whether ``out``, an in-place op's value for ``view``, comes from one op node whose
    first edge is the view's: then CopySlices holds that node (PyTorch's form)."""
    if not isinstance(fn, OpNode) or fn.num_outputs != 1 or out._output_nr != 0:
        return False
    if not fn.next_functions:
        return False
    first = fn.next_functions[0]
    own = view.__dict__.get("grad_fn")
    if own is None:  # a view that needs no gradient: nothing flows along the first edge
        return first[0] is None
    return first[0] is own and first[1] == view._output_nr
