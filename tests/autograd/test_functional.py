"""autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Behaviour tests run with leafgrad and with PyTorch (the ``torch`` fixture): tuple nesting,
create_graph and strict facts, error types. Differential tests (``same_as_pytorch``) build
the same computation with both libraries and compare every result leaf by leaf: structure,
shape, dtype, requires_grad, is_leaf and values.
"""

import numpy as np
import pytest

import leafgrad
from tests._tolerance import assert_close, tolerance

pytorch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
X3 = RNG.standard_normal(3)
Y3 = RNG.standard_normal(3)
X22 = RNG.standard_normal((2, 2))
X23 = RNG.standard_normal((2, 3))
W1 = RNG.standard_normal((3, 4)) * 0.5
B1 = RNG.standard_normal(4) * 0.1
W2 = RNG.standard_normal((4, 2)) * 0.5


def T(lib, arr, requires_grad=False):
    return lib.tensor(np.asarray(arr).tolist(), dtype=lib.float64, requires_grad=requires_grad)


def describe(x):
    if hasattr(x, "requires_grad") and hasattr(x, "grad_fn"):
        return {
            "shape": tuple(x.shape),
            "dtype": str(x.dtype),
            "requires_grad": x.requires_grad,
            "is_leaf": x.is_leaf,
            "values": np.asarray(x.tolist(), dtype=np.float64),
        }
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [describe(v) for v in x])
    return x


def assert_same(ours, theirs, path="result"):
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{path}: {ours!r} is not a tensor"
        for key in ("shape", "dtype", "requires_grad", "is_leaf"):
            assert ours[key] == theirs[key], f"{path}.{key}: {ours[key]} != {theirs[key]}"
        rtol, atol = tolerance(theirs["dtype"].rsplit(".", 1)[-1], "direct")
        np.testing.assert_allclose(
            ours["values"], theirs["values"], rtol=rtol, atol=atol, err_msg=path
        )
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and ours[0] == theirs[0], f"{path}: {ours} vs {theirs}"
        assert len(ours[1]) == len(theirs[1]), f"{path}: length {len(ours[1])}"
        for i, (a, b) in enumerate(zip(ours[1], theirs[1])):
            assert_same(a, b, f"{path}[{i}]")
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


def same_as_pytorch(fn):
    """Run ``fn(lib, F)`` (F: lib.autograd.functional) with both libraries; results agree."""
    ours = fn(leafgrad, leafgrad.autograd.functional)
    theirs = fn(pytorch, pytorch.autograd.functional)
    assert_same(describe(ours), describe(theirs))
    return ours


# ----- functions (written against either library) -----


def chain(x):
    return (x.sin() * x.exp() + x**2).tanh()


def scalar_chain(x):
    return (x.sin() * x.exp() + x**2).tanh().sum()


def two_in_two_out(x, y):
    return x * y + x.exp(), (x**2 * y).sum()


def two_in_scalar(x, y):
    return (x * x * y + y.exp() * x.sin()).sum()


def mlp_scalar(lib):
    w1, b1, w2 = T(lib, W1), T(lib, B1), T(lib, W2)
    return lambda x: (lib.tanh(x @ w1 + b1) @ w2).sum()


def mlp_vector(lib):
    w1, b1, w2 = T(lib, W1), T(lib, B1), T(lib, W2)
    return lambda x: lib.tanh(x @ w1 + b1) @ w2


# ----- structure: a Tensor gives Tensors, a tuple gives tuples -----


def test_module_is_registered(torch):
    assert "functional" in dir(torch.autograd)
    F = torch.autograd.functional
    for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"):
        assert callable(getattr(F, name))


