"""Reductions against PyTorch: values, dtypes, grad_fn names, first and second order grads,
tie-breaking, zeros in prod, numerical stability and the errors raised on bad input."""

import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close, tolerance

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X34 = RNG.standard_normal((3, 4))
X232 = RNG.standard_normal((2, 3, 2))


def _pair(values, dtype="float64", requires_grad=True):
    values = np.asarray(values)
    a = lg.tensor(values, dtype=getattr(lg, dtype), requires_grad=requires_grad)
    b = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    return a, b


# Float32 gradients of softmax-like reductions subtract O(1) terms (1 - n * softmax, x - mean):
# a one-ulp difference in those terms is an absolute difference of about one ulp of 1.0 in
# the result, more than the "direct" float32 atol. A few of those are allowed.
F32_TERMS_ATOL = 8 * float(np.finfo(np.float32).eps)


def _close(ours, theirs, atol=None):
    """Same dtype and shape; values to the ``"direct"`` tolerance of their dtype (reductions
    sum in their own order), integers and bools exactly, NaNs in the same places. ``atol``
    replaces the direct atol (see ``F32_TERMS_ATOL``)."""
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    expected = theirs.detach().numpy(force=True)  # force: torch may hand back a ZeroTensor
    if atol is None:
        assert_close(ours, expected, "direct")
    else:
        rtol, _ = tolerance(expected.dtype, "direct")
        np.testing.assert_allclose(
            ours.detach().numpy(), expected, rtol=rtol, atol=atol, equal_nan=True
        )


def _grad_fn_name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


