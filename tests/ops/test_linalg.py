"""Products against PyTorch: values, shapes, dtypes, first and second order grads, grad_fn
names and error types for matmul / mm / bmm / dot / mv / outer / addmm / t / einsum."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import linalg as _linalg
from leafgrad.ops import matmul as _matmul
from tests._tolerance import assert_close, tolerance

torch = pytest.importorskip("torch")


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2.0, 2.0, size=s) for s in shapes]


def _both(arrays, dtype="float64", requires_grad=True):
    ours = [lg.tensor(a, dtype=getattr(lg, dtype), requires_grad=requires_grad) for a in arrays]
    theirs = [
        torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=requires_grad) for a in arrays
    ]
    return ours, theirs


def _close(ours, theirs):
    """Same dtype and shape; values to the ``"direct"`` tolerance (integers exactly): BLAS
    builds sum the products in their own order."""
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert_close(ours, theirs.detach().numpy(), "direct")


def _check_against_torch(fn_ours, fn_theirs, shapes, seed=0):
    """Forward, grad_fn name, first-order grads and a second-order grad all match PyTorch."""
    arrays = _arrays(shapes, seed)
    ours, theirs = _both(arrays)
    out, ref = fn_ours(*ours), fn_theirs(*theirs)
    _close(out, ref)
    assert out.grad_fn.name() == ref.grad_fn.name()

    w = _arrays([tuple(ref.shape)], seed + 1)[0]
    g_ours = lg.autograd.grad((out * lg.tensor(w)).sum(), ours, create_graph=True)
    g_theirs = torch.autograd.grad((ref * torch.tensor(w)).sum(), theirs, create_graph=True)
    for a, b in zip(g_ours, g_theirs):
        _close(a, b)

    # Second order: d/d inputs of sum(grad_i * v_i), which for bilinear ops is nonzero.
    vs = _arrays([tuple(g.shape) for g in g_theirs], seed + 2)
    s_ours = sum((g * lg.tensor(v)).sum() for g, v in zip(g_ours, vs))
    s_theirs = sum((g * torch.tensor(v)).sum() for g, v in zip(g_theirs, vs))
    assert s_ours.requires_grad == s_theirs.requires_grad
    if not s_theirs.requires_grad:  # a linear op: its gradient does not depend on the inputs
        return
    gg_ours = lg.autograd.grad(s_ours, ours, allow_unused=True)
    gg_theirs = torch.autograd.grad(s_theirs, theirs, allow_unused=True)
    for a, b in zip(gg_ours, gg_theirs):
        if b is None:
            assert a is None or not np.any(a.numpy())
        else:
            _close(a, b)


# (shape of first, shape of second, PyTorch's grad_fn name)
MATMUL_CASES = [
    ((3,), (3,), "DotBackward0"),
    ((2, 3), (3, 4), "MmBackward0"),
    ((3,), (3, 4), "SqueezeBackward4"),
    ((2, 3), (3,), "MvBackward0"),
    ((5, 2, 3), (3,), "UnsafeViewBackward0"),
    ((3,), (5, 3, 4), "UnsafeViewBackward0"),
    ((5, 2, 3), (3, 4), "UnsafeViewBackward0"),
    ((2, 3), (5, 3, 4), "CloneBackward0"),
    ((5, 2, 3), (5, 3, 4), "UnsafeViewBackward0"),
    ((5, 1, 2, 3), (4, 3, 4), "UnsafeViewBackward0"),
    ((1, 2, 3), (4, 3, 4), "CloneBackward0"),
    ((5, 2, 3), (1, 3, 4), "UnsafeViewBackward0"),
    ((4, 2, 3), (2, 1, 3, 4), "UnsafeViewBackward0"),
    ((6, 5, 2, 3), (3,), "UnsafeViewBackward0"),
    ((3,), (6, 5, 3, 4), "UnsafeViewBackward0"),
    ((2, 3), (2, 5, 3, 4), "CloneBackward0"),
    ((1, 2, 3), (2, 5, 3, 4), "UnsafeViewBackward0"),
]


@pytest.mark.parametrize("sa, sb, name", MATMUL_CASES, ids=[f"{a}@{b}" for a, b, _ in MATMUL_CASES])
def test_matmul_matches_torch_in_values_shapes_grads_and_names(sa, sb, name):
    _check_against_torch(lambda a, b: a @ b, lambda a, b: a @ b, (sa, sb))
    a, b = _both(_arrays((sa, sb)))[0]
    assert lg.matmul(a, b).grad_fn.name() == name


@pytest.mark.parametrize(
    "sa, sb, ra, rb",
    [
        ((2, 3), (5, 3, 4), False, True),
        ((1, 2, 3), (4, 3, 4), False, True),
        ((2, 3), (5, 3, 4), True, False),
    ],
)
def test_matmul_grad_fn_name_depends_on_which_input_requires_grad_like_torch(sa, sb, ra, rb):
    arrays = _arrays((sa, sb))
    a, b = lg.tensor(arrays[0], requires_grad=ra), lg.tensor(arrays[1], requires_grad=rb)
    ta, tb = torch.tensor(arrays[0], requires_grad=ra), torch.tensor(arrays[1], requires_grad=rb)
    assert (a @ b).grad_fn.name() == (ta @ tb).grad_fn.name()


def test_matmul_batch_broadcast_grad_sums_over_broadcast_dims():
    (a, b), _ = _both(_arrays(((3, 1, 2, 3), (4, 3, 2))))
    (a @ b).sum().backward()
    assert a.grad.shape == (3, 1, 2, 3) and b.grad.shape == (4, 3, 2)
    assert_close(a.grad, np.broadcast_to(b.detach().numpy().sum(axis=(0, 2)), (3, 1, 2, 3)))
    assert_close(
        b.grad, np.broadcast_to(a.detach().numpy().sum(axis=(0, 1, 2))[:, None], (4, 3, 2))
    )


@pytest.mark.parametrize(
    "name, shapes",
    [
        ("mm", ((2, 3), (3, 4))),
        ("bmm", ((5, 2, 3), (5, 3, 4))),
        ("dot", ((4,), (4,))),
        ("mv", ((2, 3), (3,))),
        ("outer", ((3,), (4,))),
        ("ger", ((2,), (5,))),
    ],
)
def test_fixed_rank_products_match_torch(name, shapes):
    _check_against_torch(getattr(lg, name), getattr(torch, name), shapes)
    _check_against_torch(
        lambda a, b: getattr(a, name)(b), lambda a, b: getattr(a, name)(b), shapes, seed=3
    )


def test_mm_result_values_are_the_matrix_product():
    a = lg.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = lg.tensor([[5.0, 6.0], [7.0, 8.0]])
    assert (a @ b).tolist() == [[19.0, 22.0], [43.0, 50.0]]
    assert lg.dot(lg.tensor([1.0, 2.0, 3.0]), lg.tensor([4.0, 5.0, 6.0])).item() == 32.0


# An inner size of 1 (a one-feature first layer, a one-output last layer's input gradient): a
# BLAS product of floats (np.dot), a broadcast multiply of integers; either way the products.
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize(("sa", "sb"), [((100, 1), (1, 32)), ((2, 1), (1, 5)), ((0, 1), (1, 3))])
def test_an_inner_size_of_one_gives_the_products_bits_in_c_order(dtype, sa, sb):
    a, b = (np.asarray(x, dtype=dtype) for x in _arrays([sa, sb], seed=4))
    for x, y in ((a, b), (np.asfortranarray(a), b), (a, b[:, ::-1])):
        out = lg.mm(lg.tensor(x), lg.tensor(y)).numpy()
        np.testing.assert_array_equal(out, np.multiply(x, y))
        assert out.dtype == np.dtype(dtype) and out.flags.c_contiguous


def test_an_inner_size_of_one_matches_torch_to_second_order():
    _check_against_torch(lg.mm, torch.mm, [(100, 1), (1, 32)], seed=5)
    _check_against_torch(lg.matmul, torch.matmul, [(7, 1), (1, 3)], seed=6)


@pytest.mark.parametrize("shape", [(2, 3), (3,), ()])
def test_t_matches_torch(shape):
    _check_against_torch(lambda x: x.t() * 1.0, lambda x: x.t() * 1.0, (shape,))
    (x,), (tx,) = _both(_arrays((shape,)))
    assert x.t().grad_fn.name() == tx.t().grad_fn.name() == "TBackward0"
    _close(lg.t(x), torch.t(tx))


def test_t_of_3d_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"t.*\[2, 3, 4\]"):
        lg.zeros(2, 3, 4).t()


@pytest.mark.parametrize(
    "shapes, kwargs",
    [
        (((2, 4), (2, 3), (3, 4)), {}),
        (((4,), (2, 3), (3, 4)), {"beta": 0.5, "alpha": 2.0}),
        (((2, 1), (2, 3), (3, 4)), {"alpha": -1.0}),
        (((), (2, 3), (3, 4)), {"beta": 3.0}),
    ],
)
def test_addmm_matches_torch(shapes, kwargs):
    _check_against_torch(
        lambda c, a, b: lg.addmm(c, a, b, **kwargs),
        lambda c, a, b: torch.addmm(c, a, b, **kwargs),
        shapes,
    )


def test_addmm_beta_zero_ignores_nan_input_like_torch():
    a, b = _arrays(((2, 3), (3, 4)))
    nan = np.full(4, np.nan)
    ours = lg.addmm(lg.tensor(nan), lg.tensor(a), lg.tensor(b), beta=0)
    theirs = torch.addmm(torch.tensor(nan), torch.tensor(a), torch.tensor(b), beta=0)
    _close(ours, theirs)


def test_addmm_integer_stays_integer():
    ours = lg.addmm(
        lg.ones(4, dtype=lg.int64),
        lg.ones(2, 3, dtype=lg.int64),
        lg.ones(3, 4, dtype=lg.int64),
        beta=2,
        alpha=3,
    )
    theirs = torch.addmm(
        torch.ones(4, dtype=torch.int64),
        torch.ones(2, 3, dtype=torch.int64),
        torch.ones(3, 4, dtype=torch.int64),
        beta=2,
        alpha=3,
    )
    _close(ours, theirs)


# ---------------------------------------------------------------------------------------------
# dtypes


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16", "float32"])
@pytest.mark.parametrize(
    "sa, sb", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((2, 2, 3), (3, 2))]
)
def test_matmul_keeps_the_operand_dtype(dtype, sa, sb):
    arrays = [np.arange(np.prod(s)).reshape(s) % 5 for s in (sa, sb)]
    (a, b), (ta, tb) = _both(arrays, dtype=dtype, requires_grad=False)
    out, ref = a @ b, ta @ tb
    assert str(out.dtype) == str(ref.dtype)
    assert_close(out, ref.numpy(), "direct")  # integers exactly


def test_integer_matmul_does_not_require_grad():
    a = lg.ones(2, 3, dtype=lg.int64)
    assert (a @ lg.ones(3, 2, dtype=lg.int64)).requires_grad is False


@pytest.mark.parametrize(
    "fn, shapes",
    [
        ("matmul", ((2, 3), (3, 4))),
        ("matmul", ((5, 2, 3), (3,))),
        ("mm", ((2, 3), (3, 4))),
        ("bmm", ((1, 2, 3), (1, 3, 4))),
        ("dot", ((3,), (3,))),
        ("mv", ((2, 3), (3,))),
        ("einsum", ((2, 3), (3, 4))),
    ],
)
def test_mixed_float_dtypes_raise_runtime_error_like_torch(fn, shapes):
    arrays = _arrays(shapes)
    ours = [lg.tensor(arrays[0], dtype=lg.float32), lg.tensor(arrays[1], dtype=lg.float64)]
    theirs = [
        torch.tensor(arrays[0], dtype=torch.float32),
        torch.tensor(arrays[1], dtype=torch.float64),
    ]
    args_ours = ["ij,jk", *ours] if fn == "einsum" else ours
    args_theirs = ["ij,jk", *theirs] if fn == "einsum" else theirs
    with pytest.raises(RuntimeError):
        getattr(torch, fn)(*args_theirs)
    with pytest.raises(RuntimeError, match="dtype"):
        getattr(lg, fn)(*args_ours)


def test_outer_promotes_dtypes_like_torch():
    ours = lg.outer(lg.ones(3, dtype=lg.float32), lg.ones(2, dtype=lg.float64))
    theirs = torch.outer(torch.ones(3, dtype=torch.float32), torch.ones(2, dtype=torch.float64))
    _close(ours, theirs)
    assert lg.outer(lg.ones(2, requires_grad=True), lg.ones(2)).grad_fn.name() == "MulBackward0"


@pytest.mark.parametrize("fn", ["matmul", "dot", "mm"])
def test_bool_products_raise_not_implemented_like_torch(fn):
    shape = (3,) if fn == "dot" else (3, 3)
    with pytest.raises(NotImplementedError):
        getattr(torch, fn)(torch.ones(shape, dtype=torch.bool), torch.ones(shape, dtype=torch.bool))
    with pytest.raises(NotImplementedError):
        getattr(lg, fn)(lg.ones(shape, dtype=lg.bool), lg.ones(shape, dtype=lg.bool))


# ---------------------------------------------------------------------------------------------
# errors


SHAPE_ERRORS = [
    ("matmul", (2, 3), (2, 3)),
    ("matmul", (3,), (4,)),
    ("matmul", (2, 3), (4,)),
    ("matmul", (4,), (2, 3)),
    ("matmul", (5, 2, 3), (4, 3, 4)),
    ("matmul", (5, 2, 3), (4, 4)),
    ("matmul", (), (3,)),
    ("mm", (2, 3), (4, 4)),
    ("mm", (3,), (3, 4)),
    ("mm", (2, 3), (1, 3, 4)),
    ("bmm", (5, 2, 3), (1, 3, 4)),
    ("bmm", (2, 3), (3, 4)),
    ("bmm", (5, 2, 3), (5, 4, 4)),
    ("dot", (3,), (4,)),
    ("dot", (3, 1), (3,)),
    ("dot", (), ()),
    ("mv", (2, 3), (4,)),
    ("mv", (2, 3), (3, 1)),
    ("mv", (3,), (3,)),
    ("outer", (3, 1), (4,)),
]


@pytest.mark.parametrize(
    "fn, sa, sb", SHAPE_ERRORS, ids=[f"{f}-{a}-{b}" for f, a, b in SHAPE_ERRORS]
)
def test_shape_errors_raise_runtime_error_naming_op_and_shapes(fn, sa, sb):
    with pytest.raises(RuntimeError):
        getattr(torch, fn)(torch.zeros(sa), torch.zeros(sb))
    with pytest.raises(RuntimeError) as info:
        getattr(lg, fn)(lg.zeros(sa), lg.zeros(sb))
    message = str(info.value)
    assert f"{fn}:" in message  # PyTorch's words may come first (its kernel's, not the op's)
    assert str(list(sa)) in message or str(list(sb)) in message


def test_matmul_mismatch_message_names_both_shapes_and_sizes():
    with pytest.raises(RuntimeError) as info:
        lg.zeros(2, 3) @ lg.zeros(2, 3)
    assert str(info.value) == (
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3) (matmul: shapes [2, 3] and "
        "[2, 3] cannot be multiplied: the last dimension of the first (3) must equal the "
        "second-to-last dimension of the second (2))"
    )


PRODUCT_MISMATCHES = [
    ("mm", (2, 3), (4, 5)),
    ("matmul", (2, 3, 4), (5, 6)),
    ("matmul", (2, 3), (4,)),
    ("matmul", (3,), (4, 5)),
    ("matmul", (3,), (4,)),
    ("matmul", (2, 3, 4), (2, 5, 6)),
    ("matmul", (3, 4), (2, 5, 6)),
    ("bmm", (2, 2, 3), (2, 4, 5)),
    ("mv", (2, 3), (4,)),
    ("dot", (3,), (4,)),
]


@pytest.mark.parametrize("fn, sa, sb", PRODUCT_MISMATCHES)
def test_product_mismatch_messages_start_with_pytorchs_words(fn, sa, sb):
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, fn)(torch.zeros(sa), torch.zeros(sb))
    with pytest.raises(RuntimeError) as ours:
        getattr(lg, fn)(lg.zeros(sa), lg.zeros(sb))
    words = str(theirs.value).split(" (Triggered internally")[0]
    assert str(ours.value).startswith(words)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.mm(m.zeros(2, 2), m.zeros(2, 2, dtype=m.float64)),
        lambda m: m.zeros(2, 2, dtype=m.float64) @ m.zeros(2, 2),
        lambda m: m.zeros(2) @ m.zeros(2, dtype=m.float64),
        lambda m: m.bmm(m.zeros(1, 2, 2), m.zeros(1, 2, 2, dtype=m.float64)),
        lambda m: m.addmm(m.zeros(2), m.zeros(2, 2), m.zeros(2, 2, dtype=m.float64)),
        lambda m: m.addmm(m.zeros(2, dtype=m.float64), m.zeros(2, 2), m.zeros(2, 2)),
        lambda m: m.nn.Linear(2, 2)(m.zeros(3, 2, dtype=m.float64)),
        lambda m: m.zeros(2, 2) @ m.ones(2, 2, dtype=m.int64),
    ],
)
def test_product_dtype_messages_start_with_pytorchs_words(make):
    with pytest.raises(RuntimeError) as theirs:
        make(torch)
    with pytest.raises(RuntimeError) as ours:
        make(lg)
    words = str(theirs.value).split(" (Triggered internally")[0]
    assert str(ours.value).startswith(words)


def test_matmul_batch_mismatch_message_names_batch_dims():
    with pytest.raises(
        RuntimeError, match=r"\[5, 2, 3\] and \[4, 3, 4\].*batch dimensions \[5\] and \[4\]"
    ):
        lg.zeros(5, 2, 3) @ lg.zeros(4, 3, 4)


def test_matmul_with_a_python_number_raises_type_error_like_torch():
    with pytest.raises(TypeError):
        torch.ones(3) @ 2
    with pytest.raises(TypeError):
        lg.ones(3) @ 2
    with pytest.raises(TypeError):
        [1.0, 2.0, 3.0] @ lg.ones(3)
    with pytest.raises(TypeError):
        lg.matmul(lg.ones(3), 2)


# ---------------------------------------------------------------------------------------------
# einsum

EINSUM_CASES = [
    ("ij,jk->ik", ((2, 3), (3, 4))),
    ("ij,jk", ((2, 3), (3, 4))),
    ("bij,bjk->bik", ((2, 2, 3), (2, 3, 4))),
    ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 2))),
    ("ii", ((3, 3),)),
    ("ii->i", ((3, 3),)),
    ("ii->", ((3, 3),)),
    ("iji->j", ((2, 3, 2),)),
    ("ij->ji", ((2, 3),)),
    ("ba", ((2, 3),)),
    ("ij->j", ((2, 3),)),
    ("ij->", ((2, 3),)),
    ("i->i", ((3,),)),
    ("i,j->ij", ((3,), (2,))),
    ("ij,ij->ij", ((2, 3), (2, 3))),
    ("ij,ij->", ((2, 3), (2, 3))),
    ("ij,ij", ((2, 3), (2, 3))),
    ("ij,j->i", ((2, 3), (3,))),
    ("ij,k->ik", ((2, 3), (4,))),
    ("i,i", ((3,), (3,))),
    ("i,->i", ((3,), ())),
    ("...ij,...jk", ((5, 2, 3), (3, 4))),
    ("ij,...jk", ((2, 3), (5, 3, 4))),
    ("...i,...i->...", ((5, 3), (4, 1, 3))),
    ("...ii->...i", ((4, 3, 3),)),
    ("i...->...", ((2, 3),)),
    ("...i->i", ((2, 3),)),
    ("...,...->...", ((2, 3), (3,))),
    ("bij,bjk->bik", ((1, 2, 3), (5, 3, 4))),
    ("ij,jk->ik", ((2, 1), (3, 4))),
    ("ii,i->i", ((3, 3), (3,))),
    ("i j -> j", ((2, 3),)),
    ("iJ->J", ((2, 3),)),
    ("Ba", ((2, 3),)),
]


@pytest.mark.parametrize("eq, shapes", EINSUM_CASES, ids=[e for e, _ in EINSUM_CASES])
def test_einsum_matches_torch(eq, shapes):
    _check_against_torch(
        lambda *ops: lg.einsum(eq, *ops), lambda *ops: torch.einsum(eq, *ops), shapes
    )


def test_einsum_accepts_a_list_of_operands():
    (a, b), (ta, tb) = _both(_arrays(((2, 3), (3, 4))))
    _close(lg.einsum("ij,jk->ik", [a, b]), torch.einsum("ij,jk->ik", [ta, tb]))
    _close(lg.einsum("ij,jk->ik", (a, b)), torch.einsum("ij,jk->ik", (ta, tb)))


def test_einsum_accepts_sublist_format():
    (a, b), (ta, tb) = _both(_arrays(((5, 2, 3), (3, 4))))
    _close(
        lg.einsum(a, [0, 1, 2], b, [2, 3], [0, 1, 3]),
        torch.einsum(ta, [0, 1, 2], tb, [2, 3], [0, 1, 3]),
    )
    _close(lg.einsum(a, [..., 1, 2], b, [2, 3]), torch.einsum(ta, [..., 1, 2], tb, [2, 3]))


def test_einsum_third_order_gradient_matches_torch():
    (a, b), (ta, tb) = _both(_arrays(((2, 3), (3, 2))))

    def third(lib, x, y):
        out = lib.einsum("ij,jk->ik", x * x, y).sum()
        (gx,) = lib.autograd.grad(out, x, create_graph=True)
        (gy,) = lib.autograd.grad(gx.sum(), y, create_graph=True)
        return lib.autograd.grad((gy * gy).sum(), x)[0]

    _close(third(lg, a, b), third(torch, ta, tb))


@pytest.mark.parametrize(
    "dtype, eq, shapes",
    [
        ("int64", "bij,bjk->bik", ((2, 2, 3), (2, 3, 4))),
        ("int32", "i,i->", ((3,), (3,))),
        ("int32", "ij->", ((3, 2),)),
        ("int32", "ij->ji", ((3, 2),)),
        ("bool", "ij->i", ((2, 3),)),
        ("bool", "i,i->i", ((3,), (3,))),
        ("bool", "ij,k->ik", ((2, 3), (4,))),
        ("int32", "ij,k->ik", ((2, 3), (4,))),
        ("float16", "ij,jk", ((2, 3), (3, 4))),
    ],
)
def test_einsum_dtypes_match_torch(dtype, eq, shapes):
    arrays = [np.arange(np.prod(s)).reshape(s) % 3 for s in shapes]
    ours, theirs = _both(arrays, dtype=dtype, requires_grad=False)
    out, ref = lg.einsum(eq, *ours), torch.einsum(eq, *theirs)
    assert str(out.dtype) == str(ref.dtype)
    assert_close(out, ref.numpy(), "direct")  # integers and bools exactly


EINSUM_ERRORS = [
    ("ij,jk->ik", ((2, 3), (4, 4))),
    ("ij,jk->ik", ((2, 3),)),
    ("ij->j", ((2, 3), (3,))),
    ("ij->ik", ((2, 3),)),
    ("ij->jj", ((2, 3),)),
    ("ij->j->k", ((2, 3),)),
    ("i1->i", ((2, 3),)),
    ("ijk->j", ((2, 3),)),
    ("ij->j", ((2, 3, 4),)),
    ("...ij->...ji", ((3,),)),
    ("i..->i", ((3,),)),
    ("i......->i", ((3,),)),
    ("ii->i", ((2, 3),)),
]


@pytest.mark.parametrize("eq, shapes", EINSUM_ERRORS, ids=[f"{e}-{s}" for e, s in EINSUM_ERRORS])
def test_einsum_bad_equations_raise_runtime_error_like_torch(eq, shapes):
    with pytest.raises(RuntimeError):
        torch.einsum(eq, *[torch.zeros(s) for s in shapes])
    with pytest.raises(RuntimeError, match="einsum"):
        lg.einsum(eq, *[lg.zeros(s) for s in shapes])


def test_einsum_without_operands_raises_value_error_like_torch():
    with pytest.raises(ValueError):
        torch.einsum("ij,jk->ik")
    with pytest.raises(ValueError):
        lg.einsum("ij,jk->ik")


def test_bool_einsum_contraction_raises_not_implemented_like_torch():
    with pytest.raises(NotImplementedError):
        torch.einsum("i,i->", torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.bool))
    with pytest.raises(NotImplementedError):
        lg.einsum("i,i->", lg.ones(3, dtype=lg.bool), lg.ones(3, dtype=lg.bool))


# ---------------------------------------------------------------------------------------------
# autograd facts and forward rules


def test_products_of_leaves_are_not_leaves_and_backward_fills_grads():
    lg.manual_seed(0)
    a = lg.randn(3, 2, requires_grad=True)
    b = lg.randn(2, requires_grad=True)
    y = a @ b
    assert y.requires_grad and not y.is_leaf and a.is_leaf
    y.sum().backward()
    assert_close(a.grad, np.broadcast_to(b.detach().numpy(), (3, 2)))
    # b.grad sums three float32 values, which BLAS and NumPy may add in different orders: a
    # sum that cancels is checked against the size of its terms.
    terms = a.detach().numpy()
    rtol, _ = tolerance(np.float32, "direct")
    np.testing.assert_allclose(
        b.grad.numpy(), terms.sum(axis=0), rtol=rtol, atol=rtol * np.abs(terms).sum(axis=0).max()
    )


def test_products_under_no_grad_record_nothing():
    a = lg.randn(2, 3, requires_grad=True)
    with lg.no_grad():
        assert (a @ a.t()).grad_fn is None
        assert lg.einsum("ij,kj->ik", a, a).requires_grad is False


@pytest.mark.parametrize(
    "prim, shapes",
    [
        (_linalg._mm, ((2, 3), (3, 4))),
        (_linalg._bmm, ((2, 2, 3), (2, 3, 4))),
        (_linalg._dot, ((3,), (3,))),
        (_linalg._mv, ((2, 3), (3,))),
        (_linalg._vecmat, ((3,), (3, 2))),
        (_matmul._matmul_view, ((2, 2, 3), (3,))),
    ],
)
def test_forward_rules_match_torch_jvp(prim, shapes):
    x, y, tx, ty = _arrays(shapes + shapes)
    ours = prim.primitive.jvp(lg.tensor(tx), lg.tensor(ty), lg.tensor(x), lg.tensor(y), result=None)
    _, ref = torch.func.jvp(
        torch.matmul, (torch.tensor(x), torch.tensor(y)), (torch.tensor(tx), torch.tensor(ty))
    )
    _close(ours, ref)
    only_x = prim.primitive.jvp(lg.tensor(tx), None, lg.tensor(x), lg.tensor(y), result=None)
    _close(only_x, torch.matmul(torch.tensor(tx), torch.tensor(y)))
