"""``torch.lstm``, ``torch.gru``, ``torch.rnn_tanh``, ``torch.rnn_relu``: whole multi-layer,
optionally bidirectional recurrences over a flat list of weights (ATen's signature), stepped
with the same cells as ``nn.LSTM``/``nn.GRU``/``nn.RNN``."""

from __future__ import annotations

from ..ops.joining import cat, stack
from . import functional as F
from ._rnn_steps import gru_step, lstm_step, rnn_step


def _run(name, step, input, states, params, has_biases, num_layers, dropout, train,
         bidirectional, batch_first, projected=False):  # fmt: skip
    """The output sequence and each state's final values, layer by layer."""
    dirs = 2 if bidirectional else 1
    per = (4 if has_biases else 2) + (1 if projected else 0)
    if len(params) != per * num_layers * dirs:
        raise RuntimeError(
            f"{name}: expected {per * num_layers * dirs} weights ({per} per layer and direction "
            f"for {num_layers} layers, {dirs} directions), got {len(params)}"
        )
    if input.dim() != 3:  # nn.LSTM & co. batch a 2-D input themselves; ATen's takes 3-D only
        raise IndexError(
            f"{name}: expected a 3-D input (seq, batch, feature), got shape {tuple(input.shape)}"
            " (Dimension out of range)"
        )
    x = input.transpose(0, 1) if batch_first else input
    finals = [[] for _ in states]
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = list(params[k * per : (k + 1) * per])
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if projected else None
            state = tuple(s[k] for s in states)
            seq = []
            steps = range(x.shape[0])
            for t in reversed(steps) if d else steps:
                state = step(x[t], state, w_ih, w_hh, b_ih, b_hh, w_hr)
                seq.append(state[0])
            outs.append(stack(seq[::-1] if d else seq))
            for f, s in zip(finals, state):
                f.append(s)
        x = cat(outs, -1) if dirs == 2 else outs[0]
        if dropout and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    finals = [stack(f) for f in finals]
    return (x.transpose(0, 1) if batch_first else x, *finals)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first) -> tuple:  # fmt: skip
    """``(output, h_n, c_n)`` of an LSTM; ``hx = (h_0, c_0)``, ``params`` per layer and
    direction ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``."""
    h0, c0 = hx
    projected = h0.shape[-1] != c0.shape[-1]

    def step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
        return lstm_step(x, state[0], state[1], w_ih, w_hh, b_ih, b_hh, w_hr)

    return _run("lstm", step, input, [h0, c0], params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first, projected)  # fmt: skip


def _single(name, cell):
    def run(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first) -> tuple:  # fmt: skip
        def step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
            return (cell(x, state[0], w_ih, w_hh, b_ih, b_hh),)

        return _run(name, step, input, [hx], params, has_biases, num_layers, dropout, train,
                    bidirectional, batch_first)  # fmt: skip

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"``(output, h_n)`` of a multi-layer {name} recurrence (ATen's signature)."
    return run


gru = _single("gru", gru_step)
rnn_tanh = _single("rnn_tanh", lambda *a: rnn_step(*a, "tanh"))
rnn_relu = _single("rnn_relu", lambda *a: rnn_step(*a, "relu"))
