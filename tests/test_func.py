"""leafgrad.func (torch.func-style transforms): values, output structure, requires_grad facts
and error types match torch.func, including nested transforms (second derivatives,
Hessians, forward over reverse).

Most tests build the same computation with leafgrad and with PyTorch (``lib`` is the module
bound to ``torch``) and compare what comes out, leaf by leaf.
"""

from collections import namedtuple

import numpy as np
import pytest

import leafgrad
from tests._tolerance import tolerance

pytorch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal(3)
Y3 = RNG.standard_normal(3)
X23 = RNG.standard_normal((2, 3))
W1 = RNG.standard_normal((3, 4)) * 0.5
B1 = RNG.standard_normal(4) * 0.1
W2 = RNG.standard_normal((4, 2)) * 0.5

Pair = namedtuple("Pair", "a b")


def T(lib, arr, requires_grad=False):
    return lib.tensor(np.asarray(arr).tolist(), dtype=lib.float64, requires_grad=requires_grad)


def describe(x):
    """Plain data for one result: structure, and per tensor its facts and values."""
    if hasattr(x, "requires_grad") and hasattr(x, "grad_fn"):
        return {
            "shape": tuple(x.shape),
            "dtype": str(x.dtype),
            "requires_grad": x.requires_grad,
            "is_leaf": x.is_leaf,
            "values": np.asarray(x.tolist(), dtype=np.float64),
        }
    if isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return (type(x).__name__, [describe(v) for v in x])
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [describe(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {k: describe(v) for k, v in x.items()})
    return x


def assert_same(ours, theirs, path="result"):
    if isinstance(theirs, dict) and "values" in theirs:
        assert isinstance(ours, dict) and "values" in ours, f"{path}: {ours!r} is not a tensor"
        for key in ("shape", "dtype", "requires_grad", "is_leaf"):
            assert ours[key] == theirs[key], f"{path}.{key}: {ours[key]} != {theirs[key]}"
        rtol, atol = tolerance(theirs["dtype"].rsplit(".", 1)[-1], "direct")
        np.testing.assert_allclose(
            ours["values"], theirs["values"], rtol=rtol, atol=atol, err_msg=path
        )
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and ours[0] == theirs[0], f"{path}: {ours} vs {theirs}"
        items_o, items_t = ours[1], theirs[1]
        if isinstance(items_t, dict):
            assert list(items_o) == list(items_t), f"{path}: keys {list(items_o)}"
            for k in items_t:
                assert_same(items_o[k], items_t[k], f"{path}[{k!r}]")
        else:
            assert len(items_o) == len(items_t), f"{path}: length {len(items_o)}"
            for i, (a, b) in enumerate(zip(items_o, items_t)):
                assert_same(a, b, f"{path}[{i}]")
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


def same_as_pytorch(fn):
    """Run ``fn(lib, func)`` with leafgrad and PyTorch; the results must agree."""
    ours = fn(leafgrad, leafgrad.func)
    theirs = fn(pytorch, pytorch.func)
    assert_same(describe(ours), describe(theirs))
    return ours


def raises_like_pytorch(fn):
    """``fn(lib, func)`` raises the same exception type with leafgrad as with PyTorch."""
    with pytest.raises(Exception) as theirs:
        fn(pytorch, pytorch.func)
    with pytest.raises(theirs.type):
        fn(leafgrad, leafgrad.func)


# ----- functions the tests differentiate (written against either library) -----


def chain(x):
    return (x.sin() * x.exp() + x**2).tanh()


def scalar_chain(x):
    return (x.sin() * x.exp() + x**2).tanh().sum()


def mlp(lib, x, w1, b1, w2):
    return lib.tanh(x @ w1 + b1) @ w2


def two_in_two_out(x, y):
    return x * y + x.exp(), (x**2 * y).sum()


# ----- grad / grad_and_value -----


def test_grad_of_scalar_chain_matches_and_is_detached():
    g = same_as_pytorch(lambda lib, F: F.grad(scalar_chain)(T(lib, X3)))
    assert g.requires_grad is False and g.grad_fn is None


def test_grad_argnums_tuple_gives_a_tuple_of_gradients():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda x, y: (x * y.sin()).sum(), argnums=(0, 1))(
            T(lib, X3), T(lib, Y3)
        )
    )


