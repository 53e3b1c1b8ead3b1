"""Tensor: an ndarray plus autograd metadata. It knows no maths; ``ops`` gives it operators."""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._dtype import c_type_name, from_numpy_dtype, scalar_type_name

# grad_mode imports nothing from the package: the Tensor reads the mode as ops do.
from ._engine.grad_mode import is_grad_enabled, is_inference_mode_enabled
from ._exposure import numpy_names
from ._memory_format import _strides_for, is_laid_out
from ._tensor_str import tensor_repr
from ._warn import warn_at_user, warn_once

NON_LEAF_GRAD_WARNING = (  # PyTorch's words (tests/test_warning_texts.py)
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


class Size(tuple):
    """A tensor's shape: a tuple that prints like ``torch.Size([2, 3])``.

    Built from an iterable of ints (NumPy ints and one-element integer tensors count);
    anything else is a TypeError. Slicing, ``+`` and ``*`` give a Size again.
    """

    __module__ = "leafgrad"  # (as Tensor's)

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = []
        for i, s in enumerate(sizes):
            try:
                items.append(s.__index__())
            except (AttributeError, TypeError):
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')"
                ) from None
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __reduce__(self):
        return (Size, (tuple(self),))

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, n):
        # A plain tuple's product (not ``tuple.__mul__(self, n)``, which crashes compiled by
        # Cython): its TypeError for a non-int ``n`` is PyTorch's.
        return tuple.__new__(Size, tuple(self) * n)

    __rmul__ = __mul__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return tuple.__new__(Size, out) if isinstance(key, slice) else out


# The device types PyTorch's parser knows; leafgrad can name them all but holds data only
# on the CPU, as a CPU-only build of PyTorch does.
_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip


class device:
    """A device name, ``device("cuda:1")`` or ``device("cpu")``; only ``cpu`` holds tensors."""

    __module__ = "leafgrad"  # (as Tensor's)

    __slots__ = ("index", "type")

    def __init__(self, type="cpu", index=None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        name = str(type)
        kind, _, number = name.partition(":")
        if kind not in _DEVICE_TYPES or (number and not number.isdigit()):
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                f"string: {name}"
            )
        if number:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {name}")  # fmt: skip
            index = int(number)
        if index is not None and (not isinstance(index, int) or index < 0):
            raise RuntimeError(f"Device index must not be negative, got {index!r}")
        self.type = kind
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # As PyTorch: a device never equals a string, and cpu != cpu:0.
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self) -> device:
        """``with device(...)``: factories use this device inside the block (as PyTorch)."""
        _DEFAULT_DEVICE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _DEFAULT_DEVICE.pop()


# The device factories use: the last entry (set_default_device replaces it, ``with device``
# pushes and pops); ``leafgrad/_default_device.py`` reads and sets it.
_DEFAULT_DEVICE: list = []


def check_device(where) -> None:
    """Refuse a device other than the CPU as a CPU-only build of PyTorch refuses it."""
    if isinstance(where, int) and not isinstance(where, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    kind = (where if isinstance(where, device) else device(where)).type
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"leafgrad runs on the CPU only: it has no support for {kind} devices")


CPU = device("cpu")
_DEFAULT_DEVICE.append(CPU)


def _views_follow_base(base: Tensor, counter: list, requires_grad: bool) -> None:
    """The leaf views made before their base started (or stopped) requiring grad: as in
    PyTorch they require grad with it, and ops on them record, but gradients reaching them go
    nowhere (no accumulator, as for a view made under no_grad), unless their memory changed
    in place since they were made: then their history is regenerated from the base's."""
    from ._engine.graph import NO_GRAD_VIEW  # why: the engine imports this module
    from .ops.view_history import _regenerate  # why: the ops import this module

    for ref in counter[1]:
        view = ref()
        if view is None or view._base is not base or view.grad_fn is not None:
            continue  # (a detached alias shares the counter, not the views)
        if view._data.dtype.kind != "f":
            continue
        if requires_grad and not view._requires_grad:
            made_at = view._view_version
            if made_at is not None and made_at != counter[0] and view._view_fn is not None:
                _regenerate(view, base)  # PyTorch's AsStridedBackward0
                continue
            view._requires_grad = True
            view._accumulator = NO_GRAD_VIEW
        elif not requires_grad and view._accumulator is NO_GRAD_VIEW:
            view._requires_grad = False
            view._accumulator = None


