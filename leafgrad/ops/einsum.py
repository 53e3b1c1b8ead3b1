"""einsum: any product of tensors written as an equation, differentiable to any order.

Each operand's gradient is one einsum of the incoming gradient with the other operands, so
higher orders come for free; forward mode is a sum of einsums.
"""

from __future__ import annotations

import functools

import numpy as np

from .._engine.grad_mode import is_grad_enabled
from .._exposure import exports, public
from .._tensor import Tensor
from ._einsum_aten import plan as aten_plan
from ._einsum_aten import run as run_aten_plan
from ._inputs import _check_tensors
from ._optable import Generic
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_error(message: str) -> RuntimeError:
    return RuntimeError(f"einsum(): {message}")


def _parse_term(term: str, index: int, offset: int):
    """Labels of one operand's subscripts, with ``None`` standing for the ellipsis."""
    labels = []
    i = 0
    seen_ellipsis = False
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i : i + 3] != "...":
                raise _einsum_error(
                    f"found '.' for operand {index} that is not part of an ellipsis '...'"
                )
            if seen_ellipsis:
                raise _einsum_error(f"operand {index} has more than one ellipsis '...'")
            seen_ellipsis = True
            labels.append(None)
            i += 3
            continue
        if c not in _LETTERS:
            raise _einsum_error(
                f"invalid subscript {c!r} at index {offset + i} of the equation; subscripts must "
                "be letters in [a-zA-Z]"
            )
        labels.append(c)
        i += 1
    return labels


def _normalize_equation(equation: str, shapes):
    """Rewrite ``equation`` with letters only: no ellipsis, explicit output.

    Returns ``(input_terms, output_term, label_sizes)``; the ellipsis becomes fresh letters
    aligned from the right (so ellipsis dimensions broadcast), and sizes of 1 broadcast.
    """
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise _einsum_error(
            f"the equation {equation!r} names {len(terms)} operands but {len(shapes)} were given"
        )
    if len(terms) < len(shapes):
        raise _einsum_error(
            f"the equation {equation!r} names {len(terms)} operands but {len(shapes)} were given"
        )
    parsed = []
    offset = 0
    for i, term in enumerate(terms):
        parsed.append(_parse_term(term, i, offset))
        offset += len(term) + 1
    out_parsed = None if rhs is None else _parse_term(rhs, -1, offset + 1)

    used = {c for labels in parsed for c in labels if c} | {c for c in out_parsed or () if c}
    ell_ndim = 0
    for i, (labels, shape) in enumerate(zip(parsed, shapes)):
        explicit = sum(c is not None for c in labels)
        if None in labels:
            if explicit > len(shape):
                raise _einsum_error(
                    f"operand {i} has {explicit} subscripts besides the ellipsis but only "
                    f"{len(shape)} dimensions (shape {list(shape)})"
                )
            ell_ndim = max(ell_ndim, len(shape) - explicit)
        elif explicit != len(shape):
            raise _einsum_error(
                f"operand {i} has {explicit} subscripts but {len(shape)} dimensions (shape "
                f"{list(shape)}) and no ellipsis '...'"
            )
    free = [c for c in _LETTERS if c not in used]
    if ell_ndim > len(free):
        raise _einsum_error("too many dimensions: einsum supports at most 52 distinct subscripts")
    ell = "".join(free[:ell_ndim])

    in_terms = []
    sizes: dict = {}
    for i, (labels, shape) in enumerate(zip(parsed, shapes)):
        explicit = sum(c is not None for c in labels)
        n_ell = len(shape) - explicit
        term = "".join(ell[ell_ndim - n_ell :] if c is None else c for c in labels)
        own: dict = {}
        for c, s in zip(term, shape):
            if c in own and own[c] != s:
                raise _einsum_error(
                    f"subscript {c} is repeated for operand {i} with different sizes "
                    f"({own[c]} and {s})"
                )
            own[c] = s
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != 1 and s != prev:
                raise _einsum_error(
                    f"subscript {c} has size {s} for operand {i}, which does not broadcast with "
                    f"the size {prev} seen before"
                )
        in_terms.append(term)

    if out_parsed is None:
        counts: dict = {}
        for labels in parsed:
            for c in labels:
                if c is not None:
                    counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        out = ""
        for c in out_parsed:
            if c is None:
                out += ell
                continue
            if c in out:
                raise _einsum_error(f"output subscript {c} appears more than once in the output")
            if c not in sizes:
                raise _einsum_error(
                    f"output subscript {c} does not appear in the equation for any input operand"
                )
            out += c
    return in_terms, out, sizes


