"""addcmul, addcdiv and lerp against PyTorch: one node of PyTorch's name with its saves,
values, and first and second derivatives (float64)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import assert_same_node_and_derivatives

torch = pytest.importorskip("torch")

R = np.random.default_rng(11)
X, T1, T2 = R.uniform(-1, 1, (2, 3)), R.uniform(-1, 1, (3,)), R.uniform(0.5, 1.5, (2, 1))

CASES = {
    "addcmul": (lambda m, x, a, b: m.addcmul(x, a, b, value=0.5), "AddcmulBackward0"),
    "addcdiv": (lambda m, x, a, b: m.addcdiv(x, a, b, value=-2), "AddcdivBackward0"),
    "lerp_scalar": (lambda m, x, a, b: m.lerp(x, a.expand(2, 3), 0.3), "LerpBackward0"),
    "lerp_large": (lambda m, x, a, b: m.lerp(x, a.expand(2, 3), 0.9), "LerpBackward0"),
    "lerp_tensor": (lambda m, x, a, b: m.lerp(x, a.expand(2, 3), b), "LerpBackward1"),
    "addcmul_inplace": (lambda m, x, a, b: (x * 1).addcmul_(a, b), "AddcmulBackward0"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_records_pytorchs_node_values_and_derivatives(case):
    fn, node_name = CASES[case][:2]
    assert_same_node_and_derivatives(torch, fn, (X, T1, T2), node_name)


def test_saves_what_pytorch_saves():
    a, b = lg.tensor(T1, requires_grad=True), lg.tensor(T2)
    node = lg.addcmul(lg.tensor(X), a, b, value=2).grad_fn
    assert node._saved_value == 2 and node._saved_tensor1 is None  # only tensor1 needs grad
    assert node._saved_tensor2.tolist() == T2.tolist()
    assert lg.lerp(a, a * 2, 0.25).grad_fn._saved_weight == 0.25
    node = lg.lerp(a, a * 2, b).grad_fn
    assert node._saved_self is None and node._saved_weight.tolist() == T2.tolist()


def test_lerp_refuses_a_weight_of_another_dtype_unless_0_dim_as_pytorch():
    x = lg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.lerp(torch.ones(3), torch.ones(3), torch.ones(3, dtype=torch.float64))
    with pytest.raises(RuntimeError):
        lg.lerp(x, x, lg.ones(3, dtype=lg.float64))
    y = lg.lerp(x, x * 3, lg.tensor(0.5, dtype=lg.float64))
    assert y.dtype == lg.float32 and y.tolist() == [2.0, 2.0, 2.0]
    assert y.grad_fn.name() == "LerpBackward1"


def test_integer_operands_keep_the_composite_values():
    i = lg.tensor([1, 2, 3])
    assert lg.addcmul(i, i, i, value=2).tolist() == [3, 10, 21]
    assert lg.addcmul(i, i, i, value=2).dtype == lg.int64
