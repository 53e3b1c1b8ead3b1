"""Module: the base class of layers, holding parameters, buffers and sub-modules by name."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import Tensor, empty, empty_like, no_grad
from .. import __future__ as _future
from .. import bfloat16 as _bfloat16
from .. import device as _device
from .. import dtype as _dtype
from .. import memory_format as _memory_format
from .._tensor import check_device
from ..utils._swap import swap_tensors
from . import _module_hooks
from ._module_hooks import ModuleHooks, _any_global_call_hook, run_registration_hooks
from ._module_state import ModuleState, _IncompatibleKeys  # noqa: F401 (nn.modules.module)
from .parameter import Buffer, Parameter

__all__ = ["Module"]


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (blank lines stay empty)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return "\n".join([lines[0]] + [pad + line if line.strip() else "" for line in lines[1:]])


def _forward_unimplemented(self, *args, **kwargs):
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _check_name(kind: str, name) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


# The hook dicts a PyTorch module has from __init__ (ModuleHooks makes them when used).
_HOOK_DICTS = frozenset(
    "_forward_hooks _forward_pre_hooks _backward_hooks _backward_pre_hooks "
    "_forward_hooks_with_kwargs _forward_hooks_always_called _forward_pre_hooks_with_kwargs "
    "_state_dict_hooks _state_dict_pre_hooks _load_state_dict_pre_hooks "
    "_load_state_dict_post_hooks".split()
)


def _converted(t: Tensor, dtype, fmt) -> Tensor:
    """``t`` as ``Module.to`` leaves it: floating tensors in ``dtype`` (where given), 4-d and
    5-d ones laid out in ``fmt`` (where given), as PyTorch converts them."""
    if dtype is not None and t.is_floating_point():
        t = t.to(dtype)
    if fmt is not None and t.dim() in (4, 5):
        t = t.to(memory_format=fmt)
    return t


def _type_name(value) -> str:
    """How PyTorch names a value's type in its assignment errors: a tensor by its legacy
    type (``torch.FloatTensor``), anything else by its class."""
    return value.type() if isinstance(value, Tensor) else type(value).__name__


class Module(ModuleHooks, ModuleState):
    """Base class of every layer: subclass it, assign parameters and sub-modules in
    ``__init__`` and define ``forward``; call the module to run it."""

    training: bool
    forward: Callable = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}; "
                "Module.__init__ takes none"
            )
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", {})
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", {})

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if (
            d.get("_forward_pre_hooks")
            or d.get("_forward_hooks")
            or d.get("_backward_hooks")
            or d.get("_backward_pre_hooks")
            or _any_global_call_hook
        ):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    # PyTorch's names for the call, which wrappers call directly.
    _call_impl = __call__
    _wrapped_call_impl = __call__

    # ----- registration -----
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` as state that is not a parameter; persistent ones enter state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if _module_hooks._global_buffer_registration_hooks:
            tensor = run_registration_hooks(
                _module_hooks._global_buffer_registration_hooks, self, name, tensor
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a Parameter, or None for an absent one) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and _module_hooks._global_parameter_registration_hooks:
            param = run_registration_hooks(
                _module_hooks._global_parameter_registration_hooks, self, name, param
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = self._registered_module(name, module)

    def _registered_module(self, name: str, module):
        """``module`` after the global module-registration hooks (each may replace it)."""
        hooks = _module_hooks._global_module_registration_hooks
        return run_registration_hooks(hooks, self, name, module) if hooks else module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The sub-module at dotted path ``target`` (``""`` is this module)."""
        module = self
        for atom in target.split(".") if target else []:
            if atom not in module._modules or module._modules[atom] is None:
                raise AttributeError(f"{module._get_name()} has no submodule `{atom}`")
            module = module._modules[atom]
        return module

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target``, replacing a sub-module there or (unless
        ``strict``) adding one to an existing parent."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target`` (AttributeError if there is none)."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target`` (AttributeError if there is none)."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails; __dict__ may be empty while unpickling.
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            values = d.get(store)
            if values is not None and name in values:
                return values[name]
        if name in _HOOK_DICTS and "_parameters" in d:
            # PyTorch makes these in __init__; here on first use (most modules have no hooks,
            # and the call checks them), the same dict from then on.
            return self._hooks(name)
        if name == "_is_full_backward_hook" and "_parameters" in d:
            return None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def forget(*stores):
            for store in stores:
                if name in store:
                    if isinstance(store, dict):
                        del store[name]
                    else:
                        store.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = self._registered_module(name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = self._registered_module(name, None)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            forget(d, self._parameters, self._modules)
            buffers.pop(name, None)  # register_buffer refuses a name already in use
            self.register_buffer(name, value, persistent=getattr(value, "persistent", True))
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(torch.Tensor or None expected)"
                )
            hooks = _module_hooks._global_buffer_registration_hooks
            buffers[name] = run_registration_hooks(hooks, self, name, value) if hooks else value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ----- traversal -----
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        """``(dotted name, module)`` for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(
                    memo, prefix + ("." if prefix else "") + name, remove_duplicate
                )

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool):
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        seen = set()
        for module_prefix, module in modules:
            for name, value in module.__dict__[store].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules appears once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ----- modes and gradients -----
    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops) on this module and every descendant."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got {type(mode).__name__}")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None, or to zeros in place."""
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every descendant (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----- dtype and device -----
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Convert every parameter (keeping the Parameter object), its grad and every buffer
        (of the sub-modules too unless ``recurse`` is False)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for key, param in self._parameters.items():
                if param is not None:
                    self._apply_to_param(key, param, fn)
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
        return self

    def _apply_to_param(self, key: str, param: Tensor, fn) -> None:
        """Convert one parameter and its grad as ``torch.__future__``'s flags say: swap the
        contents in place, assign a new Parameter, or (the default) set ``.data``."""
        applied = fn(param)
        grad = param.grad
        if _future.get_swap_module_params_on_conversion():
            param.grad = None
            try:
                swap_tensors(param, Parameter(applied, requires_grad=param.requires_grad))
            except Exception as exc:
                param.grad = grad
                raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from exc
            if grad is not None:
                swap_tensors(grad, fn(grad).requires_grad_(grad.requires_grad))
                param.grad = grad
        elif _future.get_overwrite_module_params_on_conversion():
            out = self._parameters[key] = Parameter(applied, param.requires_grad)
            if grad is not None:
                out.grad = fn(grad).requires_grad_(grad.requires_grad)
        else:
            param.data = applied
            if grad is not None:
                grad.data = fn(grad)

    def to(self, *args, **kwargs) -> Module:
        """Convert floating parameters and buffers: ``to(float64)``, ``to(t)``, ``to("cpu")``;
        ``memory_format`` lays out the 4-d and 5-d ones (e.g. ``channels_last``)."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        fmt = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"Module.to() got unexpected keyword arguments {sorted(kwargs)}")
        if fmt is not None and not isinstance(fmt, _memory_format):
            raise TypeError(f"to() memory_format must be a torch.memory_format, not {fmt!r}")
        for arg in args:
            if isinstance(arg, _dtype):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, (str, _device)):
                device = arg
            elif not isinstance(arg, bool):  # a bool is non_blocking, meaningless on the CPU
                raise TypeError(
                    f"Module.to() got an unexpected argument {arg!r}; pass a dtype, a device "
                    "or a Tensor"
                )
        if device is not None:
            check_device(device)
        if dtype is not None:
            dtype = empty(0, dtype=dtype).dtype  # accepts Python float as PyTorch does
            if not dtype.is_floating_point:
                raise TypeError(
                    "nn.Module.to only accepts floating point dtypes, but got desired "
                    f"dtype={dtype}"
                )
        if dtype is None and fmt is None:
            return self
        return self._apply(lambda t: _converted(t, dtype, fmt))

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Floating parameters and buffers to bfloat16: leafgrad has no bfloat16 tensors, so
        this raises the TypeError that says so (where the module holds any)."""
        return self._apply(lambda t: t.to(_bfloat16) if t.is_floating_point() else t)

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        """Fails as on a CPU-only build of PyTorch: there is no CUDA device."""
        check_device("cuda" if device is None else device)
        return self

    # ----- printing -----
    def type(self, dst_type) -> Module:
        """Every parameter and buffer cast to ``dst_type`` (a dtype or its name)."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Parameters and buffers replaced by uninitialized ones of their shapes on ``device``
        (the CPU: leafgrad's only device)."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self) -> Module:
        """``Tensor.share_memory_`` on every parameter and buffer."""
        return self._apply(lambda t: t.share_memory_())

    def compile(self, *args, **kwargs) -> None:
        """PyTorch compiles the module's call in place; leafgrad runs eagerly, so its calls
        stay as they are (the same results), as ``leafgrad.compile`` returns its function."""

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside its repr; override in subclasses."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): {_addindent(repr(module), 2)}" for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"
