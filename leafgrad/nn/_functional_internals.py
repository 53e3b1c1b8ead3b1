"""What ``torch.nn.functional`` holds besides the functions themselves: the dispatch helpers
libraries call (``has_torch_function*``, ``handle_torch_function``, ``boolean_dispatch``),
TorchScript typing names, the documentation notes, and the float8 matmuls of CUDA builds
(refused on purpose)."""

from __future__ import annotations

import enum

from .. import Tensor


def _overloaded(args) -> list:
    """The arguments whose type overrides ``__torch_function__`` (a plain Tensor does not)."""
    return [
        a
        for a in args
        if type(a) is not Tensor
        and getattr(type(a), "__torch_function__", None) is not None
        and getattr(type(a), "__torch_function__", None)
        is not getattr(Tensor, "__torch_function__", None)
    ]


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overrides ``__torch_function__`` (False for tensors)."""
    return bool(_overloaded(relevant_args))


def has_torch_function_unary(obj) -> bool:
    """``has_torch_function((obj,))``."""
    return bool(_overloaded((obj,)))


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function(args)``."""
    return bool(_overloaded(args))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the ``__torch_function__`` of the first overriding argument that does not return
    ``NotImplemented``, as PyTorch does; TypeError when none implements ``public_api``."""
    overloaded = _overloaded(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__name__", repr(public_api))
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{[type(a) for a in overloaded]}"
    )


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls ``if_true`` or ``if_false`` by the boolean argument ``arg_name``
    (keyword) or at ``arg_index`` (positional), ``default`` when absent."""

    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    docs = [f.__doc__ for f in (if_true, if_false) if f.__doc__ is not None]
    if len(docs) == 2:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = docs[0] if docs else None
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """AssertionError (``message`` formatted with ``arg_name``) unless ``arg`` is an int or a
    pair."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


class _BroadcastingList:
    """TorchScript's ``BroadcastingListN[T]`` annotation: nothing at run time."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()
DType = int  # TorchScript spells dtypes as ints

reproducibility_notes = {
    "forward_reproducibility_note": "On CUDA devices this operation may be nondeterministic; "
    "leafgrad runs on the CPU, where it is deterministic.",
    "backward_reproducibility_note": "On CUDA devices this operation's backward may be "
    "nondeterministic; leafgrad runs on the CPU, where it is deterministic.",
    "cudnn_reproducibility_note": "cuDNN may pick nondeterministic algorithms on CUDA "
    "devices; leafgrad has no cuDNN.",
}
sparse_support_notes = {"sparse_beta_warning": "leafgrad has no sparse layouts."}
tf32_notes = {"tf32_note": "TensorFloat32 is a CUDA feature; leafgrad computes in full "
              "float32 / float64."}  # fmt: skip


class ScalingType(enum.IntEnum):
    """The scaling of ``scaled_mm``'s float8 operands (names as PyTorch's)."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class SwizzleType(enum.IntEnum):
    """The swizzle of ``scaled_mm``'s scales (names as PyTorch's)."""

    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


def _float8_matmul(name: str):
    def refused(*args, **kwargs):
        raise RuntimeError(
            f"{name}: leafgrad has no float8 tensors (NumPy has no float8 type), so it has no "
            "scaled or grouped float8 matmuls; use torch.matmul / torch.bmm on float32 or "
            "float64 tensors"
        )

    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = (
        f"Refused on purpose: ``{name}`` multiplies float8 tensors, which leafgrad lacks."
    )
    return refused


scaled_mm = _float8_matmul("scaled_mm")
scaled_grouped_mm = _float8_matmul("scaled_grouped_mm")
grouped_mm = _float8_matmul("grouped_mm")
