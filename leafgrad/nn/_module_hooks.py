"""Module hooks: forward and forward-pre hooks, and the backward hooks PyTorch offers.

Full backward hooks work as in PyTorch: the module's tensor inputs and outputs pass through
one identity ``autograd.Function`` each, whose backward node carries hooks. The output node
sees ``grad_output`` (and runs the pre-hooks, which may replace it); the input node then sees
``grad_input``, the gradients with respect to the module's inputs, and runs the full hooks,
which may replace those. The legacy ``register_backward_hook`` hooks the node that made the
output instead, so its ``grad_input`` is that one op's, with PyTorch's FutureWarnings.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from .. import Tensor, is_grad_enabled
from ..autograd import Function
from ..utils.hooks import RemovableHandle

# The global hooks, which torch.nn.modules.module exports (ModuleHooks is Module's base).
__all__ = [
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

# Hooks on every module (torch.nn.modules.module's register_module_* functions); they run
# before each module's own. Every hook on calls also has its id in _any_global_call_hook, the
# one dict Module.__call__ checks, so the call without hooks stays as fast.
_global_forward_pre_hooks: dict = {}
_global_forward_hooks: dict = {}
_global_forward_hooks_with_kwargs: dict = {}
_global_forward_hooks_always_called: dict = {}
_global_backward_pre_hooks: dict = {}
_global_backward_hooks: dict = {}
_global_backward_kind: dict = {}  # "full": True or False once a global backward hook is added
_any_global_call_hook: dict = {}
_global_buffer_registration_hooks: dict = {}
_global_parameter_registration_hooks: dict = {}
_global_module_registration_hooks: dict = {}

_MIXED_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
    "use only one of them."
)


class BackwardHookFunction(Function):
    """The identity, as a node of the graph that backward hooks can attach to."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """One forward call's backward hooks: routes ``grad_output`` from the output node to the
    input node, where the full hooks see both."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size: int) -> tuple:
        packed = [None] * size
        for index, value in zip(indices, values):
            packed[index] = value
        return tuple(packed)

    def _input_hook(self, grad_input, _grad_output):
        if self.grad_outputs is None:
            # The gradient reached the inputs without passing the outputs (double backward).
            return None
        packed = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, packed, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(packed):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(out)}, but expected {len(packed)}"
                )
            packed = out
        self.grad_outputs = None
        return tuple(packed[i] for i in self.input_tensors_index)

    def _output_hook(self, _grad_input, grad_output):
        self.grad_outputs = self._pack_with_none(
            self.output_tensors_index, grad_output, self.n_outputs
        )
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(new)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = new
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # No input requires grad, so there is no input node: the full hooks run here.
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module "
                "outputs since no inputs require gradients. See the documentation of "
                "register_full_backward_hook for more details.",
                stacklevel=5,
            )
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                out = hook(self.module, grad_inputs, self.grad_outputs)
                if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

    def _apply_on_tensors(self, node_hook, args: tuple):
        """``args`` with their tensors passed through one BackwardHookFunction whose node gets
        ``node_hook``, and the tensors' positions; unchanged (and None) when no grad flows."""
        indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in indices]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in new_tensors if t.grad_fn is not None)
        node.register_hook(node_hook)
        out = list(args)
        for i, tensor in zip(indices, new_tensors):
            out[i] = tensor
        return tuple(out), indices

    def setup_input_hook(self, args: tuple) -> tuple:
        out, self.input_tensors_index = self._apply_on_tensors(self._input_hook, args)
        self.n_inputs = len(args)
        return out

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        out, self.output_tensors_index = self._apply_on_tensors(self._output_hook, outputs)
        self.n_outputs = len(outputs)
        return out if is_tuple else out[0]


def _warn_non_full_backward_hook(inputs: tuple, result, grad_fn) -> None:
    """PyTorch's FutureWarnings for a legacy backward hook that will miss gradients."""

    def warn(what: str) -> None:
        warnings.warn(
            f"Using a non-full backward hook {what} is deprecated and will be removed in future "
            "versions. "
            + ("This hook will be missing some grad_input. " if "multiple" in what else "")
            + "Please use register_full_backward_hook to get the documented behavior.",
            FutureWarning,
            stacklevel=4,
        )

    results = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(results, tuple) and all(isinstance(r, Tensor) for r in results)):
        return warn("on a Module that does not return a single Tensor or a tuple of Tensors")
    if not all(isinstance(i, Tensor) for i in inputs):
        return warn("on a Module that does not take as input a single Tensor or a tuple of Tensors")
    out_grad_fns = {r.grad_fn for r in results if r.grad_fn is not None}
    if not out_grad_fns or (len(out_grad_fns) == 1 and grad_fn not in out_grad_fns):
        return warn("when outputs are nested in python data structure")
    if len(out_grad_fns) > 1:
        return warn("when outputs are generated by different autograd Nodes")
    inputs_grad_fns = {i.grad_fn for i in inputs if i.grad_fn is not None}
    if inputs_grad_fns != {node for node, _ in grad_fn.next_functions}:
        warn("when the forward contains multiple autograd Nodes")


