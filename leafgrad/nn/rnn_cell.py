"""RNNCell, LSTMCell and GRUCell: one step of a recurrence, with PyTorch's parameter names."""

from __future__ import annotations

import math

from .. import Tensor, empty, zeros
from . import init
from ._rnn_steps import gru_step, lstm_step, rnn_step
from .module import Module
from .parameter import Parameter

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


class RNNCellBase(Module):
    """``weight_ih`` (chunks*hidden, input), ``weight_hh`` (chunks*hidden, hidden) and the
    biases, all starting as U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor, hx, n_states: int):
        """Batch an unbatched input, check sizes, and give zero states where ``hx`` is None."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{name}: input has inconsistent input_size: got {input.shape[-1]}, expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        states = [hx] if n_states == 1 or hx is None else list(hx)
        if not batched:
            input = input.unsqueeze(0)
        out = []
        for state in states * (n_states if hx is None else 1):
            if state is None:
                state = zeros(
                    (input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device
                )
            else:
                if state.dim() != (2 if batched else 1):
                    raise RuntimeError(
                        f"{name}: expected hidden state of {2 if batched else 1} dimensions for "
                        f"{input.dim()}-D input, got shape {list(state.shape)}"
                    )
                if not batched:
                    state = state.unsqueeze(0)
                if tuple(state.shape) != (input.shape[0], self.hidden_size):
                    raise RuntimeError(
                        f"{name}: hidden state has shape {list(state.shape)}, expected "
                        f"{[input.shape[0], self.hidden_size]}"
                    )
            out.append(state)
        return input, out, batched


class RNNCell(RNNCellBase):
    """``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)`` with act tanh or relu."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x, (h,), batched = self._prepare(input, hx, 1)
        h = rnn_step(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                     self.nonlinearity)  # fmt: skip
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c') = cell(x, (h, c))``; gates i, f, g, o stacked in the weights."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None) -> tuple[Tensor, Tensor]:
        x, (h, c), batched = self._prepare(input, hx, 2)
        h, c = lstm_step(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step ``h' = (1 - z) n + z h``; gates r, z, n stacked in the weights."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._prepare(input, hx, 1)
        h = gru_step(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
