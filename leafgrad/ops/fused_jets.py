"""Packed jets: the fused Taylor path, for the ops a PINN's network is made of.

``leafgrad.autograd.taylor`` seeds its inputs with a :class:`PackedJet` when the jet mode
needs at most second-order channels: ``("taylor", 1 or 2)``, ``("collapsed", w)`` or
``("seconds", W)`` (several second-order channels, e.g. every ``d2u/dx_i^2``). Its channels
are one tensor with a leading axis, so a layer maps them all at once:

- matrix products ``x @ w`` (``mm``, ``matmul``, ``addmm``: ``nn.Linear``) with a constant
  ``w``: one ``jet_linear``;
- elementwise functions: tanh, sigmoid, exp, sin, cos, softplus, gelu and silu by one
  ``jet_act`` (their derivatives inside the kernel); any other with declared ``d1`` and
  ``d2``: those in leafgrad ops, then one ``jet_unary``;
- ``+ b``, ``- b``, ``* c`` with a constant operand: the channels pass through or are scaled
  once; composites (``x / c``, ``addmm``) through their declared ``taylor_as``.

Any other op (or two jets meeting in a product) falls back to the generic rules of
``_jets``: its inputs' channels are unpacked into coefficients and its output's packed
again, so the ops after it are fused again.
"""

from __future__ import annotations

from .._engine.forward import jet_mode
from .._engine.grad_mode import is_grad_enabled, set_grad_enabled
from .._tensor import Tensor
from . import _jets, jet_values
from ._optable import Bilinear, Composite, Linear, Unary
from .jet_activations import TAKES_RESULT, jet_act, variable
from .jet_dense import blocks_layer, dense_rows, jet_dense
from .jet_kernels import jet_linear, jet_unary
from .joining import stack, unbind

_MATRIX_PRODUCTS = ("mm", "matmul", "matmul.clone")  # (..., n) @ (n, m), one key per node name
_PASS_THROUGH = ("add.Tensor", "sub.Tensor")  # x + b, x - b: x's channels, unchanged
NOT_FUSED = object()
_new = object.__new__


def fusable(mode) -> bool:
    """Whether a jet mode has a packed form (at most second-order channels)."""
    return mode[0] != "taylor" or mode[1] <= 2


def layout(mode) -> tuple:
    """``(first, weights)``: how many first-order channels, and the (S, first) weights of
    the second-order ones (a normalised Taylor coefficient ``x_2`` is half a derivative)."""
    kind, arg = mode
    if kind == "taylor":
        return 1, ((0.5,),) if arg == 2 else ()
    if kind == "collapsed":
        return len(arg), (tuple(float(w) for w in arg),)
    return len(arg[0]), tuple(tuple(float(w) for w in row) for row in arg)


