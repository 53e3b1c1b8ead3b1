"""``out=`` on ordinary functions, as PyTorch's: the result written into the given tensor
(resized from empty, cast into its dtype where PyTorch casts, refused where PyTorch wants the
result's dtype), tuples of outs for ops with several results, and refused while grad mode is
on and an argument or ``out`` requires grad. Each case runs in both libraries."""

import warnings

import numpy as np
import pytest

import leafgrad
from tests._tolerance import assert_close

A = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 4.0]]
B = [[0.5, -1.0, 2.0], [2.0, 1.0, -0.5], [1.5, 0.5, 1.0]]


def _inputs(m):
    return m.tensor(A), m.tensor(B)


CALLS = {
    "add": lambda m, a, b, o: m.add(a, b, out=o),
    "add alpha": lambda m, a, b, o: m.add(a, b, alpha=2, out=o),
    "sub": lambda m, a, b, o: m.sub(a, b, out=o),
    "mul": lambda m, a, b, o: m.mul(a, b, out=o),
    "div": lambda m, a, b, o: m.div(a, b, out=o),
    "div floor": lambda m, a, b, o: m.div(a, b, rounding_mode="floor", out=o),
    "pow": lambda m, a, b, o: m.pow(a, 2, out=o),
    "square": lambda m, a, b, o: m.square(a, out=o),
    "neg": lambda m, a, b, o: m.neg(a, out=o),
    "remainder": lambda m, a, b, o: m.remainder(a, b, out=o),
    "exp": lambda m, a, b, o: m.exp(a, out=o),
    "matmul": lambda m, a, b, o: m.matmul(a, b, out=o),
    "mm": lambda m, a, b, o: m.mm(a, b, out=o),
    "bmm": lambda m, a, b, o: m.bmm(a[None], b[None], out=o),
    "mv": lambda m, a, b, o: m.mv(a, b[0], out=o),
    "addmm": lambda m, a, b, o: m.addmm(a, a, b, out=o),
    "outer": lambda m, a, b, o: m.outer(a[0], b[0], out=o),
    "sum": lambda m, a, b, o: m.sum(a, 0, out=o),
    "sum keepdim": lambda m, a, b, o: m.sum(a, 1, keepdim=True, out=o),
    "mean": lambda m, a, b, o: m.mean(a, 0, out=o),
    "prod": lambda m, a, b, o: m.prod(a, 1, out=o),
    "cumsum": lambda m, a, b, o: m.cumsum(a, 0, out=o),
    "std": lambda m, a, b, o: m.std(a, 0, out=o),
    "amax": lambda m, a, b, o: m.amax(a, 0, out=o),
    "logsumexp": lambda m, a, b, o: m.logsumexp(a, 0, out=o),
    "softmax": lambda m, a, b, o: m.softmax(a, 0, out=o),
    "clamp": lambda m, a, b, o: m.clamp(a, 0.5, 2.0, out=o),
    "where": lambda m, a, b, o: m.where(a > 1, a, b, out=o),
    "maximum": lambda m, a, b, o: m.maximum(a, b, out=o),
    "max binary": lambda m, a, b, o: m.max(a, b, out=o),
    "addcmul": lambda m, a, b, o: m.addcmul(a, a, b, value=0.5, out=o),
    "lerp": lambda m, a, b, o: m.lerp(a, b, 0.25, out=o),
    "hypot": lambda m, a, b, o: m.hypot(a, b, out=o),
    "exp2": lambda m, a, b, o: m.exp2(b, out=o),
    "special.exp2": lambda m, a, b, o: m.special.exp2(b, out=o),
    "sinc": lambda m, a, b, o: m.sinc(b, out=o),
    "deg2rad": lambda m, a, b, o: m.deg2rad(b, out=o),
    "rad2deg": lambda m, a, b, o: m.rad2deg(b, out=o),
    "frac": lambda m, a, b, o: m.frac(b, out=o),
    "nan_to_num": lambda m, a, b, o: m.nan_to_num(a.log() - 1, out=o),
    "logit": lambda m, a, b, o: m.logit(a / 5, out=o),
    "logit eps": lambda m, a, b, o: m.logit(a / 5, eps=0.1, out=o),
    "kron": lambda m, a, b, o: m.kron(a, b, out=o),
    "tril": lambda m, a, b, o: m.tril(a, out=o),
    "cross": lambda m, a, b, o: m.cross(a, b, dim=1, out=o),
    "gather": lambda m, a, b, o: m.gather(a, 0, m.tensor([[2, 0, 1]]), out=o),
    "index_select": lambda m, a, b, o: m.index_select(a, 1, m.tensor([2, 0]), out=o),
    "cat": lambda m, a, b, o: m.cat([a, b], 1, out=o),
    "stack": lambda m, a, b, o: m.stack([a, b], out=o),
    "norm": lambda m, a, b, o: m.norm(a, dim=0, out=o),
    "linalg.inv": lambda m, a, b, o: m.linalg.inv(a, out=o),
    "linalg.solve": lambda m, a, b, o: m.linalg.solve(a, b, out=o),
    "linalg.det": lambda m, a, b, o: m.linalg.det(a, out=o),
    "linalg.vector_norm": lambda m, a, b, o: m.linalg.vector_norm(a, dim=1, out=o),
    "linalg.cholesky": lambda m, a, b, o: m.linalg.cholesky(a, out=o),
    "linalg.eigvalsh": lambda m, a, b, o: m.linalg.eigvalsh(a, out=o),
}