# Each case runs the same call on a leafgrad and a torch tensor (``import leafgrad as torch``).
CASES = {
    "sum-all": (X34, lambda x: x.sum()),
    "sum-none-keepdim": (X34, lambda x: x.sum(dim=None, keepdim=True)),
    "sum-tuple": (X232, lambda x: x.sum((0, -1))),
    "mean-dim-keepdim": (X34, lambda x: x.mean(1, keepdim=True)),
    "prod-all": (X34, lambda x: x.prod()),
    "prod-dim": (X34, lambda x: x.prod(-1)),
    "prod-dim-keepdim": (X232, lambda x: x.prod(1, keepdim=True)),
    "cumsum-0": (X34, lambda x: x.cumsum(0)),
    "cumsum-neg": (X232, lambda x: x.cumsum(-2)),
    "amax-all": (X34, lambda x: x.amax()),
    "amax-tuple-keepdim": (X232, lambda x: x.amax((0, 2), keepdim=True)),
    "amin-dim": (X34, lambda x: x.amin(-1)),
    "max-all": (X34, lambda x: x.max()),
    "max-dim": (X34, lambda x: x.max(1).values),
    "max-dim-keepdim": (X232, lambda x: x.max(-2, keepdim=True).values),
    "min-all": (X34, lambda x: x.min()),
    "min-dim": (X34, lambda x: x.min(dim=0).values),
    "var-all": (X34, lambda x: x.var()),
    "var-dim-correction0": (X34, lambda x: x.var(1, correction=0)),
    "var-tuple-keepdim": (X232, lambda x: x.var((0, 2), keepdim=True)),
    "var-legacy-positional": (X34, lambda x: x.var(0, False, True)),
    "std-all": (X34, lambda x: x.std()),
    "std-dim-unbiased-false": (X34, lambda x: x.std(dim=-1, unbiased=False)),
    "std-correction-2": (X232, lambda x: x.std((0, 1), correction=2)),
    "norm-fro": (X34, lambda x: x.norm()),
    "norm-fro-dim": (X232, lambda x: x.norm("fro", dim=(0, 2))),
    "norm-1": (X34, lambda x: x.norm(1, dim=1)),
    "norm-3-keepdim": (X34, lambda x: x.norm(3, dim=0, keepdim=True)),
    "norm-1.5": (X34, lambda x: x.norm(1.5)),
    "norm-0.5": (X34, lambda x: x.norm(0.5, dim=1)),
    "norm-inf": (X34, lambda x: x.norm(math.inf, dim=1)),
    "norm-neg-inf": (X34, lambda x: x.norm(-math.inf)),
    "logsumexp-dim": (X34, lambda x: x.logsumexp(1)),
    "logsumexp-tuple-keepdim": (X232, lambda x: x.logsumexp((0, -1), keepdim=True)),
    "softmax": (X34, lambda x: x.softmax(1)),
    "softmax-neg": (X232, lambda x: x.softmax(-1)),
    "log_softmax": (X34, lambda x: x.log_softmax(0)),
}
GRAD_FN = {
    "sum-all": "SumBackward0", "sum-none-keepdim": "SumBackward1", "prod-all": "ProdBackward0",
    "prod-dim": "ProdBackward1", "cumsum-0": "CumsumBackward0", "amax-all": "AmaxBackward0",
    "amin-dim": "AminBackward0", "max-all": "MaxBackward1", "max-dim": "MaxBackward0",
    "min-all": "MinBackward1", "min-dim": "MinBackward0", "var-all": "VarBackward0",
    "std-all": "StdBackward0", "norm-fro": "LinalgVectorNormBackward0",
    "norm-inf": "LinalgVectorNormBackward0", "logsumexp-dim": "LogsumexpBackward0",
    "softmax": "SoftmaxBackward0", "log_softmax": "LogSoftmaxBackward0",
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_values_first_and_second_order_grads_match_torch(case):
    data, fn = CASES[case]
    a, b = _pair(data)
    ya, yb = fn(a), fn(b)
    _close(ya, yb)
    v = RNG.standard_normal(tuple(yb.shape))
    (ga,) = lg.autograd.grad(ya, a, lg.tensor(v), create_graph=True)
    (gb,) = torch.autograd.grad(yb, b, torch.tensor(v), create_graph=True)
    _close(ga, gb)
    assert ga.requires_grad == gb.requires_grad
    if gb.requires_grad:
        w = RNG.standard_normal(data.shape)
        (hb,) = torch.autograd.grad(
            (gb * torch.tensor(w)).sum(), b, allow_unused=True, materialize_grads=True
        )
        (ha,) = lg.autograd.grad(
            (ga * lg.tensor(w)).sum(), a, allow_unused=True, materialize_grads=True
        )
        _close(ha, hb)


@pytest.mark.parametrize("case", list(GRAD_FN))
def test_grad_fn_name_matches_torch(case):
    data, fn = CASES[case]
    a, b = _pair(data)
    assert _grad_fn_name(fn(a)) == _grad_fn_name(fn(b)) == GRAD_FN[case]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "case", ["prod-dim", "var-all", "norm-3-keepdim", "logsumexp-dim", "softmax", "cumsum-0"]
)
def test_result_dtype_follows_floating_input(case, dtype):
    data, fn = CASES[case]
    a, b = _pair(data, dtype, requires_grad=False)
    _close(fn(a), fn(b), atol=F32_TERMS_ATOL if dtype == "float32" else None)


@pytest.mark.parametrize("case", list(CASES))
def test_float32_gradients_stay_float32_and_match_torch(case):
    data, fn = CASES[case]
    a, b = _pair(data, "float32")
    v = np.ones(tuple(fn(b).shape), dtype=np.float32)
    (ga,) = lg.autograd.grad(fn(a), a, lg.tensor(v))
    (gb,) = torch.autograd.grad(fn(b), b, torch.tensor(v))
    _close(ga, gb, atol=F32_TERMS_ATOL)


# ----- integer and bool inputs -----

