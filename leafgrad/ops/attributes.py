"""What a dense real CPU tensor reports about itself, as PyTorch's does: conjugate
transposes, the complex-number views that are the tensor itself, device and layout
predicates, ``as_subclass``, ``module_load`` ...

leafgrad has no complex dtypes, so ``conj``, ``resolve_conj`` ... return the tensor itself (as
PyTorch does for a real tensor). The torch-level functions of the same names, which check
their argument as PyTorch's do, are in ``_torch_predicates``.
"""

from __future__ import annotations

import math
import warnings
import weakref

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._layout import strided
from .._storage import same_view, storage_array
from .._tensor import Tensor, _zeros_like
from .._warn import warn_at_user
from ._optable import PiecewiseLinear
from ._primitive import primitive
from .inplace import _check_target
from .reorder import flip

# ----- conjugate transposes: a real matrix's adjoint is its transpose -----


def _H(self: Tensor) -> Tensor:
    """The conjugate transpose of a matrix (its transpose: the values are real)."""
    ndim = self._data.ndim
    if ndim == 0:
        warn_at_user("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return self
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}"
        )
    return self.transpose(0, 1)


def _mH(self: Tensor) -> Tensor:
    """The conjugate transpose of each matrix in a batch (the transpose of the last two dims)."""
    ndim = self._data.ndim
    if ndim == 0:
        warn_at_user("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
        return self
    if ndim < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. Got {ndim}-D tensor."
        )
    return self.transpose(-2, -1)


@public(function=False)
def adjoint(input: Tensor) -> Tensor:
    """``input.mH`` as a view: the last two dims swapped (conjugation is a no-op on reals)."""
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(
            f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{ndim}-D tensor."
        )
    return input.transpose(-2, -1)


# ----- complex views of a real tensor: the tensor itself -----


@public(function=False)
def conj(input: Tensor) -> Tensor:
    """``input`` itself: a real tensor is its own conjugate (PyTorch returns it too)."""
    return input


@public()
def conj_physical(input: Tensor) -> Tensor:
    """``input`` itself for a real tensor, as in PyTorch."""
    return input


@public()
def conj_physical_(input: Tensor) -> Tensor:
    """Conjugate in place: a no-op on real values that still counts as a write (the
    version moves, and a leaf that requires grad refuses, as in PyTorch)."""
    _check_target(input, "conj_physical_")
    input._bump_version()
    return input


@public(function=False)
def resolve_conj(input: Tensor) -> Tensor:
    """``input`` itself: leafgrad never holds a lazily conjugated tensor."""
    return input


@public(function=False)
def resolve_neg(input: Tensor) -> Tensor:
    """``input`` itself: leafgrad never holds a lazily negated tensor."""
    return input


@public(function=False)
def is_conj(input: Tensor) -> bool:
    """False: leafgrad has no lazy conjugation bit."""
    return False


@public(function=False)
def is_neg(input: Tensor) -> bool:
    """False: leafgrad has no lazy negation bit."""
    return False


def _angle_forward(x):
    # x is floating already (dtype_rule "float"): pi for negatives, 0 otherwise, NaN kept.
    values = np.where(x < 0, math.pi, 0).astype(x.dtype)
    values[np.isnan(x)] = np.nan
    return values


# The argument of each value (floats for an integer or bool input); its gradient is zero
# everywhere, recorded as PyTorch's AngleBackward0 (saving self).
angle = primitive(
    "angle",
    _angle_forward,
    (lambda grad, x, result: _zeros_like(grad),),
    kind=PiecewiseLinear(),
    saves=("self",),
    node_name="AngleBackward0",
    dtype_rule="float",
    expose=public(),
    plain_rules=True,
)


@public(function=False, method=False, operators=("__reversed__",))
def _reversed(self: Tensor) -> Tensor:
    """``reversed(t)``: ``t.flip(0)`` (a 0-d tensor itself), as PyTorch's Tensor."""
    return self if self._data.ndim == 0 else flip(self, 0)


@public(function=False)
def positive(input: Tensor) -> Tensor:
    """``input`` itself (unary plus); a RuntimeError for bool tensors, as in PyTorch."""
    if input._data.dtype == np.bool_:
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported. Convert it first, e.g. "
            "x.int(), or use x itself"
        )
    return input


# ----- predicates -----


@public(function=False)
def is_signed(input: Tensor) -> bool:
    """Whether the dtype has a sign (floats and signed integers)."""
    return input.dtype.is_signed


@public(function=False)
def is_nonzero(input: Tensor) -> bool:
    """Whether the one value is nonzero; RuntimeError for no value or more than one."""
    size = input._data.size
    if size == 0:
        raise RuntimeError(
            "Boolean value of Tensor with no values is ambiguous; is_nonzero needs exactly "
            "one element"
        )
    if size > 1:
        raise RuntimeError(
            f"Boolean value of Tensor with more than one value is ambiguous ({size} elements); "
            "use .any() or .all()"
        )
    return bool(input._data.reshape(()))


def _tensor_arg(op: str, name: str, position: int, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )
    return value


@public(function=False)
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal (dtypes may differ)."""
    other = _tensor_arg("is_same_size", "other", 1, other)
    return input._data.shape == other._data.shape


@public(function=False)
def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both are the same memory seen the same way: storage, offset, sizes, strides."""
    tensor = _tensor_arg("is_set_to", "tensor", 1, tensor)
    a, b = self._data, tensor._data
    return storage_array(a) is storage_array(b) and same_view(a, b)


