"""The four overloads of a normalisation op (layer, batch and group norm), one per presence of
``weight`` and ``bias``: each takes only the tensors it has, an absent one being a None
parameter (saved as PyTorch saves it); and the per-channel affine map of batch and group
norm, on arrays or tensors alike."""

from __future__ import annotations

from ..ops._optable import Composite
from ..ops._primitive import primitive

OVERLOADS = {  # (has weight, has bias) -> overload
    (False, False): "",
    (True, False): "weight",
    (False, True): "bias",
    (True, True): "weight_bias",
}


def affine_parts(has_weight, has_bias, affine, params):
    """``(weight, bias)`` from the op's extra operands (or its None parameters)."""
    weight = affine[0] if has_weight else params.get("weight")
    bias = affine[-1] if has_bias else params.get("bias")
    return weight, bias


def per_channel(x, v):
    """A per-channel (C,) value shaped to broadcast against ``x`` (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def channel_affine(out, x, weight, bias):
    """``out * weight + bias`` per channel of ``x`` (either may be None)."""
    if weight is not None:
        out = out * per_channel(x, weight)
    if bias is not None:
        out = out + per_channel(x, bias)
    return out


def declare(name: str, node_name: str, saves: tuple, makers: tuple) -> dict:
    """The op's four primitives, ``(has weight, has bias) -> op``; ``makers`` make the
    forward, the VJP (``vjp_all``), the composite and the JVP of each from ``(has_weight,
    has_bias)``. Three outputs (the result and two statistics), rules on arrays in a plain
    backward."""

    def one(has_weight, has_bias):
        forward, vjp_all, composite, jvp = (make(has_weight, has_bias) for make in makers)
        inputs = ("input",) + (("weight",) if has_weight else ()) + (("bias",) if has_bias else ())
        return primitive(
            name,
            forward,
            vjp_all=vjp_all,
            kind=Composite(taylor_as=composite, jvp=jvp),
            overload=OVERLOADS[has_weight, has_bias],
            inputs=inputs,
            outputs=("result0", "result1", "result2"),
            saves=saves,
            node_name=node_name,
            dtype_rule="keep",
            num_outputs=3,
            materialize_grads=False,
            plain_rules=True,
            # PyTorch's node lists an absent weight or bias as (None, 0).
            absent_edges=((1,) if not has_weight else ()) + ((2,) if not has_bias else ()),
        )

    return {key: one(*key) for key in OVERLOADS}


def call(ops: dict, input, weight, bias, **params) -> tuple:
    """The overload of ``ops`` for the tensors given (``weight`` and ``bias`` may be None)."""
    op = ops[weight is not None, bias is not None]
    tensors = [t for t in (input, weight, bias) if t is not None]
    absent = {name: None for name, t in (("weight", weight), ("bias", bias)) if t is None}
    return op(*tensors, **params, **absent)