INT_CASES = {
    "sum": lambda x: x.sum(),
    "sum-dim": lambda x: x.sum(0),
    "prod": lambda x: x.prod(),
    "prod-dim": lambda x: x.prod(1),
    "cumsum": lambda x: x.cumsum(1),
    "amax": lambda x: x.amax(0),
    "max": lambda x: x.max(),
    "max-dim-values": lambda x: x.max(1).values,
    "max-dim-indices": lambda x: x.max(1).indices,
    "argmax": lambda x: x.argmax(),
    "argmin-dim": lambda x: x.argmin(0),
    "any": lambda x: x.any(),
    "all-dim": lambda x: x.all(1),
    "logsumexp": lambda x: x.logsumexp(1),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("case", list(INT_CASES))
def test_integer_input_result_dtype_and_value_match_torch(case, dtype):
    data = np.array([[1, 3, 0], [2, 2, 5]])
    a, b = _pair(data, dtype, requires_grad=False)
    _close(INT_CASES[case](a), INT_CASES[case](b))


@pytest.mark.parametrize(
    "case", ["sum", "prod", "cumsum", "amax", "max", "any", "all-dim", "logsumexp"]
)
def test_bool_input_result_dtype_and_value_match_torch(case):
    a, b = _pair(np.array([[True, False, True], [True, True, True]]), "bool", requires_grad=False)
    _close(INT_CASES[case](a), INT_CASES[case](b))


def test_sum_prod_cumsum_dtype_argument_overrides_int64():
    a = lg.tensor([1, 2, 3])
    assert lg.sum(a, dtype=lg.float32).dtype == lg.float32
    assert lg.prod(a, dtype=lg.float64).dtype == lg.float64
    np.testing.assert_array_equal(lg.cumsum(a, 0, dtype=lg.float32).numpy(), [1.0, 3.0, 6.0])


def test_any_and_all_never_require_grad():
    x = lg.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    for out in (x.any(), x.all(), x.any(1), lg.all(x, 0, keepdim=True), x.any((0, 1))):
        assert out.dtype == lg.bool and not out.requires_grad and out.grad_fn is None
    assert x.any().item() is True and x.all().item() is False
    np.testing.assert_array_equal(x.all(1).numpy(), [False, True])


def test_any_all_on_empty_tensor_are_false_and_true():
    e = lg.zeros(0, 3)
    assert not e.any().item() and e.all().item()
    np.testing.assert_array_equal(e.all(0).numpy(), [True, True, True])


def test_argmax_is_int64_without_grad_and_keepdim_shapes_match_torch():
    a, b = _pair(X34)
    for fn in (
        lambda x: x.argmax(),
        lambda x: x.argmax(1),
        lambda x: x.argmin(0, keepdim=True),
        lambda x: x.argmax(keepdim=True),
    ):
        ra, rb = fn(a), fn(b)
        _close(ra, rb)
        assert not ra.requires_grad and ra.grad_fn is None


# ----- max / min call forms -----


def test_max_with_dim_returns_values_and_indices_namedtuple():
    a, b = _pair(X34)
    ra, rb = lg.max(a, 1), torch.max(b, 1)
    values, indices = ra
    assert values is ra.values and indices is ra.indices and ra[0] is values
    _close(ra.values, rb.values)
    _close(ra.indices, rb.indices)
    assert ra.values.requires_grad and ra.values.grad_fn.name() == "MaxBackward0"
    assert not ra.indices.requires_grad and ra.indices.grad_fn is None and ra.indices.is_leaf


def test_max_with_keepdim_keyword_keeps_reduced_dim():
    a, b = _pair(X232)
    ra, rb = a.min(dim=1, keepdim=True), b.min(dim=1, keepdim=True)
    _close(ra.values, rb.values)
    _close(ra.indices, rb.indices)


def test_max_with_other_tensor_is_elementwise_maximum():
    a, b = _pair(X34)
    oa, ob = _pair(X34[::-1].copy())
    for fa, fb in (
        (lg.max(a, oa), torch.max(b, ob)),
        (a.min(oa), b.min(ob)),
        (lg.max(a, other=oa), torch.max(b, other=ob)),
    ):
        _close(fa, fb)
    assert lg.max(a, oa).grad_fn.name() == "MaximumBackward0"


def test_max_min_of_0d_tensor_with_dim_returns_it_and_index_zero():
    a, b = _pair(2.5)
    ra, rb = a.max(0), b.max(0)
    _close(ra.values, rb.values)
    _close(ra.indices, rb.indices)
    ra.values.backward()
    assert a.grad.item() == 1.0


# ----- tie-breaking and NaN -----


def _grad(fn, data):
    a, b = _pair(data)
    (ga,) = lg.autograd.grad(fn(a).sum(), a)
    (gb,) = torch.autograd.grad(fn(b).sum(), b)
    _close(ga, gb)
    return ga.numpy()


def test_amax_and_full_max_split_gradient_evenly_among_ties():
    data = [1.0, 3.0, 3.0, 2.0, 3.0]
    third = 1 / 3
    np.testing.assert_allclose(_grad(lambda x: x.amax(), data), [0, third, third, 0, third])
    np.testing.assert_allclose(_grad(lambda x: x.max(), data), [0, third, third, 0, third])
    np.testing.assert_allclose(_grad(lambda x: x.amin(), [2.0, -1.0, -1.0]), [0, 0.5, 0.5])


def test_amax_with_dim_splits_ties_within_each_slice():
    data = [[1.0, 4.0, 4.0], [2.0, 2.0, 2.0]]
    third = 1 / 3
    np.testing.assert_allclose(
        _grad(lambda x: x.amax(1), data), [[0, 0.5, 0.5], [third, third, third]]
    )


def test_max_with_dim_sends_gradient_to_first_tied_index():
    data = [[1.0, 4.0, 4.0], [2.0, 2.0, 2.0]]
    np.testing.assert_allclose(_grad(lambda x: x.max(1).values, data), [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_allclose(_grad(lambda x: x.min(0).values, data), [[1, 0, 0], [0, 1, 1]])


def test_max_and_min_with_dim_give_the_signed_zero_at_the_returned_index_as_torch():
    data = [[-0.0, 0.0, -1.0], [0.0, -0.0, -2.0], [1.0, 0.5, 0.0]]
    a, b = _pair(data)
    for ours, theirs in ((a.max(1), b.max(1)), (a.min(0), b.min(0)), (a.max(-1), b.max(-1))):
        assert ours.indices.tolist() == theirs.indices.tolist()
        values = ours.values.detach().numpy()
        np.testing.assert_array_equal(np.signbit(values), np.signbit(theirs.values.detach()))


@pytest.mark.parametrize("dim", [1, -1, np.int64(1), (1,), [-1]])
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_and_var_over_one_dim_are_the_same_in_every_spelling(op, dim):
    x = lg.tensor(np.random.default_rng(5).standard_normal((4, 6)), requires_grad=True)
    out, reference = getattr(x, op)(dim), getattr(x, op)((1,))
    np.testing.assert_array_equal(out.detach().numpy(), reference.detach().numpy(), strict=True)
    assert out.grad_fn._saved_dim == reference.grad_fn._saved_dim == (1,)
    assert out.grad_fn._saved_correction == 1


@pytest.mark.parametrize("op", ["std", "var", "max"])
def test_one_dim_out_of_range_raises_the_same_index_error_for_any_int(op):
    x = lg.tensor(np.ones((2, 3)))
    messages = set()
    for dim in (2, np.int64(2)):
        with pytest.raises(IndexError) as raised:
            getattr(x, op)(dim)
        messages.add(str(raised.value))
    assert len(messages) == 1 and "[-2, 1]" in messages.pop()


def test_max_with_nan_propagates_and_picks_first_nan_index():
    data = [1.0, math.nan, 3.0, math.nan]
    a, b = _pair(data)
    _close(a.max(), b.max())
    _close(a.max(0).indices, b.max(0).indices)
    _close(a.argmax(), b.argmax())
    _close(a.argmin(), b.argmin())
    _close(a.amin(), b.amin())
    np.testing.assert_allclose(_grad(lambda x: x.max(), data), [0, 0.5, 0, 0.5])
    np.testing.assert_allclose(_grad(lambda x: x.max(0).values, data), [0, 1, 0, 0])


def test_inf_norm_splits_gradient_among_tied_magnitudes_with_sign():
    np.testing.assert_allclose(
        _grad(lambda x: x.norm(math.inf), [1.0, -3.0, 3.0, 2.0]), [0, -0.5, 0.5, 0]
    )


# ----- prod with zeros -----


def _hessian_rows(fn, x, size):
    """Hessian of ``fn(x).sum()`` via one double-backward per basis vector (no indexing)."""
    (g,) = lg.autograd.grad(fn(x).sum(), x, create_graph=True)
    rows = []
    for i in range(size):
        e = np.zeros(size)
        e[i] = 1.0
        (row,) = lg.autograd.grad(
            (g.reshape(-1) * lg.tensor(e)).sum(),
            x,
            retain_graph=True,
            allow_unused=True,
            materialize_grads=True,
        )
        rows.append(row.numpy().reshape(-1))
    return np.stack(rows)


@pytest.mark.parametrize(
    "data",
    [[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 3.0, 4.0], [0.0, 5.0, 0.0, 0.0], [0.0], [0.0, 0.0]],
    ids=["one-zero", "two-zeros", "three-zeros", "lone-zero", "only-zeros"],
)
def test_prod_gradient_and_hessian_with_zeros_match_torch(data):
    a, b = _pair(data)
    assert np.isfinite(_grad(lambda x: x.prod(), data)).all()
    expected = torch.autograd.functional.hessian(lambda x: x.prod(), b)
    np.testing.assert_allclose(_hessian_rows(lambda x: x.prod(), a, len(data)), expected.numpy())


@pytest.mark.parametrize(
    "data",
    [
        [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 2.0]],
        [[1.5, -2.0, 0.5], [0.0, 4.0, 0.0]],
    ],
    ids=["zeros-per-row", "three-zeros-in-a-row", "mixed"],
)
def test_prod_along_dim_hessian_with_zeros_matches_torch(data):
    a, b = _pair(data)
    _grad(lambda x: x.prod(1), data)
    expected = torch.autograd.functional.hessian(lambda x: x.prod(1).sum(), b).reshape(6, 6)
    np.testing.assert_allclose(_hessian_rows(lambda x: x.prod(1), a, 6), expected.numpy())


@pytest.mark.parametrize(
    "data",
    [
        [[0.0, 2.0, np.nan], [1.0, 2.0, 3.0]],
        [[0.0, 2.0, np.inf], [1.0, np.inf, 3.0]],
        [[1.0, 2.0, np.nan], [0.0, 0.0, 3.0]],
        [[np.inf, 0.0, 2.0], [1.0, 2.0, 3.0]],
        [[0.0, 2.0, 0.0], [1.0, 2.0, 3.0]],
    ],
    ids=["nan-beside-zero", "infs", "nan-and-two-zeros", "inf-then-zero", "two-zeros"],
)
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("create_graph", [False, True])
def test_prod_gradient_with_zeros_and_non_finite_values_is_torchs(data, dim, create_graph):
    """PyTorch takes the products of the others from two running products in every slice
    once the input holds a zero anywhere (so a NaN or inf spreads only along its side), and
    a full product's gradient is zeros with two zeros unless a graph is wanted."""
    grads = []
    for lib in (lg, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = x.prod() if dim is None else x.prod(dim)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_prod_third_derivative_with_three_zeros_is_exact():
    # d3/dx0 dx1 dx2 of x0*x1*x2*x3 at x=(0,0,0,5) is x3 = 5, as PyTorch's cumprod rule gives.
    x = lg.tensor([0.0, 0.0, 0.0, 5.0], requires_grad=True)
    e = [lg.tensor(np.eye(4)[i]) for i in range(4)]
    (g,) = lg.autograd.grad(x.prod(), x, create_graph=True)
    (h0,) = lg.autograd.grad((g * e[0]).sum(), x, create_graph=True)
    (t01,) = lg.autograd.grad((h0 * e[1]).sum(), x)
    np.testing.assert_allclose(t01.numpy(), [0.0, 0.0, 5.0, 0.0])


def test_prod_of_0d_and_empty_tensors():
    a, b = _pair(3.0)
    _close(a.prod(), b.prod())
    a.prod().backward()
    assert a.grad.item() == 1.0
    e = lg.zeros(0, 3)
    assert e.prod().item() == 1.0
    np.testing.assert_array_equal(e.prod(0).numpy(), [1.0, 1.0, 1.0])


# ----- var / std edge cases -----


def test_var_warns_and_returns_nan_or_inf_when_degrees_of_freedom_not_positive():
    with pytest.warns(UserWarning, match="degrees of freedom"):
        out = lg.tensor([1.0]).var()
    assert math.isnan(out.item())
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert lg.tensor([1.0, 2.0]).var(correction=3).item() == math.inf
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert math.isnan(lg.tensor(2.5).std().item())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lg.tensor(2.5).std(correction=0).item() == 0.0


def test_var_gradient_with_zero_degrees_of_freedom_matches_torch():
    a, b = _pair([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        (ga,) = lg.autograd.grad(a.var(correction=2), a)
        (gb,) = torch.autograd.grad(b.var(correction=2), b)
    _close(ga, gb)


def test_std_gradient_is_zero_for_constant_input():
    np.testing.assert_array_equal(_grad(lambda x: x.std(), [2.0, 2.0, 2.0]), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        _grad(lambda x: x.std(1), [[1.0, 1.0], [3.0, 3.0]]), np.zeros((2, 2))
    )


def test_var_accepts_legacy_unbiased_forms():
    a, b = _pair(X34)
    _close(lg.var(a, False), torch.var(b, False))
    _close(lg.std(a, (0, 1), True, True), torch.std(b, (0, 1), True, True))
    _close(a.var(dim=1, unbiased=False, keepdim=True), b.var(dim=1, unbiased=False, keepdim=True))
    _close(a.var(correction=0.5), b.var(correction=0.5))


# ----- norm edge cases -----


@pytest.mark.parametrize("p", [2, "fro", 1, 3, 1.5, 0.5, math.inf])
def test_norm_gradient_at_zero_vector_is_zero(p):
    np.testing.assert_array_equal(_grad(lambda x: x.norm(p), [0.0, 0.0, 0.0]), [0.0, 0.0, 0.0])


def test_norm_p0_counts_nonzeros_and_gives_no_gradient():
    a, b = _pair([0.0, 1.5, -2.0, 0.0])
    _close(a.norm(0), b.norm(0))
    assert a.norm(0).grad_fn.name() == "LinalgVectorNormBackward0"
    a.norm(0).backward()
    b.norm(0).backward()
    assert a.grad is None and b.grad is None
    with pytest.raises(RuntimeError):
        lg.autograd.grad(a.norm(0), a)
    (g,) = lg.autograd.grad(a.norm(0), a, allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0, 0.0])


def test_norm_dtype_argument_casts_before_reducing():
    a, b = _pair(X34, "float32", requires_grad=False)
    _close(lg.norm(a, dtype=lg.float64), torch.norm(b, dtype=torch.float64))


# ----- numerical stability -----


def test_softmax_and_log_softmax_are_stable_for_large_inputs():
    data = [[1000.0, 0.0, -1000.0], [-1e4, -1e4 + 1, -1e4 + 2]]
    a, b = _pair(data)
    _close(a.softmax(1), b.softmax(1))
    _close(a.log_softmax(1), b.log_softmax(1))
    _close(a.logsumexp(1), b.logsumexp(1))
    assert np.isfinite(a.log_softmax(1).detach().numpy()).all()


def test_logsumexp_of_infinities_matches_torch():
    data = [[-math.inf, -math.inf], [math.inf, 1.0], [-math.inf, 0.0]]
    a, b = _pair(data)
    _close(a.logsumexp(1), b.logsumexp(1))
    (ga,) = lg.autograd.grad(a.logsumexp(1).sum(), a)
    (gb,) = torch.autograd.grad(b.logsumexp(1).sum(), b)
    _close(ga, gb)


def test_softmax_of_infinities_is_nan_like_torch():
    a, b = _pair([[math.inf, 1.0], [-math.inf, -math.inf]])
    _close(a.softmax(1), b.softmax(1))
    _close(a.log_softmax(1), b.log_softmax(1))


def test_softmax_dtype_argument_casts_before_normalising():
    a, b = _pair(X34, "float32")
    ya, yb = a.softmax(1, dtype=lg.float64), b.softmax(1, dtype=torch.float64)
    _close(ya, yb)
    assert ya.grad_fn.name() == "SoftmaxBackward0"


def test_integer_logsumexp_gives_default_float():
    a, b = _pair([1, 2, 3], "int64", requires_grad=False)
    _close(a.logsumexp(0), b.logsumexp(0))


# ----- 0-d and empty edge cases -----


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.sum(0), lambda x: x.prod(-1), lambda x: x.amax(0),
        lambda x: x.var(0, correction=0), lambda x: x.logsumexp(0), lambda x: x.softmax(0),
        lambda x: x.log_softmax(-1), lambda x: x.cumsum(0), lambda x: x.norm(dim=0),
        lambda x: x.argmax(0), lambda x: x.any(0),
    ],
    ids=["sum", "prod", "amax", "var", "logsumexp", "softmax", "log_softmax", "cumsum", "norm",
         "argmax", "any"],
)  # fmt: skip
def test_0d_input_with_dim_0_or_minus_1_matches_torch(fn):
    a, b = _pair(2.5)
    _close(fn(a), fn(b))


def test_reductions_over_empty_dimension_match_torch():
    a, b = _pair(np.zeros((0, 3)), requires_grad=False)
    for fn in (
        lambda x: x.sum(0), lambda x: x.prod(0), lambda x: x.logsumexp(0), lambda x: x.amax(1),
        lambda x: x.norm(dim=0), lambda x: x.softmax(0), lambda x: x.cumsum(1),
        lambda x: x.max(1).values,
    ):  # fmt: skip
        _close(fn(a), fn(b))


# ----- errors -----


@pytest.mark.parametrize(
    "op, call",
    [
        ("sum", lambda x: x.sum(2)), ("prod", lambda x: x.prod(-3)),
        ("amax", lambda x: x.amax((0, 5))), ("max", lambda x: x.max(2)),
        ("min", lambda x: x.min(-3)), ("argmax", lambda x: x.argmax(2)),
        ("std", lambda x: x.std(2)), ("var", lambda x: x.var((0, 2))),
        ("norm", lambda x: x.norm(dim=2)),
        ("logsumexp", lambda x: x.logsumexp(2)), ("softmax", lambda x: x.softmax(2)),
        ("log_softmax", lambda x: x.log_softmax(-3)), ("cumsum", lambda x: x.cumsum(2)),
        ("any", lambda x: x.any(2)), ("all", lambda x: x.all(-3)),
    ],
)  # fmt: skip
def test_out_of_range_dim_raises_index_error_naming_op(op, call):
    x = lg.ones(2, 3)
    with pytest.raises(IndexError, match=op):
        call(x)
    with pytest.raises(IndexError):
        call(torch.ones(2, 3))


def test_repeated_dim_raises_runtime_error():
    for call in (lambda x: x.amax((0, -2)), lambda x: x.var((1, 1)), lambda x: x.logsumexp((0, 0))):
        with pytest.raises(RuntimeError, match="more than once"):
            call(lg.ones(2, 3))
        with pytest.raises(RuntimeError):
            call(torch.ones(2, 3))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m, x: x.long().std(), RuntimeError),
        (lambda m, x: x.int().var(0), RuntimeError),
        (lambda m, x: x.long().norm(), RuntimeError),
        (lambda m, x: x.long().softmax(0), NotImplementedError),
        (lambda m, x: x.bool().log_softmax(0), NotImplementedError),
        (lambda m, x: x.long().mean(), RuntimeError),
        (lambda m, x: x.bool().argmax(), RuntimeError),
        (lambda m, x: x.prod((0, 1)), TypeError),
        (lambda m, x: x.cumsum((0, 1)), TypeError),
        (lambda m, x: x.max((0, 1)), TypeError),
        (lambda m, x: x.std(0, unbiased=False, correction=0), TypeError),
        (lambda m, x: x.norm("abc"), RuntimeError),
        (lambda m, x: m.ones(2, 2, 2).norm("fro", dim=(0, 1, 2)), RuntimeError),
        (lambda m, x: m.zeros(0, 3).max(), RuntimeError),
        (lambda m, x: m.zeros(0, 3).amin(), RuntimeError),
        (lambda m, x: m.zeros(0, 3).amax(0), IndexError),
        (lambda m, x: m.zeros(0, 3).max(0), IndexError),
        (lambda m, x: m.zeros(0, 3).argmax(), IndexError),
        (lambda m, x: m.zeros(0, 3).argmin(0), IndexError),
        (lambda m, x: m.zeros(0).norm(math.inf), RuntimeError),
    ],
)  # fmt: skip
def test_bad_input_raises_same_exception_type_as_torch(call, error):
    with pytest.raises(error):
        call(torch, torch.ones(2, 3))
    with pytest.raises(error) as info:
        call(lg, lg.ones(2, 3))
    assert str(info.value)  # our own message, never empty