def _run(m, name, dtype):
    a, b = _inputs(m)
    out = m.empty(0, dtype=dtype)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = CALLS[name](m, a, b, out)
    except RuntimeError:
        return RuntimeError
    assert returned is out
    assert not [w for w in caught if "resized" in str(w.message)]  # empty: resized silently
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", CALLS)
def test_out_is_written_as_pytorch_writes_it(name, dtype):
    torch = pytest.importorskip("torch")
    ours = _run(leafgrad, name, getattr(leafgrad, dtype))
    theirs = _run(torch, name, getattr(torch, dtype))
    if theirs is RuntimeError:  # PyTorch wants the result's dtype in out for this op
        assert ours is RuntimeError
        return
    assert ours is not RuntimeError
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    assert_close(ours, theirs.numpy(), dtype=np.float32)


TUPLES = {
    "max dim": lambda m, a: m.max(a, 1, out=(m.empty(0), m.empty(0, dtype=m.long))),
    "sort": lambda m, a: m.sort(a, 0, out=(m.empty(0), m.empty(0, dtype=m.long))),
    "linalg.eigh": lambda m, a: m.linalg.eigh(a, out=(m.empty(0), m.empty(0))),
    "linalg.slogdet": lambda m, a: m.linalg.slogdet(a, out=(m.empty(0), m.empty(0))),
}


@pytest.mark.parametrize("name", TUPLES)
def test_ops_with_several_results_write_a_tuple_of_outs(name):
    torch = pytest.importorskip("torch")
    ours = TUPLES[name](leafgrad, leafgrad.tensor(A))
    theirs = TUPLES[name](torch, torch.tensor(A))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert str(o.dtype) == str(t.dtype)
        # eigenvectors are defined up to sign: compare magnitudes
        assert_close(o.abs(), t.abs().numpy(), dtype=np.float32)


@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_out_refuses_inputs_that_require_grad_unless_grad_mode_is_off(lib):
    m = leafgrad if lib == "leafgrad" else pytest.importorskip("torch")
    a = m.tensor(A, requires_grad=True)
    for call in (
        lambda o: m.add(a, 1.0, out=o),
        lambda o: m.matmul(a, a, out=o),
        lambda o: m.sum(a, 0, out=o),
        lambda o: m.cat([a, a], out=o),
        lambda o: m.linalg.inv(a, out=o),
    ):
        with pytest.raises(RuntimeError, match="out="):
            call(m.empty(0))
        with m.no_grad():
            out = m.empty(0)
            assert call(out) is out and not out.requires_grad
    with pytest.raises(RuntimeError, match="out="):
        m.add(m.ones(2), 1.0, out=m.zeros(2, requires_grad=True))


@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_an_out_with_elements_is_resized_with_a_warning(lib):
    m = leafgrad if lib == "leafgrad" else pytest.importorskip("torch")
    out = m.zeros(5)
    with pytest.warns(UserWarning, match="resized"):
        m.sum(m.ones(2, 3), 0, out=out)
    assert out.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_a_float_result_into_an_integer_out_raises(lib):
    m = leafgrad if lib == "leafgrad" else pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        m.add(m.ones(2), 0.5, out=m.zeros(2, dtype=m.long))


@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_writing_into_out_bumps_its_version(lib):
    m = leafgrad if lib == "leafgrad" else pytest.importorskip("torch")
    out = m.zeros(3, 3)
    before = out._version
    m.matmul(m.ones(3, 3), m.ones(3, 3), out=out)
    assert out._version > before and out.sum().item() == 27.0


def test_pointwise_ops_declared_in_one_place_take_out():
    b = leafgrad.tensor([[0.5, -1.25]])
    for name, expected, dtype in (
        ("exp2", [[2**0.5, 2**-1.25]], leafgrad.float64),  # cast into out
        ("rad2deg", [[0.5 * 180 / np.pi, -1.25 * 180 / np.pi]], leafgrad.float64),
        ("frac", [[0.5, -0.25]], leafgrad.float32),
        ("nan_to_num", [[0.5, -1.25]], leafgrad.float32),
    ):
        out = leafgrad.empty(0, dtype=dtype)
        assert getattr(leafgrad, name)(b, out=out) is out
        assert out.dtype == dtype
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out = leafgrad.empty(2)
    assert leafgrad.special.logit(leafgrad.tensor([0.5, 0.75]), out=out) is out
    np.testing.assert_allclose(out.numpy(), [0.0, np.log(3.0)], rtol=1e-6)
    for name in ("frac", "nan_to_num"):  # these want out in the input's dtype
        with pytest.raises(RuntimeError):
            getattr(leafgrad, name)(b, out=leafgrad.empty(0, dtype=leafgrad.float64))
