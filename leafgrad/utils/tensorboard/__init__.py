"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files.

As PyTorch's, it needs the ``tensorboard`` package (``pip install "leafgrad[tensorboard]"``)
and raises ImportError without it.
"""

try:
    import tensorboard  # noqa: F401
except ImportError as exc:  # PyTorch's message, and what to do
    raise ImportError(
        "TensorBoard logging requires TensorBoard version 1.15 or above: "
        'pip install "leafgrad[tensorboard]" (or pip install tensorboard)'
    ) from exc

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