def test_jacobian_nesting_follows_the_tuple_structure(torch):
    F = torch.autograd.functional
    x, y = torch.ones(3, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    single = F.jacobian(lambda a: a * 2, x)
    assert isinstance(single, torch.Tensor) and tuple(single.shape) == (3, 3)
    by_inputs = F.jacobian(lambda a, b: a.sum() * b, (x, y))
    assert isinstance(by_inputs, tuple) and [tuple(j.shape) for j in by_inputs] == [(2, 3), (2, 2)]
    by_outputs = F.jacobian(lambda a: (a * 2, a.sum()), x)
    assert isinstance(by_outputs, tuple) and [tuple(j.shape) for j in by_outputs] == [(3, 3), (3,)]
    both = F.jacobian(lambda a, b: (a * 2, b.sum()), (x, y))
    assert [[tuple(j.shape) for j in row] for row in both] == [[(3, 3), (3, 2)], [(3,), (2,)]]
    one_tuple = F.jacobian(lambda a: (a * 2,), (x,))
    assert isinstance(one_tuple, tuple) and isinstance(one_tuple[0], tuple)


def test_hessian_nesting_follows_the_tuple_structure(torch):
    F = torch.autograd.functional
    x, y = torch.ones(3, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    assert tuple(F.hessian(lambda a: (a**3).sum(), x).shape) == (3, 3)
    H = F.hessian(lambda a, b: (a**2).sum() * (b**2).sum(), (x, y))
    assert [[tuple(h.shape) for h in row] for row in H] == [[(3, 3), (3, 2)], [(2, 3), (2, 2)]]


def test_products_return_output_and_result_with_the_structures_of_output_and_inputs(torch):
    F = torch.autograd.functional
    x, y = torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out, res = F.vjp(lambda a: a * 2, x, torch.ones(3, dtype=torch.float64))
    assert isinstance(out, torch.Tensor) and isinstance(res, torch.Tensor)
    out, res = F.vjp(
        lambda a, b: (a * b, a.sum()), (x, y), (x, torch.tensor(1.0, dtype=torch.float64))
    )
    assert isinstance(out, tuple) and isinstance(res, tuple) and len(res) == 2
    out, res = F.jvp(lambda a, b: a * b, (x, y), (x, y))
    assert isinstance(out, torch.Tensor) and isinstance(res, torch.Tensor)
    for product in (F.hvp, F.vhp):
        out, res = product(lambda a: (a**3).sum(), x, x)
        assert tuple(out.shape) == () and isinstance(res, torch.Tensor)
        out, res = product(lambda a, b: (a * b).sum(), (x, y), (x, y))
        assert isinstance(res, tuple) and len(res) == 2


# ----- values against PyTorch -----


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_values_and_facts(create_graph):
    same_as_pytorch(lambda lib, F: F.jacobian(chain, T(lib, X22), create_graph=create_graph))
    same_as_pytorch(
        lambda lib, F: F.jacobian(
            two_in_two_out, (T(lib, X3), T(lib, Y3)), create_graph=create_graph
        )
    )
    same_as_pytorch(
        lambda lib, F: F.jacobian(mlp_vector(lib), T(lib, X23), create_graph=create_graph)
    )


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"vectorize": True}, id="vectorize"),
        pytest.param({"vectorize": True, "strategy": "forward-mode"}, id="forward-mode"),
    ],
)
def test_jacobian_vectorized_and_forward_mode_give_the_same_values(options):
    same_as_pytorch(lambda lib, F: F.jacobian(chain, T(lib, X22), **options))
    same_as_pytorch(lambda lib, F: F.jacobian(two_in_two_out, (T(lib, X3), T(lib, Y3)), **options))
    same_as_pytorch(lambda lib, F: F.jacobian(mlp_vector(lib), T(lib, X23), **options))


def test_jacobian_forward_mode_of_input_that_requires_grad():
    same_as_pytorch(
        lambda lib, F: F.jacobian(
            chain, T(lib, X3, requires_grad=True), vectorize=True, strategy="forward-mode"
        )
    )


def test_jacobian_of_independent_output_and_unused_input_is_zeros():
    same_as_pytorch(
        lambda lib, F: F.jacobian(
            lambda x, y: (x * 2, lib.ones(2, dtype=lib.float64)), (T(lib, X3), T(lib, Y3))
        )
    )


def test_jacobian_with_create_graph_can_be_differentiated_again():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        J = F.jacobian(chain, x, create_graph=True)
        (dx,) = lib.autograd.grad((J**2).sum(), x)
        return J, dx

    same_as_pytorch(run)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_values_and_facts(create_graph):
    same_as_pytorch(lambda lib, F: F.hessian(scalar_chain, T(lib, X3), create_graph=create_graph))
    same_as_pytorch(
        lambda lib, F: F.hessian(two_in_scalar, (T(lib, X3), T(lib, Y3)), create_graph=create_graph)
    )
    same_as_pytorch(
        lambda lib, F: F.hessian(mlp_scalar(lib), T(lib, X3), create_graph=create_graph)
    )


def test_hessian_with_vectorize_and_forward_mode_outer_jacobian():
    same_as_pytorch(lambda lib, F: F.hessian(scalar_chain, T(lib, X3), vectorize=True))
    same_as_pytorch(
        lambda lib, F: F.hessian(
            two_in_scalar,
            (T(lib, X3), T(lib, Y3)),
            vectorize=True,
            outer_jacobian_strategy="forward-mode",
        )
    )
    same_as_pytorch(
        lambda lib, F: F.hessian(
            scalar_chain, T(lib, X3), vectorize=True, outer_jacobian_strategy="forward-mode"
        )
    )