def test_grad_negative_argnum_and_passthrough_of_other_arguments():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda x, y, scale: (x * y * scale).sum(), argnums=-2)(
            T(lib, X3), T(lib, Y3), 3.0
        )
    )


def test_grad_passes_keyword_arguments_through():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda x, scale: (x * scale).sum())(T(lib, X3), scale=2.0)
    )


def test_grad_of_pytree_arguments_keeps_their_structure():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda d: (d["a"] * d["b"].cos()).sum())(
            {"a": T(lib, X3), "b": T(lib, Y3)}
        )
    )
    same_as_pytorch(lambda lib, F: F.grad(lambda p: (p[0] * p[1]).sum())([T(lib, X3), T(lib, Y3)]))
    same_as_pytorch(
        lambda lib, F: F.grad(lambda p: (p.a * p.b).sum())(Pair(T(lib, X3), T(lib, Y3)))
    )


def test_grad_with_aux_returns_the_aux_detached():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda x: ((x * x).sum(), {"double": x * 2}), has_aux=True)(
            T(lib, X3)
        )
    )


def test_grad_and_value_returns_gradient_and_value():
    same_as_pytorch(lambda lib, F: F.grad_and_value(scalar_chain)(T(lib, X3)))
    same_as_pytorch(
        lambda lib, F: F.grad_and_value(lambda x: (x.sum() ** 2, x.cos()), has_aux=True)(T(lib, X3))
    )


def test_grad_of_unused_argument_and_constant_output_are_zeros():
    same_as_pytorch(lambda lib, F: F.grad(lambda x, y: x.sum(), argnums=1)(T(lib, X3), T(lib, Y3)))
    same_as_pytorch(lambda lib, F: F.grad(lambda x: lib.tensor(1.0, dtype=lib.float64))(T(lib, X3)))


def test_grad_of_mlp_with_respect_to_weights():
    def run(lib, F):
        def loss(w1, b1, w2, x):
            return (mlp(lib, x, w1, b1, w2) ** 2).mean()

        return F.grad(loss, argnums=(0, 1, 2))(T(lib, W1), T(lib, B1), T(lib, W2), T(lib, X23))

    same_as_pytorch(run)


def test_grad_result_stays_in_the_graph_of_an_input_that_requires_grad():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        g = F.grad(scalar_chain)(x)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg

    g, _ = same_as_pytorch(run)
    assert g.grad_fn is not None


def test_grad_keeps_the_graph_toward_a_captured_parameter_only():
    def run(lib, F):
        w = T(lib, Y3, requires_grad=True)
        x = T(lib, X3)
        g_w = F.grad(lambda x: (x * x * w).sum())(x)  # 2 x w: depends on w
        g_free = F.grad(lambda x: (x * x).sum() + w.sum())(x)  # 2 x: does not
        value_and_aux = F.grad_and_value(lambda x: ((x * w).sum(), x * 2), has_aux=True)(x)[1]
        (dw,) = lib.autograd.grad(g_w.sum(), w)
        return g_w, g_free, value_and_aux, dw

    same_as_pytorch(run)


def test_grad_under_no_grad_still_differentiates_but_returns_detached():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        with lib.no_grad():
            return F.grad(scalar_chain)(x)

    same_as_pytorch(run)


def test_second_and_third_derivatives_by_nesting_grad():
    def run(lib, F):
        x = T(lib, 0.7)
        f = lambda x: x.sin() * x.exp()
        return F.grad(f)(x), F.grad(F.grad(f))(x), F.grad(F.grad(F.grad(f)))(x)

    results = same_as_pytorch(run)
    assert all(r.requires_grad is False for r in results)


def test_nested_grad_of_a_gradient_norm():
    same_as_pytorch(
        lambda lib, F: F.grad(lambda x: (F.grad(scalar_chain)(x) ** 2).sum())(T(lib, X3))
    )


# ----- vjp -----


def test_vjp_returns_output_and_a_reusable_vjp_fn():
    def run(lib, F):
        out, vjp_fn = F.vjp(chain, T(lib, X3))
        ct = T(lib, Y3)
        return out, vjp_fn(ct), vjp_fn(ct * 2)

    _, first, _ = same_as_pytorch(run)
    assert isinstance(first, tuple) and len(first) == 1


