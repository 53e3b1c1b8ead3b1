"""The losses as functions, composed from differentiable leafgrad ops (so grad-of-grad works).

Each follows PyTorch's formula, reductions (``"none" | "mean" | "sum"``), defaults and error
types; shapes are checked first and errors name the loss and the shapes.
"""

from __future__ import annotations

import warnings

import numpy as np

import leafgrad as _lg

from .. import Tensor
from .._batched import BatchedTensor
from .._dtype import scalar_type_name
from ..ops import losses, softmax
from ..ops._inputs import size_mismatch_words
from ..ops.arithmetic import div_scalar as _div_scalar
from ..ops.arithmetic import mul_scalar
from ..ops.indexing import out_of_range

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(name: str, size_average, reduce, reduction: str) -> str:
    """The reduction to use, from ``reduction`` or the deprecated ``size_average``/``reduce``."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(
            "size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.",
            stacklevel=4,
        )
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=4,
        )
        return "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{reduction} is not a valid value for reduction ({name}: expected one of "
            f"{_REDUCTIONS})"
        )
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_tensors(name: str, **tensors) -> None:
    for what, value in tensors.items():
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"{name}(): argument '{what}' must be a Tensor, not {type(value).__name__}"
            )


def _check_float(name: str, input: Tensor) -> None:
    if not input.is_floating_point():
        raise NotImplementedError(
            f"{name}: not implemented for {input.dtype} input (shape {list(input.shape)}); "
            "convert it with .float() or .double()"
        )


# ----- pointwise regression losses -----


def _pointwise(
    name, input, target, weight, reduction, elementwise, weighted_mean=True, op=None, **params
):
    """``elementwise(input, target)`` (broadcast, warning when shapes differ), weighted, reduced.

    Unweighted, a loss with an ``op`` (``ops/losses.py``) is that one op on the broadcast
    operands, as PyTorch records it (``MseLossBackward0`` ...; ``params`` are its own).
    With a ``weight``, ``mean`` is ``sum(w * loss) / sum(w)``, or the plain mean of
    ``w * loss`` when not ``weighted_mean`` (PyTorch's huber_loss).
    """
    _check_tensors(name, input=input, target=target, weight=weight)
    if target.shape != input.shape:
        try:
            np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        except ValueError:
            raise RuntimeError(
                f"{size_mismatch_words([input.shape, target.shape])} ({name}: input of shape "
                f"{list(input.shape)} and target of shape {list(target.shape)} cannot be "
                "broadcast together; give them the same shape)"
            ) from None
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,  # the caller of mse_loss (or of the others)
        )
    if name == "l1_loss":  # PyTorch's l1_loss is |input - target| in ops: integers too
        if reduction == "mean" and not (input.is_floating_point() or target.is_floating_point()):
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {str(input.dtype).split('.')[-1].capitalize()} "
                "(l1_loss of integer tensors: pass reduction='sum' or 'none', or convert them)"
            )
    elif not target.is_floating_point():
        _check_float(name, input)  # a floating target promotes an integer input, as PyTorch's
    if weight is None and op is not None:
        if target.shape != input.shape:
            input, target = _lg.broadcast_tensors(input, target)
        return op(input, target, reduction=losses.REDUCTIONS[reduction], **params)
    loss = elementwise(input, target)
    if weight is None:
        return _reduce(loss, reduction)
    if weight.shape != input.shape:
        raise ValueError(
            f"{name}: weight of shape {list(weight.shape)} must have the input's shape "
            f"{list(input.shape)}"
        )
    loss = loss * weight
    if reduction == "mean" and weighted_mean:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def mse_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None
) -> Tensor:
    """Mean squared error ``(input - target)^2``; ``weight`` (input's shape) weights the mean."""
    reduction = _reduction("mse_loss", size_average, reduce, reduction)
    return _pointwise(
        "mse_loss", input, target, weight, reduction, lambda x, y: (x - y).square(),
        op=losses.mse_loss,
    )  # fmt: skip


def l1_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None
) -> Tensor:
    """Mean absolute error ``|input - target|``."""
    reduction = _reduction("l1_loss", size_average, reduce, reduction)
    return _pointwise("l1_loss", input, target, weight, reduction, lambda x, y: (x - y).abs())


def _huber(delta: float):
    def elementwise(x, y):
        diff = x - y
        z = diff.abs()
        return _lg.where(z < delta, 0.5 * diff * diff, delta * (z - 0.5 * delta))

    return elementwise


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - delta / 2)``; ``d = input - target``.

    With ``weight``, ``mean`` is the plain mean of the weighted losses (as PyTorch's).
    """
    reduction = _reduction("huber_loss", None, None, reduction)
    if delta <= 0:
        raise RuntimeError(
            f"huber_loss does not support non-positive values for delta, got delta={delta}"
        )
    if isinstance(input, Tensor) and isinstance(target, Tensor) and target.dtype != input.dtype:
        # PyTorch's huber kernel computes in the input's dtype (its backward then raises on
        # the mixed pair; here the target's gradient comes back through the cast).
        if target.is_floating_point() and not input.is_floating_point():
            raise RuntimeError(
                f"result type {scalar_type_name(target.dtype.np)} can't be cast "
                f"to the desired output type {scalar_type_name(input.dtype.np)} "
                "(huber_loss computes in the input's dtype; pass a floating input)"
            )
        target = target.to(input.dtype)
    return _pointwise(
        "huber_loss", input, target, weight, reduction, _huber(delta), weighted_mean=False,
        op=losses.huber_loss, delta=delta,
    )  # fmt: skip


def smooth_l1_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - beta / 2``; ``beta = 0`` is L1."""
    reduction = _reduction("smooth_l1_loss", size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError(
            f"smooth_l1_loss does not support negative values for beta, got beta={beta}"
        )
    if beta == 0:
        return _pointwise(
            "smooth_l1_loss", input, target, None, reduction, lambda x, y: (x - y).abs()
        )

    def elementwise(x, y):
        diff = x - y
        z = diff.abs()
        return _lg.where(z < beta, 0.5 * diff * diff / beta, z - 0.5 * beta)

    return _pointwise(
        "smooth_l1_loss", input, target, None, reduction, elementwise,
        op=losses.smooth_l1_loss, beta=beta,
    )  # fmt: skip


# ----- binary cross-entropy -----


def _same_shape(name: str, input: Tensor, target: Tensor) -> None:
    """ValueError in PyTorch's words (the two losses word it differently), then ours."""
    if target.shape != input.shape:
        words = (
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
            if name == "binary_cross_entropy"
            else f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
        raise ValueError(f"{words} ({name}: give the target the input's shape)")


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """``-w (y log x + (1 - y) log(1 - x))`` for ``x`` in [0, 1]; logs clamped at -100."""
    reduction = _reduction("binary_cross_entropy", size_average, reduce, reduction)
    _check_tensors("binary_cross_entropy", input=input, target=target, weight=weight)
    _same_shape("binary_cross_entropy", input, target)
    _check_float("binary_cross_entropy", input)
    if target.dtype != input.dtype:  # PyTorch's kernel takes one dtype and does not promote
        raise RuntimeError(
            f"binary_cross_entropy: Found dtype {target.dtype} but expected {input.dtype}; "
            "convert the target first (target.to(input.dtype))"
        )
    with _lg.no_grad():
        in_range = bool(((input >= 0) & (input <= 1)).all())
        target_in_range = bool(((target >= 0) & (target <= 1)).all())  # (NaN is not)
    if not in_range:
        raise RuntimeError(
            "binary_cross_entropy: all elements of input should be between 0 and 1 (they are "
            "probabilities; for logits use binary_cross_entropy_with_logits)"
        )
    if not target_in_range:
        raise RuntimeError(
            "all elements of target should be between 0 and 1 (binary_cross_entropy: the "
            "target holds probabilities)"
        )
    _constant_weights("binary_cross_entropy", weight=weight)
    if not _broadcast_into(weight, input):
        raise RuntimeError(
            f"binary_cross_entropy: output with shape {list(input.shape)} doesn't match the "
            f"broadcast shape of the weight's {list(weight.shape)}; the weight must broadcast "
            "to the input's shape"
        )
    return losses.binary_cross_entropy(
        input,
        target,
        weight=None if weight is None else weight._data.copy(),
        reduction=losses.REDUCTIONS[reduction],
    )


def _constant_weights(op: str, **weights) -> None:
    """PyTorch's refusal of weights that require grad (its kernels have no derivative for them)."""
    for name, value in weights.items():
        if value is not None and value.requires_grad:
            raise RuntimeError(
                f"The function '{op}' is not differentiable with respect to argument '{name}'. "
                "This input cannot have requires_grad True."
            )


def _broadcast_into(value, input: Tensor) -> bool:
    """Whether ``value`` (a tensor or None) broadcasts to ``input``'s shape."""
    if value is None:
        return True
    try:
        return np.broadcast_shapes(tuple(value.shape), tuple(input.shape)) == input.shape
    except ValueError:
        return False


def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight=None,
) -> Tensor:
    """BCE of ``sigmoid(input)`` computed stably from the logits:
    ``(1 - y) x + (1 + (pos_weight - 1) y) softplus(-x)``, times ``weight``."""
    reduction = _reduction("binary_cross_entropy_with_logits", size_average, reduce, reduction)
    _check_tensors(
        "binary_cross_entropy_with_logits",
        input=input,
        target=target,
        weight=weight,
        pos_weight=pos_weight,
    )
    _same_shape("binary_cross_entropy_with_logits", input, target)
    _check_float("binary_cross_entropy_with_logits", input)
    _constant_weights("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    if (
        target.dtype == input.dtype
        and _broadcast_into(weight, input)
        and _broadcast_into(pos_weight, input)
    ):  # one op, as PyTorch records it (its weights are constants)
        return losses.binary_cross_entropy_with_logits(
            input,
            target,
            weight=None if weight is None else weight._data.copy(),
            pos_weight=None if pos_weight is None else pos_weight._data.copy(),
            reduction=losses.REDUCTIONS[reduction],
        )
    # softplus(-x) = m + log(exp(-m) + exp(-x - m)) for any m; m = max(-x, 0) keeps both
    # exponents <= 0. The value does not depend on m, so m needs no gradient.
    m = _lg.clamp_min(-input, 0.0).detach()
    softplus_neg = m + ((-m).exp() + (-input - m).exp()).log()
    if pos_weight is not None:
        softplus_neg = softplus_neg * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    # PyTorch computes into a tensor made from the target: the loss takes the target's dtype
    return _reduce(loss.to(target.dtype), reduction)


# ----- negative log-likelihood and cross-entropy -----


def _class_dim(name: str, input: Tensor) -> int:
    if input.dim() == 0:
        raise ValueError(f"{name}: input must have a class dimension, got a 0-dim tensor")
    return 1 if input.dim() >= 2 else 0


def _check_class_weight(name: str, weight, n_classes: int) -> None:
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"{name}: weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}"
        )


def _check_weight_dtype(name: str, weight, input: Tensor) -> None:
    """Class indices' weights in the input's dtype, as PyTorch's nll kernel requires (class
    probabilities multiply and promote, so they take any)."""
    if weight is not None and weight.dtype != input.dtype and input.is_floating_point():
        raise RuntimeError(  # PyTorch's kernel takes one dtype
            f"expected scalar type {scalar_type_name(input.dtype.np)} but found "
            f"{scalar_type_name(weight.dtype.np)} ({name}: the class weights are "
            f"{weight.dtype}, the input {input.dtype}; convert the weights with .to(input.dtype))"
        )


def _check_class_target(name: str, input: Tensor, target: Tensor, class_dim: int) -> None:
    if target.dtype not in (_lg.int64, _lg.uint8):
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{scalar_type_name(target._data.dtype)} ({name}: class indices; for class "
            "probabilities pass a float target of the input's shape)"
        )
    shape, target_shape = tuple(input.shape), tuple(target.shape)  # (tuples: cheap slices)
    expected = list(shape[:1] + shape[2:]) if class_dim == 1 else []
    if class_dim == 1 and target_shape and target_shape[0] != shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]}). ({name}: input of shape {list(input.shape)}, target of shape "
            f"{list(target.shape)})"
        )
    if list(target_shape) != expected:
        raise RuntimeError(
            f"{name}: expected target of shape {expected} for input of shape "
            f"{list(input.shape)}, got {list(target.shape)}"
        )


