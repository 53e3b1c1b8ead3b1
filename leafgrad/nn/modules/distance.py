"""``torch.nn.modules.distance``: its classes, from where leafgrad defines them."""

from ..distance import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