def _first_tensor(value) -> Tensor:
    """The tensor a legacy hook attaches to: the output, or the first in a tuple or dict."""
    while not isinstance(value, Tensor):
        if isinstance(value, dict):
            value = next(v for v in value.values() if isinstance(v, Tensor))
        else:
            value = value[0]
    return value


def _add_global(hooks: dict, hook, marks=()) -> RemovableHandle:
    """Register a hook on every module's call in ``hooks``, its id also in each of ``marks``."""
    marks = (*marks, _any_global_call_hook)
    handle = RemovableHandle(hooks, extra_dict=list(marks))
    hooks[handle.id] = hook
    for marked in marks:
        marked[handle.id] = True
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """``hook(module, args)`` before every module's ``forward`` (before its own pre-hooks)."""
    return _add_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """``hook(module, args, output)`` after every module's ``forward`` (before its own)."""
    marks = (_global_forward_hooks_with_kwargs,) if with_kwargs else ()
    if always_call:
        marks += (_global_forward_hooks_always_called,)
    return _add_global(_global_forward_hooks, hook, marks)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module (before its own backward pre-hooks)."""
    return _add_global(_global_backward_pre_hooks, hook)


def _set_global_backward_kind(full: bool) -> None:
    if _global_backward_kind.get("full", full) is not full:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_backward_kind["full"] = full


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module (before its own)."""
    _set_global_backward_kind(True)
    return _add_global(_global_backward_hooks, hook)


def register_module_backward_hook(hook) -> RemovableHandle:
    """Legacy: ``hook(module, grad_input, grad_output)`` on every module's last op."""
    _set_global_backward_kind(False)
    return _add_global(_global_backward_hooks, hook)


