"""The network a PINN trains: a fully connected MLP on inputs scaled to [-1, 1]."""

from __future__ import annotations

import itertools

import numpy as np

from .. import cat, cos, nn, sin, tensor

ACTIVATIONS = {"tanh": nn.Tanh, "sin": nn.Sin, "gelu": nn.GELU, "silu": nn.SiLU}


class MLP(nn.Module):
    """``in_features -> width x depth -> out_features`` with Xavier weights and zero biases.

    ``bounds``: (lo, hi) of the inputs, mapped affinely to [-1, 1] before the first layer
    (tanh networks train badly on inputs far from that range). ``output_transform(x, y)``
    turns the raw output ``y`` into ``u``, e.g. to build initial or boundary conditions in
    exactly ("hard constraints"). ``periodic``: ``{column: period}``; such a column enters
    as ``cos`` and ``sin`` of ``2 pi x / period`` instead of ``x``, so the output and all its
    derivatives are periodic in it exactly (a hard periodic boundary condition).
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        width: int = 20,
        depth: int = 4,
        activation: str = "tanh",
        bounds=None,
        output_transform=None,
        periodic=None,
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"MLP: unknown activation {activation!r}; choose one of {sorted(ACTIVATIONS)}"
            )
        if width < 1 or depth < 1:
            raise ValueError(f"MLP: width and depth must be positive, got {width} and {depth}")
        self.periodic = {int(c): float(p) for c, p in (periodic or {}).items()}
        if any(not 0 <= c < in_features or p <= 0 for c, p in self.periodic.items()):
            raise ValueError(
                f"MLP: periodic must map input columns (0..{in_features - 1}) to positive "
                f"periods, got {periodic}"
            )
        self._plain = [c for c in range(in_features) if c not in self.periodic]
        sizes = [in_features + len(self.periodic)] + [width] * depth
        layers = []
        for a, b in itertools.pairwise(sizes):
            layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
        layers.append(nn.Linear(width, out_features))
        self.layers = nn.Sequential(*layers)
        for module in self.layers:
            if isinstance(module, nn.Linear):
                nn.init.xavier_normal_(module.weight)
                nn.init.zeros_(module.bias)
        lo, hi = (-np.ones(in_features), np.ones(in_features)) if bounds is None else bounds
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        self.register_buffer("center", tensor((hi + lo) / 2))
        self.register_buffer("scale", tensor(2 / (hi - lo)))
        self.output_transform = output_transform

    def forward(self, x):
        y = self.layers(self._features(x))
        return y if self.output_transform is None else self.output_transform(x, y)

    def _features(self, x):
        scaled = (x - self.center) * self.scale
        if not self.periodic:
            return scaled
        columns = [scaled[:, self._plain]] if self._plain else []
        for c, period in self.periodic.items():
            phase = x[:, c : c + 1] * (2 * np.pi / period)
            columns += [cos(phase), sin(phase)]
        return cat(columns, dim=1)
