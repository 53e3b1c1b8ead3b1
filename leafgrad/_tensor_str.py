"""PyTorch's printing of tensors: ``tensor([1., 2.], requires_grad=True)``.

Follows ``torch/_tensor_str.py`` rule for rule, on NumPy arrays: one formatter per tensor
chooses int mode (``1.``), fixed mode (``1.2500``) or scientific mode (``1.2500e+10``) from
the nonzero finite values, pads every element to one width, wraps rows at ``linewidth`` and
summarises tensors of more than ``threshold`` elements with ``...``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype

__all__ = ["set_printoptions"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
) -> None:
    """Set how tensors print (torch.set_printoptions).

    ``profile`` is ``"default"``, ``"short"`` or ``"full"`` and is applied first; the other
    arguments override it. ``sci_mode`` is always set: ``None`` (the default) lets each tensor
    choose, so a call without it turns a forced scientific mode off again.
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
        elif profile == "short":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
        elif profile == "full":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Chooses the mode and the common width of every element of one tensor."""

    def __init__(self, data: np.ndarray) -> None:
        self.floating_dtype = data.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = data.reshape(-1)

        if not self.floating_dtype:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        # In the tensor's own dtype, as PyTorch compares value with ceil(value).
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        finite_abs = np.abs(finite).astype(np.float64)
        lo, hi = finite_abs.min(), finite_abs.max()
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        values = finite.tolist()
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            widths = (len(f"{v:.{precision}e}") for v in values)
        elif self.int_mode:
            # The "." that marks a float in int mode adds one character.
            widths = (len(f"{v:.0f}") + 1 for v in values)
        else:
            widths = (len(f"{v:.{precision}f}") for v in values)
        self.max_width = max(self.max_width, max(widths))

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(data: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = (
            [formatter.format(v) for v in data[:edge].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in data[-edge:].tolist()]
        )
    else:
        items = [formatter.format(v) for v in data.tolist()]
    lines = [
        ", ".join(items[i : i + elements_per_line]) for i in range(0, len(items), elements_per_line)
    ]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    data: np.ndarray, indent: int, summarize: bool, formatter: _Formatter
) -> str:
    dim = data.ndim
    if dim == 0:
        return formatter.format(data.item())
    if dim == 1:
        return _vector_str(data, indent, summarize, formatter)

    edge = PRINT_OPTS.edgeitems
    n = data.shape[0]
    if summarize and n > 2 * edge:
        slices = (
            [
                _tensor_str_with_formatter(data[i], indent + 1, summarize, formatter)
                for i in range(edge)
            ]
            + ["..."]
            + [
                _tensor_str_with_formatter(data[i], indent + 1, summarize, formatter)
                for i in range(n - edge, n)
            ]
        )
    else:
        slices = [
            _tensor_str_with_formatter(data[i], indent + 1, summarize, formatter) for i in range(n)
        ]
    # One blank line between blocks per dimension below the rows: 2-D none, 3-D one, ...
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(data: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows, which alone decide the formatter."""
    dim = data.ndim
    edge = PRINT_OPTS.edgeitems
    if dim == 0:
        return data
    if dim == 1:
        if data.shape[0] > 2 * edge:
            # data[-0:] is the whole vector, so edgeitems=0 keeps everything, as in PyTorch.
            return np.concatenate((data[:edge], data[-edge:]))
        return data
    if not edge:
        return np.empty([0] * dim, dtype=data.dtype)
    n = data.shape[0]
    rows = range(n) if n <= 2 * edge else [*range(edge), *range(n - edge, n)]
    return np.stack([_summarized_data(data[i]) for i in rows])


def _tensor_str(data: np.ndarray, indent: int) -> str:
    if data.size == 0:
        return "[]"
    summarize = data.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized_data(data) if summarize else data)
    return _tensor_str_with_formatter(data, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list, indent: int) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _prefix(t, tensor_class) -> str:
    cls = type(t)
    # PyTorch prints Parameters (which add their own "Parameter containing:") as tensor(...);
    # an invalidated view (ops/view_history.py) is a plain tensor to the user.
    if cls is tensor_class or cls.__name__ in ("Parameter", "_InvalidatedView"):
        return "tensor("
    return f"{cls.__name__}("


def _tangent(t):
    """The tangent ``t`` carries at the innermost active dual level (forward AD), or None."""
    if t._tangents is None:
        return None
    # Only a tensor with tangents gets here, so plain tensors print without the import.
    # why: forward-AD state sits above the Tensor (_engine.forward -> _batched -> _tensor -> us)
    from ._engine import forward

    return forward.tangent_of(t, forward.state.levels[-1]) if forward.state.levels else None


def tensor_repr(t, tensor_class) -> str:
    """``repr(t)`` exactly as PyTorch writes it for a CPU tensor (``tensor_class``: Tensor,
    passed in because this module sits below it)."""
    data = t._data
    prefix = _prefix(t, tensor_class)
    indent = len(prefix)
    suffixes = []
    default = _dtype.get_default_dtype()
    if data.size == 0:
        # NumPy-like: the shape is shown unless it is (0,); the dtype unless it is the default.
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype != default.np:
            suffixes.append(f"dtype={t.dtype}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype not in (default.np, np.dtype(np.int64), np.dtype(np.bool_)):
            suffixes.append(f"dtype={t.dtype}")
        body = _tensor_str(data, indent)

    try:
        name = None if t.grad_fn is None else t.grad_fn.name().rsplit("::", 1)[-1]
    except RuntimeError:  # a view whose history PyTorch refuses to regenerate
        name = "Invalid"
    if name is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = _tangent(t)
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)
