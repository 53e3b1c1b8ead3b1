"""Module state: ``state_dict`` and ``load_state_dict`` with PyTorch's overridable steps
(``_save_to_state_dict``, ``_load_from_state_dict`` with its signature), their four public
hooks, the ``_extra_state`` entry of modules that define ``get_extra_state``, and the
``_metadata`` (each module's ``_version``) PyTorch attaches to a state dict.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

from .. import Tensor, no_grad
from .. import __future__ as _future
from ..utils._swap import swap_tensors
from ..utils.hooks import RemovableHandle
from .parameter import Parameter

__all__ = ["ModuleState"]

_EXTRA_STATE = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: keys it expected but missed, and those it did not know."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _with_hook(hooks: dict, hook) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class _WithoutModule:
    """A load pre-hook registered with ``with_module=False``: called without the module."""

    def __init__(self, hook) -> None:
        self.hook = hook

    def __call__(self, module, *args):
        return self.hook(*args)


class _PublicHook:
    """A state_dict post-hook that cannot carry PyTorch's ``_from_public_api`` mark itself
    (a bound method): the mark is on this wrapper."""

    _from_public_api = True

    def __init__(self, hook) -> None:
        self.hook = hook

    def __call__(self, *args):
        return self.hook(*args)


def _public(hook):
    """``hook`` marked as PyTorch marks a public state_dict post-hook (its return value must
    be None), on the hook where it takes attributes (as PyTorch, which fails on the others)."""
    try:
        hook._from_public_api = True
    except AttributeError:
        return _PublicHook(hook)
    return hook


def _defines(module, name: str) -> bool:
    """Whether ``module``'s class overrides ``ModuleState.<name>`` (the extra-state methods)."""
    return getattr(type(module), name) is not getattr(ModuleState, name)


class ModuleState:
    """The state half of ``Module``."""

    _version: int = 1  # PyTorch's; a subclass raises it when its state dict's layout changes

    def _state_hooks(self, where: str) -> dict:
        """The hook dict named ``where``, created on first use (``ModuleHooks._hooks``)."""
        return self._hooks(where)

    # ----- extra state -----
    def get_extra_state(self) -> Any:
        """What a subclass keeps under ``<prefix>_extra_state`` in its state dict (define it
        together with ``set_extra_state``)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please "
            "file an issue: get_extra_state is called only where a subclass defines it."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned (a subclass defines both)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please "
            "file an issue: set_extra_state is called only where a subclass defines it."
        )

    # ----- hooks -----
    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before ``module``'s entries are saved."""
        return _with_hook(self._state_hooks("_state_dict_pre_hooks"), hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``module`` and its
        children are saved; it may change ``state_dict`` in place and must return None."""
        return _with_hook(self._state_hooks("_state_dict_hooks"), _public(hook))

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """PyTorch's older post-hook, which libraries still use: as
        ``register_state_dict_post_hook``, but a dict it returns replaces the root's result."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return _with_hook(self._state_hooks("_state_dict_hooks"), hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """PyTorch's older load pre-hook, which libraries still use: without ``with_module``
        the hook is called without the module, ``hook(state_dict, prefix, ...)``."""
        return _with_hook(
            self._state_hooks("_load_state_dict_pre_hooks"),
            hook if with_module else _WithoutModule(hook),
        )

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before ``module``'s entries are loaded."""
        return _with_hook(self._state_hooks("_load_state_dict_pre_hooks"), hook)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs once ``module`` and its children are
        loaded; it may change the key lists in place and must return None."""
        return _with_hook(self._state_hooks("_load_state_dict_post_hooks"), hook)

    # ----- saving -----
    def _local_state(self) -> dict:
        """Parameters then persistent buffers of this module alone, skipping Nones."""
        state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                state[k] = v
        return state

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """This module's own entries (not its children's) into ``destination``."""
        for name, value in self._local_state().items():
            destination[prefix + name] = value if keep_vars else value.detach()
        if _defines(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter, persistent buffer and extra state by dotted name.

        Values are detached tensors sharing the module's values unless ``keep_vars``.
        (PyTorch's deprecated positional form ``state_dict(destination, prefix, keep_vars)``
        is accepted too.)
        """
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and not keep_vars else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        hooks = self.__dict__
        for hook in list(hooks.get("_state_dict_pre_hooks", {}).values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in list(hooks.get("_state_dict_hooks", {}).values()):
            result = hook(self, destination, prefix, local_metadata)
            if result is None:
                continue
            if getattr(hook, "_from_public_api", False):
                raise RuntimeError("state_dict post-hook must return None")
            # An old-style hook's dict replaces the result; a parent ignores its child's.
            destination = result
        return destination

    # ----- loading -----
    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        """Load this module's own entries from ``state_dict`` (PyTorch's signature: subclasses
        may override it and call it). Problems go to the three lists."""
        for hook in list(self.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
            hook(
                self,
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        assign = local_metadata.get("assign_to_params_buffers", False)
        local_state = self._local_state()
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value.reshape(())
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            swap = _future.get_swap_module_params_on_conversion()
            try:
                if swap:
                    _swap_in(param, value, assign)
                elif assign:
                    self._assign(name, param, value)
                else:
                    with no_grad():
                        param.copy_(value)
            except Exception as exc:
                action = "swapping" if swap else "copying"
                error_msgs.append(
                    f'While {action} the parameter named "{key}", whose dimensions in the model '
                    f"are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {exc.args}."
                )
        extra = prefix + _EXTRA_STATE
        if _defines(self, "set_extra_state"):
            if extra in state_dict:
                self.set_extra_state(state_dict[extra])
            elif strict:
                missing_keys.append(extra)
        elif strict and extra in state_dict:
            unexpected_keys.append(extra)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra:
                    head = key[len(prefix) :].split(".", 1)
                    known = self._modules if len(head) > 1 else local_state
                    if head[0] not in known:
                        unexpected_keys.append(key)

    def _assign(self, name: str, current: Tensor, value: Tensor) -> None:
        if isinstance(current, Parameter):
            if not isinstance(value, Parameter):
                value = Parameter(value, requires_grad=current.requires_grad)
            else:
                value.requires_grad_(current.requires_grad)
        setattr(self, name, value)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False):
        """Copy values from ``state_dict`` into this module's parameters and buffers.

        Returns ``(missing_keys, unexpected_keys)``. Raises RuntimeError listing every
        problem: shape mismatches always, missing and unexpected keys when ``strict``.
        Entries that fit are copied even when others fail, as in PyTorch.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local, prefix):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            # (strict=True here, as in PyTorch: the lists are filtered below)
            module._load_from_state_dict(
                local, prefix, local_metadata, True, missing, unexpected, errors
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(
                        child,
                        {k: v for k, v in local.items() if k.startswith(child_prefix)},
                        child_prefix,
                    )
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in list(module.__dict__.get("_load_state_dict_post_hooks", {}).values()):
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )

        load(self, state_dict, "")
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)


def _swap_in(param: Tensor, value: Tensor, assign: bool) -> None:
    """``load_state_dict``'s swap path: ``param.module_load(value)`` (a Parameter for a
    Parameter) exchanges contents with ``param``, which keeps its identity."""
    with no_grad():
        new = param.module_load(value, assign=assign)
        if new is value or new is param:
            raise RuntimeError(
                "module_load returned one of self or other, please .detach() the result if "
                "returning one of the inputs in module_load"
            )
        if isinstance(param, Parameter):
            if isinstance(new, Parameter):
                new.requires_grad_(param.requires_grad)
            else:
                new = Parameter(new, requires_grad=param.requires_grad)
        swap_tensors(param, new)
