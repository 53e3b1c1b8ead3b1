"""``torch.nn.modules.sparse``: its classes, from where leafgrad defines them."""

from ..sparse import Embedding, EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