def test_vjp_of_several_primals_and_outputs():
    def run(lib, F):
        out, vjp_fn = F.vjp(two_in_two_out, T(lib, X3), T(lib, Y3))
        return out, vjp_fn((T(lib, Y3), T(lib, 1.5)))

    same_as_pytorch(run)


def test_vjp_with_aux_and_pytree_output():
    def run(lib, F):
        out, vjp_fn, aux = F.vjp(lambda x: ({"s": x.sin()}, x.cos()), T(lib, X3), has_aux=True)
        return out, vjp_fn({"s": T(lib, Y3)}), aux

    same_as_pytorch(run)


def test_vjp_of_an_unused_primal_is_zeros():
    same_as_pytorch(lambda lib, F: F.vjp(lambda x, y: x * 2, T(lib, X3), T(lib, Y3))[1](T(lib, Y3)))


def test_vjp_with_cotangent_that_requires_grad_is_differentiable_in_it():
    def run(lib, F):
        ct = T(lib, Y3, requires_grad=True)
        _, vjp_fn = F.vjp(chain, T(lib, X3))
        (g,) = vjp_fn(ct)
        (dct,) = lib.autograd.grad(g.sum(), ct)
        return g, dct

    same_as_pytorch(run)


def test_vjp_fn_rejects_cotangents_of_wrong_structure_or_shape():
    def structure(lib, F):
        _, vjp_fn = F.vjp(lambda x: (x.sin(), x.cos()), T(lib, X3))
        vjp_fn(T(lib, X3))

    def list_for_tuple(lib, F):
        _, vjp_fn = F.vjp(lambda x: (x.sin(), x.cos()), T(lib, X3))
        vjp_fn([T(lib, X3), T(lib, X3)])

    def shape(lib, F):
        _, vjp_fn = F.vjp(lambda x: x.sin(), T(lib, X3))
        vjp_fn(T(lib, [1.0, 2.0]))

    for fn in (structure, list_for_tuple, shape):
        raises_like_pytorch(fn)


# ----- jvp (forward mode) -----


def test_jvp_of_elementwise_chain():
    same_as_pytorch(lambda lib, F: F.jvp(chain, (T(lib, X3),), (T(lib, Y3),)))


def test_jvp_of_several_primals_and_outputs():
    same_as_pytorch(
        lambda lib, F: F.jvp(two_in_two_out, (T(lib, X3), T(lib, Y3)), (T(lib, Y3), T(lib, X3)))
    )


def test_jvp_of_mlp_in_its_input():
    same_as_pytorch(
        lambda lib, F: F.jvp(
            lambda x: mlp(lib, x, T(lib, W1), T(lib, B1), T(lib, W2)),
            (T(lib, X23),),
            (T(lib, np.ones((2, 3))),),
        )
    )


def test_jvp_with_aux_pytree_primals_and_independent_output():
    same_as_pytorch(
        lambda lib, F: F.jvp(
            lambda d: (d["a"] * d["b"], d["a"].exp()),
            ({"a": T(lib, X3), "b": T(lib, Y3)},),
            ({"a": T(lib, Y3), "b": T(lib, X3)},),
            has_aux=True,
        )
    )
    same_as_pytorch(
        lambda lib, F: F.jvp(lambda x: lib.ones(2, dtype=lib.float64), (T(lib, X3),), (T(lib, Y3),))
    )


def test_jvp_results_require_grad_when_the_primal_does():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        out, tangent = F.jvp(chain, (x,), (T(lib, Y3),))
        (dx,) = lib.autograd.grad(tangent.sum(), x)
        return out, tangent, dx

    same_as_pytorch(run)


