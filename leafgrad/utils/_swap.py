"""``torch.utils.swap_tensors``: two tensors exchange their contents, each keeping its
identity (what holds one, an optimizer say, sees the other's values, dtype and class)."""

from __future__ import annotations

import weakref

POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen "
    "when you try to run backward on a tensor that was swapped. For a module m with "
    "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the "
    "device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between running forward and "
    "backward. To resolve this, please only change the device/dtype before running forward (or "
    "after both forward and backward)."
)


def _poisoned(grad_outputs):
    """A pre-hook for a swapped leaf's old AccumulateGrad: its leaf holds other values now."""
    raise RuntimeError(POISONED)


def _check_weakrefs(t, name: str) -> None:
    """RuntimeError if something other than the tensor's own gradient node refers to it
    weakly (the weak reference would see the other tensor's contents)."""
    node = t.__dict__.get("_accumulator")
    own = getattr(node, "_variable", None)
    if any(r is not own for r in weakref.getweakrefs(t)):
        raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")


def _detach_accumulator(t) -> None:
    """Poison the tensor's AccumulateGrad (a recorded graph still points at it) and forget
    it, so that the tensor's next use makes a node for its new contents."""
    node = t.__dict__.pop("_accumulator", None)
    if node is not None:
        node.register_prehook(_poisoned)


def swap_tensors(t1, t2) -> None:
    """Swap the contents (class, attributes, values, autograd state) of ``t1`` and ``t2``."""
    _check_weakrefs(t1, "t1")
    _check_weakrefs(t2, "t2")
    _detach_accumulator(t1)
    _detach_accumulator(t2)
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