# PyTorch's words for a non-floating tensor asked to require grad: by a factory's
# ``requires_grad=True`` (or Parameter), by the setter, by ``requires_grad_()``.
CANNOT_REQUIRE_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
CANNOT_SET_REQUIRES_GRAD = "only Tensors of floating point and complex dtype can require gradients"
CANNOT_REQUIRES_GRAD_ = "only Tensors of floating point dtype can require gradients"


def _check_can_require_grad(data: np.ndarray, message: str = CANNOT_REQUIRE_GRAD) -> None:
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"{message} (this tensor is {from_numpy_dtype(data.dtype)}; convert it first, e.g. "
            "t.float() or t.double())"
        )


_UNDELETABLE = {
    "data": (RuntimeError, "Deleting tensor data is not allowed. Delete tensor instead!"),
    "requires_grad": (RuntimeError, "requires_grad cannot be deleted; set it to False instead"),
    "_grad_fn": (RuntimeError, "Deletion of _grad_fn not allowed. Detach tensor instead!"),
    "_backward_hooks": (
        RuntimeError,
        "Deletion of _backwards_hooks not allowed! Remove each hook with the handle "
        "register_hook returned.",
    ),
}


def _refuse_deletion(name: str):
    error, message = _UNDELETABLE[name]
    raise error(message)


