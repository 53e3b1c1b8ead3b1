"""The fused Taylor path (ops/fused_jets.py): Linear layers and activations map packed jets
with one primitive each; results equal nested reverse mode to round-off in float32 and
float64, parameter gradients included, and anything else falls back to the generic rules."""

import collections
import gc
import itertools
import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from tests._tolerance import assert_close

ACTIVATIONS = {
    "tanh": lg.tanh,
    "sin": lg.sin,
    "softplus": lambda h: lg.nn.functional.softplus(h),
    "sigmoid": lg.sigmoid,
    "gelu": lambda h: lg.nn.functional.gelu(h),
    "gelu-tanh": lambda h: lg.nn.functional.gelu(h, approximate="tanh"),
    "silu": lambda h: lg.nn.functional.silu(h),
}
DTYPES = {"float32": lg.float32, "float64": lg.float64}
# jet_act for the activations with formulas in its table, jet_unary for any other
FUSED_ACTIVATIONS = {"JetActBackward0", "JetActValueBackward0", "JetUnaryBackward0"}


def _params(d, dtype, width=6, depth=3, out=1, seed=0, requires_grad=True):
    rng = np.random.default_rng(seed)
    sizes = [d] + [width] * depth + [out]
    return [
        (
            lg.tensor(rng.standard_normal((m, n)) / math.sqrt(m), dtype=dtype).requires_grad_(
                requires_grad
            ),
            lg.tensor(rng.standard_normal(n) * 0.3, dtype=dtype).requires_grad_(requires_grad),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def _mlp(params, act, linear=False):
    """``h @ w + b`` (mm, add) or ``F.linear`` (addmm, as nn.Linear) between activations."""

    def f(x):
        h = x
        for i, (w, b) in enumerate(params):
            h = lg.nn.functional.linear(h, w.t(), b) if linear else h @ w + b
            if i < len(params) - 1:
                h = act(h)
        return h

    return f


def _nested(f, x):
    """(u, grad (N, m, d), Hessian diagonal (N, m, d)) by nested reverse mode."""
    x = x.detach().requires_grad_(True)
    u = f(x)
    grads, diags = [], []
    for c in range(u.shape[1]):
        (g,) = lg.autograd.grad(u[:, c].sum(), x, create_graph=True)
        grads.append(g)
        diags.append(
            lg.stack(
                [
                    lg.autograd.grad(g[:, i].sum(), x, create_graph=True)[0][:, i]
                    for i in range(x.shape[1])
                ],
                dim=-1,
            )
        )
    return u, lg.stack(grads, dim=1), lg.stack(diags, dim=1)


def _points(n, d, dtype, seed=1):
    return lg.tensor(np.random.default_rng(seed).uniform(-1, 1, (n, d)), dtype=dtype)


def _kind(dtype):
    return "direct" if dtype == lg.float64 else "iterative"


def _node_names(t) -> set:
    return set(_node_counts([t]))


def _node_counts(tensors) -> collections.Counter:
    """How many nodes of each name the graphs of ``tensors`` hold (each node once)."""
    seen, counts, stack = set(), collections.Counter(), [t.grad_fn for t in tensors]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        counts[node.name()] += 1
        stack.extend(fn for fn, _ in node.next_functions)
    return counts


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", ACTIVATIONS)
@pytest.mark.parametrize("d", [1, 2, 10])
def test_laplacian_matches_nested_reverse(d, act, dtype):
    dt = DTYPES[dtype]
    f = _mlp(_params(d, dt, out=2), ACTIVATIONS[act], linear=d == 2)
    x = _points(7, d, dt)
    u, g, lap = taylor.laplacian(f, x)
    u_ref, g_ref, diag_ref = _nested(f, x)
    assert lap.dtype == dt and g.shape == (7, 2, d)
    assert_close(u, u_ref, _kind(dt))
    assert_close(g, g_ref, _kind(dt))
    assert_close(lap, diag_ref.sum(-1), _kind(dt))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", ["tanh", "sin", "softplus", "gelu"])
@pytest.mark.parametrize("d", [1, 2, 10])
def test_diagonal_matches_nested_reverse(d, act, dtype):
    dt = DTYPES[dtype]
    f = _mlp(_params(d, dt), ACTIVATIONS[act])
    x = _points(5, d, dt)
    _u, g, diag = taylor.diagonal(f, x)
    _u_ref, g_ref, diag_ref = _nested(f, x)
    assert_close(g, g_ref, _kind(dt))
    assert_close(diag, diag_ref, _kind(dt))
    assert _node_names(diag) & FUSED_ACTIVATIONS


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", ["tanh", "sigmoid", "silu"])
@pytest.mark.parametrize("d", [1, 2, 10])
def test_coefficients_along_one_direction_match_nested_reverse(d, act, dtype):
    dt = DTYPES[dtype]
    f = _mlp(_params(d, dt), ACTIVATIONS[act])
    x = _points(5, d, dt)
    v = _points(5, d, dt, seed=3)
    _u, d1, d2 = taylor.derivatives(f, x, v, 2)
    xg = x.detach().requires_grad_(True)
    (g,) = lg.autograd.grad(f(xg).sum(), xg, create_graph=True)
    dv = (g * v).sum(-1, keepdim=True)
    (h,) = lg.autograd.grad(dv.sum(), xg)
    assert_close(d1, dv, _kind(dt))
    assert_close(d2, (h * v).sum(-1, keepdim=True), _kind(dt))
    (u1,) = taylor.coefficients(f, x, v, 1)[1:]
    assert_close(u1, dv, _kind(dt))


def test_collapsed_with_a_full_matrix_matches_nested_reverse():
    f = _mlp(_params(3, lg.float64), lg.tanh)
    x = _points(6, 3, lg.float64)
    a = np.array([[2.0, 0.5, -0.3], [0.5, 1.0, 0.2], [-0.3, 0.2, 0.7]])
    _, _, op_u = taylor.collapsed(f, x, a)
    expected = (_hessian(f, x) * lg.tensor(a)).sum((1, 2))
    assert_close(op_u.reshape(-1), expected)


@pytest.mark.parametrize("weights", [[1.0, 0.0], [0.0, 0.0, 2.5], [0.5, -1.0, 0.0]])
def test_collapsed_with_weights_matches_nested_reverse(weights):
    d = len(weights)
    f = _mlp(_params(d, lg.float64), lg.tanh, linear=True)
    x = _points(6, d, lg.float64)
    _, g, op_u = taylor.collapsed(f, x, weights)
    _, g_ref, diag_ref = _nested(f, x)
    assert_close(g, g_ref)
    assert_close(op_u, (diag_ref * lg.tensor(weights)).sum(-1))


@pytest.mark.parametrize(
    ("act", "kernel"),
    [
        ("tanh", "JetActValueBackward0"),
        ("gelu", "JetActBackward0"),
        ("gelu-tanh", "JetUnaryBackward0"),
    ],
)
def test_layers_are_one_primitive_each(act, kernel):
    f = _mlp(_params(2, lg.float64, depth=4), ACTIVATIONS[act], linear=True)
    _, _, lap = taylor.laplacian(f, _points(4, 2, lg.float64))
    names = _node_names(lap)
    assert kernel in names and "JetAddmmValueBackward0" in names  # nn.Linear: value and jet
    # nothing maps a single coefficient: no per-direction products or Laplacian sums
    assert "MmBackward0" not in names and "StackBackward0" not in names
    if kernel != "JetUnaryBackward0":  # derivatives inside the kernel, nothing recorded for them
        assert "MulBackward0" not in names and "RsubBackward1" not in names
    if kernel == "JetActValueBackward0":  # tanh's value and jet: one node
        assert "TanhBackward0" not in names and "JetActBackward0" not in names


@pytest.mark.parametrize("dtype", DTYPES)
def test_parameter_gradients_match_nested_reverse(dtype):
    dt = DTYPES[dtype]
    params = _params(2, dt, out=1)
    f = _mlp(params, lg.tanh, linear=True)
    x = _points(9, 2, dt)
    leaves = [p for pair in params for p in pair]

    def loss(u, g, lap):
        r = lap.reshape(-1) + u.reshape(-1) * g[:, 0, 0]
        return (r * r).mean()

    ours = lg.autograd.grad(loss(*taylor.laplacian(f, x)), leaves)
    u, g, diag = _nested(f, x)
    ref = lg.autograd.grad(loss(u, g, diag.sum(-1)), leaves)
    for a, b in zip(ours, ref):
        assert_close(a, b, _kind(dt))


def test_a_layer_backward_is_one_node_and_its_second_derivatives_match_nested_reverse():
    params = _params(2, lg.float64, depth=3)
    f = _mlp(params, lg.tanh)
    x = _points(6, 2, lg.float64)
    weights = [w for w, _ in params]
    v = [
        lg.tensor(np.random.default_rng(7).standard_normal(w.shape), dtype=lg.float64)
        for w in weights
    ]

    def hvp(u, g, lap):
        r = lap.reshape(-1) + u.reshape(-1) * g[:, 0, 0]
        grads = lg.autograd.grad((r * r).mean(), weights, create_graph=True)
        dot = sum((gw * vw).sum() for gw, vw in zip(grads, v))
        return grads, lg.autograd.grad(dot, weights)

    u, g, lap = taylor.laplacian(f, x)
    grads, ours = hvp(u, g, lap)
    # Behind the first layer (whose seed channels need no gradient) each layer's channel
    # and weight gradients come from one node: no separate products for them.
    counts = _node_counts(grads)
    assert counts["JetLinearBackwardBackward0"] == len(params) - 1
    assert counts["JetOuterBackward0"] == 1 and counts["JetLinearValueBackward0"] == len(params)
    u, g, diag = _nested(f, x)
    for a, b in zip(ours, hvp(u, g, diag.sum(-1))[1]):
        assert_close(a, b)


def test_gradcheck_and_gradgradcheck_with_respect_to_weights():
    x = _points(4, 2, lg.float64)
    bias = lg.tensor(np.array([0.1, -0.2, 0.3]), dtype=lg.float64)

    def fused(w1, w2, w3):
        def f(z):
            h = lg.nn.functional.softplus(z @ w1 + bias)
            return lg.tanh(h @ w2) @ w3

        _, g, lap = taylor.laplacian(f, x)
        _, _, diag = taylor.diagonal(f, x)
        return lap, g, diag

    rng = np.random.default_rng(5)
    weights = [
        lg.tensor(rng.standard_normal(s), dtype=lg.float64, requires_grad=True)
        for s in ((2, 3), (3, 3), (3, 1))
    ]
    assert lg.autograd.gradcheck(fused, weights)
    assert lg.autograd.gradgradcheck(fused, weights)


def test_ops_without_fused_rules_fall_back_and_fuse_again():
    params = _params(2, lg.float64)

    def f(x):
        h = lg.tanh(x @ params[0][0] + params[0][1])
        h = lg.cat([h[:, :3], h[:, 3:] * h[:, 3:]], dim=1)  # slices, a product of two jets
        h = lg.relu(h.reshape(-1, 6)) + lg.softmax(h, dim=1)  # piecewise linear, generic
        h = lg.sin(h @ params[1][0] + params[1][1])  # fused again
        return (x[:, :1] * (h @ params[3][0][:6].reshape(6, 1))) / (1 + x[:, 1:] ** 2)

    x = _points(6, 2, lg.float64)
    _u_ref, g_ref, diag_ref = _nested(f, x)
    _, g, lap = taylor.laplacian(f, x)
    assert_close(g, g_ref)
    assert_close(lap, diag_ref.sum(-1))
    _, g, diag = taylor.diagonal(f, x)
    assert_close(g, g_ref)
    assert_close(diag, diag_ref)
    assert _node_names(diag) & FUSED_ACTIVATIONS
    v = _points(6, 2, lg.float64, seed=2)
    _, _, d2 = taylor.derivatives(f, x, v, 2)
    assert_close(d2.reshape(-1), lg.einsum("ni,nij,nj->n", v, _hessian(f, x), v))


def _hessian(f, x):
    """(N, d, d) Hessians of a one-output ``f`` by nested reverse mode."""
    xg = x.detach().requires_grad_(True)
    (g,) = lg.autograd.grad(f(xg).sum(), xg, create_graph=True)
    rows = [lg.autograd.grad(g[:, i].sum(), xg, retain_graph=True)[0] for i in range(x.shape[1])]
    return lg.stack(rows, dim=1)


def test_several_input_blocks_number_their_columns_in_order():
    params = _params(3, lg.float64)
    f = _mlp(params, lg.tanh)
    x = _points(5, 3, lg.float64)
    _, g_ref, diag_ref = _nested(f, x)
    _, g, diag = taylor.diagonal(lambda a, b: f(lg.cat([a, b], dim=1)), (x[:, :1], x[:, 1:]))
    assert_close(g, g_ref)
    assert_close(diag, diag_ref)


def test_higher_orders_use_the_generic_rules():
    f = _mlp(_params(2, lg.float64), lg.tanh)
    x, v = _points(3, 2, lg.float64), _points(3, 2, lg.float64, seed=4)
    coeffs = taylor.derivatives(f, x, v, 3)
    xg = x.detach().requires_grad_(True)
    s = f(xg).sum()
    for _ in range(3):
        (g,) = lg.autograd.grad(s, xg, create_graph=True)
        s = (g * v).sum()
    assert_close(coeffs[3].sum(), s)


def test_a_pass_leaves_no_reference_cycles():
    # A jet computed from its own tensor (f'(y) from y = tanh(x)) must not stay on it.
    f = _mlp(_params(2, lg.float64), lg.tanh, linear=True)
    x = _points(5, 2, lg.float64)
    gc.collect()
    gc.disable()
    try:
        for run in (taylor.laplacian, taylor.diagonal):
            out = run(f, x)
            del out
            assert gc.collect() == 0
        del f
    finally:
        gc.enable()


def test_diagonal_of_some_columns_is_that_part_of_the_full_diagonal():
    f = _mlp(_params(3, lg.float64), lg.sin)
    x = _points(4, 3, lg.float64)
    _, g_all, diag_all = taylor.diagonal(f, x)
    _, g, diag = taylor.diagonal(f, x, dims=[2, 0])
    assert diag.shape == (4, 1, 2)
    assert_close(g, g_all)
    assert_close(diag, diag_all[..., [2, 0]])


@pytest.mark.parametrize("act", ["tanh", "sin", "softplus", "gelu", "gelu-tanh"])
def test_derivatives_of_the_laplacian_by_the_points_match_nested_reverse(act):
    # third and fourth derivatives of u: through the kernels' rules and their own rules
    f = _mlp(_params(2, lg.float64), ACTIVATIONS[act], linear=True)
    x = _points(5, 2, lg.float64).requires_grad_(True)
    _, _, lap = taylor.laplacian(f, x)
    (third,) = lg.autograd.grad(lap.sum(), x, create_graph=True)
    (fourth,) = lg.autograd.grad(third[:, 0].sum(), x)
    (g,) = lg.autograd.grad(f(x).sum(), x, create_graph=True)
    ref = sum(lg.autograd.grad(g[:, i].sum(), x, create_graph=True)[0][:, i] for i in range(2))
    (third_ref,) = lg.autograd.grad(ref.sum(), x, create_graph=True)
    (fourth_ref,) = lg.autograd.grad(third_ref[:, 0].sum(), x)
    assert_close(third, third_ref)
    assert_close(fourth, fourth_ref)


@pytest.mark.parametrize("dtype", DTYPES)
def test_seed_rows_are_mapped_once_and_match_a_materialised_seed(dtype):
    from leafgrad._tensor import _wrap
    from leafgrad.ops import jet_kernels as jk

    dt = DTYPES[dtype]
    rng = np.random.default_rng(4)
    rows = rng.standard_normal((3, 1, 2)).astype(np.dtype(dtype))
    seed = _wrap(np.broadcast_to(rows, (3, 5, 2)))  # as taylor.collapsed seeds x
    assert jk._constant_rows(seed.numpy())
    dense = lg.tensor(np.ascontiguousarray(seed.numpy()))
    w = lg.tensor(rng.standard_normal((2, 4)), dtype=dt)
    g = lg.tensor(rng.standard_normal((3, 5, 4)), dtype=dt)
    mapped = jk.jet_linear(seed, w)
    assert jk._constant_rows(mapped.numpy())  # one row per channel, broadcast
    assert_close(mapped, jk.jet_linear(dense, w), _kind(dt))
    assert_close(jk.jet_outer(seed, g), jk.jet_outer(dense, g), _kind(dt))


@pytest.mark.parametrize(
    "weights",
    [[1.0, 0.0], (1.0, 0.0), [1, 0], np.array([1.0, 0.0]), lg.tensor([1.0, 0.0])],
    ids=["list", "tuple", "ints", "array", "tensor"],
)
def test_collapsed_weights_in_any_form_agree_and_results_leave_the_seed_untouched(weights):
    f = _mlp(_params(2, lg.float64), lg.tanh)
    x = _points(7, 2, lg.float64)
    first = [t.detach().numpy().copy() for t in taylor.collapsed(f, x, [1.0, 0.0])]
    u, g, op_u = taylor.collapsed(f, x, weights)
    for ours, ref in zip((u, g, op_u), first, strict=True):
        assert np.array_equal(ours.detach().numpy(), ref)
    with lg.no_grad():  # results are arrays of their own, not views of a cached seed
        g.add_(1.0)
        op_u.mul_(0.0)
    again = taylor.collapsed(f, x, weights)
    for ours, ref in zip(again, first, strict=True):
        assert np.array_equal(ours.detach().numpy(), ref)


def test_addmm_with_alpha_and_beta_matches_nested_reverse():
    params = _params(2, lg.float64, depth=1)
    (w1, b1), (w2, _b2) = params

    def f(x):
        h = lg.tanh(lg.addmm(b1, x, w1, beta=2.0, alpha=0.5))  # alpha != 1: scaled channels
        return lg.addmm(b1[:1], h, w2, beta=0.5) - 3.0  # alpha 1 and a constant term

    x = _points(6, 2, lg.float64)
    _u_ref, g_ref, diag_ref = _nested(f, x)
    _u, g, lap = taylor.laplacian(f, x)
    assert_close(g, g_ref)
    assert_close(lap, diag_ref.sum(-1))
    assert "JetActValueBackward0" in _node_names(lap)


def test_a_single_linear_layer_gives_writable_results_and_weight_gradients():
    params = _params(2, lg.float64, depth=0, out=2)
    f = _mlp(params, lg.tanh)
    x = _points(6, 2, lg.float64)
    _u, g, lap = taylor.collapsed(f, x, [1.0, 0.0])
    w = params[0][0]
    g_ref = w.t().expand(6, 2, 2)  # u = x @ w + b: du_c/dx_i = w[i, c] at every point
    assert_close(g, g_ref)
    assert_close(lap, lg.zeros(6, 2, dtype=lg.float64))
    (ours,) = lg.autograd.grad((g * g).sum(), w)
    (ref,) = lg.autograd.grad((g_ref * g_ref).sum(), w)
    assert_close(ours, ref)
    with lg.no_grad():
        g.add_(1.0)  # the seed's rows were broadcast; the results are arrays of their own
    assert_close(g, g_ref.detach() + 1.0)


def test_diagonal_of_a_single_linear_layer_is_writable_and_exact():
    params = _params(3, lg.float64, depth=0, out=1)
    x = _points(5, 3, lg.float64)
    _u, g, diag = taylor.diagonal(_mlp(params, lg.tanh), x)
    assert_close(g, params[0][0].t().expand(5, 1, 3))
    assert_close(diag, lg.zeros(5, 1, 3, dtype=lg.float64))
    with lg.no_grad():
        g.mul_(2.0)
        diag.add_(1.0)
    assert_close(g, 2.0 * params[0][0].detach().t().expand(5, 1, 3))
