"""Parameter: a leaf Tensor that a Module registers when it is assigned as an attribute."""

from __future__ import annotations

from .. import Tensor, empty
from .._tensor import _check_can_require_grad
from ..ops._primitive import record_directly


class Parameter(Tensor):
    """A Tensor that ``Module`` treats as one of its parameters.

    ``Parameter(data)`` shares ``data``'s values but is always a new leaf, requiring grad
    unless ``requires_grad=False`` (also under ``no_grad``). Ops on a Parameter return plain
    Tensors; only the Parameter itself is registered by a Module.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter: data must be a Tensor, got {type(data).__name__}; wrap it first, "
                "e.g. nn.Parameter(torch.tensor(data))"
            )
        param = object.__new__(cls)
        param.data = data  # shares the values; a fresh leaf with no history
        if requires_grad:
            _check_can_require_grad(data._data)  # PyTorch's words for a factory's refusal
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__; Tensor.__init__ would replace the data

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true for tensors ``Buffer(...)`` marked, as in PyTorch."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigned to a Module attribute, it is registered with
    ``register_buffer`` (``persistent`` says whether it enters ``state_dict``)."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        marked = data.detach().requires_grad_(data.requires_grad)
        marked.persistent = persistent
        marked._is_buffer = True
        return marked


_UNINITIALIZED_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet; ``materialize(shape)`` makes it an
    ordinary one (what lazy modules do on their first call)."""

    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Become a ``cls_to_become`` of ``shape`` (values unspecified), in place."""
        if isinstance(shape, int):
            shape = (shape,)
        dtype = self.data.dtype if dtype is None else dtype
        self.data = empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_SHAPE)

    def size(self, dim=None):
        raise RuntimeError(_UNINITIALIZED_SHAPE)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialised parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of a lazy module, given its shape by the first forward."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        param = Parameter.__new__(cls, empty(0, dtype=dtype), requires_grad)
        return param

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass  # everything happens in __new__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module, given its shape by the first forward."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent=True):
        buffer = object.__new__(cls)
        buffer.data = empty(0, dtype=dtype)
        buffer.requires_grad_(requires_grad)
        buffer.persistent = persistent
        return buffer

    def __init__(self, *args, **kwargs) -> None:
        pass  # everything happens in __new__


record_directly(Parameter)  # ops record a Parameter operand as a plain tensor, directly
