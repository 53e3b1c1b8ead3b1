"""``nn.utils.stateless``: PyTorch's older home of ``functional_call``, deprecated there."""

import warnings

from ...func._functional_call import call_with


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):  # fmt: skip
    """``torch.func.functional_call`` with one dict, warning as PyTorch's does."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return call_with(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                     strict=strict)  # fmt: skip


__all__ = ["functional_call"]
