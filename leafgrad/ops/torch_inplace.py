"""The in-place ops PyTorch also offers as functions (``torch.abs_(x)`` is ``x.abs_()``),
and ``torch.fill``, the out-of-place fill."""

from __future__ import annotations

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor
from .inplace import _fill_scalar, _fill_tensor

# The names PyTorch's own namespace has for Tensor in-place methods (the others, such as
# ``add_``, exist as methods only).
_TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "zero_",
)  # fmt: skip


def _function(name: str):
    def fn(input: Tensor, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: the in-place method as a function."
    return public(method=False)(fn)


for _name in _TORCH_INPLACE:
    globals()[_name] = _function(_name)


@public(method=False)
def fill(input: Tensor, value) -> Tensor:
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (a number or a 0-d
    tensor, which then gets the gradient, summed)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fill(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"fill only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions; pass value.item() or a 0-d tensor"
            )
        if value._data.dtype != input._data.dtype:
            value = value.to(_dtype.from_numpy_dtype(input._data.dtype))
        return _fill_tensor(input, value)
    return _fill_scalar(input, value=input._data.dtype.type(value))


__all__ = exports(globals())
