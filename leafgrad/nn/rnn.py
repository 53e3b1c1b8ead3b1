"""RNN, LSTM and GRU: stacked, optionally bidirectional recurrences over a sequence.

Parameters carry PyTorch's names (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0``)
and shapes, so state_dicts move between the libraries; the time loop runs in Python over the
differentiable steps of ``_rnn_steps``, so gradients of any order follow.
"""

from __future__ import annotations

import math
import numbers
import warnings

from .. import Tensor, cat, empty, float32, stack, tensor, where, zeros
from .._engine.grad_mode import SPECIAL
from .._warn import warn_once
from . import functional as F
from . import init
from ._lstm_layer_op import lstm_layer
from ._rnn_steps import gru_step, lstm_step, rnn_step
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, pad_packed_sequence

__all__ = ["GRU", "LSTM", "RNN", "RNNBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """The layers, directions and parameters shared by RNN, LSTM and GRU."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        for what, value in (("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{what} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{what} must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = _GATES[mode] * hidden_size
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * num_directions
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]  # fmt: skip
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op: there is no fused (cuDNN) weight layout to compact on NumPy."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _check_state(self, state: Tensor, expected: tuple, batched: bool) -> Tensor:
        name = type(self).__name__
        if state.dim() != (3 if batched else 2):
            want = "3-D" if batched else "2-D"
            raise RuntimeError(
                f"{name}: for {'batched 3-D' if batched else 'unbatched 2-D'} input, hx should "
                f"also be {want} but got {state.dim()}-D tensor"
            )
        if not batched:
            state = state.unsqueeze(1)
        if tuple(state.shape) != expected:
            raise RuntimeError(f"{name}: Expected hidden size {expected}, got {tuple(state.shape)}")
        return state

    def _runs_fused(self, input: Tensor, masks) -> bool:
        """Whether each LSTM layer runs as one op (``_lstm_layer_op``): float32 (where
        PyTorch's CPU build runs its MKLDNN layer; float64 it runs step by step, as here), no
        projection, biases, a plain batch (not packed), no dropout between layers, no special
        mode on."""
        return (
            self.mode == "LSTM"
            and input.dtype == float32
            and self.proj_size == 0
            and self.bias
            and masks is None
            and not (self.dropout > 0 and self.training and self.num_layers > 1)
            and input.shape[0] > 0
            and not SPECIAL[0]
        )

    def _run_fused(self, input: Tensor, hx: tuple):
        """``_run`` for an LSTM whose layers each run as one op (per direction)."""
        dirs = 2 if self.bidirectional else 1
        # PyTorch's MKLDNN path takes the sequence contiguous: a batch-first one (transposed
        # here) is copied, recorded as CloneBackward0 under every first-layer node.
        layer_input, h_out, c_out = input.contiguous(), [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(dirs):
                index = layer * dirs + direction
                w_ih, w_hh, b_ih, b_hh = (getattr(self, n) for n in self._all_weights[index])
                out, h, c, _ = lstm_layer(
                    layer_input, w_ih, w_hh, b_ih, b_hh, hx[0][index], hx[1][index],
                    reverse=direction == 1,
                )  # fmt: skip
                outputs.append(out)
                h_out.append(h)
                c_out.append(c)
            layer_input = cat(outputs, -1) if dirs == 2 else outputs[0]
        return layer_input, (stack(h_out, 0), stack(c_out, 0))

    def _run(self, input: Tensor, hx: tuple | None, masks: list | None = None):
        """``(output, states)`` with ``output`` (seq, batch, dirs*hidden) and each state
        (layers*dirs, batch, size); ``input`` is sequence-first and batched here. ``masks``
        (one ``(batch, 1)`` bool per step) keep a state unchanged past its sequence's end."""
        if self._runs_fused(input, masks):
            return self._run_fused(input, hx)
        if self.mode == "LSTM" and self.proj_size > 0 and input.dtype == float32 and masks is None:
            # PyTorch's CPU LSTM would take its oneDNN layer here (float32, not packed), but
            # not with projections: it says so once per process.
            warn_once(
                "LSTM with projections is not supported with oneDNN. Using default implementation."
            )
        dirs = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if input.shape[0] == 0:
            output = zeros((0, input.shape[1], dirs * real_hidden), dtype=input.dtype)
            states = (hx[0],) + ((hx[1],) if lstm else ())
            return output, tuple(s.clone() for s in states)
        layer_input = input
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(dirs):
                index = layer * dirs + direction
                weights = [getattr(self, n) for n in self._all_weights[index]]
                w_ih, w_hh = weights[0], weights[1]
                b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
                w_hr = weights[-1] if self.proj_size > 0 else None
                h = hx[0][index]
                c = hx[1][index] if lstm else None
                # The input's products for every step at once, as PyTorch's layers make them.
                steps = F.linear(layer_input, w_ih, b_ih).unbind(0)
                if direction == 1:
                    steps = steps[::-1]
                step_masks = None if masks is None else masks[:: 1 if direction == 0 else -1]
                seq = []
                for t, gates in enumerate(steps):
                    h_old, c_old = h, c
                    if lstm:
                        h, c = lstm_step(None, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, gates=gates)
                    elif self.mode == "GRU":
                        h = gru_step(None, h, w_ih, w_hh, b_ih, b_hh, gates=gates)
                    else:
                        act = "tanh" if self.mode == "RNN_TANH" else "relu"
                        h = rnn_step(None, h, w_ih, w_hh, b_ih, b_hh, act, gates=gates)
                    if step_masks is not None:
                        h = where(step_masks[t], h, h_old)
                        c = where(step_masks[t], c, c_old) if lstm else None
                    seq.append(h)
                outputs.append(stack(seq if direction == 0 else seq[::-1], 0))
                h_out.append(h)
                c_out.append(c)
            layer_input = cat(outputs, -1) if dirs == 2 else outputs[0]
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        states = (stack(h_out, 0),) + ((stack(c_out, 0),) if lstm else ())
        return layer_input, states

    def _forward_packed(self, packed: PackedSequence, hx):
        """Run on a packed batch: padded in sorted order, steps past a sequence's end
        masked, outputs packed again; states in the caller's batch order."""
        padded, lengths = pad_packed_sequence(
            PackedSequence(packed.data, packed.batch_sizes, None, None)
        )
        if packed.sorted_indices is not None and hx is not None:
            given = hx if self.mode == "LSTM" else (hx,)
            given = tuple(s.index_select(1, packed.sorted_indices) for s in given)
            hx = given if self.mode == "LSTM" else given[0]
        sizes = lengths.numpy()
        masks = [tensor((sizes > t)[:, None]) for t in range(padded.shape[0])]
        output, states = self._forward(padded, hx, masks=masks, force_batched=True)
        data = cat([output[t, : int(n)] for t, n in enumerate(packed.batch_sizes.numpy())], 0)
        if packed.unsorted_indices is not None:
            states = tuple(s.index_select(1, packed.unsorted_indices) for s in states)
        out = PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                             packed.unsorted_indices)  # fmt: skip
        return out, states

    def _forward(self, input: Tensor, hx, masks=None, force_batched=False):
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{name}: input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.shape[-1]}"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first and not force_batched:
            input = input.transpose(0, 1)
        dirs = 2 if self.bidirectional else 1
        batch = input.shape[1]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = [real_hidden] + ([self.hidden_size] if self.mode == "LSTM" else [])
        expected = [(self.num_layers * dirs, batch, size) for size in sizes]
        if hx is None:
            states = tuple(
                zeros(shape, dtype=input.dtype, device=input.device) for shape in expected
            )
        else:
            given = hx if self.mode == "LSTM" else (hx,)
            states = tuple(self._check_state(s, e, batched) for s, e in zip(given, expected))
        output, states = self._run(input, states, masks)
        if not batched:
            output = output.squeeze(1)
            states = tuple(s.squeeze(1) for s in states)
        elif self.batch_first and not force_batched:
            # As PyTorch: its LSTM transposes a new view (TransposeBackward0), its RNN and GRU
            # the output itself, in place (TransposeBackward1).
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        return output, states


class RNN(RNNBase):
    """Elman RNN ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        output, (h,) = self._forward(input, hx)
        return output, h


class GRU(RNNBase):
    """Gated recurrent unit; same arguments as RNN without ``nonlinearity``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        output, (h,) = self._forward(input, hx)
        return output, h


class LSTM(RNNBase):
    """Long short-term memory; ``proj_size > 0`` projects ``h`` through ``weight_hr_l*``.

    ``forward(input, (h_0, c_0))`` returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Tensor, hx=None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        output, (h, c) = self._forward(input, hx)
        return output, (h, c)
