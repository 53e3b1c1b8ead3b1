"""Linear algebra products of fixed rank: mm, bmm, dot, mv, outer, addmm, and t.

Every product is a primitive whose VJP is written with products again (plus ``t`` and a
private last-two-axes swap), so gradients of any order come for free. Unlike elementwise
ops, products do not promote dtypes: PyTorch raises for mixed dtypes. ``matmul`` (``@``, any
rank) is in ``matmul.py`` and dispatches to these; ``einsum`` is in ``einsum.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._exposure import exports, public
from .._tensor import Tensor
from . import _fused, _gemm, _primitive
from ._inputs import _check_tensors
from ._optable import Bilinear, Composite, Linear
from ._out import accepts_out
from ._primitive import primitive
from ._tangents import scaled, tangent_sum

# ---------------------------------------------------------------------------------------------
# Checks shared by every product


def _shape(x) -> list:
    return list(x._data.shape)


def _check_dtypes(op: str, *args) -> None:
    """Products neither promote nor take bools, as in PyTorch (whose words lead the message:
    they depend on the kernel the op reaches)."""
    dtypes = {a._data.dtype for a in args}
    if len(dtypes) > 1:
        names = " and ".join(str(a.dtype) for a in args)
        raise RuntimeError(
            f"{_dtype_mismatch_words(op, *args)} ({op}: operands must have the same dtype, got "
            f"{names}; convert one with .to(dtype))"
        )
    if args and args[0]._data.dtype.kind == "b":
        raise NotImplementedError(
            f"{op}: not implemented for torch.bool tensors; convert with .long() or .float()"
        )


def _plain_pair(a, b) -> bool:
    """Whether ``a`` and ``b`` are both plain tensors (or nn.Parameters), the types whose
    common call a product checks at once."""
    plain = (Tensor, _primitive._PARAMETER)
    return type(a) in plain and type(b) in plain


def _check_ndim(op: str, x: Tensor, ndims, what: str) -> None:
    if x._data.ndim not in ndims:
        raise RuntimeError(f"{op}: {what} must be {_ndim_words(ndims)}, got shape {_shape(x)}")


def _dtype_mismatch_words(op: str, *args) -> str:
    """PyTorch's message for operands of two dtypes, as the kernel ``op`` reaches says it."""
    dtypes = [a._data.dtype for a in args]
    if op == "addmm":  # the bias against mat2 first, then mat1 against mat2
        bias, first, second = dtypes
        which, first = ("self", bias) if bias != second else ("mat1", first)
        return (
            f"{which} and mat2 must have the same dtype, but got {scalar_type_name(first)} and "
            f"{scalar_type_name(second)}"
        )
    first, second = dtypes[0], dtypes[-1]
    if op == "dot" or (op == "matmul" and args[0]._data.ndim == args[1]._data.ndim == 1):
        return (
            "dot : expected both vectors to have same dtype, but found "
            f"{scalar_type_name(first)} and {scalar_type_name(second)}"
        )
    if op == "bmm" or (op == "matmul" and args[1]._data.ndim > 2):
        return (
            f"expected scalar type {scalar_type_name(first)} but found {scalar_type_name(second)}"
        )
    return (
        f"expected m1 and m2 to have the same dtype, but got: {c_type_name(first)} != "
        f"{c_type_name(second)}"
    )


def _ndim_words(ndims) -> str:
    words = {1: "1-D (a vector)", 2: "2-D (a matrix)", 3: "3-D (a batch of matrices)"}
    return " or ".join(words.get(n, f"{n}-D") for n in ndims)


def _mismatch(op: str, a: Tensor, b: Tensor) -> RuntimeError:
    ka = a._data.shape[-1]
    kb = b._data.shape[-2] if b._data.ndim >= 2 else b._data.shape[0]
    second = "second-to-last dimension" if b._data.ndim >= 2 else "size"
    return RuntimeError(
        f"{_shape_mismatch_words(a._data.shape, b._data.shape)} ({op}: shapes {_shape(a)} and "
        f"{_shape(b)} cannot be multiplied: the last dimension of the first ({ka}) must equal "
        f"the {second} of the second ({kb}))"
    )


def _shape_mismatch_words(a: tuple, b: tuple) -> str:
    """PyTorch's message for a product of shapes ``a`` and ``b`` whose inner sizes differ,
    as the kernel it folds them into (mm, mv, dot, bmm) says it."""
    if len(a) == len(b) == 1:
        return (
            f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
            f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
        )
    rows = math.prod(a[:-1])  # the leading dims folded into the rows of one matrix
    if len(b) == 1:
        return f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})"
    if len(b) == 2:
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[0]}x{b[1]})"
    try:
        batch = math.prod(np.broadcast_shapes(a[:-2], b[:-2]))
    except ValueError:  # the batch dims do not broadcast either: PyTorch names the inner sizes
        batch = math.prod(b[:-2])
    return (
        f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {a[-1]}] but "
        f"got: [{batch}, {b[-2]}]."
    )


