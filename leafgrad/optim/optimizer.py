"""Optimizer: parameter groups, per-parameter state, hooks and state dicts, as in torch.optim.

Subclasses update parameters and state with the public in-place Tensor ops (``add_``,
``mul_``, ``copy_``...), in PyTorch's order of operations, so results round as PyTorch's do.
leafgrad's own ``step`` methods are decorated with ``_use_grad_for_differentiable``, so they
run with grad mode off, as under ``torch.no_grad()``: the updates record nothing, every view
of a parameter sees them and version counters move. A user's subclass keeps the caller's grad
mode, as in PyTorch (a step may differentiate, e.g. Hessian-vector products).
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from copy import deepcopy
from typing import Any, ClassVar

from .. import Tensor, enable_grad
from ..utils.hooks import RemovableHandle
from ._step import (
    _hooked_step,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
    run_closure,
)
from ._update import _restore_scalar_tensors

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]


class _RequiredParameter:
    """Marks an optimisation option that every parameter group must give (``lr`` of SGD)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return f"{type(obj).__module__}.{type(obj).__name__}"
    return type(obj).__name__


class Optimizer:
    """Base class of all optimisers: holds ``param_groups``, ``state`` and ``defaults``.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts that each
    define a parameter group (``{"params": [...], "lr": ...}``); options a group leaves out
    come from ``defaults``.
    """

    # Option defaults a subclass adds to groups loaded from older state dicts.
    _group_option_defaults: ClassVar[dict[str, Any]] = {}
    # Per-parameter scalar state (``step``...) that old state dicts kept as numbers; loading
    # turns it back into tensors, as PyTorch's optimizers do in their __setstate__.
    _scalar_state_keys: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if defaults.get("differentiable", False):
            raise NotImplementedError(
                f"{type(self).__name__}(differentiable=True): leafgrad's optimisers update "
                "parameters in place with grad mode off, so a step cannot be differentiated; "
                "leave differentiable=False"
            )
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ----- pickling-free state -----
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_option_defaults.items():
                group.setdefault(key, value)
        if self._scalar_state_keys:
            _restore_scalar_tensors(self, self._scalar_state_keys)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ----- groups -----
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (e.g. unfreezing layers mid-training).

        Raises TypeError for a non-dict, a set of params or a non-tensor; ValueError for a
        non-leaf tensor, a missing required option, or a parameter already in another group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is "
                    f"{_typename(param)}"
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError(
                    "can't optimize a non-leaf Tensor: the optimizer updates tensors created "
                    "by the user (graph leaves); pass the leaf it was computed from"
                )

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        if len(tensors) != len({id(p) for p in tensors}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                UserWarning,
                stacklevel=3,
            )

        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add "
                    f"param group {which} to the optimizer"
                )
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ----- gradients -----
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (default) or, in place, to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None):
        """Perform one optimisation step; ``closure`` re-evaluates and returns the loss."""
        raise NotImplementedError

    def _evaluate(self, closure):
        """The loss from ``closure`` (run with grad enabled), or None without one."""
        if closure is None:
            return None
        with enable_grad():
            return run_closure(closure)

    # ----- hooks -----
    def _add_hook(self, hooks: OrderedDict, hook: Callable, prepend: bool = False):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before ``step``; it may return new args."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after ``step``."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----- state dicts -----
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: per-param state}, "param_groups": [options + param indices]}``.

        Parameters are numbered in group order, as PyTorch does; the state's tensors are
        returned by reference, not copied (save them to snapshot them).
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param: Tensor, value: Tensor, key) -> Tensor:
        # PyTorch's policy: "step" stays as saved; other floating state takes the param's dtype.
        if key == "step" or not param.is_floating_point():
            return value
        return value.to(param.dtype)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load state saved by ``state_dict``; groups must match in number and sizes.

        Options come from the saved groups; state tensors are matched to this optimiser's
        parameters by position. Raises ValueError when the group layout differs.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError(
                f"loaded state dict has a different number of parameter groups "
                f"({len(saved_groups)}) than this optimizer ({len(groups)})"
            )
        for i, (g, s) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group that doesn't match the size "
                    f"of optimizer's group: group {i} has {len(s['params'])} saved parameters "
                    f"but the optimizer has {len(g['params'])}"
                )
        id_map = dict(
            zip(
                itertools.chain.from_iterable(g["params"] for g in saved_groups),
                itertools.chain.from_iterable(g["params"] for g in groups),
            )
        )

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                return self._cast_state_value(param, value, key)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
