"""One time step of each recurrence (tanh/relu RNN, LSTM, GRU), written in differentiable ops
as PyTorch's CPU cells compute them (ATen's ``RNNCell``, ``LSTMCell``, ``GRUCell``): the
hidden state's product first, the input's added (``gates``: the input's product already made,
as the layers make it for every step at once), the gates taken apart with ``unsafe_chunk``,
so the recorded graphs are PyTorch's node for node.

``x``: (batch, input), ``h``/``c``: (batch, hidden); weights as PyTorch stores them, gates
stacked along dim 0 in PyTorch's order (LSTM: i, f, g, o; GRU: r, z, n).
"""

from __future__ import annotations

from .. import Tensor
from . import functional as F


def _input_gates(x, w_ih, b_ih, gates):
    return F.linear(x, w_ih, b_ih) if gates is None else gates


def rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity: str = "tanh", gates=None) -> Tensor:
    """``act(h W_hh^T + b_hh + x W_ih^T + b_ih)``."""
    pre = F.linear(h, w_hh, b_hh) + _input_gates(x, w_ih, b_ih, gates)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None, gates=None) -> tuple[Tensor, Tensor]:
    """``(h', c')``: ``c' = f c + i g``, ``h' = o tanh(c')`` (then ``h' W_hr^T`` if projected)."""
    gates = F.linear(h, w_hh, b_hh) + _input_gates(x, w_ih, b_ih, gates)
    i, f, g, o = gates.unsafe_chunk(4, -1)
    c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h_new = o.sigmoid() * c_new.tanh()
    if w_hr is not None:
        h_new = F.linear(h_new, w_hr)
    return h_new, c_new


def gru_step(x, h, w_ih, w_hh, b_ih, b_hh, gates=None) -> Tensor:
    """``(h - n) z + n`` (that is ``(1 - z) n + z h``) with ``n = tanh(x W_in^T + b_in +
    r (h W_hn^T + b_hn))``."""
    i_r, i_z, i_n = _input_gates(x, w_ih, b_ih, gates).unsafe_chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).unsafe_chunk(3, -1)
    r = (h_r + i_r).sigmoid()
    z = (h_z + i_z).sigmoid()
    n = (i_n + h_n * r).tanh()
    return (h - n) * z + n
