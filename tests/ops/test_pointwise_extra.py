"""hypot, exp2, sinc, frac, fmax, fmin and nan_to_num against PyTorch: one node of PyTorch's
name with its saves, values, and first and second derivatives (float64), NaN and ties
included."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import assert_same_node_and_derivatives

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")
X = np.array([[0.5, -1.25, 2.0, NAN], [0.0, 1.5, -0.75, 3.0]])
Y = np.array([0.5, 2.0, NAN, 1.0])

CASES = {
    "hypot": (lambda m, x, y: m.hypot(x, y), "HypotBackward0"),
    "exp2": (lambda m, x, y: m.exp2(x), "Exp2Backward0"),
    "sinc": (lambda m, x, y: m.sinc(x), "SincBackward0"),
    "sinc_method": (lambda m, x, y: (x * 3).sinc(), "SincBackward0"),
    "frac": (lambda m, x, y: m.frac(x * 3), "FracBackward0"),
    "fmax": (lambda m, x, y: m.fmax(x, y), "FmaxBackward0"),
    "fmin": (lambda m, x, y: m.fmin(x, y), "FminBackward0"),
    "fmax_ties": (lambda m, x, y: m.fmax(x, x * 1), "FmaxBackward0"),
    "nan_to_num": (lambda m, x, y: m.nan_to_num(x / y, 1.0, 2.0, -3.0), "NanToNumBackward0"),
    "nan_to_num_default": (lambda m, x, y: (x.exp() * 1e308).nan_to_num(), "NanToNumBackward0"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_records_pytorchs_node_values_and_derivatives(case):
    fn, node_name = CASES[case][:2]
    assert_same_node_and_derivatives(torch, fn, (X, Y), node_name)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_forward_mode_at_ties_and_nans_matches_pytorch(name):
    x, y = [1.0, 2.0, NAN, 3.0], [1.0, 3.0, 1.0, NAN]
    tx, ty = [10.0] * 4, [1.0] * 4
    tangents = []
    for lib in (lg, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            a = fw.make_dual(lib.tensor(x), lib.tensor(tx))
            b = fw.make_dual(lib.tensor(y), lib.tensor(ty))
            tangents.append(fw.unpack_dual(getattr(lib, name)(a, b)).tangent.tolist())
    assert tangents[0] == tangents[1]


def test_hypot_saves_each_operand_only_when_it_needs_a_gradient_as_pytorch():
    x, y = lg.tensor([3.0], requires_grad=True), lg.tensor([4.0])
    node = lg.hypot(x, y).grad_fn
    assert node._saved_other is None
    assert node._saved_self.tolist() == [3.0] and node._saved_result.tolist() == [5.0]


def test_float16_values_match_pytorch():
    h = [0.0, 1.0, -2.5, 7.25, INF]
    for name in ("sinc", "exp2", "frac"):
        ours = getattr(lg, name)(lg.tensor(h, dtype=lg.float16))
        theirs = getattr(torch, name)(torch.tensor(h, dtype=torch.float16))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