class PackedJet:
    """A tensor's derivative channels ``(first + S, *shape)`` in jet mode ``mode``.

    A Linear layer's channels ``p @ w`` are left pending (``linear``) until first read, so
    that an activation right after it can map both at once (``jet_dense``).
    """

    __slots__ = ("_channels", "_pending", "first", "mode", "weights")

    def __init__(self, channels: Tensor, mode) -> None:
        self._channels, self._pending = channels, None
        self.mode = mode
        self.first, self.weights = layout(mode)

    @property
    def channels(self) -> Tensor:
        """The channels; a pending Linear layer's made now (in the grad mode it met)."""
        if self._pending is not None:
            p, w, grad_mode = self._operands()
            if grad_mode == is_grad_enabled():  # mostly: no mode to switch
                self._channels = jet_linear(p, w)
            else:
                with set_grad_enabled(grad_mode):
                    self._channels = jet_linear(p, w)
            self._pending = None
        return self._channels

    def _operands(self) -> tuple:
        """A pending layer's ``(p, w, grad mode)``; RuntimeError when ``p`` or ``w`` changed
        in place since (the channels would not be those of the product that was taken)."""
        p, w, grad_mode, versions = self._pending
        if (p._version, w._version) != versions:
            raise RuntimeError(
                f"Taylor mode: an operand of a matrix product ({list(w.shape)} weight) was "
                "modified by an inplace operation before the product's result was used; its "
                "derivative channels are formed when first used, so modify a clone() instead"
            )
        return p, w, grad_mode

    def like(self, channels: Tensor | None) -> PackedJet:
        """A jet of the same mode (its layout copied, not worked out again)."""
        jet = _new(PackedJet)
        jet._channels, jet._pending, jet.mode, jet.first, jet.weights = (
            channels,
            None,
            self.mode,
            self.first,
            self.weights,
        )
        return jet

    def linear(self, p: Tensor, w: Tensor) -> PackedJet:
        """A jet of the same mode whose channels are ``jet_linear(p, w)``, made when read."""
        jet = self.like(None)
        jet._pending = (p, w, is_grad_enabled(), (p._version, w._version))
        return jet

    def unpack(self) -> tuple:
        """The generic jet of ``_jets`` for this mode."""
        parts = unbind(self.channels, 0)
        kind, first = self.mode[0], self.first
        if kind == "taylor":
            return tuple(parts)
        if kind == "collapsed":
            return tuple(parts[:first]), parts[first]
        return tuple(parts[:first]), tuple(parts[first:])

    def call(self, op, args: tuple, params: dict):
        """``op(*args)`` and its jet by one node (``jet_values``) where ``args[0]`` carries
        this jet: ``h @ w`` with a constant 2-D ``w`` (``jet_linear_value``), or an
        activation whose derivatives are written in its output (``jet_act_value``). None
        for other ops, and where ``jet_dense`` would take a layer and its activation
        together (row blocks, at sizes beyond the caches). Called with the jet mode
        suspended (``_jets.call``): the ops it runs are given no jets."""
        key = op.primitive.key
        if key == "mm" and len(args) == 2:
            return self._linear_value(args[0], args[1], None, {})
        if key == "addmm" and len(args) == 3 and params.get("alpha", 1) == 1:
            return self._linear_value(args[1], args[2], args[0], params)
        x = args[0]
        data = x._data
        if data.dtype.kind != "f" or x._jet is not self:
            return None
        if len(args) != 1 or variable(key, params) != "result":
            return None
        if _dense_operands(self, data) is not None:
            return None  # jet_dense's: the layer and this activation over row blocks
        channels = self.channels
        if channels._data.dtype != data.dtype or channels._data.shape[1:] != data.shape:
            return None
        y, q = jet_values.jet_act_value(
            x,
            channels,
            fn=key,
            op_params=tuple(sorted(params.items())) if params else (),
            first=self.first,
            weights=self.weights,
        )
        y._jet = self.like(q)
        return y

    def _linear_value(self, h, w, bias, params: dict):
        """``h @ w`` (``bias`` None) or ``addmm(bias, h, w, beta=...)`` with ``h`` carrying
        this jet, by one node (``jet_linear_value``, ``jet_addmm_value``); None where ``w``
        or ``bias`` carry jets, for other shapes, or where an activation after it would take
        both over row blocks (``jet_dense``: the product is left pending)."""
        if not isinstance(h, Tensor) or h._jet is not self or not isinstance(w, Tensor):
            return None
        data = h._data
        if w._jet is not None or w._data.ndim != 2 or data.ndim != 2 or data.dtype.kind != "f":
            return None
        if bias is not None and (not isinstance(bias, Tensor) or bias._jet is not None):
            return None
        channels = self.channels
        p = channels._data
        if p.dtype != data.dtype or w._data.dtype != data.dtype:
            return None
        if blocks_layer(p, w._data):
            return None  # pending: an activation after it takes both over row blocks
        if bias is None:
            v, q = jet_values.jet_linear_value(h, channels, w)
        else:
            beta = params.get("beta", 1)
            v, q = jet_values.jet_addmm_value(bias, h, channels, w, beta=beta)
        v._jet = self.like(q)
        return v

    def push(self, op, args, params, result, jets) -> bool:
        """Give ``result`` its jet by a fused rule; False when ``op`` has none here. Called in
        jet mode: the rules that run ops suspend it (their operands' jets are not pushed)."""
        if type(result) is tuple or result._data.dtype.kind != "f":
            return False
        for j in jets:
            if j is not None and type(j) is not PackedJet:
                return False
        jet = _fused(op, args, params, result, jets, self)
        if jet is NOT_FUSED:
            return False
        result._jet = jet
        return True

    def repack(self, result) -> None:
        """Pack the generic jet the fallback gave ``result``, so later ops fuse again."""
        jet = result._jet
        if type(jet) is not tuple:
            return
        if self.mode[0] == "taylor":
            flat = list(jet)
        elif self.mode[0] == "collapsed":
            flat = [*jet[0], jet[1]]
        else:
            flat = [*jet[0], *jet[1]]
        data = result._data
        for c in flat:
            if not isinstance(c, Tensor) or c._data.shape != data.shape or c.dtype != result.dtype:
                return
        result._jet = PackedJet(stack(flat), self.mode)