# ----- jacrev / jacfwd -----


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_elementwise_chain(jac):
    same_as_pytorch(lambda lib, F: getattr(F, jac)(chain)(T(lib, X23)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_mlp_in_input_and_weights(jac):
    def run(lib, F):
        return getattr(F, jac)(lambda x, w1, b1, w2: mlp(lib, x, w1, b1, w2), argnums=(0, 1, 3))(
            T(lib, X23), T(lib, W1), T(lib, B1), T(lib, W2)
        )

    same_as_pytorch(run)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_several_outputs_and_argnums_nests_output_then_argument(jac):
    same_as_pytorch(
        lambda lib, F: getattr(F, jac)(two_in_two_out, argnums=(0, 1))(T(lib, X3), T(lib, Y3))
    )
    same_as_pytorch(lambda lib, F: getattr(F, jac)(two_in_two_out)(T(lib, X3), T(lib, Y3)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_pytrees_scalars_and_aux(jac):
    same_as_pytorch(
        lambda lib, F: getattr(F, jac)(lambda d: {"p": d["a"] * d["b"], "s": d["a"].sum()})(
            {"a": T(lib, X3), "b": T(lib, Y3)}
        )
    )
    same_as_pytorch(lambda lib, F: getattr(F, jac)(lambda x: x * T(lib, X3))(T(lib, 0.5)))
    same_as_pytorch(
        lambda lib, F: getattr(F, jac)(lambda x: (x.sin(), x.cos()), has_aux=True)(T(lib, X3))
    )


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_output_independent_of_input_is_zeros(jac):
    same_as_pytorch(
        lambda lib, F: getattr(F, jac)(lambda x: lib.ones(2, dtype=lib.float64))(T(lib, X3))
    )


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_requires_grad_only_through_outside_tensors(jac):
    def run(lib, F):
        w = T(lib, W1, requires_grad=True)
        x = T(lib, X23)
        J = getattr(F, jac)(lambda x: lib.tanh(x @ w))(x)
        (dw,) = lib.autograd.grad((J**2).sum(), w)
        plain = getattr(F, jac)(chain)(x)
        return J, dw, plain

    same_as_pytorch(run)


# ----- hessian and other nestings -----


def test_hessian_of_scalar_chain():
    H = same_as_pytorch(lambda lib, F: F.hessian(scalar_chain)(T(lib, X3)))
    assert H.shape == (3, 3)


def test_hessian_with_argnums_tuple_is_a_tuple_of_tuples():
    same_as_pytorch(
        lambda lib, F: F.hessian(lambda x, y: (x * x * y + y.exp() * x).sum(), argnums=(0, 1))(
            T(lib, X3), T(lib, Y3)
        )
    )


def test_hessian_of_mlp_output_in_its_input_with_parameters_that_require_grad():
    """The PINN pattern: second derivatives in x, then gradients to the parameters."""

    def run(lib, F):
        w1, b1, w2 = (T(lib, a, requires_grad=True) for a in (W1, B1, W2))

        def u(x):  # one point x: (3,) -> scalar
            return mlp(lib, x, w1, b1, w2).sum()

        x = T(lib, X3)
        H = F.hessian(u)(x)
        laplacian = (H * lib.eye(3, dtype=lib.float64)).sum()
        grads = lib.autograd.grad(laplacian, (w1, b1, w2))
        return H, grads

    same_as_pytorch(run)


@pytest.mark.parametrize(
    "outer, inner",
    [
        ("jacrev", "jacrev"),
        ("jacfwd", "jacrev"),
        ("jacrev", "jacfwd"),
    ],
)
def test_nested_jacobians_give_the_hessian(outer, inner):
    same_as_pytorch(lambda lib, F: getattr(F, outer)(getattr(F, inner)(scalar_chain))(T(lib, X3)))


def test_jacobian_of_a_vector_function_twice():
    same_as_pytorch(lambda lib, F: F.jacfwd(F.jacrev(chain))(T(lib, X3)))


def test_forward_over_forward():
    same_as_pytorch(lambda lib, F: F.jacfwd(F.jacfwd(scalar_chain))(T(lib, X3)))


def test_grad_of_jvp_and_jvp_of_grad():
    def run(lib, F):
        x, v = T(lib, X3), T(lib, Y3)
        hvp_fwd = F.jvp(F.grad(scalar_chain), (x,), (v,))[1]  # forward over reverse
        grad_of_jvp = F.grad(lambda x: F.jvp(scalar_chain, (x,), (v,))[1])(x)
        return hvp_fwd, grad_of_jvp

    same_as_pytorch(run)


def test_hessian_with_an_input_that_requires_grad():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        H = F.hessian(scalar_chain)(x)
        (dx,) = lib.autograd.grad(H.sum(), x)
        return H, dx

    same_as_pytorch(run)


# ----- errors -----


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda lib, F: F.grad(chain)(T(lib, X3)), id="grad-of-vector-output"),
        pytest.param(
            lambda lib, F: F.grad(lambda x: x.sum(0, keepdim=True))(T(lib, X3)),
            id="grad-of-one-element-1d-output",
        ),
        pytest.param(lambda lib, F: F.grad(lambda x: 3.0)(T(lib, X3)), id="grad-non-tensor-output"),
        pytest.param(
            lambda lib, F: F.grad(lambda x: (x.sum(), x))(T(lib, X3)),
            id="grad-tuple-without-has_aux",
        ),
        pytest.param(
            lambda lib, F: F.grad(lambda x: x.sum(), has_aux=True)(T(lib, X3)),
            id="has_aux-without-tuple",
        ),
        pytest.param(
            lambda lib, F: F.grad(lambda x: (x.sum(), 1), has_aux=True)(T(lib, X3)),
            id="aux-not-a-tensor",
        ),
        pytest.param(lambda lib, F: F.grad(scalar_chain, argnums=1)(T(lib, X3)), id="argnum-range"),
        pytest.param(
            lambda lib, F: F.grad(scalar_chain, argnums=())(T(lib, X3)), id="argnums-empty"
        ),
        pytest.param(
            lambda lib, F: F.grad(scalar_chain, argnums=[0])(T(lib, X3)), id="argnums-list"
        ),
        pytest.param(
            lambda lib, F: F.grad(scalar_chain, argnums=(0, 0))(T(lib, X3)), id="argnums-duplicate"
        ),
        pytest.param(lambda lib, F: F.grad(lambda x: x * 2)(3.0), id="non-tensor-argument"),
        pytest.param(
            lambda lib, F: F.grad(lambda p: p[0].sum())((T(lib, X3), None)),
            id="none-in-argument-tree",
        ),
        pytest.param(
            lambda lib, F: F.grad(lambda x: x.sum())(lib.tensor([1, 2])), id="int-argument"
        ),
        pytest.param(lambda lib, F: F.vjp(lambda x: x.sin(), 3.0), id="vjp-non-tensor"),
        pytest.param(
            lambda lib, F: F.vjp(lambda x: x.sin(), T(lib, X3), has_aux=True),
            id="vjp-has_aux-without-tuple",
        ),
        pytest.param(
            lambda lib, F: F.jvp(chain, T(lib, X3), (T(lib, X3),)), id="jvp-primals-not-tuple"
        ),
        pytest.param(
            lambda lib, F: F.jvp(chain, [T(lib, X3)], [T(lib, X3)]), id="jvp-primals-list"
        ),
        pytest.param(
            lambda lib, F: F.jvp(chain, (T(lib, X3),), T(lib, X3)), id="jvp-tangents-structure"
        ),
        pytest.param(
            lambda lib, F: F.jvp(chain, (T(lib, X3),), (T(lib, [1.0, 2.0]),)),
            id="jvp-tangent-shape",
        ),
        pytest.param(lambda lib, F: F.jvp(chain, (3.0,), (1.0,)), id="jvp-non-tensor"),
        pytest.param(lambda lib, F: F.jvp(lambda: T(lib, X3), (), ()), id="jvp-no-primals"),
        pytest.param(
            lambda lib, F: F.jvp(lambda x: 3.0, (T(lib, X3),), (T(lib, X3),)),
            id="jvp-non-tensor-output",
        ),
        pytest.param(
            lambda lib, F: F.jvp(lambda x: x * 2, (lib.tensor([1, 2]),), (lib.tensor([1, 2]),)),
            id="jvp-int-primal",
        ),
        pytest.param(
            lambda lib, F: F.jacrev(lambda x: 2.0)(T(lib, X3)), id="jacrev-non-tensor-output"
        ),
        pytest.param(
            lambda lib, F: F.jacrev(lambda x: x * 2)(lib.tensor([1, 2])), id="jacrev-int-input"
        ),
        pytest.param(
            lambda lib, F: F.jacfwd(lambda x: x * 2)(lib.tensor([1, 2])), id="jacfwd-int-input"
        ),
        pytest.param(
            lambda lib, F: F.jacrev(lambda x, s: x * s)(T(lib, X3), s=2.0), id="jacrev-no-kwargs"
        ),
    ],
)
def test_errors_have_pytorchs_types(call):
    raises_like_pytorch(call)


def test_func_is_importable_as_torch_func():
    import leafgrad as torch
    from leafgrad.func import grad, jacrev  # noqa: F401

    assert torch.func.hessian is leafgrad.func.hessian


def test_functional_call_swaps_parameters_for_one_call_only():
    torch = pytest.importorskip("torch")
    for m in (leafgrad, torch):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Tanh(), m.nn.Linear(3, 1)).double()
        given = {
            name: m.ones(p.shape, dtype=m.float64, requires_grad=True)
            for name, p in model.named_parameters()
        }
        x = m.tensor([[0.5, -1.0]], dtype=m.float64)
        out = m.func.functional_call(model, given, (x,))
        with pytest.warns(FutureWarning):
            again = m.nn.utils.stateless.functional_call(model, given, x)
        assert out.item() == again.item() == pytest.approx(1 + 3 * np.tanh(0.5 - 1.0 + 1))
        assert model[0].weight.shape == (3, 2) and model[0].weight.requires_grad
        assert not bool((model[0].weight == 1).all())  # restored
        (g,) = m.autograd.grad(m.func.functional_call(model, given, x).sum(), [given["0.bias"]])
        assert g.shape == (3,)
        with pytest.raises(ValueError):
            m.func.functional_call(model, [given, given], x)


