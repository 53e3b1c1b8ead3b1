"""``nn.factory_kwargs``: the ``device``/``dtype``/``memory_format`` keywords of a module
constructor, checked and gathered for tensor factories."""

from __future__ import annotations

__all__ = ["factory_kwargs"]

_KEYS = {"device", "dtype", "memory_format", "factory_kwargs"}


def factory_kwargs(kwargs) -> dict:
    """The factory keywords in ``kwargs`` (a nested ``factory_kwargs`` dict merged in);
    ``TypeError`` for any other key or for one given twice."""
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - _KEYS
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    simple = {k: v for k, v in kwargs.items() if k != "factory_kwargs"}
    nested = kwargs.get("factory_kwargs") or {}
    for key in nested:
        if key in simple:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
    return {**simple, **nested}