_KEEPDIM_CALLS = {
    "sum": lambda m, x, k: x.sum(0, keepdim=k),
    "mean": lambda m, x, k: m.mean(x, 0, keepdim=k),
    "prod": lambda m, x, k: x.prod(0, keepdim=k),
    "any": lambda m, x, k: x.any(0, keepdim=k),
    "all": lambda m, x, k: m.all(x, 0, keepdim=k),
    "amax": lambda m, x, k: x.amax(0, keepdim=k),
    "amin": lambda m, x, k: x.amin(0, keepdim=k),
    "aminmax": lambda m, x, k: m.aminmax(x, dim=0, keepdim=k),
    "argmax": lambda m, x, k: x.argmax(0, keepdim=k),
    "argmin": lambda m, x, k: x.argmin(0, keepdim=k),
    "max": lambda m, x, k: x.max(0, keepdim=k),
    "min": lambda m, x, k: m.min(x, 0, keepdim=k),
    "kthvalue": lambda m, x, k: x.kthvalue(1, 0, keepdim=k),
    "median": lambda m, x, k: x.median(0, keepdim=k),
    "nanmedian": lambda m, x, k: x.nanmedian(0, keepdim=k),
    "mode": lambda m, x, k: x.mode(0, keepdim=k),
    "logsumexp": lambda m, x, k: x.logsumexp(0, keepdim=k),
    "nansum": lambda m, x, k: x.nansum(0, keepdim=k),
    "nanmean": lambda m, x, k: x.nanmean(0, keepdim=k),
    "quantile": lambda m, x, k: x.quantile(0.5, 0, keepdim=k),
    "nanquantile": lambda m, x, k: x.nanquantile(0.5, 0, keepdim=k),
    "norm": lambda m, x, k: x.norm(dim=0, keepdim=k),
    "std": lambda m, x, k: x.std(0, keepdim=k),
    "var": lambda m, x, k: m.var(x, 0, keepdim=k),
    "vector_norm": lambda m, x, k: m.linalg.vector_norm(x, 2, 0, keepdim=k),
}