def _fused(op, args, params, result, jets, like: PackedJet):
    """The fused rule's jet, or NOT_FUSED. A layer's product and ``+ b`` run no op (the
    product is left pending; reading a pending input's channels runs one on jet-free
    operands, whose jet push returns at once), so they skip suspending the jet mode; the
    other rules run with it suspended."""
    prim = op.primitive
    key = prim.key
    with_jet = [i for i, j in enumerate(jets) if j is not None]
    if key in _MATRIX_PRODUCTS:
        if with_jet == [0] and args[0]._data.ndim >= 2 and args[1]._data.ndim == 2:
            return like.linear(jets[0].channels, args[1])
        return NOT_FUSED
    if key == "addmm":  # beta * input + alpha * mat1 @ mat2, nn.Linear's op
        if with_jet != [1]:
            return NOT_FUSED
        if params.get("alpha", 1) == 1:
            return like.linear(jets[1].channels, args[2])
    else:
        shape = result._data.shape
        if any(args[i]._data.shape != shape for i in with_jet):
            return NOT_FUSED  # broadcasting the jet itself: the generic rules
        if with_jet == [0] and key in _PASS_THROUGH and _affine(prim):
            return jets[0]
    with jet_mode(None):
        return _fused_ops(op, prim, key, args, params, result, jets, with_jet, like)


def _affine(prim) -> bool:
    """An affine op that broadcasts (``+``, ``-``, ...)."""
    return type(prim.kind) is Linear and prim.kind.affine and prim.broadcast


def _fused_ops(op, prim, key, args, params, result, jets, with_jet, like: PackedJet):
    if key == "addmm":  # alpha != 1
        return like.like(jet_linear(jets[1].channels, args[2]) * params["alpha"])
    kind = prim.kind  # isinstance tests, not ``match``: Cython compiles this module
    if isinstance(kind, Unary):
        if kind.d2 is not None and with_jet == [0]:
            return _unary(kind, op, args, params, result, jets[0], like)
    elif isinstance(kind, Linear):
        if kind.affine is True and prim.broadcast:
            return like.like(op(*_channel_args(args, jets), **params))
    elif isinstance(kind, Bilinear):
        if prim.broadcast and len(with_jet) == 1:
            return like.like(op(*_channel_args(args, jets, zero=False), **params))
    elif isinstance(kind, Composite):
        with jet_mode(like.mode):
            return kind.taylor_as(*args, **params)._jet
    return NOT_FUSED


def _channel_args(args, jets, zero: bool = True) -> list:
    """Channels for operands with a jet; the others as 0 (affine ops) or as they are."""
    out = []
    for a, j in zip(args, jets):
        if j is not None:
            out.append(j.channels)
        else:
            out.append(0 if zero else a)
    return out


def _unary(kind: Unary, op, args, params, result, jet: PackedJet, like: PackedJet):
    x, extra = args[0], args[1:]
    z = variable(op.primitive.key, params) if not extra else None
    if z is not None:  # derivatives inside the kernel: nothing but p and z saved
        act = {
            "fn": op.primitive.key,
            "op_params": tuple(sorted(params.items())) if params else (),
            "first": like.first,
            "weights": like.weights,
        }
        z = result if z == "result" else x
        dense = _dense(jet, z, act)
        if dense is not None:
            return like.like(dense)
        channels = jet.channels
        if channels._data.dtype != result._data.dtype:
            return NOT_FUSED
        return like.like(jet_act(channels, z, **act))
    channels = jet.channels
    if channels.dtype != result.dtype:
        return NOT_FUSED
    d1 = _derivative(kind.d1, kind.d1_takes_result, x, extra, result, params)
    d2 = _derivative(kind.d2, kind.d2_takes_result, x, extra, result, params)
    for d in (d1, d2):
        if not isinstance(d, Tensor) or d._data.shape != x._data.shape or d.dtype != result.dtype:
            return NOT_FUSED
    return like.like(jet_unary(channels, d1, d2, first=like.first, weights=like.weights))


def _dense(jet: PackedJet, z: Tensor, act: dict):
    """``jet_dense``'s output channels when ``jet`` is a pending Linear layer too large for
    the caches (then ``jet`` gets the layer's channels from it too), else None."""
    operands = _dense_operands(jet, z._data)
    if operands is None:
        return None
    out, jet._channels = jet_dense(*operands, z, **act)
    jet._pending = None
    return out


def _dense_operands(jet: PackedJet, z) -> tuple | None:
    """``(p, w)`` of ``jet``'s pending Linear layer where an activation at ``z`` (its input
    or output array) after it goes to ``jet_dense``, else None. Fused where the layer's
    input channels alone outgrow a block: below that (Burgers' 2.4 MB float32 jets) the two
    primitives measured as fast or faster."""
    if jet._pending is None:
        return None
    p, w, grad_mode = jet._operands()
    if grad_mode != is_grad_enabled() or len(dense_rows(p._data, w._data, z, 1)) < 2:
        return None
    return p, w


def _derivative(rule, takes_result, x, extra, result, params):
    if takes_result:
        return rule(x, *extra, result=result, **params)
    return rule(x, *extra, **params)


_jets.CALLS.update(TAKES_RESULT, ("mm", "addmm"))

__all__: list = []
