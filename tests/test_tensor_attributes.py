"""What a dense real tensor reports about itself and which of PyTorch's attributes it answers
with an error: compared with torch, values and exception types alike."""

import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import coverage


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _outcome(fn):
    """``("ok", value)`` or ``("raises", exception type name)``; warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as exc:  # the type is what is compared
            return "raises", type(exc).__name__


def _both(torch, fn, data=((1.0, -2.0), (3.0, 4.0)), dtype="float32"):
    ours = fn(lg, lg.tensor(np.array(data, dtype=dtype)))
    theirs = fn(torch, torch.tensor(np.array(data, dtype=dtype)))
    return ours, theirs


def _same_outcome(torch, fn, **kw):
    ours, theirs = _both(torch, lambda m, x: _outcome(lambda: fn(m, x)), **kw)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raises":
        assert ours[1] == theirs[1]
    return ours[1], theirs[1]


@pytest.mark.parametrize(
    "name",
    ["conj", "conj_physical", "resolve_conj", "resolve_neg", "positive", "to_dense", "dequantize"],
)
def test_complex_and_quantized_views_of_a_real_tensor_are_the_tensor_itself(torch, name):
    ours, theirs = _both(torch, lambda m, x: getattr(x, name)() is x)
    assert ours is theirs is True
    ours, theirs = _both(torch, lambda m, x: getattr(m, name)(x) is x if hasattr(m, name) else 1)
    assert ours == theirs
    assert lg.tensor([1.0]).real is not None and _both(torch, lambda m, x: x.real is x) == (
        True,
        True,
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.is_conj(), lambda m, x: x.is_neg(), lambda m, x: x.is_cpu,
        lambda m, x: x.is_signed(), lambda m, x: m.is_signed(x.long()),
        lambda m, x: x.byte().is_signed(), lambda m, x: x.bool().is_signed(),
        lambda m, x: x.is_pinned(), lambda m, x: x.is_distributed(), lambda m, x: x.get_device(),
        lambda m, x: m.get_device(x), lambda m, x: x.name, lambda m, x: x.is_xla,
        lambda m, x: x.is_xpu, lambda m, x: x.is_ipu, lambda m, x: x.is_maia,
        lambda m, x: x.is_mtia, lambda m, x: x.is_vulkan, lambda m, x: x.is_mkldnn,
        lambda m, x: x.is_sparse_csr, lambda m, x: x.sparse_dim(), lambda m, x: x.dense_dim(),
        lambda m, x: x.is_same_size(m.zeros(2, 2, dtype=m.int64)),
        lambda m, x: m.is_same_size(x, m.zeros(2)), lambda m, x: x.is_set_to(x),
        lambda m, x: x.is_set_to(x.detach()), lambda m, x: x.is_set_to(x.view(4)),
        lambda m, x: x.is_set_to(x.clone()), lambda m, x: x[0].is_nonzero(),
        lambda m, x: m.is_nonzero(x[1, :1]), lambda m, x: m.tensor([0.0]).is_nonzero(),
        lambda m, x: m.tensor(float("nan")).is_nonzero(), lambda m, x: x.is_conj(),
        lambda m, x: m.is_conj(x), lambda m, x: m.is_neg(x), lambda m, x: x.volatile,
        lambda m, x: str(x.layout), lambda m, x: str(m.strided), lambda m, x: str(m.sparse_csr),
        lambda m, x: str(x.grad_dtype), lambda m, x: str(x.long().grad_dtype),
        lambda m, x: x.const_data_ptr() == x.data_ptr(), lambda m, x: x.is_shared(),
        lambda m, x: (x.share_memory_() is x, x.is_shared(), x[0].is_shared()),
        lambda m, x: x.module_load(m.ones(2, 2)).tolist(),
        lambda m, x: x.module_load(m.ones(2, 2), assign=True).tolist(),
        lambda m, x: x.to_dense(m.float64).dtype == m.float64,
    ],
)  # fmt: skip
def test_predicates_and_facts_answer_as_pytorch(torch, call):
    ours, theirs = _same_outcome(torch, call)
    assert ours == theirs


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.imag, lambda m, x: m.imag(x), lambda m, x: x.is_nonzero(),
        lambda m, x: m.tensor([]).is_nonzero(), lambda m, x: x.is_same_size([1]),
        lambda m, x: m.tensor([True]).positive(), lambda m, x: x.pin_memory(),
        lambda m, x: x.ipu(), lambda m, x: x.xpu(), lambda m, x: x.mtia(),
        lambda m, x: x.coalesce(), lambda m, x: x.is_coalesced(), lambda m, x: x.crow_indices(),
        lambda m, x: x.col_indices(), lambda m, x: x.ccol_indices(), lambda m, x: x.row_indices(),
        lambda m, x: x.sparse_mask(x), lambda m, x: x.sparse_resize_((2, 2), 1, 1),
        lambda m, x: x.sparse_resize_and_clear_((2, 2), 1, 1), lambda m, x: x.smm(x),
        lambda m, x: m.smm(x, x), lambda m, x: x.sspaddmm(x, x), lambda m, x: m.sspaddmm(x, x, x),
        lambda m, x: x.resize_as_sparse_(x), lambda m, x: m.resize_as_sparse_(x, x),
        lambda m, x: x.to_padded_tensor(0.0), lambda m, x: x.int_repr(),
        lambda m, x: m.int_repr(x), lambda m, x: x.q_scale(), lambda m, x: x.q_zero_point(),
        lambda m, x: x.q_per_channel_scales(), lambda m, x: x.q_per_channel_zero_points(),
        lambda m, x: x.q_per_channel_axis(), lambda m, x: m.q_scale(x), lambda m, x: x.qscheme(),
        lambda m, x: m.dequantize([x, x]), lambda m, x: x.eig(), lambda m, x: x.symeig(),
        lambda m, x: x.lstsq(x), lambda m, x: x.solve(x), lambda m, x: x.reinforce(1.0),
        lambda m, x: x.as_subclass(int), lambda m, x: x.dim_order(ambiguity_check=3),
        lambda m, x: m.ones(2, 1, 4).dim_order(ambiguity_check=True),
        lambda m, x: m.ones(3).H, lambda m, x: m.ones(2, 2, 2).H, lambda m, x: m.ones(3).mH,
        lambda m, x: m.ones(3).adjoint(), lambda m, x: m.adjoint(m.ones(3)),
    ],
)  # fmt: skip
def test_what_pytorch_refuses_on_a_dense_real_tensor_raises_the_same_type(torch, call):
    ours, theirs = _same_outcome(torch, call)
    assert ours == theirs


def test_removed_functions_name_their_replacement():
    x = lg.ones(2, 2)
    for name, replacement in [("eig", "linalg.eig"), ("symeig", "linalg.eigh"),
                              ("lstsq", "linalg.lstsq"), ("solve", "linalg.solve")]:  # fmt: skip
        with pytest.raises(RuntimeError, match=r"deprecated since version 1\.9 and is now removed"):
            getattr(x, name)(x)
        with pytest.raises(RuntimeError, match=replacement.replace(".", r"\.")):
            getattr(x, name)(x)
    with pytest.raises(RuntimeError, match=r"torch\.distributions"):
        x.reinforce(1.0)


def test_imag_and_sparse_accessors_say_what_pytorch_says_and_what_to_do():
    x = lg.ones(2, 2)
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        _ = x.imag
    with pytest.raises(RuntimeError, match="crow_indices expected sparse row compressed tensor "
                       "layout but got Strided"):  # fmt: skip
        x.crow_indices()
    with pytest.raises(RuntimeError, match="can only be called on sparse tensors"):
        x.smm(x)


@pytest.mark.parametrize("name", ["to_sparse", "to_sparse_coo", "to_sparse_csr", "to_mkldnn"])
def test_conversions_to_other_layouts_are_refused_on_purpose(name):
    with pytest.raises(NotImplementedError, match="leafgrad has no"):
        getattr(lg.ones(2, 2), name)()
    assert name in coverage.count("torch.Tensor", "leafgrad.Tensor")["refused"]


@pytest.mark.parametrize(
    "name, dtype",
    [("bfloat16", "bfloat16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
     ("chalf", "complex32")],
)  # fmt: skip
def test_casts_to_dtypes_leafgrad_lacks_raise_a_type_error_naming_the_dtype(name, dtype):
    with pytest.raises(TypeError, match=f"no {dtype} dtype"):
        getattr(lg.ones(2), name)()
    assert name in coverage.count("torch.Tensor", "leafgrad.Tensor")["refused"]


def test_index_binding_first_class_dims_is_refused():
    with pytest.raises(NotImplementedError, match="first-class dims"):
        lg.ones(2).index(0, 0)


@pytest.mark.parametrize(
    "shape, perm",
    [((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3, 4, 5), (0, 3, 2, 1)), ((2, 1, 4, 5), (0, 2, 3, 1)),
     ((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5, 6), (0, 2, 3, 4, 1)), ((5,), (0,)),
     ((), ())],
)  # fmt: skip
def test_dim_order_reads_the_strides_as_pytorch(torch, shape, perm):
    ours = lg.ones(shape).permute(perm)
    theirs = torch.ones(shape).permute(perm)
    assert ours.dim_order() == theirs.dim_order()
    fmts = (
        [lg.channels_last, lg.contiguous_format],
        [torch.channels_last, torch.contiguous_format],
    )
    for check_ours, check_theirs in [(True, True), fmts]:
        a = _outcome(lambda c=check_ours: ours.dim_order(ambiguity_check=c))
        b = _outcome(lambda c=check_theirs: theirs.dim_order(ambiguity_check=c))
        assert a == b


def test_dim_order_of_an_expanded_tensor(torch):
    assert lg.ones(3, 1).expand(3, 4).dim_order() == torch.ones(3, 1).expand(3, 4).dim_order()


@pytest.mark.parametrize("attr", ["H", "mH", "adjoint", "mT"])
def test_conjugate_transposes_are_differentiable_transposes(torch, attr):
    data = np.arange(24.0).reshape(2, 3, 4) if attr != "H" else np.arange(6.0).reshape(2, 3)
    x, t = lg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y = getattr(x, attr)
    yt = getattr(t, attr)
    y, yt = (y(), yt()) if attr == "adjoint" else (y, yt)
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    w = np.random.default_rng(0).standard_normal(y.shape)
    (y * lg.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert y._base is x and y.grad_fn.name() == yt.grad_fn.name()


def test_conjugate_transpose_of_a_0d_tensor_warns_and_is_the_tensor():
    x = lg.tensor(2.0)
    with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):
        assert x.H is x
    with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):
        assert x.mH is x


def test_angle_is_pi_for_negatives_nan_kept_and_its_gradient_zero(torch):
    data = [-1.0, float("nan"), 2.0, -0.0, float("-inf"), 0.0]
    for dt in ("float32", "float64"):
        ours = lg.tensor(np.array(data, dtype=dt), requires_grad=True)
        theirs = torch.tensor(np.array(data, dtype=dt), requires_grad=True)
        a, b = lg.angle(ours), torch.angle(theirs)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert str(a.dtype) == str(b.dtype) and a.requires_grad
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__ == "AngleBackward0"
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
    for values in ([-1, 0, 2], [True, False]):
        a, b = lg.tensor(values).angle(), torch.tensor(values).angle()
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7)
        assert str(a.dtype) == str(b.dtype)


def test_conj_physical_in_place_is_a_write(torch):
    for m in (lg, torch):
        x = m.ones(2)
        assert x.conj_physical_() is x and x._version == 1
        with pytest.raises(RuntimeError):
            m.ones(2, requires_grad=True).conj_physical_()


def test_as_subclass_aliases_the_memory_and_stays_in_the_graph(torch):
    class Mine(lg.Tensor):
        pass

    class Theirs(torch.Tensor):
        pass

    for m, cls in ((lg, Mine), (torch, Theirs)):
        x = m.ones(2, requires_grad=True)
        y = (x * 2).as_subclass(cls)
        assert type(y) is cls and y.requires_grad and not y.is_leaf
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
        z = m.zeros(2)
        s = z.as_subclass(cls)
        assert s.data_ptr() == z.data_ptr() and not s.requires_grad


def test_grad_dtype_defaults_to_the_dtype_and_can_be_set(torch):
    for m in (lg, torch):
        x = m.ones(2)
        assert x.grad_dtype == m.float32
        x.grad_dtype = m.float64
        assert x.grad_dtype == m.float64
        x.grad_dtype = None
        assert x.grad_dtype is None


def test_volatile_warns_that_it_was_removed():
    x = lg.ones(2)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="no_grad"):
        x.volatile = True


def test_layouts_are_singletons_that_print_as_pytorchs(torch):
    assert lg.ones(2).layout is lg.strided
    assert repr(lg.sparse_coo) == repr(torch.sparse_coo) == "torch.sparse_coo"
    assert isinstance(lg.strided, lg.layout)
    with pytest.raises(TypeError):
        lg.layout()


def test_is_pinned_with_a_device_warns_it_is_deprecated():
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assert lg.ones(2).is_pinned("cuda") is False


def test_dtypes_leafgrad_lacks_are_named_objects_refused_as_arguments(torch):
    for name in ("bfloat16", "complex32", "complex64", "complex128", "chalf", "cfloat", "cdouble"):
        ours, theirs = getattr(lg, name), getattr(torch, name)
        assert repr(ours) == repr(theirs)
        assert (ours.is_complex, ours.is_floating_point, ours.itemsize, ours.is_signed) == (
            theirs.is_complex, theirs.is_floating_point, theirs.itemsize, theirs.is_signed
        )  # fmt: skip
        assert name in coverage.count("torch", "leafgrad")["refused"]
        with pytest.raises(TypeError, match=repr(theirs).replace(".", r"\.")):
            lg.zeros(2, dtype=ours)
    assert lg.cfloat is lg.complex64 and lg.float32 != lg.bfloat16
    assert lg.ones(2).dtype not in (lg.bfloat16, lg.float16)


def test_angle_records_its_own_node_saving_self():
    x = lg.tensor([-1.0, 2.0], dtype=lg.float64, requires_grad=True)
    a = x.angle()
    assert type(a.grad_fn).__name__ == "AngleBackward0"
    assert a.grad_fn._saved_self is x
    assert a.detach().tolist() == [math.pi, 0.0]
    (g,) = lg.autograd.grad(a.sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0] and not g.requires_grad


def test_reversed_flips_the_first_dim_and_keeps_a_0d_tensor():
    x = lg.arange(6.0).reshape(2, 3).requires_grad_()
    r = reversed(x)
    assert isinstance(r, lg.Tensor) and type(r.grad_fn).__name__ == "FlipBackward0"
    assert r.tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    z = lg.tensor(3.0)
    assert reversed(z) is z
    assert [t.item() for t in reversed(lg.tensor([1, 2, 3]))] == [3, 2, 1]
