"""The smaller ``torch.func`` entry points: ``linearize`` (a reusable JVP at fixed primals),
``functionalize``, ``replace_all_batch_norm_modules_`` and ``debug_unwrap``."""

from __future__ import annotations

import functools

from .._batched import BatchedTensor
from .._tensor import Tensor
from ._pytree import spec_str, tree_flatten
from ._transforms import jvp


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian of ``func`` at
    ``primals`` applied to ``tangents`` (same structure, shapes and dtypes as ``primals``),
    by forward-mode AD. PyTorch traces the JVP once; here each call runs it again, with the
    same values."""
    output = func(*primals)
    p_leaves, p_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        t_leaves, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(
                f"linearize's jvp_fn: Expected the tangents {spec_str(t_spec)} to have the same "
                f"argspec as the primals {spec_str(p_spec)}"
            )
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal."
                )
            if t.dtype != p.dtype:
                raise RuntimeError(
                    f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the "
                    f"dtype {p.dtype} of the corresponding primal."
                )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func, *, remove: str = "mutations"):
    """``func`` with its in-place operations replaced by out-of-place ones. Run eagerly, as
    here, that changes no result: PyTorch's also writes mutations of the inputs back to them,
    and leafgrad's in-place ops already record out-of-place results, so ``func`` is called as
    it is."""
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are: 'mutations' (in-place and out= operators "
            "become out-of-place) and 'mutations_and_views' (views become copies as well)."
        )

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapped


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm in ``root`` stop tracking running statistics (in place): its
    ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None, so it always
    normalises by the batch's statistics, as vmap over examples needs. Returns ``root``."""
    # why: nn imports the leafgrad package, which imports func; at call time both are loaded
    from ..nn.batchnorm import _BatchNorm
    from ..nn.instancenorm import _InstanceNorm  # why: as above

    for module in root.modules():
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """The tensor under vmap's wrapper (its batch dimension in front); every level with
    ``recurse``, one without. Other tensors are returned as they are."""
    while isinstance(tensor, BatchedTensor):
        tensor = tensor._value
        if not recurse:
            break
    return tensor