@public(function=False)
def is_distributed(input: Tensor) -> bool:
    """False: leafgrad tensors live in this process."""
    return False


@public(function=False)
def get_device(input: Tensor) -> int:
    """-1, PyTorch's answer for a CPU tensor."""
    return -1


@public(function=False)
def is_pinned(self: Tensor, device=None) -> bool:
    """False: there is no accelerator to pin memory for."""
    if device is not None:
        warnings.warn(
            "The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass "
            "this argument.",
            DeprecationWarning,
            stacklevel=2,
        )
    return False


@public(function=False)
def pin_memory(self: Tensor, device=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: pinned memory needs an accelerator."""
    raise RuntimeError(
        "Cannot access accelerator device when none is available. pin_memory() pins memory "
        "for copies to an accelerator; leafgrad runs on the CPU only, so leave it out"
    )


@public(function=False)
def is_shared(self: Tensor) -> bool:
    """Whether ``share_memory_()`` was called on this tensor (or a tensor of its memory)."""
    storage = storage_array(self._data)
    return _SHARED.get(id(storage)) is storage


@public(function=False)
def share_memory_(self: Tensor) -> Tensor:
    """Mark this tensor's memory shared and return it. leafgrad's memory is the process's
    own: a tensor sent to another process arrives as a copy, so updates do not travel back
    (unlike PyTorch's shared memory)."""
    storage = storage_array(self._data)
    _SHARED[id(storage)] = storage
    return self


_SHARED = weakref.WeakValueDictionary()  # storages marked shared, by id (weakly held)


@public(function=False)
def const_data_ptr(self: Tensor) -> int:
    """The address of the first element (``data_ptr()``; leafgrad has no read-only view)."""
    return self.data_ptr()


@public(function=False)
def storage_type(self: Tensor):
    """The class of ``self.storage()`` (PyTorch warns that typed storages are deprecated)."""
    return type(self.storage())


@public(function=False)
def as_subclass(self: Tensor, cls) -> Tensor:
    """This tensor as an instance of ``cls`` (a Tensor subclass), sharing its memory and
    staying in its graph (an alias, as PyTorch's)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            f"possible. Make sure your class inherits from Tensor (got {cls!r})."
        )
    out = self.view_as(self) if self._requires_grad else self.detach()
    out.__class__ = cls
    return out


@public(function=False)
def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What ``Module.load_state_dict`` stores for this parameter or buffer: ``other``
    detached when ``assign``, else this tensor with ``other``'s values copied in, detached."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _layout(self: Tensor):
    """``torch.strided``: every leafgrad tensor is dense."""
    return strided


def _name(self: Tensor):
    """None: leafgrad has no named tensors (PyTorch's is None for an unnamed tensor)."""
    return None


def _grad_dtype(self: Tensor):
    """The dtype ``.grad`` must have (the tensor's own unless set; None allows any)."""
    return self.__dict__.get("_grad_dtype", self.dtype)


def _set_grad_dtype(self: Tensor, value) -> None:
    if value is not None and not isinstance(value, _dtype.dtype):
        raise TypeError(f"grad_dtype must be a torch.dtype or None, not {type(value).__name__}")
    self.__dict__["_grad_dtype"] = value


def _volatile(self: Tensor) -> bool:
    """False, with PyTorch's warning: volatile was removed."""
    warn_at_user("volatile was removed (Variable.volatile is always False)")
    return False


def _set_volatile(self: Tensor, value) -> None:
    warn_at_user("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.")


def _real(self: Tensor) -> Tensor:
    """``Tensor.real``: the tensor itself (its real part)."""
    return self


def _imag(self: Tensor) -> Tensor:
    """``Tensor.imag``: RuntimeError, as PyTorch's for every non-complex dtype."""
    raise RuntimeError(
        "imag is not implemented for tensors with non-complex dtypes. leafgrad has no complex "
        "dtypes: the imaginary part of a real tensor is zeros_like(x)"
    )


def _false(self: Tensor) -> bool:
    return False


def _true(self: Tensor) -> bool:
    return True


Tensor.H = property(_H)
Tensor.mH = property(_mH)
Tensor.real = property(_real)
Tensor.imag = property(_imag)
Tensor.layout = property(_layout)
Tensor.name = property(_name)
Tensor.grad_dtype = property(_grad_dtype, _set_grad_dtype)
Tensor.volatile = property(_volatile, _set_volatile)
Tensor.is_cpu = property(_true, doc="True: every leafgrad tensor is on the CPU.")
for _device_kind in ("xla", "xpu", "ipu", "maia", "mtia", "vulkan", "mkldnn", "sparse_csr"):
    setattr(Tensor, f"is_{_device_kind}", property(_false, doc=f"False: never {_device_kind}."))


@public(function=False)
def sparse_dim(self: Tensor) -> int:
    """0: a dense tensor has no sparse dims (as in PyTorch)."""
    return 0


@public(function=False)
def dense_dim(self: Tensor) -> int:
    """Every dim of a dense tensor is dense: its ``ndim`` (as in PyTorch)."""
    return self._data.ndim


__all__ = exports(globals())