def _tied_model(m):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(3, 3), m.nn.Linear(3, 3))
    model[1].weight = model[0].weight  # tied: one tensor under two names
    return model


def test_functional_call_ties_unknown_names_and_strict_keys_as_pytorch():
    torch = pytest.importorskip("torch")
    x_values = [[0.5, -1.0, 2.0]]
    for m in (leafgrad, torch):
        model = _tied_model(m)
        x = m.tensor(x_values)
        zeros = m.zeros(3, 3)
        tied = m.func.functional_call(model, {"0.weight": zeros}, x)
        # Both tied names got the value: the output is the second layer's bias alone.
        assert tied.tolist() == [model[1].bias.tolist()]
        untied = m.func.functional_call(model, {"0.weight": zeros}, x, tie_weights=False)
        assert not np.allclose(untied.detach().numpy(), tied.detach().numpy())
        m.func.functional_call(model, {"0.weight": zeros, "1.weight": zeros}, x)  # same value
        with pytest.raises(ValueError, match=r"got multiple values for keys \['0.weight', "):
            m.func.functional_call(model, {"0.weight": zeros, "1.weight": zeros.clone()}, x)
        assert model[0].weight is model[1].weight and not bool((model[0].weight == 0).all())
        # A name the module lacks is an attribute for the call only.
        plain = m.nn.Linear(3, 2)
        m.func.functional_call(plain, {"scale": m.ones(1)}, x)
        assert not hasattr(plain, "scale")
        plain.scale = 5.0
        with pytest.raises(TypeError, match=r"attribute `scale`: 5.0 is not an instance"):
            m.func.functional_call(plain, {"scale": m.ones(1)}, x)
        with pytest.raises(AttributeError, match="Linear has no attribute `sub`"):
            m.func.functional_call(plain, {"sub.x": m.ones(1)}, x)
        with pytest.raises(RuntimeError) as err:
            m.func.functional_call(plain, {"weigh": m.zeros(2, 3)}, x, strict=True)
        assert str(err.value) == (
            "Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): 'weigh'.\n\t"
            "Missing key(s): 'bias', 'weight'."
        )
        # A failing swap puts back the ones done before it.
        before = plain.weight
        with pytest.raises(TypeError):
            m.func.functional_call(plain, {"weight": m.zeros(2, 3), "bias": [0.0, 0.0]}, x)
        assert plain.weight is before


def test_functional_call_writes_back_what_the_call_replaced_and_stateless_warns():
    torch = pytest.importorskip("torch")

    for m in (leafgrad, torch):

        class Counter(m.nn.Module):
            def __init__(self, zeros):
                super().__init__()
                self.register_buffer("count", zeros)

            def forward(self, x):
                self.count = self.count + 1  # replaces the buffer
                return x

        counter = Counter(m.zeros(1))
        given = {"count": m.full((1,), 5.0)}
        m.func.functional_call(counter, given, m.ones(1))
        assert given["count"].item() == 6.0 and counter.count.item() == 0.0
        with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
            m.nn.utils.stateless.functional_call(counter, given, m.ones(1))
