"""Tensor facts: shape, dtype, conversions to Python and NumPy, grad and requires_grad rules,
detach and .data, torch.Size. Behaviour is pinned on its own first, then compared with torch."""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ----------------------------------------------------------------------------- without torch
def test_shape_size_ndim_and_numel_describe_the_array():
    t = lg.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, lg.Size)
    assert t.size() == lg.Size([2, 3, 4]) and t.size(1) == 3 and t.size(-1) == 4
    assert (t.ndim, t.dim(), t.ndimension()) == (3, 3, 3)
    assert (t.numel(), t.nelement(), len(t)) == (24, 24, 2)
    assert lg.tensor(5.0).shape == () and lg.tensor(5.0).numel() == 1


def test_size_with_an_out_of_range_dim_raises_index_error():
    with pytest.raises(IndexError):
        lg.zeros(2, 3).size(2)
    with pytest.raises(IndexError):
        lg.zeros(2, 3).size(-3)


def test_item_and_tolist_return_python_numbers():
    assert lg.tensor([[2.5]]).item() == 2.5 and isinstance(lg.tensor([[2.5]]).item(), float)
    assert isinstance(lg.tensor([7]).item(), int) and isinstance(lg.tensor(True).item(), bool)
    assert lg.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert lg.tensor(2.5).tolist() == 2.5


def test_item_of_several_elements_raises_runtime_error_and_float_value_error():
    with pytest.raises(RuntimeError):
        lg.tensor([1.0, 2.0]).item()
    with pytest.raises(ValueError):
        float(lg.tensor([1.0, 2.0]))
    with pytest.raises(ValueError):
        int(lg.tensor([]))


def test_python_number_conversions_of_one_element_tensors():
    assert float(lg.tensor([2])) == 2.0
    assert int(lg.tensor(-2.7)) == -2
    assert bool(lg.tensor([[0.0]])) is False
    assert [10, 20, 30][lg.tensor(1)] == 20
    with pytest.raises(TypeError):
        [10, 20][lg.tensor(1.0)]
    with pytest.raises(RuntimeError):
        bool(lg.tensor([1, 2]))


def test_float_of_a_tensor_requiring_grad_warns_once(fresh_warnings):
    x = lg.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match="requires_grad=True"):
        assert float(x) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x) == 2.0