def _einsum_forward(*arrays, equation, sizes):
    ops = arrays
    for k, (a, term) in enumerate(zip(arrays, _input_terms(equation))):
        for c, s in zip(term, a.shape):
            if s != sizes[c]:  # broadcast from size 1: NumPy's einsum does not
                if ops is arrays:
                    ops = list(arrays)
                ops[k] = np.broadcast_to(a, tuple(sizes[c] for c in term))
                break
    # The optimized path contracts pairwise with BLAS; its planning costs more than it saves on
    # small operands.
    n = len(ops)
    big = n > 2 or (n == 2 and ops[0].size + ops[1].size > 4096)
    return np.einsum(equation, *ops, optimize=big)


@functools.lru_cache(maxsize=256)
def _input_terms(equation: str) -> tuple:
    """An explicit equation's input terms."""
    return tuple(equation.split("->")[0].split(","))


def _einsum_vjp(grad, *args, result, needs, equation, sizes):
    lhs, out = equation.split("->")
    terms = lhs.split(",")
    return [
        _einsum_operand_grad(grad, args, terms, out, k, sizes) if need else None
        for k, need in enumerate(needs)
    ]


def _einsum_operand_grad(grad, args, terms, out, k, sizes):
    """``d out / d operand_k`` as one einsum of ``grad`` with the other operands.

    Repeated subscripts of operand k (diagonals) get fresh letters tied to the original by an
    identity matrix. A subscript of operand k that no other factor carries at its full size
    (summed inside operand k, or broadcast from size 1 elsewhere) gets a ones vector.
    """
    used = set("".join(terms) + out)
    fresh = iter(c for c in _LETTERS if c not in used)
    dtype = values_of(grad).dtype
    operands = [grad]
    in_terms = [out]
    for j, term in enumerate(terms):
        if j != k:
            operands.append(args[j])
            in_terms.append(term)
    carried: dict = {}
    for op, term in zip(operands, in_terms):
        for c, s in zip(term, op.shape):
            carried[c] = max(carried.get(c, 0), s)
    for c in dict.fromkeys(terms[k]):
        if carried.get(c, 0) != sizes[c]:
            operands.append(operand(np.ones(sizes[c], dtype), grad))
            in_terms.append(c)
    target = ""
    for c in terms[k]:
        if c in target:
            f = next(fresh, None)
            if f is None:
                raise _einsum_error("too many subscripts to differentiate this diagonal")
            operands.append(operand(np.eye(sizes[c], dtype=dtype), grad))
            in_terms.append(c + f)
            c = f
        target += c
    return _contract(",".join(in_terms) + "->" + target, operands)


def _einsum_jvp(*tangents_and_args, result, equation, sizes):
    """Multilinear: the sum over operands of the einsum with that operand's tangent."""
    n = len(tangents_and_args) // 2
    tangents, args = tangents_and_args[:n], tangents_and_args[n:]
    terms = []
    for k, t in enumerate(tangents):
        if t is not None:
            terms.append(einsum(equation, *args[:k], t, *args[k + 1 :]))
    return tangent_sum(*terms)


def _einsum_primitive(overload, node_name, saves):
    return primitive(
        "einsum",
        _einsum_forward,
        vjp_all=_einsum_vjp,
        kind=Generic(jvp=_einsum_jvp),
        overload=overload,
        saves=saves,
        node_name=node_name,
        dtype_rule="keep",
        broadcast=True,
        plain_rules=True,
    )


# PyTorch's einsum ends in a different op depending on the equation; its grad_fn names follow.
# One operand's gradient reads the others: with several, every operand is saved ("*").
_einsum_permute = _einsum_primitive("permute", "PermuteBackward0", ())  # one operand, none summed
_einsum_sum = _einsum_primitive("sum", "SumBackward1", ())  # one operand, something summed
_einsum_mul = _einsum_primitive("mul", "MulBackward0", ("*",))  # several operands, none summed
_einsum_view = _einsum_primitive("view", "ViewBackward0", ("*",))  # several, something summed


