"""NumPy arrays as operands, as PyTorch takes them: ``tensor <op> ndarray`` runs in NumPy and
comes back as a tensor outside any graph, ``ndarray <op> tensor`` and ordering comparisons
raise TypeError, ``==`` compares, torch functions refuse arrays.

Behaviour tests take a ``torch`` fixture and run with leafgrad, then with PyTorch: what they
assert is PyTorch's behaviour. The table compares every operator and operand kind directly.
"""

import operator
import warnings

import numpy as np
import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    """The library under test: leafgrad, then PyTorch as the oracle."""
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _quiet_numpy_deprecation():
    # PyTorch's __array_wrap__ has NumPy 1's signature; NumPy 2 warns about it on each call.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "__array_wrap__", DeprecationWarning)
        yield


def test_tensor_times_ndarray_is_a_tensor_in_numpys_result_dtype(torch):
    out = torch.tensor([1.0, 2.0, 3.0]) * np.array([2.0, 3.0, 4.0])
    assert isinstance(out, torch.Tensor)
    assert out.dtype == torch.float64  # NumPy's promotion: float32 array-op float64 array
    assert out.tolist() == [2.0, 6.0, 12.0]
    assert not out.requires_grad and out.grad_fn is None


def test_tensor_plus_float32_ndarray_keeps_float32(torch):
    out = torch.tensor([1.0, 2.0]) + np.array([0.5, 0.25], dtype=np.float32)
    assert out.dtype == torch.float32 and out.tolist() == [1.5, 2.25]


def test_ndarray_on_the_left_raises_type_error(torch):
    a, t = np.array([1.0, 2.0]), torch.tensor([1.0, 2.0])
    for op in (operator.mul, operator.add, operator.sub, operator.pow, operator.matmul):
        with pytest.raises(TypeError):
            op(a, t)


def test_ndarray_divided_by_tensor_is_numpys_product_with_the_reciprocal(torch):
    out = np.array([1.0, 2.0]) / torch.tensor([4.0, 8.0])
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float64
    assert out.tolist() == [0.25, 0.25]


def test_a_tensor_that_requires_grad_refuses_ndarray_operands(torch):
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="numpy"):
        t * np.array([1.0, 2.0])
    with pytest.raises(RuntimeError, match="numpy"):
        np.array([1.0, 2.0]) / t


def test_ordering_comparisons_with_ndarrays_raise_type_error(torch):
    t, a = torch.tensor([1.0, 2.0]), np.array([1.0, 3.0])
    for op in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError):
            op(t, a)
        with pytest.raises(TypeError):
            op(a, t)


def test_equality_with_an_ndarray_compares_as_tensors_even_with_grad(torch):
    t = torch.tensor([0.1, 2.0], requires_grad=True)
    # The float64 array keeps its dtype: float32 0.1 differs from float64 0.1.
    assert (t == np.array([0.1, 2.0])).tolist() == [False, True]
    assert (np.array([0.1, 2.0], dtype=np.float32) == t).tolist() == [True, True]
    assert (t == np.array(0.1)).tolist() == [True, False]  # a 0-d array is weak
    assert (t == np.array([[0.1], [2.0]], dtype=np.float32)).shape == (2, 2)


def test_not_equal_with_an_ndarray_falls_back_to_identity(torch):
    # PyTorch's != declines ndarrays and NumPy defers back, so Python compares identities.
    t = torch.tensor([1.0, 2.0])
    assert (t != np.array([1.0, 2.0])) is True
    assert (t == [1.0, 2.0]) is False and (t == None) is False  # noqa: E711


def test_in_place_operators_with_ndarrays_rebind_to_numpys_result(torch):
    x = torch.tensor([1.0, 2.0])
    y = x
    x += np.array([1.0, 1.0])  # __iadd__ declines: x is rebound to x + array
    assert x is not y and x.dtype == torch.float64 and y.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        y.add_(np.array([1.0, 1.0]))


def test_torch_functions_refuse_ndarrays(torch):
    t, a = torch.tensor([1.0, 2.0]), np.array([1.0, 2.0])
    for fn in (torch.add, torch.mul, torch.maximum, torch.matmul, torch.Tensor.add):
        with pytest.raises(TypeError):
            fn(t, a)


def test_numpy_ufuncs_on_tensors_give_tensors_and_bools_become_uint8(torch):
    t = torch.tensor([0.0, 1.0])
    out = np.sin(t)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    assert np.greater(t, 0.5).dtype == torch.uint8
    assert isinstance(np.add(torch.tensor(1.0), np.array(1.0)), torch.Tensor)
    with pytest.raises(RuntimeError):
        np.exp(torch.tensor([1.0], requires_grad=True))


def test_a_list_operand_reaches_pythons_sequence_repeat(torch):
    with pytest.raises(TypeError):
        torch.tensor([1.0, 2.0]) * [1, 2]


# ------------------------------------------------------------------ every operator, compared
OPERATORS = [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.eq, operator.ne, operator.lt, operator.ge,
]  # fmt: skip
TENSORS = {
    "float32": lambda m: m.tensor([1.0, 2.0, 3.0]),
    "float64": lambda m: m.tensor([1.0, 2.0, 3.0], dtype=m.float64),
    "int64": lambda m: m.tensor([1, 2, 3]),
    "0-d": lambda m: m.tensor(2.0),
}
ARRAYS = {
    "float64": np.array([2.0, 4.0, 0.5]),
    "float32": np.array([2.0, 4.0, 0.5], dtype=np.float32),
    "int32": np.array([2, 4, 1], dtype=np.int32),
    "bool": np.array([True, True, True]),
    "0-d": np.array(3.0),
}


def _outcome(fn):
    try:
        out = fn()
    except Exception as exc:  # the outcome is the exception's type
        return type(exc).__name__
    if hasattr(out, "requires_grad"):
        return (type(out).__name__, str(out.dtype), out.requires_grad, out.tolist())
    return (type(out).__name__, out)


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("tensor", TENSORS)
@pytest.mark.parametrize("array", ARRAYS)
def test_every_operator_and_operand_kind_matches_pytorch(op, tensor, array):
    torch = pytest.importorskip("torch")
    a = ARRAYS[array]
    for left in (True, False):

        def run(m, left=left):
            t = TENSORS[tensor](m)
            return _outcome(lambda: op(t, a) if left else op(a, t))

        ours, theirs = run(leafgrad), run(torch)
        assert ours == theirs, f"{'tensor-array' if left else 'array-tensor'}"