def test_hessian_of_one_element_non_scalar_output():
    same_as_pytorch(lambda lib, F: F.hessian(lambda x: (x**3).sum(0, keepdim=True), T(lib, X3)))


def test_hessian_of_linear_function_is_zeros():
    same_as_pytorch(lambda lib, F: F.hessian(lambda x: (x * 2).sum(), T(lib, X3)))


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_values_and_facts(create_graph):
    same_as_pytorch(
        lambda lib, F: F.vjp(chain, T(lib, X22), T(lib, X22 * 0.5), create_graph=create_graph)
    )
    same_as_pytorch(
        lambda lib, F: F.vjp(
            two_in_two_out,
            (T(lib, X3), T(lib, Y3)),
            (T(lib, Y3), T(lib, 2.0)),
            create_graph=create_graph,
        )
    )
    same_as_pytorch(lambda lib, F: F.vjp(scalar_chain, T(lib, X3), create_graph=create_graph))
    same_as_pytorch(
        lambda lib, F: F.vjp(lambda x: x * 2, T(lib, X3), T(lib, Y3), create_graph=create_graph)
    )


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp_values_and_facts(create_graph):
    same_as_pytorch(
        lambda lib, F: F.jvp(chain, T(lib, X22), T(lib, X22 * 0.5), create_graph=create_graph)
    )
    same_as_pytorch(
        lambda lib, F: F.jvp(
            two_in_two_out,
            (T(lib, X3), T(lib, Y3)),
            (T(lib, Y3), T(lib, X3)),
            create_graph=create_graph,
        )
    )
    same_as_pytorch(
        lambda lib, F: F.jvp(lambda x: x.exp() * 3, T(lib, 0.3), create_graph=create_graph)
    )
    same_as_pytorch(
        lambda lib, F: F.jvp(
            mlp_vector(lib), T(lib, X23), T(lib, np.ones((2, 3))), create_graph=create_graph
        )
    )


def test_jvp_of_output_independent_of_input_is_zeros():
    same_as_pytorch(
        lambda lib, F: F.jvp(lambda x: lib.ones(2, dtype=lib.float64), T(lib, X3), T(lib, Y3))
    )