def test_numpy_shares_memory_and_refuses_tensors_that_require_grad():
    t = lg.tensor([1.0, 2.0])
    t.numpy()[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    x = lg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        x.numpy()
    with pytest.raises(RuntimeError):
        np.asarray(x)
    assert x.numpy(force=True).tolist() == [1.0]
    assert x.detach().numpy().tolist() == [1.0]


def test_array_protocol_converts_with_a_requested_dtype():
    arr = np.array(lg.tensor([1, 2]), dtype=np.float64)
    assert arr.dtype == np.float64 and arr.tolist() == [1.0, 2.0]


def test_device_is_always_cpu():
    t = lg.ones(2)
    assert t.device == lg.device("cpu") and str(t.device) == "cpu" and not t.is_cuda
    assert repr(t.device) == "device(type='cpu')"
    assert lg.device("cuda").type == "cuda"  # a device can be named, as in PyTorch...
    with pytest.raises(AssertionError, match="CUDA"):
        lg.ones(2, device="cuda")  # ...but holds nothing: a CPU-only build


def test_byte_facts():
    t = lg.ones(3, dtype=lg.float64)
    assert (t.element_size(), t.itemsize, t.nbytes) == (8, 8, 24)
    assert not (t.is_sparse or t.is_quantized or t.is_meta)


def test_requires_grad_setter_takes_only_bools_and_only_floating_leaves():
    t = lg.tensor([1.0])
    t.requires_grad = True
    assert t.requires_grad and t.is_leaf
    for bad in (1, None, "yes", np.bool_(True)):
        with pytest.raises(RuntimeError):
            t.requires_grad = bad
    with pytest.raises(TypeError):
        t.requires_grad_(1)
    with pytest.raises(RuntimeError):
        lg.tensor([1, 2]).requires_grad_()
    lg.tensor([1, 2]).requires_grad_(False)  # turning it off is always allowed


def test_requires_grad_on_a_non_leaf():
    y = lg.tensor([1.0], requires_grad=True) * 2
    assert y.requires_grad_() is y  # already requires grad: fine
    with pytest.raises(RuntimeError):
        y.requires_grad = False
    with pytest.raises(RuntimeError):
        y.requires_grad_(False)


def test_grad_setter_checks_type_shape_and_dtype():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lg.tensor([3.0, 4.0])
    assert x.grad.tolist() == [3.0, 4.0]
    with pytest.raises(TypeError):
        x.grad = [3.0, 4.0]
    with pytest.raises(RuntimeError):
        x.grad = lg.tensor([3.0])
    with pytest.raises(RuntimeError):
        x.grad = lg.tensor([3.0, 4.0], dtype=lg.float64)
    x.grad = None
    assert x.grad is None
    x.grad = lg.tensor([1.0, 1.0])
    del x.grad
    assert x.grad is None


def test_grad_of_a_non_leaf_warns_only_while_it_is_empty():
    y = lg.tensor([1.0], requires_grad=True) * 2
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None
    y.grad = lg.tensor([5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [5.0]


def test_detach_shares_data_and_version_and_leaves_the_graph():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    assert d._data is y._data and d._version_counter is y._shared_version_counter()


def test_detach_in_place_turns_a_result_into_a_leaf():
    y = lg.tensor([1.0], requires_grad=True) * 2
    assert y.detach_() is y
    assert y.is_leaf and not y.requires_grad and y.grad_fn is None


def test_data_is_a_detached_alias_and_can_be_replaced():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d._data is x._data
    x.data = lg.tensor([5.0, 6.0, 7.0])
    assert x.tolist() == [5.0, 6.0, 7.0] and x.requires_grad and x.is_leaf
    with pytest.raises(TypeError):
        x.data = [1.0]
    with pytest.raises(RuntimeError):
        x.data = lg.tensor([1, 2])


def test_deepcopy_of_a_leaf_copies_data_grad_and_requires_grad():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lg.tensor([0.5, 0.5])
    c = copy.deepcopy(x)
    assert (
        c.requires_grad and c.is_leaf and c.tolist() == [1.0, 2.0] and c.grad.tolist() == [0.5, 0.5]
    )
    assert c._data is not x._data
    with pytest.raises(RuntimeError):
        copy.deepcopy(x * 2)


def test_format_with_a_spec_formats_the_scalar():
    assert f"{lg.tensor(2.5):.2f}" == "2.50"
    with pytest.raises(TypeError):
        f"{lg.tensor([2.5]):.2f}"


def test_size_is_a_tuple_that_prints_like_torch():
    s = lg.Size([2, 3])
    assert repr(s) == str(s) == "torch.Size([2, 3])" and repr(lg.Size()) == "torch.Size([])"
    assert s == (2, 3) and s != [2, 3] and hash(s) == hash((2, 3))
    assert s.numel() == 6 and lg.Size([]).numel() == 1
    assert isinstance(s[1:], lg.Size) and s[-1] == 3


def test_size_arithmetic_stays_a_size():
    s = lg.Size([2, 3])
    for out in (s + (4,), (4,) + s, s * 2, 2 * s, s[::-1]):
        assert isinstance(out, lg.Size)
    assert s + (4,) == (2, 3, 4) and (4,) + s == (4, 2, 3)
    assert s * 2 == (2, 3, 2, 3) and 0 * s == ()
    for bad in (lambda: s * 2.0, lambda: 2.0 * s):  # PyTorch's TypeError and words
        with pytest.raises(TypeError, match="can't multiply sequence by non-int of type 'float'"):
            bad()


def test_size_accepts_only_integers():
    assert lg.Size([np.int64(2), lg.tensor(3), True]) == (2, 3, 1)
    with pytest.raises(TypeError):
        lg.Size([2.5])
    with pytest.raises(TypeError):
        lg.Size(3)


def test_size_survives_pickle():
    s = pickle.loads(pickle.dumps(lg.Size([2, 3])))
    assert isinstance(s, lg.Size) and s == (2, 3)


def test_conversions_change_dtype_and_keep_the_graph():
    x = lg.tensor([1.5, -2.5], requires_grad=True)
    d = x.double()
    assert d.dtype is lg.float64 and d.requires_grad and d.grad_fn is not None
    assert x.long().tolist() == [1, -2] and not x.long().requires_grad
    assert x.float() is x and x.to(lg.float32) is x
    c = x.clone()
    assert c.requires_grad and c.grad_fn is not None and c._data is not x._data


# ----------------------------------------------------------------------------- against torch
def _outcome(torch, m, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(m)
        except Exception as e:
            return ("raises", type(e).__name__)
    if isinstance(r, (torch.Tensor, lg.Tensor)):
        arr = r.detach().numpy() if isinstance(r, torch.Tensor) else r._data
        return ("tensor", str(r.dtype), tuple(r.shape), r.requires_grad, r.is_leaf,
                r.grad_fn is not None, repr(arr.tolist()))  # fmt: skip
    return ("value", repr(r), type(r).__name__)


def _set(attr, value_fn):
    def run(m, make):
        t = make(m)
        setattr(t, attr, value_fn(m))
        return t

    return run


def _set_requires_grad(value, make):
    return lambda m: _set("requires_grad", lambda m: value)(m, make)


def _set_data(value_fn, make):
    return lambda m: _set("data", value_fn)(m, make)


def _leaf(m):
    """A float leaf that requires grad."""
    return _rg(m, [1.0, 2])


def _grad_set(make, value):
    def fn(m):
        t = make(m)
        t.grad = value(m)
        return t.grad

    return fn


def _returns_self(m, method):
    t = m.tensor([1.0])
    return method(t) is t


def _rg(m, values, **kw):
    return m.tensor(values, requires_grad=True, **kw)


FACTS = {
    "dtype": lambda m: m.tensor([1.0, 2]).dtype,
    "shape": lambda m: m.tensor([[1, 2]]).shape,
    "shape_0d": lambda m: m.tensor(1.0).shape,
    "ndim": lambda m: m.tensor([[1, 2]]).ndim,
    "size": lambda m: m.tensor([[1, 2]]).size(),
    "size_dim": lambda m: m.tensor([[1, 2]]).size(-1),
    "size_bad_dim": lambda m: m.tensor([[1, 2]]).size(2),
    "size_0d_dim": lambda m: m.tensor(1.0).size(0),
    "size_0d_dim_minus_one": lambda m: m.tensor(1.0).size(-1),
    "numel": lambda m: m.tensor([[1, 2], [3, 4]]).numel(),
    "item_float": lambda m: m.tensor(1.5).item(),
    "item_int": lambda m: m.tensor([2]).item(),
    "item_bool": lambda m: m.tensor([[True]]).item(),
    "item_float16": lambda m: m.tensor([1.5], dtype=m.float16).item(),
    "item_many": lambda m: m.tensor([1, 2]).item(),
    "item_empty": lambda m: m.tensor([]).item(),
    "item_requires_grad": lambda m: _rg(m, 2.0).item(),
    "tolist": lambda m: m.tensor([1.0, 2]).tolist(),
    "tolist_0d": lambda m: m.tensor(3).tolist(),
    "tolist_uint8": lambda m: m.tensor([3], dtype=m.uint8).tolist(),
    "numpy_dtype": lambda m: str(m.tensor([1, 2], dtype=m.int32).numpy().dtype),
    "numpy_requires_grad": lambda m: _rg(m, [1.0]).numpy(),
    "numpy_force": lambda m: _rg(m, [1.0]).numpy(force=True).tolist(),
    "array_requires_grad": lambda m: np.asarray(_rg(m, [1.0])),
    "array_dtype": lambda m: np.array(m.tensor([1, 2]), dtype=np.float64).tolist(),
    "device": lambda m: str(m.tensor([1.0]).device),
    "double": lambda m: m.tensor([1, 2]).double(),
    "float": lambda m: m.tensor([1, 2]).float(),
    "long": lambda m: m.tensor([1.7, -2.7]).long(),
    "half": lambda m: m.tensor([1.5]).half(),
    "bool": lambda m: m.tensor([1.5, 0]).bool(),
    "double_requires_grad": lambda m: _rg(m, [1.0, 2]).double(),
    "long_requires_grad": lambda m: _rg(m, [1.0, 2]).long(),
    "to_float64": lambda m: m.tensor([1.0, 2]).to(m.float64),
    "to_int32": lambda m: m.tensor([1.0, 2]).to(m.int32),
    "to_cpu": lambda m: m.tensor([1.0, 2]).to("cpu"),
    "to_cpu_dtype": lambda m: m.tensor([1.0, 2]).to("cpu", m.float64),
    "to_tensor": lambda m: m.tensor([1.0, 2]).to(m.tensor([1], dtype=m.int16)),
    "to_dtype_kw": lambda m: m.tensor([1.0, 2]).to(dtype=m.float16),
    "to_numpy_dtype": lambda m: m.tensor([1.0, 2]).to(np.float64),
    "to_same_is_self": lambda m: _returns_self(m, lambda t: t.to(m.float32)),
    "to_copy_is_new": lambda m: _returns_self(m, lambda t: t.to(m.float32, copy=True)),
    "float_same_is_self": lambda m: _returns_self(m, lambda t: t.float()),
    "clone_requires_grad": lambda m: _rg(m, [1.0]).clone(),
    "clone_int": lambda m: m.tensor([1, 2]).clone(),
    "type_name": lambda m: m.tensor([1.0]).type(),
    "type_name_int32": lambda m: m.tensor([1], dtype=m.int32).type(),
    "len": lambda m: len(m.tensor([[1, 2, 3]])),
    "len_0d": lambda m: len(m.tensor(1)),
    "len_empty": lambda m: len(m.tensor([])),
    "iter_0d": lambda m: list(m.tensor(1.0)),
    "bool_one": lambda m: bool(m.tensor([1])),
    "bool_zero": lambda m: bool(m.tensor(0.0)),
    "bool_many": lambda m: bool(m.tensor([1, 2])),
    "bool_empty": lambda m: bool(m.tensor([])),
    "float_one": lambda m: float(m.tensor([2])),
    "float_many": lambda m: float(m.tensor([2, 3])),
    "float_empty": lambda m: float(m.tensor([])),
    "float_int32": lambda m: float(m.tensor(2, dtype=m.int32)),
    "float_bool": lambda m: float(m.tensor(True)),
    "int_truncates": lambda m: int(m.tensor([-2.7])),
    "int_many": lambda m: int(m.tensor([1, 2])),
    "int_large": lambda m: int(m.tensor(2**40)),
    "int_nan": lambda m: int(m.tensor(float("nan"))),
    "int_inf": lambda m: int(m.tensor(float("inf"))),
    "complex": lambda m: complex(m.tensor(2.0)),
    "index": lambda m: [1, 2, 3][m.tensor(1)],
    "index_float": lambda m: [1, 2, 3][m.tensor(1.0)],
    "index_one_element": lambda m: [1, 2, 3][m.tensor([[2]])],
    "index_bool": lambda m: [1, 2, 3][m.tensor(True)],
    "index_many": lambda m: [1, 2, 3][m.tensor([1, 2])],
    "format_0d": lambda m: f"{m.tensor(2.5):.2f}",
    "format_0d_int": lambda m: f"{m.tensor(2):>4}",
    "format_1d_spec": lambda m: f"{m.tensor([2.5]):.2f}",
    "element_size": lambda m: m.tensor([1.0], dtype=m.float64).element_size(),
    "itemsize": lambda m: m.tensor([1.0, 2]).itemsize,
    "nbytes": lambda m: m.tensor([1.0, 2]).nbytes,
    "is_floating_point": lambda m: m.tensor([1, 2]).is_floating_point(),
    "is_complex": lambda m: m.tensor([1.0]).is_complex(),
    "is_sparse": lambda m: m.tensor([1.0]).is_sparse,
    "is_cuda": lambda m: m.tensor([1.0]).is_cuda,
    "is_leaf": lambda m: m.tensor([1.0]).is_leaf,
    "is_leaf_result": lambda m: (_rg(m, [1.0]) * 2).is_leaf,
    "is_leaf_int_result": lambda m: (m.tensor([1]) * 2).is_leaf,
    "output_nr": lambda m: m.tensor([1.0]).output_nr,
    "retains_grad": lambda m: _rg(m, [1.0]).retains_grad,
    "version": lambda m: m.tensor([1.0])._version,
    "grad_fn_of_leaf": lambda m: _rg(m, [1.0]).grad_fn,
    "grad_of_new_leaf": lambda m: _rg(m, [1.0]).grad,
    "grad_set": _grad_set(_leaf, lambda m: m.tensor([3.0, 4])),
    "grad_set_none": _grad_set(_leaf, lambda m: None),
    "grad_set_wrong_shape": _grad_set(_leaf, lambda m: m.tensor([3.0, 4, 5])),
    "grad_set_wrong_dtype": _grad_set(_leaf, lambda m: m.tensor([3.0, 4], dtype=m.float64)),
    "grad_set_int_tensor": _grad_set(_leaf, lambda m: m.tensor([3, 4])),
    "grad_set_number": _grad_set(_leaf, lambda m: 3),
    "grad_set_list": _grad_set(_leaf, lambda m: [3.0, 4.0]),
    "grad_set_on_int_tensor": _grad_set(lambda m: m.tensor([1, 2]), lambda m: m.tensor([3, 4])),
    "grad_set_without_requires_grad": _grad_set(
        lambda m: m.tensor([1.0, 2]), lambda m: m.tensor([3.0, 4])),
    "grad_set_on_non_leaf": _grad_set(lambda m: _leaf(m) * 2, lambda m: m.tensor([3.0, 4])),
    "grad_set_0d_on_one_element": _grad_set(lambda m: _rg(m, [1.0]), lambda m: m.tensor(3.0)),
    "grad_set_requiring_grad": _grad_set(_leaf, lambda m: _rg(m, [3.0, 4])),
    "requires_grad_int": _set_requires_grad(True, lambda m: m.tensor([1, 2])),
    "requires_grad_int_false": _set_requires_grad(False, lambda m: m.tensor([1, 2])),
    "requires_grad_bool_tensor": _set_requires_grad(True, lambda m: m.tensor([True])),
    "requires_grad_float16": _set_requires_grad(True, lambda m: m.tensor([1.0], dtype=m.float16)),
    "requires_grad_non_leaf_true": _set_requires_grad(True, lambda m: _rg(m, [1.0]) * 2),
    "requires_grad_non_leaf_false": _set_requires_grad(False, lambda m: _rg(m, [1.0]) * 2),
    "requires_grad_int_value": _set_requires_grad(1, lambda m: m.tensor([1.0])),
    "requires_grad_none": _set_requires_grad(None, lambda m: m.tensor([1.0])),
    "requires_grad_numpy_bool": _set_requires_grad(np.bool_(True), lambda m: m.tensor([1.0])),
    "requires_grad__non_leaf_true": lambda m: (_rg(m, [1.0]) * 2).requires_grad_(),
    "requires_grad__non_leaf_false": lambda m: (_rg(m, [1.0]) * 2).requires_grad_(False),
    "requires_grad__int": lambda m: m.tensor([1, 2]).requires_grad_(),
    "requires_grad__int_false": lambda m: m.tensor([1, 2]).requires_grad_(False),
    "requires_grad__int_value": lambda m: m.tensor([1.0]).requires_grad_(1),
    "detach": lambda m: (_rg(m, [1.0]) * 2).detach(),
    "detach_leaf": lambda m: _rg(m, [1.0]).detach(),
    "detach_in_place": lambda m: (_rg(m, [1.0]) * 2).detach_(),
    "detach_in_place_leaf": lambda m: _rg(m, [1.0]).detach_(),
    "data_of_leaf": lambda m: _rg(m, [1.0]).data,
    "data_of_non_leaf": lambda m: (_rg(m, [1.0]) * 2).data,
    "data_set": _set_data(lambda m: m.tensor([5.0, 6, 7]), _leaf),
    "data_set_int_on_requires_grad": _set_data(lambda m: m.tensor([5, 6]), _leaf),
    "data_set_int": _set_data(lambda m: m.tensor([5, 6]), lambda m: m.tensor([1.0, 2])),
    "data_set_list": _set_data(lambda m: [1], lambda m: m.tensor([1.0])),
    "deepcopy_leaf": lambda m: copy.deepcopy(_rg(m, [1.0])),
    "deepcopy_non_leaf": lambda m: copy.deepcopy(_rg(m, [1.0]) * 2),
    "size_repr": lambda m: repr(m.Size([2, 3])),
    "size_empty_repr": lambda m: repr(m.Size([])),
    "size_slice": lambda m: m.Size([2, 3])[1:],
    "size_add": lambda m: m.Size([2, 3]) + (4,),
    "size_radd": lambda m: (4,) + m.Size([2]),
    "size_mul": lambda m: m.Size([2]) * 2,
    "size_rmul": lambda m: 2 * m.Size([2]),
    "size_numel": lambda m: m.Size([2, 3]).numel(),
    "size_eq_tuple": lambda m: m.Size([2, 3]) == (2, 3),
    "size_eq_list": lambda m: m.Size([2, 3]) == [2, 3],
    "size_index": lambda m: m.Size([2, 3]).index(3),
    "size_from_numpy_int": lambda m: m.Size([np.int64(2)]),
    "size_from_tensor": lambda m: m.Size([m.tensor(2)]),
    "size_from_bool": lambda m: m.Size([True]),
    "size_negative": lambda m: m.Size([-1]),
    "size_float": lambda m: m.Size((2.5,)),
    "size_str": lambda m: m.Size(["a"]),
    "size_int": lambda m: m.Size(3),
    "size_pickle": lambda m: pickle.loads(pickle.dumps(m.Size([2, 3]))),
}  # fmt: skip


@pytest.mark.parametrize("name", list(FACTS))
def test_tensor_fact_matches_torch(torch, name):
    fn = FACTS[name]
    assert _outcome(torch, lg, fn) == _outcome(torch, torch, fn)


def test_iterating_a_tensor_matches_torch(torch):
    def rows(m, values, **kw):
        return [
            (r.tolist(), str(r.dtype), r.requires_grad, r.grad_fn is not None)
            for r in m.tensor(values, **kw)
        ]

    assert rows(lg, [[1, 2], [3, 4]]) == rows(torch, [[1, 2], [3, 4]])
    assert rows(lg, [1, 2], dtype=lg.int32) == rows(torch, [1, 2], dtype=torch.int32)
    assert rows(lg, [1.0, 2.0], requires_grad=True) == rows(torch, [1.0, 2.0], requires_grad=True)


def test_layout_facts_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (lg, torch):
        x = lib.arange(12.0).reshape(3, 4)
        facts = (
            x.stride(),
            x.t().stride(),
            x.stride(-1),
            x.is_contiguous(),
            x.t().is_contiguous(),
            x[1].storage_offset(),
            x[:, 1:].storage_offset(),
            x.to(float).dtype == lib.float64,
        )
        if lib is lg:
            ours = facts
        else:
            assert ours == facts


def test_mT_needs_two_dims_and_T_warns_off_matrices(fresh_warnings):
    with pytest.raises(RuntimeError):
        _ = lg.ones(3).mT
    with pytest.warns(UserWarning, match="deprecated"):
        assert lg.ones(2, 3, 4).T.shape == (4, 3, 2)


def test_dense_tensors_refuse_sparse_accessors_as_pytorch():
    torch = pytest.importorskip("torch")
    for m in (lg, torch):
        for accessor in ("values", "indices"):
            with pytest.raises(RuntimeError, match="sparse"):
                getattr(m.ones(2), accessor)()


def test_the_mean_of_an_empty_tensor_is_nan_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(lg.tensor([]).mean().item())
        assert lg.zeros(0, 3).mean(dim=0).shape == (3,)


def test_pickle_keeps_values_dtype_requires_grad_and_attributes_but_not_history_or_grad(torch):
    import pickle

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = torch.ones(2)
    x.note = "kept"
    nonleaf = x * 2
    ints = torch.tensor([3, 4])
    for original in (x, nonleaf, ints, x[1:]):
        copy = pickle.loads(pickle.dumps(original))
        assert copy.tolist() == original.tolist() and copy.dtype == original.dtype
        assert copy.requires_grad == original.requires_grad and copy.is_leaf
        assert copy.grad is None and copy.grad_fn is None
    assert pickle.loads(pickle.dumps(x)).note == "kept"
    copy = pickle.loads(pickle.dumps(nonleaf))
    copy.sum().backward()
    assert copy.grad.tolist() == [1.0, 1.0] and x.grad.tolist() == [1.0, 1.0]


def test_in_asks_whether_any_entry_equals_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (lg, torch):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        assert 3.0 in x and 5 not in x and lib.tensor(2.0) in x
        assert lib.tensor([9.0, 2.0]) in x  # broadcast: any equal entry
        assert float("nan") not in lib.tensor([float("nan")])
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
            _ = "a" in x
