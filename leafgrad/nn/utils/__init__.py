"""``torch.nn.utils``: gradient clipping, parameters as one vector, parametrizations."""

from . import parametrizations, parametrize, stateless
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector",
    "parametrizations", "parametrize", "remove_weight_norm", "stateless", "vector_to_parameters",
    "weight_norm",
]  # fmt: skip
