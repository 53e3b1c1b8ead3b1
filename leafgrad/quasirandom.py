"""``torch.quasirandom.SobolEngine`` on SciPy's Sobol' generator (``scipy.stats.qmc``).

Unscrambled, the points are PyTorch's bit for bit: both use Joe and Kuo's direction numbers
(up to 21201 dimensions). Scrambled, they are SciPy's scrambling of them, seeded by ``seed``
or else from leafgrad's default generator (so ``manual_seed`` makes them reproducible);
PyTorch scrambles with its own generator, so those points differ from PyTorch's.
"""

from __future__ import annotations

import warnings

from . import _dtype
from ._random import _generator
from ._tensor import Tensor, _wrap

__all__ = ["SobolEngine"]


class SobolEngine:
    """Low-discrepancy points in the unit cube ``[0, 1)^dimension``: ``draw(n)`` gives the
    next ``n`` as an ``(n, dimension)`` tensor of the default float dtype."""

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if not 1 <= dimension <= self.MAXDIM:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.dimension, self.scramble, self.seed = dimension, scramble, seed
        if seed is None and scramble:
            seed = int(_generator().integers(0, 2**63 - 1))
        self._seed_used = seed
        self.reset()

    def reset(self) -> SobolEngine:
        """Back to the first point."""
        # why: scipy.stats takes ~0.9 s to import, most of `import leafgrad` if done there
        from scipy.stats import qmc

        self._engine = qmc.Sobol(self.dimension, scramble=self.scramble, rng=self._seed_used)
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip the next ``n`` points."""
        self._engine.fast_forward(n)
        self.num_generated += n
        return self

    def draw(self, n: int = 1, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next ``n`` points; ``out``: a tensor to write them into (resized as needed)."""
        with warnings.catch_warnings():
            # SciPy warns where n is not a power of 2; PyTorch's draw does not.
            warnings.simplefilter("ignore", UserWarning)
            points = self._engine.random(n)
        self.num_generated += n
        np_dtype = (dtype or _dtype.get_default_dtype()).np
        result = _wrap(points.astype(np_dtype))
        if out is not None:
            out.resize_(result.shape).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next ``2**m`` points, keeping the sequence's balance (the total drawn must stay
        a power of 2)."""
        n = 2**m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total}. If you still want to do this, please "
                "use 'SobolEngine.draw()' instead."
            )
        return self.draw(n, out=out, dtype=dtype)

    def __repr__(self) -> str:
        fields = [f"dimension={self.dimension}"]
        if self.scramble:
            fields.append("scramble=True")
        if self.seed is not None:
            fields.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(fields)})"