class Tensor:
    """A multidimensional array that can record the operations applied to it."""

    __module__ = "leafgrad"  # ``type(x)``: <class 'leafgrad.Tensor'>, as <class 'torch.Tensor'>

    # Class-level defaults keep tensor creation cheap: only what differs is set per instance.
    grad_fn = None
    _output_nr = 0
    _requires_grad = False
    _grad = None
    _retains_grad = False
    _accumulator = None
    _version_counter = None
    _base = None  # for a view: the tensor whose memory it shares (never itself a view)
    _view_version = None  # for a view: the version of its memory when it was made
    _view_fn = None  # for a view: base -> this view, as leafgrad ops
    _view_meta = None  # for a view PyTorch refuses to change in place: why (ops/_primitive)
    _tangents = None  # forward mode: {dual level: tangent}
    _jet = None  # Taylor / collapsed mode: higher coefficients (leafgrad.autograd.taylor)
    _is_inference = False  # made under inference_mode (PyTorch's inference tensors)
    _leaf_hooks = None  # see _backward_hooks
    _post_accumulate_hooks = None
    __array_priority__ = 1000  # so ndarray <op> Tensor defers to Tensor's reflected operators

    def __init__(self, *args, size=None, device=None) -> None:
        """``Tensor(2, 3)``: that shape (zero-filled); ``Tensor(data)``: data in the default dtype.

        ``Tensor(t)`` aliases the tensor ``t`` (its memory and dtype); ``Tensor()`` is empty.
        """
        if len(args) == 1 and isinstance(args[0], Tensor):
            self._data = args[0]._data
            self._version_counter = args[0]._shared_version_counter()
        else:
            self._data = self._legacy_data(args, device, None, size)  # declared by _creation
        self._provenance = "created"  # read by autograd.explain

    # ----- array facts -----
    @property
    def dtype(self) -> _dtype.dtype:
        return from_numpy_dtype(self._data.dtype)

    @property
    def shape(self) -> Size:
        return tuple.__new__(Size, self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return tuple.__new__(Size, self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim, "size")]

    size = numpy_names(size)  # x.size(axis=0), as PyTorch's

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    is_sparse = is_quantized = is_meta = is_mps = is_nested = False

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def values(self):
        """Only sparse tensors have values: a dense tensor refuses, as in PyTorch."""
        raise RuntimeError("values expected sparse tensor layout but got Strided")

    def indices(self):
        """Only sparse COO tensors have indices: a dense tensor refuses, as in PyTorch."""
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return False

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar "
                "(item() takes the value of a one-element tensor only)"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        # Under no_grad PyTorch hands the array out: nothing recorded could be bypassed.
        if self._requires_grad and not force and is_grad_enabled():
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy ufunc's result on tensors (``np.sin(t)``, ``t * ndarray``) as a tensor.

        As PyTorch's: always a tensor (0-d for scalars), and bool results become uint8.
        """
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return _wrap(np.asarray(array))

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element) -> bool:
        """``element in t``: whether any entry equals ``element`` (a tensor or a number)."""
        if isinstance(element, (Tensor, int, float, complex, bool, np.generic)):
            return bool((element == self).any().item())
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )

    def __bool__(self) -> bool:
        if self._data.size != 1:
            how_many = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(
                f"Boolean value of Tensor with {how_many} is ambiguous (it has "
                f"{self._data.size} elements; use .any() or .all())"
            )
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        if self._data.size != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars (this one has "
                f"{self._data.size} elements)"
            )
        if self._requires_grad:
            warn_once(  # once per process, as PyTorch
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first."
            )
        return float(self._data.reshape(()).item())

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars (this one has "
                f"{self._data.size} elements)"
            )
        return int(self._data.reshape(()).item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return tensor_repr(self, Tensor)

    def __format__(self, spec: str) -> str:
        # PyTorch's rule: a plain 0-d tensor formats as its value (f"{loss}" gives "0.5"),
        # with or without a spec; subclasses (a Parameter) and other shapes as their repr.
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        # As PyTorch: the values, dtype, requires_grad and attributes the user set travel; the
        # history, .grad and view relations do not, so a non-leaf pickles as a leaf.
        attributes = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return (_rebuild_tensor, (type(self), self._data.copy(), self._requires_grad, attributes))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support deepcopy; "
                "detach() it first"
            )
        new = _wrap(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            new._grad = _wrap(self._grad._data.copy())
        memo[id(self)] = new
        return new

    # ----- autograd metadata -----
    @property
    def requires_grad(self) -> bool:
        # As PyTorch's: a view requires grad once its base does, even a view made before.
        base = self._base
        return self._requires_grad or (base is not None and base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            # A RuntimeError, not a TypeError, as in PyTorch.
            raise RuntimeError(f"requires_grad must be a bool, got {type(value).__name__}")
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                f"var_no_grad = var.detach(). (This one was computed by {self.grad_fn.name()}.)"
            )
        if value:
            _check_can_require_grad(self._data, CANNOT_SET_REQUIRES_GRAD)
            if self._is_inference and not is_inference_mode_enabled():
                raise RuntimeError(
                    "cannot set requires_grad=True on an inference tensor (made under "
                    "inference_mode) outside inference mode; clone() it first"
                )
        self._requires_grad = bool(value)
        counter = self._version_counter
        if counter is not None and len(counter) > 1 and self._base is None:
            _views_follow_base(self, counter, value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        _refuse_deletion("requires_grad")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not isinstance(requires_grad, bool):
            raise TypeError(
                "requires_grad_(): requires_grad must be a bool, not "
                f"{type(requires_grad).__name__}"
            )
        # Unlike the setter, asking a non-leaf (which already requires grad) for True is fine.
        if not (requires_grad and self.grad_fn is not None):
            if requires_grad:
                _check_can_require_grad(self._data, CANNOT_REQUIRES_GRAD_)
            self.requires_grad = requires_grad
        return self

    def is_inference(self) -> bool:
        """Whether this tensor was made under ``inference_mode``."""
        return self._is_inference

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def _grad_fn(self):
        """PyTorch's older name for ``grad_fn``."""
        return self.grad_fn

    @_grad_fn.deleter
    def _grad_fn(self) -> None:
        _refuse_deletion("_grad_fn")

    @property
    def volatile(self) -> bool:
        """Always False: PyTorch removed volatile tensors (use ``no_grad``)."""
        warn_at_user("volatile was removed (Variable.volatile is always False)")
        return False

    @volatile.setter
    def volatile(self, value) -> None:
        warn_at_user(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
        )

    # No ``__delattr__`` here: defining one (or ``__setattr__``) in Python sends every
    # attribute store on every tensor through a slow generic slot (~80 ns each, several per
    # op). The autograd facts PyTorch refuses to delete are properties with deleters that
    # raise instead (``del t.grad`` is allowed: None).

    @property
    def _backward_hooks(self):
        """A leaf's tensor hooks (``{id: fn}``, or None): what ``register_hook`` adds to."""
        return self._leaf_hooks

    @_backward_hooks.setter
    def _backward_hooks(self, hooks) -> None:
        self._leaf_hooks = hooks

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        _refuse_deletion("_backward_hooks")

    @property
    def grad(self):
        # Like PyTorch, warn only while there is no gradient to give.
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warn_at_user(NON_LEAF_GRAD_WARNING)  # the user's line, compiled or not
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad must be a Tensor or None, got {type(value).__name__}"
                )
            if value is self:
                raise RuntimeError(
                    "a tensor cannot be assigned as its own grad; assign a copy "
                    "(x.grad = x.detach().clone())"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{c_type_name(value._data.dtype)}' to a tensor with grad_dtype "
                    f"'{scalar_type_name(self._data.dtype)}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
                    "You can set the tensor's grad_dtype attribute with a specific dtype, or None "
                    "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        vc = self._version_counter
        return 0 if vc is None else vc[0]

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (``_base``), as PyTorch's."""
        return self._base is not None

    def _shared_version_counter(self) -> list:
        vc = self._version_counter
        if vc is None:
            vc = self._version_counter = [0]
        return vc

    def _bump_version(self) -> None:
        self._shared_version_counter()[0] += 1

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's data (and version counter) outside any graph."""
        out = _wrap(self._data)
        out._version_counter = self._shared_version_counter()
        out._provenance = "detach"  # read by autograd.explain
        if self._is_inference:
            out._is_inference = True
        return out

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError(
                "detach_() cannot be used on a view (it shares its base's history); use "
                "detach() to get a new tensor instead"
            )
        self.grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """A leaf sharing this tensor's memory but not its version counter (nor its views):
        changes made through it are hidden from autograd, as PyTorch's ``.data`` hides them."""
        out = _wrap(self._data)
        out._provenance = "detach"  # read by autograd.explain
        if self._is_inference:
            out._is_inference = True
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Tensor.data must be set to a Tensor, got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind != "f":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                f"dtype (got {value.dtype})"
            )
        self._data = value._data

    @data.deleter
    def data(self) -> None:
        _refuse_deletion("data")

    # ----- memory layout (NumPy strides; there is no separate storage object) -----
    def is_contiguous(self, *, memory_format=None) -> bool:
        """Whether the strides are those of ``memory_format`` (row-major by default)."""
        return is_laid_out(self._data, memory_format)

    def stride(self, dim: int | None = None):
        data = self._data
        if data.size or any(data.strides):
            strides = tuple(s // data.itemsize for s in data.strides)
        else:  # NumPy 2 gives new empty arrays zero strides: PyTorch's row-major ones
            strides = _strides_for(data.shape, range(data.ndim - 1, -1, -1))
        if dim is None:
            return strides
        return strides[_normalize_dim(dim, self._data.ndim, "stride")]

    stride = numpy_names(stride)

    def storage_offset(self) -> int:
        from ._storage import storage_offset  # why: _storage imports _tensor

        return storage_offset(self._data)

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self):
        """The memory this tensor and its views share, as bytes (``data_ptr()``, ``nbytes()``)."""
        from ._storage import untyped_storage  # why: _storage imports _tensor

        return untyped_storage(self)

    def storage(self):
        """The memory as elements of this dtype (deprecated in PyTorch: it warns)."""
        from ._storage import typed_storage  # why: _storage imports _tensor

        return typed_storage(self)


