"""``functional_call``: run a module with some parameters and buffers swapped for given tensors;
``stack_module_state``: the stacked state of several modules, for ensembling with vmap."""

from __future__ import annotations

from ..ops.joining import stack


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):  # fmt: skip
    """``module(*args, **kwargs)`` with the named parameters/buffers replaced for the call.

    ``parameter_and_buffer_dicts``: a dict of ``"sub.name" -> Tensor`` (or a sequence of
    them, merged; a name in two raises ValueError). The module is restored afterwards, even
    when the call raises. ``strict=True`` requires every parameter and buffer to be given.
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = [dicts]
    merged: dict = {}
    for d in dicts:
        for name, value in d.items():
            if name in merged:
                raise ValueError(f"{name} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")  # fmt: skip
            merged[name] = value
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {
            n for n, _ in module.named_buffers()
        }
        missing, unexpected = sorted(expected - set(merged)), sorted(set(merged) - expected)
        if missing or unexpected:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}: missing keys "
                f"{missing}, unexpected keys {unexpected}"
            )
    swapped = []
    try:
        for name, value in merged.items():
            owner, _, attr = name.rpartition(".")
            target = module.get_submodule(owner) if owner else module
            table = target._parameters if attr in target._parameters else target._buffers
            if attr not in table:
                raise AttributeError(f"{type(target).__name__} has no parameter or buffer {attr!r}")
            swapped.append((table, attr, table[attr]))
            table[attr] = value
        args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for table, attr, original in reversed(swapped):
            table[attr] = original


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