@pytest.mark.parametrize("product", ["hvp", "vhp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hvp_and_vhp_values_and_facts(product, create_graph):
    same_as_pytorch(
        lambda lib, F: getattr(F, product)(
            scalar_chain, T(lib, X3), T(lib, Y3), create_graph=create_graph
        )
    )
    same_as_pytorch(
        lambda lib, F: getattr(F, product)(
            two_in_scalar,
            (T(lib, X3), T(lib, Y3)),
            (T(lib, Y3), T(lib, X3)),
            create_graph=create_graph,
        )
    )
    same_as_pytorch(
        lambda lib, F: getattr(F, product)(
            mlp_scalar(lib), T(lib, X3), T(lib, Y3), create_graph=create_graph
        )
    )
    same_as_pytorch(
        lambda lib, F: getattr(F, product)(
            lambda x: x.sin().sum(), T(lib, 0.4), create_graph=create_graph
        )
    )


def test_hvp_with_create_graph_is_differentiable_in_the_inputs():
    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        _, hv = F.hvp(scalar_chain, x, T(lib, Y3), create_graph=True)
        (dx,) = lib.autograd.grad(hv.sum(), x)
        return hv, dx

    same_as_pytorch(run)


def test_inputs_captured_by_the_function_are_not_the_differentiated_arguments():
    """The function sees fresh tensors: a tensor it captures is a constant (PyTorch #32576)."""

    def run(lib, F):
        x = T(lib, X3, requires_grad=True)
        return F.jacobian(lambda a: a * x, x), F.vjp(lambda a: (a * x).sum(), x)[1]

    same_as_pytorch(run)


def test_results_do_not_require_grad_without_create_graph(torch):
    F = torch.autograd.functional
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for result in (
        F.jacobian(lambda a: a.sin(), x),
        F.hessian(lambda a: a.sin().sum(), x),
        F.vjp(lambda a: a.sin(), x, torch.ones(2))[1],
        F.jvp(lambda a: a.sin(), x, torch.ones(2))[1],
        F.hvp(lambda a: a.sin().sum(), x, torch.ones(2))[1],
        F.vhp(lambda a: a.sin().sum(), x, torch.ones(2))[1],
    ):
        assert result.requires_grad is False and result.grad_fn is None


def test_jacobian_in_no_grad_mode_still_works(torch):
    F = torch.autograd.functional
    with torch.no_grad():
        J = F.jacobian(lambda a: a**2, torch.tensor([1.0, 3.0]))
        _, v = F.vjp(lambda a: a**2, torch.tensor([1.0, 3.0]), torch.ones(2))
    assert J.tolist() == [[2.0, 0.0], [0.0, 6.0]] and v.tolist() == [2.0, 6.0]
    assert not J.requires_grad and not v.requires_grad


# ----- strict -----


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda F, t: F.vjp(lambda a, b: a * 2, (t, t), t), id="vjp-unused-input"),
        pytest.param(lambda F, t: F.vjp(lambda a: a.detach(), t, t), id="vjp-output-no-grad"),
        pytest.param(
            lambda F, t: F.vjp(lambda a: a * 2, t, t, create_graph=True),
            id="vjp-linear-create_graph",
        ),
        pytest.param(lambda F, t: F.jvp(lambda a, b: a * 2, (t, t), (t, t)), id="jvp-unused-input"),
        pytest.param(lambda F, t: F.jvp(lambda a: a.detach() * 2, t, t), id="jvp-output-no-grad"),
        pytest.param(
            lambda F, t: F.jacobian(lambda a, b: a * 2, (t, t)), id="jacobian-unused-input"
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: a * 2, t, create_graph=True),
            id="jacobian-linear-create_graph",
        ),
        pytest.param(lambda F, t: F.hessian(lambda a: (a * 2).sum(), t), id="hessian-linear"),
        pytest.param(
            lambda F, t: F.hessian(lambda a, b: (a * a).sum(), (t, t)), id="hessian-unused"
        ),
        pytest.param(
            lambda F, t: F.vhp(lambda a, b: (a * a).sum(), (t, t), (t, t)), id="vhp-unused"
        ),
        pytest.param(
            lambda F, t: F.hvp(lambda a, b: (a * a).sum(), (t, t), (t, t)), id="hvp-unused"
        ),
        pytest.param(lambda F, t: F.vhp(lambda a: (a * 2).sum(), t, t), id="vhp-linear"),
        pytest.param(
            lambda F, t: F.hvp(lambda a: (a * a).sum(), t, t, create_graph=True),
            id="hvp-quadratic-create_graph",
        ),
    ],
)
def test_strict_raises_runtime_error_for_independent_results(torch, call):
    F = torch.autograd.functional
    t = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        call(_with_strict(F), t)
    call(F, t)  # without strict: zeros, no error


def _with_strict(F):
    class Strict:
        def __getattr__(self, name):
            fn = getattr(F, name)
            return lambda *args, **kwargs: fn(*args, strict=True, **kwargs)

    return Strict()


def test_non_strict_gives_zeros_for_independent_inputs():
    same_as_pytorch(lambda lib, F: F.vjp(lambda a, b: a * 2, (T(lib, X3), T(lib, Y3)), T(lib, X3)))
    same_as_pytorch(lambda lib, F: F.hessian(lambda a, b: (a * a).sum(), (T(lib, X3), T(lib, Y3))))
    same_as_pytorch(
        lambda lib, F: F.hvp(
            lambda a, b: (a * a).sum(), (T(lib, X3), T(lib, Y3)), (T(lib, X3), T(lib, Y3))
        )
    )


def test_strict_accepts_dependent_results(torch):
    F = torch.autograd.functional
    t = torch.tensor([1.0, 2.0])
    F.vjp(lambda a: a.sin(), t, t, strict=True)
    F.jvp(lambda a: a * 2, t, t, strict=True)
    F.jacobian(lambda a: a.sin(), t, strict=True, create_graph=True)
    F.hessian(lambda a: a.sin().sum(), t, strict=True)
    F.hvp(lambda a: a.sin().sum(), t, t, strict=True)


# ----- errors -----


