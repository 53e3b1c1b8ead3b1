"""PyTorch-style printing of tensors: ``tensor([1., 2.], requires_grad=True)``."""

from __future__ import annotations

import numpy as np

from . import _dtype


def _format_values(data: np.ndarray) -> list[str]:
    flat = data.reshape(-1)
    if data.dtype.kind == "b":
        return [str(bool(v)) for v in flat]
    if data.dtype.kind in "iu":
        return [str(int(v)) for v in flat]
    finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
    int_mode = finite.size == 0 or bool(np.all(finite == np.ceil(finite)))
    sci = False
    if finite.size:
        lo, hi = np.abs(finite).min(), np.abs(finite).max()
        sci = hi / lo > 1000.0 or hi > 1e8 or (not int_mode and lo < 1e-4)
    out = []
    for v in flat.astype(np.float64):
        if sci:
            out.append(f"{v:.4e}")
        elif int_mode:
            out.append(f"{v:.0f}" + ("" if np.isnan(v) or np.isinf(v) else "."))
        else:
            out.append(f"{v:.4f}")
    return out


def _layout(strings: list[str], shape: tuple, indent: int) -> str:
    width = max((len(s) for s in strings), default=0)
    padded = [s.rjust(width) for s in strings]
    if not shape:
        return padded[0]

    def rec(offset: int, dims: tuple, ind: int) -> str:
        if len(dims) == 1:
            n = dims[0]
            items = padded[offset : offset + n]
            per_line = max(1, (80 - ind) // (width + 2))
            lines = [", ".join(items[i : i + per_line]) for i in range(0, n, per_line)]
            return "[" + (",\n" + " " * (ind + 1)).join(lines) + "]"
        step = int(np.prod(dims[1:]))
        sep = "," + "\n" * (len(dims) - 1) + " " * (ind + 1)
        return "[" + sep.join(rec(offset + i * step, dims[1:], ind + 1) for i in range(dims[0])) + "]"

    return rec(0, shape, indent)


def tensor_repr(t) -> str:
    data = t._data
    prefix = "tensor("
    suffixes = []
    default_dtypes = (_dtype.get_default_dtype().np, np.dtype(np.int64), np.dtype(np.bool_))
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype != _dtype.get_default_dtype().np:
            suffixes.append(f"dtype={t.dtype}")
    else:
        body = _layout(_format_values(data), data.shape, len(prefix))
        if data.dtype not in default_dtypes:
            suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + ", ".join([body] + suffixes) + ")"