@pytest.mark.parametrize("name", sorted(_KEEPDIM_CALLS))
@pytest.mark.parametrize("keepdim", [1, 0, np.True_, None], ids=["int1", "int0", "np-bool", "none"])
def test_keepdim_must_be_a_python_bool(name, keepdim):
    """PyTorch's parser takes keepdim=True/False only: an int, a NumPy bool or None is a
    TypeError (``x.sum(0, keepdim=1)`` used to reduce as if True); a bool still works."""
    call = _KEEPDIM_CALLS[name]
    with pytest.raises(TypeError):
        call(torch, torch.ones(2, 3), keepdim)
    with pytest.raises(TypeError, match="keepdim"):
        call(lg, lg.ones(2, 3), keepdim)
    ours, theirs = call(lg, lg.ones(2, 3), True), call(torch, torch.ones(2, 3), True)
    first = ours[0] if isinstance(ours, tuple) else ours
    assert tuple(first.shape) == tuple((theirs[0] if isinstance(theirs, tuple) else theirs).shape)


@pytest.mark.parametrize("dim", [0.0, True, (0.0,), [0, 1.0]], ids=repr)
def test_reduction_dim_must_be_integers(dim):
    """A float or bool dim is PyTorch's TypeError (it used to be truncated to an int)."""
    with pytest.raises(TypeError):
        torch.ones(2, 3).sum(dim)
    with pytest.raises(TypeError, match="dim"):
        lg.ones(2, 3).sum(dim)


def test_reduction_dim_may_be_a_one_element_integer_tensor():
    assert (
        lg.ones(2, 3).sum(lg.tensor(1)).tolist() == torch.ones(2, 3).sum(torch.tensor(1)).tolist()
    )
