"""``torch.utils.benchmark``: ``Timer`` and the ``Measurement`` it returns, as PyTorch's.

Tutorials time their two ways of computing a thing with ``Timer(stmt, globals=...)`` and
print the measurements; ``Compare``, the Valgrind instruction counts and C++ statements
are not provided.
"""

from .utils.common import Measurement, TaskSpec, select_unit
from .utils.timer import Language, Timer

__all__ = ["Language", "Measurement", "TaskSpec", "Timer", "select_unit"]
