"""logaddexp, logaddexp2, copysign, nextafter, heaviside, gcd, lcm, signbit, renorm and
aminmax against PyTorch: values, dtypes, first and second derivatives (float64), and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

rng = np.random.default_rng(3)
NAN, INF = float("nan"), float("inf")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _r(*shape):
    return rng.standard_normal(shape)


def _apart(*shape):
    """Values at least 0.3 from zero, of either sign (copysign has a kink at 0)."""
    return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)


CASES = {
    "logaddexp": (lambda m, x, y: m.logaddexp(x, y), [_r(2, 3) * 3, _r(3) * 3]),
    "logaddexp-method": (lambda m, x, y: x.logaddexp(y) * x, [_r(4), _r(4) * 30]),
    "logaddexp2": (lambda m, x, y: m.logaddexp2(x, y), [_r(2, 3) * 3, _r(3) * 3]),
    "logaddexp2-method": (lambda m, x, y: x.logaddexp2(y) * x, [_r(4), _r(4)]),
    "copysign": (lambda m, x, y: m.copysign(x, y) * x, [_apart(2, 3), _r(3)]),
    "copysign-number": (lambda m, x: (x.copysign(-1.5), m.copysign(x, 2)), [_apart(4)]),
    "copysign-zero-input": (lambda m, x, y: m.copysign(x * 0, y), [_r(3), _r(3)]),
    "nextafter": (lambda m, x, y: m.nextafter(x, y) * y, [_r(2, 3), _r(2, 3)]),
    "renorm": (
        lambda m, x: (m.renorm(x, 2, 0, 1.0), x.renorm(1, 1, 1.5), m.renorm(x, INF, 0, 0.8)),
        [_r(3, 4)],
    ),
    "renorm-3d": (lambda m, x: m.renorm(x, 3, -1, 0.9), [_r(2, 3, 2)]),
    "aminmax": (lambda m, x: tuple(m.aminmax(x)), [_r(3, 4)]),
    "aminmax-dim": (
        lambda m, x: (*x.aminmax(dim=1), *m.aminmax(x, dim=0, keepdim=True)),
        [_r(3, 4)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_derivatives_match_torch(name, torch):
    fn, arrays = CASES[name]
    compare(fn, arrays, torch=torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.logaddexp2(m.tensor([INF, -INF, INF, 1.0]), m.tensor([INF, -INF, -INF, 1.0])),
        lambda m: m.logaddexp(m.tensor([INF, -INF, INF, NAN]), m.tensor([INF, -INF, -INF, 1.0])),
        lambda m: m.logaddexp(m.tensor([1, 2]), m.tensor([0.5], dtype=m.float64)),
        lambda m: m.copysign(m.tensor([1, 2]), m.tensor([-1, 1])),
        lambda m: m.copysign(m.tensor([1], dtype=m.int32), 2.0),
        lambda m: m.copysign(m.tensor([1.0, -0.0]), m.tensor([2.0], dtype=m.float64)),
        lambda m: m.copysign(m.tensor([1.0, 2.0, 3.0]), m.tensor([-0.0, NAN, -NAN])),
        lambda m: m.nextafter(m.tensor([1.0, 0.0]), m.tensor([2.0, -1.0])),
        lambda m: m.nextafter(m.tensor([1.0], dtype=m.float64), m.tensor([2.0], dtype=m.float64)),
        lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([3.0, 0.0])),
        lambda m: m.heaviside(m.tensor([-1.0, 0.0, 2.0, NAN, -0.0]), m.tensor([0.5])),
        lambda m: m.heaviside(m.tensor([-1, 0, 2]), m.tensor([7])),
        lambda m: m.heaviside(m.tensor([[0.0], [1.0]]), m.tensor([0.5, 0.2])),
        lambda m: m.gcd(m.tensor([12, -18, 0, 0]), m.tensor([8, 12, 5, 0])),
        lambda m: m.lcm(m.tensor([4, -6, 0, 0]), m.tensor([6, 4, 3, 0])),
        lambda m: m.lcm(m.tensor([2**40]), m.tensor([3**20])),
        lambda m: m.gcd(m.tensor([12], dtype=m.int32), m.tensor([8])),
        lambda m: m.gcd(m.tensor([12], dtype=m.uint8), m.tensor([8], dtype=m.int8)),
        lambda m: m.gcd(m.tensor([12]), m.tensor([[8], [6]])),
        lambda m: m.signbit(m.tensor([-0.0, 0.0, -1.0, NAN, -NAN, -INF])),
        lambda m: m.signbit(m.tensor([-1, 2])),
        lambda m: m.signbit(m.tensor([True])),
        lambda m: m.signbit(m.tensor([1], dtype=m.uint8)),
        lambda m: m.aminmax(m.tensor([1, 3, -2]))[0],
        lambda m: m.aminmax(m.tensor([[1, 3], [4, -2]]), dim=-1)[1],
        lambda m: m.aminmax(m.tensor(2.0))[1],
        lambda m: m.aminmax(m.tensor([[1.0, 2.0]]), keepdim=True)[0],
        lambda m: m.aminmax(m.ones(0, 2), dim=1)[0],
    ],
)
def test_exact_values_and_dtypes_match_torch(call, torch):
    ours, theirs = call(lg), call(torch)
    assert str(ours.dtype) == str(theirs.dtype) and ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_no_gradient_flows_where_pytorch_has_none(torch):
    for m in (lg, torch):
        x = m.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        out = m.heaviside(x, m.tensor([0.5]))
        assert out.requires_grad  # recorded, but its backward raises (as PyTorch's)
        with pytest.raises(RuntimeError, match="heaviside"):
            out.sum().backward()
        assert not m.signbit(x).requires_grad


def test_in_place_twins_match_torch(torch):
    results = []
    for m in (lg, torch):
        x = m.tensor([[1.0, -2.0], [3.0, 0.5]])
        x.copysign_(m.tensor([-1.0, 1.0])).nextafter_(m.tensor([[0.0]])).renorm_(2, 0, 1.0)
        x.heaviside_(m.tensor([0.25]))
        i = m.tensor([12, 18])
        i.gcd_(m.tensor([8, 12])).lcm_(m.tensor([3, 4]))
        results.append((x.numpy(), i.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.logaddexp2(m.tensor([1, 2]), m.tensor([1, 2])),
        lambda m: m.logaddexp2(m.ones(2), 2.0),
        lambda m: m.copysign(2.0, m.ones(2)),
        lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([3, 4])),
        lambda m: m.nextafter(m.ones(2), 2.0),
        lambda m: m.heaviside(m.ones(2), m.tensor([1])),
        lambda m: m.heaviside(m.ones(2), 0.5),
        lambda m: m.gcd(m.ones(2), m.ones(2)),
        lambda m: m.lcm(m.tensor([True]), m.tensor([True])),
        lambda m: m.gcd(m.tensor([2]), 4),
        lambda m: m.renorm(m.ones(2), 2, 0, 1.0),
        lambda m: m.renorm(m.ones(2, 2, dtype=m.int64), 2, 0, 1.0),
        lambda m: m.renorm(m.ones(2, 2), -1, 0, 1.0),
        lambda m: m.renorm(m.ones(2, 2), 0, 0, 1.0),
        lambda m: m.renorm(m.ones(2, 2), 2, 0, -1.0),
        lambda m: m.renorm(m.ones(2, 2), 2, 2, 1.0),
        lambda m: m.aminmax(m.ones(0)),
        lambda m: m.aminmax(m.ones(2), dim=1),
    ],
)
def test_bad_arguments_raise_torchs_exception_type(call, torch):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, out: m.logaddexp2(m.ones(2), m.zeros(2), out=out),
        lambda m, out: m.copysign(m.ones(2), -1.0, out=out),
        lambda m, out: m.nextafter(m.ones(2), m.zeros(2), out=out),
        lambda m, out: m.heaviside(m.tensor([-1.0, 0.0]), m.tensor([0.5]), out=out),
        lambda m, out: m.renorm(m.ones(2, 2), 2, 0, 1.0, out=out),
        lambda m, out: m.diff(m.tensor([1.0, 4.0, 9.0]), out=out),
        lambda m, out: m.scatter(m.zeros(3), 0, m.tensor([1]), 2.0, out=out),
        lambda m, out: m.scatter_add(m.zeros(3), 0, m.tensor([1, 1]), m.ones(2), out=out),
    ],
)
def test_out_receives_the_result(call, torch):
    results = []
    for m in (lg, torch):
        out = m.empty(0)
        assert call(m, out) is out
        results.append(out.numpy())
    assert_close(*results, "elementwise")


def test_integer_functions_write_into_out(torch):
    for m in (lg, torch):
        a, b = m.tensor([12, 18]), m.tensor([8, 12])
        out = m.empty(2, dtype=m.int64)
        assert m.gcd(a, b, out=out).tolist() == [4, 6] and m.lcm(a, b).tolist() == [24, 36]
        assert m.signbit(m.tensor([-1.0, 1.0]), out=m.empty(2, dtype=m.bool)).tolist() == [
            True,
            False,
        ]


def test_aminmax_writes_into_a_pair_of_out_tensors(torch):
    results = []
    for m in (lg, torch):
        x = m.tensor([[1.0, 3.0], [-2.0, 0.5]])
        low, high = m.empty(0), m.empty(0)
        out = m.aminmax(x, dim=0, out=(low, high))
        assert out.min is low and out[1] is high
        results.append((low.numpy(), high.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    ("p", "dim", "maxnorm"), [(2, 0, 1.0), (1, 1, 2.0), (INF, 0, 0.5), (3.5, 1, 0.0)]
)
def test_renorm_and_its_twin_are_one_node_saving_what_torch_saves(p, dim, maxnorm, torch):
    x = np.random.default_rng(8).standard_normal((3, 4))
    for fn in (lambda t: t.renorm(p, dim, maxnorm), lambda t: (t * 1).renorm_(p, dim, maxnorm)):
        ours, theirs = fn(lg.tensor(x, requires_grad=True)), fn(torch.tensor(x, requires_grad=True))
        node, tnode = ours.grad_fn, theirs.grad_fn
        assert node.name() == tnode.name() == "RenormBackward0"
        assert (node._saved_p, node._saved_dim, node._saved_maxnorm) == (
            tnode._saved_p,
            tnode._saved_dim,
            tnode._saved_maxnorm,
        )
        assert node._saved_self.shape == tnode._saved_self.shape
        assert_close(ours.detach(), theirs.detach().numpy())


def test_logaddexp_records_pytorchs_graph_and_gradients_at_infinities(torch):
    """LogaddexpBackward0 over both inputs, its gradients ``1 / (1 + exp(other - input))``
    (NaN where both are the same infinity) and their graph two levels down."""
    from tests._graphs import node_names

    values = ([-2.0, 0.5, INF, -INF, 1e300, 3.0, NAN], [1.0, 0.5, INF, -INF, 1e300, -40.0, 1.0])
    found = []
    for m in (lg, torch):
        x, y = (m.tensor(v, dtype=m.float64, requires_grad=True) for v in values)
        z = m.logaddexp(x, y)
        gx, gy = m.autograd.grad(z.sum(), (x, y), create_graph=True)
        second = m.autograd.grad((gx * gy).sum(), (x, y))
        found.append(
            (
                node_names(z.grad_fn, 1),
                node_names(gx.grad_fn, 3),
                [t.detach().numpy() for t in (z, gx, gy, *second)],
            )
        )
    (names, graph, arrays), (torch_names, torch_graph, torch_arrays) = found
    assert names == torch_names and graph == torch_graph
    for a, b in zip(arrays, torch_arrays):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=0)
