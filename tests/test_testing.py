"""leafgrad.testing.assert_close against torch.testing.assert_close: the same outcome and
the same message for tensors, numbers, sequences and mappings (dtypes, shapes, strides,
tolerances, NaN, msg)."""

import warnings

import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

CASES = [
    "T(L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.]))",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.], dtype=L.float64))",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.], dtype=L.float64), check_dtype=False)",
    "T(L.tensor([1., 2.]), L.tensor([[1., 2.]]))",
    "T(L.tensor([1., float('nan')]), L.tensor([1., float('nan')]))",
    "T(L.tensor([1., float('nan')]), L.tensor([1., float('nan')]), equal_nan=True)",
    "T(1.0, 1.0 + 1e-8)",
    "T(1, 2)",
    "T(L.tensor(1.), 1.)",
    "T([L.tensor(1.)], [L.tensor(1.5)])",
    "T({'a': L.tensor(1.)}, {'a': L.tensor(1.)})",
    "T({'a': L.tensor(1.)}, {'a': L.tensor(2.)})",
    "T(L.tensor([1, 2]), L.tensor([1, 3]))",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.1]), rtol=0.1, atol=0)",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.1]), rtol=0.1)",
    "T(L.tensor([[1., 2.], [3., 4.]]), L.tensor([[1., 2.], [3., 5.]]), msg='custom')",
    "T(L.tensor([[1., 2.], [3., 4.]]), L.tensor([[1.5, 2.], [3., 5.]]))",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.]).requires_grad_())",
    "T(L.tensor([True]), L.tensor([False]))",
    "T(L.tensor(2.), L.tensor(3.))",
    "T([1, 2], [1, 2, 3])",
    "T(L.tensor([1.,2.]), [1., 2.])",
    "T(L.tensor([1.,2.], dtype=L.float64), L.tensor([1.,2.+1e-6], dtype=L.float64))",
    "T(L.tensor([1.,2.], dtype=L.float16), L.tensor([1.,2.001], dtype=L.float16))",
    "T(L.tensor([float('inf')]), L.tensor([float('inf')]))",
    "T(L.tensor([float('inf')]), L.tensor([-float('inf')]))",
    "T(L.tensor([1., 2.]), L.tensor([1., 2.]), msg=lambda m: 'X' + m)",
    "T(L.tensor([1., 2.]), L.tensor([1., 3.]), msg=lambda m: 'X' + m)",
    "T((1, 2.0), (1, 2.0))",
    "T(L.ones(2, 3), L.ones(2, 3).T.contiguous().T, check_stride=True)",
    "T(L.ones(2, 3), L.ones(3, 2).T, check_stride=True)",
    "T({'a': 1}, {'b': 1})",
    "T(L.tensor([1, 2], dtype=L.int32), L.tensor([1, 2]))",
    "T(L.tensor([1, 2], dtype=L.int32), L.tensor([1, 2]), check_dtype=False)",
    "T(L.zeros(3), L.tensor([0., 1e-6, 2e-5]))",
    "T(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]), rtol=0, atol=0)",
    "T(L.tensor([0., 1.]), L.tensor([0., 0.]))",
]


def _outcome(lib, case):
    try:
        eval(case, {"L": lib, "T": lib.testing.assert_close})
    except Exception as exc:  # the type and text are compared
        text = str(exc).replace("torch.Tensor", "Tensor")
        text = text.replace("leafgrad.Tensor", "Tensor")
        return type(exc).__name__, text
    return "passed", ""


@pytest.mark.parametrize("case", CASES)
def test_outcome_and_message_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(lg, case) == _outcome(torch, case)


def test_assert_allclose_is_deprecated_and_compares_without_dtypes():
    with pytest.warns(FutureWarning):
        lg.testing.assert_allclose(lg.tensor([1.0, 2.0]), [1.0, 2.0])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        lg.testing.assert_allclose(lg.tensor([1.0, 2.0]), [1.0, 2.5])
