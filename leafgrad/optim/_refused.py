"""Optimizers leafgrad refuses on purpose, with the reason: ``SparseAdam`` needs sparse
gradients and ``Muon`` orthogonalises updates in bfloat16; leafgrad has neither."""

from __future__ import annotations

from .optimizer import Optimizer


class SparseAdam(Optimizer):
    """Refused on purpose: Adam for sparse gradients (``nn.Embedding(sparse=True)``), and
    leafgrad has no sparse tensors; use ``Adam`` (or ``AdamW``) with dense gradients."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        raise NotImplementedError(
            "optim.SparseAdam: leafgrad has no sparse tensors, so no sparse gradients to "
            "update; use optim.Adam, which takes the dense gradients leafgrad computes"
        )


class Muon(Optimizer):
    """Refused on purpose: Muon's Newton-Schulz orthogonalisation runs in bfloat16, which
    leafgrad lacks; use ``AdamW``."""

    def __init__(
        self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
        ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None,
    ):  # fmt: skip
        raise NotImplementedError(
            "optim.Muon: its Newton-Schulz iteration runs in bfloat16, a dtype leafgrad does "
            "not have; use optim.AdamW"
        )
