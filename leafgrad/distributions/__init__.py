"""``torch.distributions``: Normal, Uniform, Exponential, Bernoulli, Categorical,
MultivariateNormal and Independent, their constraints and ``kl_divergence``.

Densities, entropies, moments and KL divergences are PyTorch's formulas in leafgrad ops, so
they are differentiable in the parameters; samples come from leafgrad's generator
(``leafgrad.manual_seed``), so they are not PyTorch's draws.
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Independent",
    "MultivariateNormal",
    "Normal",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