def _check_inner(op: str, a: Tensor, b: Tensor) -> None:
    kb = b._data.shape[-2] if b._data.ndim >= 2 else b._data.shape[0]
    if a._data.shape[-1] != kb:
        raise _mismatch(op, a, b)


# ---------------------------------------------------------------------------------------------
# Transposes


def _t_forward(x):
    return x.T


def _t_grad(grad, x, result):
    # In a plain rule (arrays) the transpose itself: the op would only call _t_forward.
    return grad.T if type(grad) is np.ndarray else _t(grad)


_t = primitive(
    "t",
    _t_forward,
    (_t_grad,),
    node_name="TBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
)


@public()
def t(input: Tensor) -> Tensor:
    """The transpose of a matrix; 0-D and 1-D tensors come back unchanged (as a new view)."""
    if not isinstance(input, Tensor):
        _check_tensors("t", input)
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t: expects a tensor with at most 2 dimensions, got shape {_shape(input)}; use "
            "transpose(input, dim0, dim1) or .mT for batches"
        )
    return _t(input)


def _swap_forward(x):
    return np.swapaxes(x, -1, -2)


# Batched transpose used by the bmm and matmul rules; named like PyTorch's ``.mT`` node.
_swap_last_two = primitive(
    "swap_last_two",
    _swap_forward,
    (lambda grad, x, result: _swap_last_two(grad),),
    node_name="TransposeBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


def _unsqueeze_last(x: Tensor) -> Tensor:
    """``x`` with a trailing dimension of size 1 (a tensor, or an array in a plain rule)."""
    return x.reshape(x.shape + (1,))


# ---------------------------------------------------------------------------------------------
# Products of fixed rank


def _matmul_forward(a, b):
    if a.ndim == 2 and b.ndim == 2:  # (an inner size of 1 too: _gemm's outer product)
        return _gemm.matmul(a, b)
    return np.matmul(a, b)


def _column_major(x) -> bool:
    """Whether a matrix a rule saved is laid out by columns (``x.t()`` of a contiguous one),
    PyTorch's test in mm's backward. An input mm does not save (a stand-in) reads as rows,
    where PyTorch keeps its strides: its gradient then takes the general form."""
    data = x._data
    if type(data) is not np.ndarray:  # a stand-in: no layout kept
        return False
    return data.strides == (data.itemsize, data.shape[0] * data.itemsize)


def _mm_mat1_backward(grad, a, b):
    """PyTorch's mm_mat1_backward: ``grad b^T``, or for a ``self`` laid out by columns
    ``(b grad^T)^T`` (a tensor rule's graph)."""
    if _column_major(a):
        return _t(_mm(b, _t(grad)))
    return _mm(grad, _t(b))


def _mm_mat2_backward(grad, a, b):
    """PyTorch's mm_mat2_backward: ``a^T grad``, or for a ``mat2`` laid out by columns
    ``(grad^T a)^T``."""
    if _column_major(b):
        return _t(_mm(_t(grad), a))
    return _mm(_t(a), grad)


_mm = primitive(
    "mm",
    _matmul_forward,
    (
        # The ops themselves: the public mm and t only check arguments (valid here). In a
        # plain rule (arrays) their forwards directly: each op there would only call them,
        # and a nested PINN's last backward runs these rules once per layer and order.
        lambda grad, a, b, result: (
            _matmul_forward(grad, b.T)
            if type(grad) is np.ndarray
            else _mm_mat1_backward(grad, a, b)
        ),
        lambda grad, a, b, result: (
            _matmul_forward(a.T, grad)
            if type(grad) is np.ndarray
            else _mm_mat2_backward(grad, a, b)
        ),
    ),
    saves=("self if mat2", "mat2 if self"),
    inputs=("self", "mat2"),
    metadata=("self_sym_sizes", "mat2_sym_sizes"),
    node_name="MmBackward0",
    dtype_rule="keep",
    kind=Bilinear(),
    plain_rules=True,
)


@public()
@accepts_out(same_dtype=True)
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Matrix product of ``input: (n, k)`` and ``mat2: (k, m)``; no broadcasting."""
    _check_tensors("mm", input, mat2)
    _check_ndim("mm", input, (2,), "input")
    _check_ndim("mm", mat2, (2,), "mat2")
    _check_dtypes("mm", input, mat2)
    _check_inner("mm", input, mat2)
    return _mm(input, mat2)


_bmm = primitive(
    "bmm",
    _matmul_forward,
    (
        # The op itself, as mm's rules (the public bmm only checks arguments, valid here).
        lambda grad, a, b, result: _bmm(grad, _swap_last_two(b)),
        lambda grad, a, b, result: _bmm(_swap_last_two(a), grad),
    ),
    saves=("self if mat2", "mat2 if self"),
    inputs=("self", "mat2"),
    node_name="BmmBackward0",
    dtype_rule="keep",
    kind=Bilinear(),
    plain_rules=True,
)


@public()
@accepts_out(same_dtype=True)
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched product of ``input: (b, n, k)`` and ``mat2: (b, k, m)``; no broadcasting."""
    _check_tensors("bmm", input, mat2)
    _check_ndim("bmm", input, (3,), "input")
    _check_ndim("bmm", mat2, (3,), "mat2")
    _check_dtypes("bmm", input, mat2)
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(
            f"bmm: shapes {_shape(input)} and {_shape(mat2)} have different batch sizes "
            f"({input._data.shape[0]} and {mat2._data.shape[0]}); bmm does not broadcast, use "
            "matmul for that"
        )
    _check_inner("bmm", input, mat2)
    return _bmm(input, mat2)


_dot = primitive(
    "dot",
    _matmul_forward,
    (lambda grad, a, b, result: grad * b, lambda grad, a, b, result: grad * a),
    saves=("self if tensor", "tensor if self"),
    inputs=("self", "tensor"),
    node_name="DotBackward0",
    dtype_rule="keep",
    kind=Bilinear(),
    plain_rules=True,
)


def _check_same_length(op: str, a: Tensor, b: Tensor) -> None:
    if a._data.shape[0] != b._data.shape[0]:
        raise RuntimeError(
            f"{_shape_mismatch_words(a._data.shape, b._data.shape)} ({op}: shapes {_shape(a)} "
            f"and {_shape(b)} cannot be multiplied: the vectors must have the same length)"
        )


@public()
@accepts_out(same_dtype=True)
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors of the same length (a 0-D result)."""
    if _plain_pair(input, tensor):  # the common case, its checks at once
        a, b = input._data, tensor._data
        if a.ndim == 1 and a.shape == b.shape and a.dtype is b.dtype and a.dtype.kind != "b":
            return _dot(input, tensor)
    _check_tensors("dot", input, tensor)
    _check_ndim("dot", input, (1,), "input")
    _check_ndim("dot", tensor, (1,), "tensor")
    _check_dtypes("dot", input, tensor)
    _check_same_length("dot", input, tensor)
    return _dot(input, tensor)


_mv = primitive(
    "mv",
    _matmul_forward,
    (
        # The ops themselves: the public outer, mv and t only check arguments (valid here).
        lambda grad, a, v, result: _outer(grad, v),
        lambda grad, a, v, result: _mv(_t(a), grad),
    ),
    saves=("self if vec", "vec if self"),
    inputs=("self", "vec"),
    node_name="MvBackward0",
    dtype_rule="keep",
    kind=Bilinear(),
    plain_rules=True,
)


@public()
@accepts_out(same_dtype=True)
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Product of a matrix ``input: (n, k)`` and a vector ``vec: (k,)``."""
    if _plain_pair(input, vec):  # the common case, its checks at once
        a, v = input._data, vec._data
        if (
            a.ndim == 2
            and v.ndim == 1
            and a.shape[1] == v.shape[0]
            and a.dtype is v.dtype
            and a.dtype.kind != "b"
        ):
            return _mv(input, vec)
    _check_tensors("mv", input, vec)
    _check_ndim("mv", input, (2,), "input")
    _check_ndim("mv", vec, (1,), "vec")
    _check_dtypes("mv", input, vec)
    _check_inner("mv", input, vec)
    return _mv(input, vec)


# A vector times a matrix: PyTorch computes unsqueeze(0).mm().squeeze(0), hence the name.
_vecmat = primitive(
    "vecmat",
    _matmul_forward,
    (
        # As mv's rules: the ops themselves.
        lambda grad, v, b, result: _mv(b, grad),
        lambda grad, v, b, result: _outer(v, grad),
    ),
    saves=("self if other", "other if self"),
    node_name="SqueezeBackward4",
    dtype_rule="keep",
    kind=Bilinear(),
    plain_rules=True,
)


@public()
@accepts_out
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two 1-D tensors, ``(n,)`` and ``(m,)`` -> ``(n, m)``; promotes dtypes."""
    _check_tensors("outer", input, vec2)
    _check_ndim("outer", input, (1,), "input")
    _check_ndim("outer", vec2, (1,), "vec2")
    return _outer(input, vec2)


def _outer(a, b):
    """``outer`` past its checks: ``a[:, None] * b`` (tensors, or arrays in a plain rule)."""
    return _unsqueeze_last(a) * b


ger = outer


# ---------------------------------------------------------------------------------------------
# addmm


def _addmm_forward(x, a, b, *, beta=1, alpha=1):
    if a.ndim == 2 and b.ndim == 2:
        prod = _gemm.matmul(a, b)
        # nn.Linear's call first, its tests the cheapest (see the beta == 1 case below)
        if (
            beta == 1 == alpha
            and prod.dtype is x.dtype
            and (x.shape == prod.shape[1:] or x.shape == prod.shape)
        ):
            if _fused.row_fusable(prod, x):  # a bias: one compiled pass, into the product
                return _fused.row_add(prod, x, into=True)
            return np.add(prod, x, out=prod)
    else:
        prod = np.matmul(a, b)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # PyTorch ignores input entirely (nan and inf do not propagate)
        out = np.broadcast_to(prod, prod.shape).copy()
    elif beta == 1:
        if prod.dtype == x.dtype and prod.ndim == 2 and x.shape in (prod.shape[1:], prod.shape):
            # into the fresh product: a broadcast bias add costs 2-4x a same-shape add in
            # NumPy, and a fresh result more ((1e4, 32) float64: 269 -> 149 us)
            return np.add(prod, x, out=prod)
        out = prod + x
    else:
        out = prod + x * beta
    return out.astype(a.dtype, copy=False)


def _scaled(grad, factor):
    return grad if factor == 1 else grad * factor


def _addmm_jvp(tx, ta, tb, x, a, b, result, *, beta=1, alpha=1):
    """``beta dx + alpha (da @ b + a @ db)``; ``dx`` broadcasts to the product's shape."""
    product = tangent_sum(None if ta is None else mm(ta, b), None if tb is None else mm(a, tb))
    return tangent_sum(scaled(tx, beta), None if product is None else _scaled(product, alpha))


_addmm = primitive(
    "addmm",
    _addmm_forward,
    (
        # As mm's rules: the ops themselves (the public mm and t only check arguments).
        lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(grad, beta),
        lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(_mm(grad, _t(b)), alpha),
        lambda grad, x, a, b, result, *, beta=1, alpha=1: _scaled(_mm(_t(a), grad), alpha),
    ),
    kind=Composite(
        taylor_as=lambda x, a, b, *, beta=1, alpha=1: _scaled(x, beta) + _scaled(mm(a, b), alpha),
        jvp=_addmm_jvp,
    ),
    saves=("mat1 if mat2", "mat2 if mat1", "alpha", "beta"),
    inputs=("self", "mat1", "mat2"),
    metadata=("mat1_sym_sizes", "mat2_sym_sizes"),
    node_name="AddmmBackward0",
    dtype_rule="keep",
    broadcast=True,
    plain_rules=True,
)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to ``(n, m)``.

    With ``beta == 0`` the values of ``input`` are ignored (nan does not propagate).
    """
    plain = (Tensor, _primitive._PARAMETER)
    if (
        type(input) in plain and type(mat1) in plain and type(mat2) in plain
    ) and beta == 1 == alpha:  # nn.Linear's call, its checks at once
        i, a, b = input._data, mat1._data, mat2._data
        if (
            a.ndim == 2
            and b.ndim == 2
            and a.dtype is b.dtype
            and i.dtype is a.dtype
            and a.dtype.kind == "f"
            and a.shape[1] == b.shape[0]
            and (i.shape == b.shape[1:] or i.shape == (a.shape[0], b.shape[1]))
        ):
            return _addmm(input, mat1, mat2)
    _check_tensors("addmm", input, mat1, mat2)
    _check_ndim("addmm", mat1, (2,), "mat1")
    _check_ndim("addmm", mat2, (2,), "mat2")
    _check_dtypes("addmm", input, mat1, mat2)
    _check_inner("addmm", mat1, mat2)
    target = (mat1._data.shape[0], mat2._data.shape[1])
    shape = input._data.shape
    if len(shape) > 2 or any(s not in (1, t_) for s, t_ in zip(shape[::-1], target[::-1])):
        raise RuntimeError(
            f"addmm: input of shape {list(shape)} cannot be broadcast to the product's shape "
            f"{list(target)}"
        )
    params = {}
    if beta != 1:
        params["beta"] = beta
    if alpha != 1:
        params["alpha"] = alpha
    return _addmm(input, mat1, mat2, **params)


__all__ = exports(globals())