def _add_registration(hooks: dict, hook) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, buffer)`` whenever a buffer is registered; may return another."""
    return _add_registration(_global_buffer_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, param)`` whenever a parameter is registered; may return another."""
    return _add_registration(_global_parameter_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """``hook(module, name, submodule)`` whenever a sub-module is registered; may return
    another."""
    return _add_registration(_global_module_registration_hooks, hook)


def run_registration_hooks(hooks: dict, module, name: str, value):
    """``value`` after the global registration hooks in ``hooks`` (each may replace it)."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def _add(hooks: dict, hook, prepend: bool, extra=()) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=list(extra) if extra else None)
    if prepend:
        rest = list(hooks.items())
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(rest)
    else:
        hooks[handle.id] = hook
    return handle


class ModuleHooks:
    """The hook half of ``Module``: registration and the hooked call."""

    def _hooks(self, where: str) -> dict:
        """The hook dict named ``where``, created on first use."""
        hooks = self.__dict__.get(where)
        if hooks is None:
            # An OrderedDict as PyTorch's, so that printing one shows what PyTorch's shows.
            hooks = OrderedDict()
            object.__setattr__(self, where, hooks)
        return hooks

    def _add_hook(self, where: str, hook, prepend: bool = False, marks=()) -> RemovableHandle:
        """Register ``hook`` in the dict ``where``; its id also goes into each dict named in
        ``marks`` (how a hook is called: with kwargs, always), which its handle empties too."""
        if not callable(hook):
            raise TypeError(f"{where[1:-1]}: hook must be callable, got {type(hook).__name__}")
        extra = [self._hooks(mark) for mark in marks]
        handle = _add(self._hooks(where), hook, prepend, extra)
        for marked in extra:
            marked[handle.id] = True
        return handle

    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; it may return replacement args.
        ``with_kwargs``: ``hook(module, args, kwargs)``, returning None or ``(args, kwargs)``.
        ``prepend``: before the hooks already registered."""
        marks = ("_forward_pre_hooks_with_kwargs",) if with_kwargs else ()
        return self._add_hook("_forward_pre_hooks", hook, prepend, marks)

    def register_forward_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """``hook(module, args, output)`` runs after ``forward``; it may return a new output.
        ``with_kwargs``: ``hook(module, args, kwargs, output)``; ``always_call``: also when
        ``forward`` raised (then ``output`` is None and the hook's own errors are warnings);
        ``prepend``: before the hooks already registered."""
        marks = ("_forward_hooks_with_kwargs",) if with_kwargs else ()
        if always_call:
            marks += ("_forward_hooks_always_called",)
        return self._add_hook("_forward_hooks", hook, prepend, marks)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the gradients with respect to the module's
        outputs are known; it may return a replacement ``grad_output`` tuple."""
        return self._add_hook("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients with respect to the
        module's inputs are known (None for non-tensor inputs or inputs needing no gradient);
        it may return a replacement ``grad_input`` tuple."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError(_MIXED_HOOKS)
        self._is_full_backward_hook = True
        return self._add_hook("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Legacy: ``hook(module, grad_input, grad_output)`` on the last op of ``forward``
        only; prefer ``register_full_backward_hook``."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError(_MIXED_HOOKS)
        self._is_full_backward_hook = False
        return self._add_hook("_backward_hooks", hook)

    def _backward_hook_lists(self) -> tuple[list, list]:
        """The full and the legacy backward hooks of a call: the global ones, then this
        module's (as PyTorch's ``_get_backward_hooks``)."""
        full_hooks, legacy_hooks = [], []
        global_full = _global_backward_kind.get("full")
        if global_full is not None:
            (full_hooks if global_full else legacy_hooks).extend(_global_backward_hooks.values())
        own = (self.__dict__.get("_backward_hooks") or {}).values()
        own_full = self.__dict__.get("_is_full_backward_hook")
        if own_full is not None:
            (full_hooks if own_full else legacy_hooks).extend(own)
        return full_hooks, legacy_hooks

    def _forward_hook(self, hook, with_kwargs: bool, args, kwargs, result):
        """``result`` after one forward hook (its return value where not None)."""
        new = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
        return result if new is None else new

    def _call_with_hooks(self, args: tuple, kwargs: dict):
        """``forward`` wrapped in this module's forward and backward hooks, as PyTorch orders
        them: forward pre-hooks, input hook, forward, forward hooks, output hooks."""
        d = self.__dict__
        full_hooks, legacy_hooks = self._backward_hook_lists()
        pre_hooks = [
            *_global_backward_pre_hooks.values(),
            *(d.get("_backward_pre_hooks") or {}).values(),
        ]
        with_kwargs = d.get("_forward_pre_hooks_with_kwargs") or ()
        forward_pre_hooks = [
            *_global_forward_pre_hooks.items(),
            *(d.get("_forward_pre_hooks") or {}).items(),
        ]
        for hook_id, hook in forward_pre_hooks:
            if hook_id in with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {new}."
                        )
                    args, kwargs = new
            else:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        backward_hook = None
        if full_hooks or pre_hooks:
            backward_hook = BackwardHook(self, full_hooks, pre_hooks)
            args = backward_hook.setup_input_hook(args)
        forward_hooks = [*_global_forward_hooks.items(), *(d.get("_forward_hooks") or {}).items()]
        with_kwargs = {
            *_global_forward_hooks_with_kwargs,
            *(d.get("_forward_hooks_with_kwargs") or ()),
        }
        always = {
            *_global_forward_hooks_always_called,
            *(d.get("_forward_hooks_always_called") or ()),
        }
        called = set()  # the always-called hooks that ran
        result = None
        try:
            result = self.forward(*args, **kwargs)
            for hook_id, hook in forward_hooks:
                if hook_id in always:
                    called.add(hook_id)
                result = self._forward_hook(hook, hook_id in with_kwargs, args, kwargs, result)
        except Exception:
            for hook_id, hook in forward_hooks:
                if hook_id not in always or hook_id in called:
                    continue
                try:
                    result = self._forward_hook(hook, hook_id in with_kwargs, args, kwargs, result)
                except Exception as exc:
                    warnings.warn(
                        "module forward hook with ``always_call=True`` raised an exception that "
                        f"was silenced as another error was raised in forward: {exc}",
                        stacklevel=3,
                    )
            raise
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(result)}",
                    stacklevel=3,
                )
            result = backward_hook.setup_output_hook(result)
        if legacy_hooks:
            grad_fn = _first_tensor(result).grad_fn
            if grad_fn is not None:
                for hook in legacy_hooks:
                    grad_fn.register_hook(_LegacyHook(hook, self))
                _warn_non_full_backward_hook(args, result, grad_fn)
        return result


class _LegacyHook:
    """A legacy backward hook bound to its module, as a node hook."""

    def __init__(self, hook, module) -> None:
        self.hook = hook
        self.module = module

    def __call__(self, grad_input, grad_output):
        return self.hook(self.module, grad_input, grad_output)
