"""Pooling layers: max, average, adaptive and power-average pools over 1, 2 or 3 dims, and
the max unpools."""

from __future__ import annotations

from .. import Tensor
from . import _pooling_functions as P
from . import _unpool_functions as U
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d",
    "MaxUnpool2d", "MaxUnpool3d",
]  # fmt: skip


class _MaxPoolNd(Module):
    """Sliding-window max; ``stride`` defaults to ``kernel_size``."""

    _pool = staticmethod(P.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Max over windows of ``(N, C, L)``."""

    _pool = staticmethod(P.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over windows of ``(N, C, H, W)``."""

    _pool = staticmethod(P.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max over windows of ``(N, C, D, H, W)``."""

    _pool = staticmethod(P.max_pool3d)


def _ntuple(value, n: int) -> tuple[int, ...]:
    return (value,) * n if isinstance(value, int) else tuple(value)


def _single(value):
    return (value,) if isinstance(value, int) else tuple(value)


class AvgPool1d(Module):
    """Mean over windows of ``(N, C, L)``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return P.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    """Mean over windows; ``divisor_override`` replaces the window size as divisor."""

    _pool = staticmethod(P.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Mean over windows of ``(N, C, H, W)``."""

    _pool = staticmethod(P.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """Mean over windows of ``(N, C, D, H, W)``."""

    _pool = staticmethod(P.avg_pool3d)


class _AdaptivePoolNd(Module):
    """Pool to a fixed ``output_size`` whatever the input size."""

    _pool = staticmethod(P.adaptive_avg_pool1d)

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """Mean of ``(N, C, L)`` over ``output_size`` adaptive windows."""

    _pool = staticmethod(P.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Mean of ``(N, C, H, W)`` over adaptive windows (``None`` keeps a size)."""

    _pool = staticmethod(P.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """Mean of ``(N, C, D, H, W)`` over adaptive windows (``None`` keeps a size)."""

    _pool = staticmethod(P.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor):
        return self._pool(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max of ``(N, C, L)`` over ``output_size`` adaptive windows."""

    _pool = staticmethod(P.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max of ``(N, C, H, W)`` over adaptive windows (``None`` keeps a size)."""

    _pool = staticmethod(P.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max of ``(N, C, D, H, W)`` over adaptive windows (``None`` keeps a size)."""

    _pool = staticmethod(P.adaptive_max_pool3d)


class _LPPoolNd(Module):
    """Power-average pool: ``(sum over the window of x^p)^(1/p)``."""

    _pool = staticmethod(P.lp_pool1d)

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode=False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride,
                          self.ceil_mode)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pool over ``(N, C, L)``."""

    _pool = staticmethod(P.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pool over ``(N, C, H, W)``."""

    _pool = staticmethod(P.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pool over ``(N, C, D, H, W)``."""

    _pool = staticmethod(P.lp_pool3d)


class _MaxUnpoolNd(Module):
    """Undo a max pool: its values go back to its ``indices``, zeros elsewhere."""

    _dims = 1
    _unpool = staticmethod(U.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return self._unpool(input, indices, self.kernel_size, self.stride, self.padding,
                            output_size)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of ``MaxPool1d`` at its indices."""

    _dims = 1
    _unpool = staticmethod(U.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of ``MaxPool2d`` at its indices."""

    _dims = 2
    _unpool = staticmethod(U.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of ``MaxPool3d`` at its indices."""

    _dims = 3
    _unpool = staticmethod(U.max_unpool3d)
