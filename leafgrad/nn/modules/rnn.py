"""``torch.nn.modules.rnn``: its classes, from where leafgrad defines them."""

from ..rnn import GRU, LSTM, RNN, RNNBase
from ..rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