def _sublist_equation(args):
    """``einsum(op0, [0, 1], op1, [1, 2], [0, 2])`` as an equation and its operands."""
    operands, terms = [], []
    items = list(args)
    out = None
    if len(items) % 2 == 1:
        out = items.pop()

    def letters(sub):
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, int) and 0 <= v < len(_LETTERS):
                s += _LETTERS[v]
            else:
                raise ValueError(f"einsum(): sublist entries must be ints in [0, 52), got {v!r}")
        return s

    for op, sub in zip(items[::2], items[1::2]):
        operands.append(op)
        terms.append(letters(sub))
    equation = ",".join(terms) + ("" if out is None else "->" + letters(out))
    return equation, operands


@public(method=False)
def einsum(*args) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``.

    Operands may also come as one list (``einsum(eq, [a, b])``) or in sublist form
    (``einsum(a, [0, 1], b, [1, 2], [0, 2])``). Supports ``...``, the implicit output (the
    ellipsis dimensions, then subscripts used once, sorted) and sizes of 1 broadcasting.
    """
    if not args or (isinstance(args[0], str) and len(args) < 2):
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    _check_tensors("einsum", *operands)
    if is_grad_enabled() and any(o._requires_grad for o in operands):
        # PyTorch's einsum is composite: a graph records its permutes, reshapes and bmms.
        planned = _aten_plan(equation, _shapes(operands))  # (after its checks)
        _check_same_dtype(operands)
        return run_aten_plan(planned, operands)
    return _contract(equation, operands)


def _shapes(operands) -> tuple:
    # A plain Tensor's shape read off its array: the property costs ~0.3 us a call.
    return tuple(o._data.shape if type(o) is Tensor else tuple(o.shape) for o in operands)


@functools.lru_cache(maxsize=256)
def _aten_plan(equation: str, shapes: tuple) -> tuple:
    """What ATen's einsum records for an equation and shapes that pass ``_normalized``'s
    checks (else its error), remembered as ``_normalized`` is."""
    _normalized(equation, shapes)
    return aten_plan(equation, shapes)


@functools.lru_cache(maxsize=256)
def _normalized(equation: str, shapes: tuple) -> tuple:
    """``_normalize_equation``, remembered for an equation and shapes that passed (a
    training loop repeats one; ~10 us of parsing a call): the terms as a tuple, and the
    label sizes, which a caller copies before handing them on."""
    in_terms, out, sizes = _normalize_equation(equation, shapes)
    return tuple(in_terms), out, sizes


def _check_same_dtype(operands) -> None:
    first = values_of(operands[0]).dtype
    for o in operands:
        if values_of(o).dtype != first:
            names = ", ".join(str(o.dtype) for o in operands)
            raise RuntimeError(
                f"einsum(): operands must have the same dtype, got {names}; convert with .to(dtype)"
            )


def _contract(equation: str, operands) -> Tensor:
    """``einsum`` past its argument parsing: the primitive PyTorch's einsum ends in, with the
    equation made explicit. Operands are tensors, or a plain rule's arrays (of one floating
    dtype, as a rule's gradients are)."""
    op, explicit, sizes, summed, contracted = _contraction(equation, _shapes(operands))
    _check_same_dtype(operands)
    if len(operands) == 1:
        x = operands[0]
        dt = values_of(x).dtype
        if summed and dt.kind in "bui" and dt != np.int64:
            operands = (x.long(),)  # PyTorch sums integers in int64
    else:
        dt = values_of(operands[0]).dtype
        kind = dt.kind
        if contracted and kind == "b":
            raise NotImplementedError(
                "einsum(): contractions are not implemented for torch.bool tensors; convert "
                "with .long() or .float()"
            )
        if summed and not contracted and kind in "bui" and dt != np.int64:
            operands = tuple(o.long() for o in operands)  # PyTorch sums each one in int64 first
    # (a copy: the remembered sizes stay as they are)
    return op(*operands, equation=explicit, sizes=dict(sizes))


@functools.lru_cache(maxsize=256)
def _contraction(equation: str, shapes: tuple) -> tuple:
    """What ``_contract`` does for an equation and shapes that pass ``_normalized``'s checks
    (else its error), remembered: ``(primitive, explicit equation, label sizes, whether a
    label is summed, whether a summed label is shared by operands)``."""
    in_terms, out, sizes = _normalized(equation, shapes)
    summed = set("".join(in_terms)) - set(out)
    contracted = any(sum(c in term for term in in_terms) > 1 for c in summed)
    if len(in_terms) == 1:
        op = _einsum_sum if summed else _einsum_permute
    else:
        op = _einsum_view if summed else _einsum_mul
    return op, ",".join(in_terms) + "->" + out, sizes, bool(summed), contracted


__all__ = exports(globals())
