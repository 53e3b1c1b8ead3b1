"""Binary ops with Python numbers, bool and integer operands, and mixed dtypes: the result
dtype, values and errors of PyTorch (xlogy / xlog1py with a number, ldexp, igamma /
igammac in float16, copysign with a bool, pow of bools, logaddexp of bool and integer
tensors, Python ints beyond an integer tensor's range)."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

OPERANDS = {
    "f32": lambda m: m.tensor([1.5, -2.0, 0.5]),
    "f16": lambda m: m.tensor([1.5, -2.0, 0.5], dtype=m.float16),
    "f64_0d": lambda m: m.tensor(2.5, dtype=m.float64),
    "i64": lambda m: m.tensor([3, -2, 1]),
    "i32": lambda m: m.tensor([3, -2, 1], dtype=m.int32),
    "bool": lambda m: m.tensor([True, False, True]),
    "pos_f32": lambda m: m.tensor([1.5, 2.0, 0.5]),
    "i8": lambda m: m.tensor([1, 2, 100], dtype=m.int8),
    "u8": lambda m: m.tensor([1, 2, 200], dtype=m.uint8),
}

CASES = [
    "xlogy(f32, 2)",
    "xlogy(f32, 0.5)",
    "xlogy(i64, 2)",
    "xlogy(i32, 0.5)",
    "xlogy(bool, 2)",
    "xlogy(f16, 2)",
    "xlogy(2, f32)",
    "xlogy(2.0, i64)",
    "special.xlogy(f16, 0.5)",
    "special.xlog1py(f32, 2)",
    "special.xlog1py(i64, 0.5)",
    "ldexp(f64_0d, i64)",
    "ldexp(f16, i64)",
    "ldexp(f32, i32)",
    "ldexp(i64, i64)",
    "ldexp(i64, bool)",
    "igamma(f16, pos_f32)",
    "igamma(f16, f64_0d)",
    "igammac(f16, i64)",
    "igamma(pos_f32, pos_f32)",
    "copysign(f32, True)",
    "copysign(f32, False)",
    "copysign(i64, True)",
    "copysign(f16, False)",
    "pow(bool, True)",
    "pow(bool, False)",
    "pow(True, i64)",
    "pow(False, i64)",
    "pow(bool, 1)",
    "pow(bool, bool)",
    "pow(True, bool)",
    "logaddexp(f32, bool)",
    "logaddexp(bool, f64_0d)",
    "logaddexp(i64, f32)",
    "logaddexp(f16, i64)",
    "logaddexp(i64, i64)",
    "logaddexp(bool, bool)",
    "logaddexp(f32, 2.0)",
    "add(i8, 200)",
    "mul(i8, 2)",
    "mul(u8, 300)",
    "sub(u8, 3)",
    "add(i8, 2**70)",
]


def _call(m, case):
    name, rest = case.split("(", 1)
    fn = m
    for part in name.split("."):
        fn = getattr(fn, part)
    args = []
    for word in rest.rstrip(")").split(", "):
        if word in OPERANDS:
            args.append(OPERANDS[word](m))
        else:
            args.append(eval(word))  # a Python number or bool literal
    try:
        return fn(*args)
    except Exception as exc:  # the error's type is compared
        return exc


@pytest.mark.parametrize("case", CASES)
def test_dtype_values_and_errors_match_torch(case):
    ours, theirs = _call(lg, case), _call(torch, case)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (case, ours)
        return
    assert not isinstance(ours, Exception), (case, ours)
    assert str(ours.dtype) == str(theirs.dtype), case
    ours_values = ours.detach().numpy().astype(np.float64)
    theirs_values = theirs.detach().numpy().astype(np.float64)
    rtol = 2e-3 if theirs.dtype == torch.float16 else 1e-6
    np.testing.assert_allclose(ours_values, theirs_values, rtol=rtol, equal_nan=True)


def test_logaddexp_of_a_float_and_an_integer_tensor_differentiates_the_float():
    grads = []
    for m in (lg, torch):
        x = m.tensor([1.5, 0.2, -3.0], requires_grad=True)
        m.logaddexp(x, m.tensor([1, 3, -3])).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


def test_add_and_sub_with_alpha_and_a_number_keep_the_tensors_dtype():
    """``x.add(1, alpha=2)``: the scaled number stays a weak Python number (it was a NumPy
    int64 scalar, which made a float32 result float64)."""
    torch = pytest.importorskip("torch")
    for dtype in ("float16", "float32", "float64", "int32", "int64"):
        for call in (
            lambda m, x: x.add(1, alpha=2),
            lambda m, x: x.sub(3, alpha=2),
            lambda m, x: m.rsub(x, 1, alpha=2),
            lambda m, x: x.clone().add_(1, alpha=2),
        ):
            got = call(lg, lg.ones(3, dtype=getattr(lg, dtype)))
            want = call(torch, torch.ones(3, dtype=getattr(torch, dtype)))
            assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()
