"""The dtype check of ``nn.functional``'s kernels: PyTorch's refusal of the dtypes it has no
loop for, in its exception type."""

from __future__ import annotations

import leafgrad as _lg

from .. import Tensor
from .._dtype import scalar_type_name


def _check_kernel_dtype(
    name: str, input: Tensor, *, integers=False, error=NotImplementedError, refused=None, kept=()
):
    """Refuse the dtypes PyTorch has no kernel for: all but floating point (``integers``: bool).

    ``refused``, NumPy dtype kinds (``b``, ``i``, ``u``), names them instead, but for the
    dtypes named in ``kept`` (PyTorch's average pool takes int64 of the integers). Raises
    ``error``, PyTorch's exception type for that op (NotImplementedError for most).
    """
    dt = input._data.dtype
    if refused is not None:
        if dt.kind not in refused or dt.name in kept:
            return
    elif input.is_floating_point() or (integers and input.dtype != _lg.bool):
        return
    raise error(
        f"{name}: not implemented for '{scalar_type_name(dt)}' inputs, as in PyTorch (its "
        "kernel has no loop for that dtype; convert with .float())"
    )
