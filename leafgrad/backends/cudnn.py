"""``torch.backends.cudnn``: flags a script may set (they change nothing here)."""

import contextlib
import sys

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None


@contextlib.contextmanager
def flags(
    enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True, **_
):
    """Set the flags for a ``with`` block and restore them after, as PyTorch's ``flags`` does."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {name: getattr(module, name) for name in names}
    new = dict(zip(names, (enabled, benchmark, deterministic, allow_tf32)))
    for name, value in new.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


# PyTorch binds the module to itself as ``m`` (its flags live on a module subclass).
m = sys.modules[__name__]