@pytest.mark.parametrize(
    "call, error",
    [
        pytest.param(lambda F, t: F.vjp(lambda a: a, 3.0, t), TypeError, id="vjp-non-tensor-input"),
        pytest.param(
            lambda F, t: F.vjp(lambda a, b: a, [t, t], t), TypeError, id="vjp-list-inputs"
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: [a], t), TypeError, id="jacobian-list-output"
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: 2.0, t), TypeError, id="jacobian-float-output"
        ),
        pytest.param(
            lambda F, t: F.hessian(lambda a: a.sum(), (t, 1.0)), TypeError, id="hessian-non-tensor"
        ),
        pytest.param(
            lambda F, t: F.jvp(lambda a: a, t, (t, 1.0)), TypeError, id="jvp-non-tensor-v"
        ),
        pytest.param(
            lambda F, t: F.vjp(lambda a: a * 2, t), RuntimeError, id="vjp-v-none-non-scalar"
        ),
        pytest.param(
            lambda F, t: F.jvp(lambda a: a * 2, t), RuntimeError, id="jvp-v-none-non-scalar"
        ),
        pytest.param(
            lambda F, t: F.hvp(lambda a: a.sum(), t), RuntimeError, id="hvp-v-none-non-scalar"
        ),
        pytest.param(
            lambda F, t: F.vhp(lambda a: a.sum(), t), RuntimeError, id="vhp-v-none-non-scalar"
        ),
        pytest.param(lambda F, t: F.vjp(lambda a: a * 2, t, t[:1]), RuntimeError, id="vjp-v-shape"),
        pytest.param(lambda F, t: F.jvp(lambda a: a * 2, t, t[:1]), RuntimeError, id="jvp-v-shape"),
        pytest.param(
            lambda F, t: F.vjp(lambda a: (a, a), t, (t,)), RuntimeError, id="vjp-v-length"
        ),
        pytest.param(
            lambda F, t: F.jvp(lambda a, b: a, (t, t), (t, t, t)), RuntimeError, id="jvp-v-length"
        ),
        pytest.param(
            lambda F, t: F.vjp(lambda a: a, t, (t, t)), RuntimeError, id="vjp-v-tuple-for-tensor"
        ),
        pytest.param(lambda F, t: F.hvp(lambda a: a * 2, t, t), RuntimeError, id="hvp-non-scalar"),
        pytest.param(
            lambda F, t: F.vhp(lambda a: (a.sum(), a.sum()), t, t),
            RuntimeError,
            id="vhp-tuple-output",
        ),
        pytest.param(
            lambda F, t: F.hessian(lambda a: a * 2, t), RuntimeError, id="hessian-non-scalar"
        ),
        pytest.param(
            lambda F, t: F.hessian(lambda a: (a.sum(),), t), RuntimeError, id="hessian-tuple-output"
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: a, t, strategy="sideways"),
            AssertionError,
            id="jacobian-bad-strategy",
        ),
        pytest.param(
            lambda F, t: F.hessian(lambda a: a.sum(), t, outer_jacobian_strategy="x"),
            AssertionError,
            id="hessian-bad-strategy",
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: a, t, strategy="forward-mode"),
            NotImplementedError,
            id="forward-mode-needs-vectorize",
        ),
        pytest.param(
            lambda F, t: F.hessian(lambda a: a.sum(), t, outer_jacobian_strategy="forward-mode"),
            NotImplementedError,
            id="hessian-forward-mode-needs-vectorize",
        ),
        pytest.param(
            lambda F, t: F.jacobian(
                lambda a: a, t, vectorize=True, strategy="forward-mode", create_graph=True
            ),
            NotImplementedError,
            id="forward-mode-create_graph",
        ),
        pytest.param(
            lambda F, t: F.jacobian(
                lambda a: a, t, vectorize=True, strategy="forward-mode", strict=True
            ),
            RuntimeError,
            id="forward-mode-strict",
        ),
        pytest.param(
            lambda F, t: F.jacobian(lambda a: a * 2, t, vectorize=True, strict=True),
            RuntimeError,
            id="vectorize-strict",
        ),
    ],
)
def test_bad_arguments_raise_pytorchs_error_types(torch, call, error):
    with pytest.raises(error):
        call(torch.autograd.functional, torch.tensor([1.0, 2.0]))


def test_leafgrad_importable_as_torch():
    import leafgrad as torch
    from leafgrad.autograd.functional import hessian, jacobian  # noqa: F401

    x = torch.tensor([1.0, 2.0])
    assert torch.autograd.functional.jacobian(lambda a: a * 3, x).tolist() == [
        [3.0, 0.0],
        [0.0, 3.0],
    ]


def test_forward_over_reverse_hessian_of_mlp_equals_reverse_over_reverse():
    """PyTorch's vmap fails on this one (a batched matmul tangent); leafgrad's loop does not."""
    F = leafgrad.autograd.functional
    f, x = mlp_scalar(leafgrad), T(leafgrad, X3)
    forward = F.hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode")
    reverse = F.hessian(f, x)
    expected = pytorch.autograd.functional.hessian(mlp_scalar(pytorch), T(pytorch, X3))
    assert_close(forward, reverse, "direct")
    assert_close(reverse, expected, "direct")
