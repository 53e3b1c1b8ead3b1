"""``nn.utils.stateless``: PyTorch's older home of ``functional_call``."""

from ...func._functional_call import functional_call

__all__ = ["functional_call"]
