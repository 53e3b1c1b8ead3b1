"""``functional_call``: run a module with some parameters and buffers swapped for given tensors;
``stack_module_state``: the stacked state of several modules, for ensembling with vmap."""

from __future__ import annotations

from collections.abc import Sequence

from .._tensor import Tensor
from ..ops.joining import stack

_MISSING = object()  # a name the module does not have (set for the call, removed after)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters/buffers replaced for the call.

    ``parameter_and_buffer_dicts``: a dict of ``"sub.name" -> Tensor`` (or a sequence of
    them, merged; a name in two raises ValueError). As PyTorch's: a name the module lacks is
    set as an attribute for the call; with ``tie_weights`` a value given for one of several
    names of one tensor (tied weights) replaces it under all of them; ``strict=True``
    requires every parameter and buffer to be given and no other name. The module is
    restored afterwards, even when the call raises; where the call replaced a tensor in the
    module's dicts, the new one is written back into the given dict.
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        named = dicts
    elif isinstance(dicts, Sequence):
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict = {}
        for d in dicts:
            for name in d:
                counts[name] = counts.get(name, 0) + 1
        repeated = [name for name, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")  # fmt: skip
        named = {k: v for d in dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(dicts)}"
        )
    return call_with(module, named, args, kwargs, tie_weights=tie_weights, strict=strict)


def call_with(module, named: dict, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``functional_call`` with one dict (``nn.utils.stateless.functional_call``'s form)."""
    given = _untied(module, named) if tie_weights else named
    if strict:
        _check_keys(module, given)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    originals = _swap_all(module, given)
    try:
        return module(*args, **(kwargs or {}))
    finally:
        now = _swap_all(module, originals)
        named.update({k: now[k] for k in named if k in now})


def _tensors(module) -> dict:
    """Every parameter and buffer by name, a tied tensor under each of its names."""
    found = dict(module.named_parameters(remove_duplicate=False))
    found.update(module.named_buffers(remove_duplicate=False))
    return found


def _untied(module, named: dict) -> dict:
    """``named`` with each value given for a tied tensor set under all its names."""
    names_of: dict = {}
    for name, tensor in _tensors(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given = [n for n in named if n in tied]
    for name in given:
        group = tied[name]
        values = {id(named[n]) for n in group if n in named}
        if len(group.intersection(given)) > 1 and len(values) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                "Consider using tie_weights=False"
            )
    untied = dict(named)
    for name in given:
        for other in tied[name]:
            untied[other] = named[name]
    return untied


def _check_keys(module, named: dict) -> None:
    valid = set(_tensors(module))
    unexpected, missing = sorted(set(named) - valid), sorted(valid - set(named))
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors)
        )


def _swap_all(module, named: dict) -> dict:
    """Put each value of ``named`` in place; the values they replaced (``_MISSING`` for a
    name that was not there). All or nothing: on an error the swapped ones go back."""
    originals: dict = {}
    try:
        for name, value in named.items():
            originals[name] = _swap(module, name, value)
    except Exception:
        for name, value in originals.items():
            _swap(module, name, value)
        raise
    return originals


def _swap(module, path: str, value):
    """Put ``value`` at ``path`` (``_MISSING``: remove it); what was there."""
    if value is not _MISSING and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    owner, _, name = path.rpartition(".")
    for atom in owner.split(".") if owner else ():
        try:
            child = getattr(module, atom)
        except AttributeError as exc:
            raise AttributeError(f"{module._get_name()} has no attribute `{atom}`") from exc
        if not _is_module(child):
            raise TypeError(f"submodule `{owner}`: {child} is not an instance of torch.nn.Module")
        module = child
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for table in (module._parameters, module._buffers):
        if name in table:
            original = table[name]
            if value is _MISSING:
                del table[name]
            else:
                table[name] = value
            return original
    original = getattr(module, name, _MISSING)
    if original is not _MISSING and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{name}`: {original} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(module, name, value)
    elif hasattr(module, name):
        delattr(module, name)
    return original


def stack_module_state(models) -> tuple[dict, dict]:
    """``(params, buffers)``: each named parameter and buffer of ``models`` (modules of one
    kind) stacked along a new dim 0, for ensembling with ``vmap(..., in_dims=(0, 0, None))``.

    The stacked parameters are new leaves that require grad where the originals did.
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    kinds = {type(m) for m in models}
    if len(kinds) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to be of the same class, got: "
            f"{sorted(k.__name__ for k in kinds)}"
        )
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    params = {}
    for name, p in models[0].named_parameters():
        stacked = stack([dict(m.named_parameters())[name].detach() for m in models])
        params[name] = stacked.requires_grad_(p.requires_grad)
    buffers = {
        name: stack([dict(m.named_buffers())[name] for m in models])
        for name, _ in models[0].named_buffers()
    }
    return params, buffers


def _is_module(obj) -> bool:
    """Whether ``obj`` is an nn.Module (by its parameter and buffer tables: importing
    leafgrad.nn here would make leafgrad.func import it back)."""
    return isinstance(getattr(obj, "_parameters", None), dict) and isinstance(
        getattr(obj, "_buffers", None), dict
    )
