"""``AdaptiveLogSoftmaxWithLoss``: a softmax over many classes split into a frequent head
and tail clusters of shrinking width (Grave et al., 2016)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

import leafgrad as _lg

from .. import Tensor
from . import functional as F
from .containers import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of targets under a head over ``cutoffs[0]`` frequent classes plus one
    entry per tail cluster; ``forward(input, target)`` gives ``(output, loss)``."""

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs,
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > (n_classes - 1)
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        kw = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kw),
                    Linear(hidden, width, bias=False, **kw),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for pair in self.tail:
            for layer in pair:
                layer.reset_parameters()

    def forward(self, input: Tensor, target: Tensor) -> _ASMoutput:
        """``(output, loss)``: each target's log-probability ``(N,)`` and their negated mean."""
        if target.dim() == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{list(input.shape)}"
                )
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{list(input.shape)}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target.dim() > 0
        x = input if batched else input.unsqueeze(0)
        labels = (target if batched else target.unsqueeze(0)).numpy().astype(np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= self.n_classes):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{labels.min()}, {labels.max()}] were found. "
            )
        batch = labels.shape[0]
        output = x.new_zeros((batch,))
        head_index = labels.copy()
        bounds = [0, *self.cutoffs]
        for i in range(1, len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            rows = np.nonzero((labels >= low) & (labels < high))[0]
            if rows.size == 0:
                continue
            head_index[rows] = self.shortlist_size + i - 1
            picked = x.index_select(0, _lg.tensor(rows))
            cluster = F.log_softmax(self.tail[i - 1](picked), dim=1)
            local = cluster.gather(1, _lg.tensor(labels[rows] - low).unsqueeze(1)).squeeze(1)
            output = output + output.new_zeros((batch,)).scatter_add(0, _lg.tensor(rows), local)
        head = F.log_softmax(self.head(x), dim=1)
        output = output + head.gather(1, _lg.tensor(head_index).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input: Tensor, head: Tensor) -> Tensor:
        parts = [head[:, : self.shortlist_size]]
        for i, pair in enumerate(self.tail):
            cluster = F.log_softmax(pair(input), dim=1)
            parts.append(cluster + head[:, self.shortlist_size + i].unsqueeze(1))
        return _lg.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of every class: ``(N, n_classes)`` (or ``(n_classes,)``)."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, F.log_softmax(self.head(x), dim=1))
        return out if batched else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row: ``(N,)`` int64 (or a 0-d tensor)."""
        return self.log_prob(input).argmax(-1)
