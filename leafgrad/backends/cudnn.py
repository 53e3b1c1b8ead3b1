"""``torch.backends.cudnn``: flags a script may set (they change nothing here)."""

import sys

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None


# PyTorch binds the module to itself as ``m`` (its flags live on a module subclass).
m = sys.modules[__name__]