# The names set on tensors as they are made and recorded, most frequent first.
_INSTANCE_NAMES = (
    "_data", "_requires_grad", "grad_fn", "_version_counter", "_provenance", "_base",
    "_view_fn", "_view_version", "_view_meta", "_output_nr", "_accumulator", "_grad", "_jet",
    "_tangents", "_is_inference", "_retains_grad", "_leaf_hooks", "_post_accumulate_hooks",
)  # fmt: skip


def _share_instance_keys(cls: type, names: tuple) -> None:
    """Let every instance of ``cls`` keep ``names`` inline, without a dict of its own.

    CPython (3.11, 3.12) shares one key table among a class's instances but stops adding
    names to it after the first few instances are made; an instance given a name that is
    not in it gets a dict of its own (~0.5 us, every view paid it for ``_base``). Setting
    the names on one throwaway instance before any other is made puts them all in.
    """
    probe = object.__new__(cls)
    for name in names:
        setattr(probe, name, None)


_share_instance_keys(Tensor, _INSTANCE_NAMES)


def _rebuild_tensor(cls, data: np.ndarray, requires_grad: bool, attributes: dict) -> Tensor:
    """The other half of ``Tensor.__reduce_ex__``."""
    t = object.__new__(cls)
    t._data = data
    if requires_grad:
        t._requires_grad = True
    t.__dict__.update(attributes)
    return t


def _wrap(data: np.ndarray, requires_grad: bool = False) -> Tensor:
    """A tensor around ``data`` without copying; the fast path every op uses."""
    t = object.__new__(Tensor)
    t._data = data
    if requires_grad:
        t._requires_grad = True
    return t


def _zeros_like(t: Tensor) -> Tensor:
    """Zeros of ``t``'s shape and dtype, outside any graph (unlike ``zeros_like``, unmarked);
    ``t`` may be an array (in a plain rule, see ``OpNode.apply_plain``)."""
    return _wrap(np.zeros_like(t if type(t) is np.ndarray else t._data))


def _normalize_dim(dim: int, ndim: int, op: str) -> int:
    """``dim`` made non-negative; IndexError naming ``op`` when out of range."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim}) "
            f"({op}: a tensor with {ndim} dimension(s))"
        )
    return dim + n if dim < 0 else dim
