"""``torch.nn.modules.utils``: the size-tuple helpers layers use (``_pair(3) == (3, 3)``) and
the state-dict prefix stripper for checkpoints saved from wrapped models."""

from __future__ import annotations

import collections.abc
from itertools import repeat


def _ntuple(n: int, name: str = "parse"):
    """A parser turning a scalar into an ``n``-tuple and passing iterables through as tuples."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """Each element of ``t`` ``n`` times, in reverse order (conv padding for ``F.pad``)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults) -> list:
    """``out_size`` with each None replaced by the matching trailing entry of ``defaults``."""
    if isinstance(out_size, (int, float)) or hasattr(out_size, "__index__"):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[-len(out_size) :]
    return [d if v is None else v for v, d in zip(out_size, tail)]


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` (e.g. ``"module."`` from a DataParallel model) from the keys of
    ``state_dict`` and of its ``_metadata``, in place."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        # the root module's entry is "" and the prefix's own entry is its name without the dot
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix) :]] = metadata.pop(key)


__all__ = ["consume_prefix_in_state_dict_if_present"]