def _picked_weights(weight, target: Tensor, valid: Tensor, like: Tensor) -> Tensor:
    """Per-element weight ``weight[target]``, zero where the target is ignored."""
    mask = valid.to(like.dtype)
    if weight is None:
        return mask
    safe = target.masked_fill(valid.logical_not(), 0)
    picked = weight.detach().to(like.dtype).gather(0, safe.reshape(-1)).reshape(tuple(target.shape))
    return picked * mask


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``-weight[t] * input[..., t, ...]`` per element for log-probabilities ``input``.

    input ``(N, C, d1, ...)`` or ``(C,)``; target class indices ``(N, d1, ...)`` or ``()``.
    ``mean`` divides by the summed weights of the targets that are not ``ignore_index``.
    """
    reduction = _reduction("nll_loss", size_average, reduce, reduction)
    _check_tensors("nll_loss", input=input, target=target, weight=weight)
    class_dim = _class_dim("nll_loss", input)
    _check_class_target("nll_loss", input, target, class_dim)
    _check_class_weight("nll_loss", weight, input.shape[class_dim])
    _check_weight_dtype("nll_loss", weight, input)
    return _nll(input, target.long(), weight, ignore_index, reduction, class_dim)


def _nll(logp, target, weight, ignore_index, reduction, class_dim):
    n_classes = logp.shape[class_dim]
    classes = target._value._data if isinstance(target, BatchedTensor) else target._data
    if out_of_range(classes, n_classes):  # (one pass; then the ignored ones set apart)
        labels = classes[classes != ignore_index]  # (under vmap: every example's)
        bad = labels[(labels < 0) | (labels >= n_classes)]
        if bad.size:
            raise IndexError(
                f"Target {int(bad[0])} is out of bounds (there are {n_classes} classes)."
            )
    if isinstance(logp, BatchedTensor) or isinstance(target, BatchedTensor):
        valid = target != ignore_index
        return _nll_composed(logp, target, weight, valid, reduction, class_dim)
    classes = target._data.copy()  # the class indices as they are now (PyTorch saves them)
    op, shape = losses.nll_loss, None
    if logp.ndim > 2 and class_dim == 1:  # PyTorch's nll_loss_nd: nll_loss2d, others as 4-D
        op = losses.nll_loss2d
        if logp.ndim != 4:
            n, c = logp.shape[:2]
            shape = (n, *logp.shape[2:])
            empty = logp.numel() == 0
            logp = logp.contiguous().view(n, c, 0 if empty else 1, 0 if empty else -1)
            classes = classes.reshape((n, 0, 0) if classes.size == 0 else (n, 1, -1))
    out = op(
        logp,
        target=classes,
        weight=None if weight is None else weight._data,
        ignore_index=ignore_index,
        reduction=losses.REDUCTIONS[reduction],
        class_dim=class_dim,
    )
    return out.view(shape) if shape is not None and reduction == "none" else out


def _nll_composed(logp, target, weight, valid, reduction, class_dim):
    """nll_loss from gathers and sums (under vmap, where each example's indices differ)."""
    safe = target.masked_fill(valid.logical_not(), 0)
    picked = logp.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
    w = _picked_weights(weight, target, valid, logp)
    loss = -(picked * w)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of the logits ``input`` against class indices or class probabilities.

    input ``(N, C, d1, ...)`` or ``(C,)``. A target of the input's shape holds probabilities
    (float); otherwise class indices ``(N, d1, ...)`` or ``()``, as in PyTorch.
    ``label_smoothing`` mixes the target with the uniform distribution over the C classes.
    """
    if (
        type(input) is Tensor
        and type(target) is Tensor
        and weight is None
        and size_average is None
        and reduce is None
        and label_smoothing == 0.0
        and reduction in _REDUCTIONS
    ):
        x, t = input._data, target._data
        if (
            x.ndim == 2
            and x.dtype.kind == "f"
            and t.ndim == 1
            and t.dtype == np.int64
            and t.shape[0] == x.shape[0]
        ):  # (N, C) logits, (N,) class indices: every check below passes (~3 us of them)
            logp = softmax._log_softmax(input, dim=1)  # log_softmax's own checks pass too
            return _nll(logp, target, None, ignore_index, reduction, 1)
    reduction = _reduction("cross_entropy", size_average, reduce, reduction)
    _check_tensors("cross_entropy", input=input, target=target, weight=weight)
    class_dim = _class_dim("cross_entropy", input)
    n_classes = input.shape[class_dim]
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    _check_class_weight("cross_entropy", weight, n_classes)
    _check_float("cross_entropy", input)
    logp = _lg.log_softmax(input, class_dim)
    weight_view = None
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        weight_view = weight.reshape(shape)
    if target.shape == input.shape:
        return _cross_entropy_probabilities(
            logp, target, weight_view, ignore_index, reduction, label_smoothing, class_dim
        )
    _check_class_target("cross_entropy", input, target, class_dim)
    _check_weight_dtype("cross_entropy", weight, input)
    target = target.long()
    nll = _nll(logp, target, weight, ignore_index, reduction, class_dim)
    if label_smoothing == 0.0:
        return nll
    valid = target != ignore_index
    smooth = -(logp if weight_view is None else logp * weight_view).sum(class_dim)
    smooth = smooth.masked_fill(valid.logical_not(), 0.0)
    if reduction == "mean":
        smooth = smooth.sum() / _picked_weights(weight, target, valid, logp).sum()
    else:
        smooth = _reduce(smooth, reduction)
    # PyTorch's C++ ``(1 - label_smoothing) * nll``: numbers times tensors are mul.Scalar.
    return mul_scalar(nll, other=1 - label_smoothing) + mul_scalar(
        smooth, other=label_smoothing / n_classes
    )


def _cross_entropy_probabilities(
    logp, target, weight_view, ignore_index, reduction, label_smoothing, class_dim
):
    if not target.is_floating_point():
        raise RuntimeError(
            f"cross_entropy: a target of the input's shape {list(logp.shape)} holds class "
            f"probabilities and must be floating point, got {target.dtype}"
        )
    if ignore_index >= 0:
        raise RuntimeError(
            "cross_entropy: ignore_index is not supported for floating point (probability) targets"
        )
    n_classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = logp * target
    if weight_view is not None:
        terms = terms * weight_view
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    # PyTorch's ``-(...).sum() / (numel / n_classes)``: an integer count, div.Scalar
    return _div_scalar(-terms.sum(), other=logp.numel() // n_classes)
