"""One time step of each recurrence (tanh/relu RNN, LSTM, GRU), written in differentiable ops.

``x``: (batch, input), ``h``/``c``: (batch, hidden); weights as PyTorch stores them, gates
stacked along dim 0 in PyTorch's order (LSTM: i, f, g, o; GRU: r, z, n).
"""

from __future__ import annotations

from .. import Tensor
from . import functional as F


def rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity: str = "tanh") -> Tensor:
    """``act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    pre = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None) -> tuple[Tensor, Tensor]:
    """``(h', c')``: ``c' = f c + i g``, ``h' = o tanh(c')`` (then ``h' W_hr^T`` if projected)."""
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, dim=-1)
    c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h_new = o.sigmoid() * c_new.tanh()
    if w_hr is not None:
        h_new = F.linear(h_new, w_hr)
    return h_new, c_new


def gru_step(x, h, w_ih, w_hh, b_ih, b_hh) -> Tensor:
    """``(1 - z) n + z h`` with ``n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn))``."""
    gi_r, gi_z, gi_n = F.linear(x, w_ih, b_ih).chunk(3, dim=-1)
    gh_r, gh_z, gh_n = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
    r = (gi_r + gh_r).sigmoid()
    z = (gi_z + gh_z).sigmoid()
    n = (gi_n + r * gh_n).tanh()
    return (1 - z) * n + z * h
