"""Forward mode through in-place ops: the tangent a tensor had before the write is the one it
has after, holding the new values (PyTorch copies the new tangent into it), so a tangent read
earlier, the tensor given to ``make_dual`` and views of a tangent all see the write; a tensor
without a tangent gets a tangent of its own, never another tensor's. Against PyTorch."""

import numpy as np
import pytest

import leafgrad as lg

pytorch = pytest.importorskip("torch")


def _tangent(m, t):
    return m.autograd.forward_ad.unpack_dual(t).tangent


def _dual(m, values, tangent):
    return m.autograd.forward_ad.make_dual(m.tensor(values), m.tensor(tangent))


def _earlier_tangent_after_write(m, write):
    """The tangent read before ``write`` ran, whether the tensor's tangent is still that
    object, and the tangent now."""
    with m.autograd.forward_ad.dual_level():
        x = _dual(m, [0.5, 1.5, -2.0], [1.0, 2.0, 3.0])
        earlier = _tangent(m, x)
        write(m, x)
        now = _tangent(m, x)
        return earlier.numpy().copy(), now is earlier, now.numpy().copy()


_WRITES = {
    "mul_": lambda m, x: x.mul_(2.0),
    "exp_": lambda m, x: x.exp_(),
    "clamp_": lambda m, x: x.clamp_(max=1.0),
    "copy_ of a dual": lambda m, x: x.copy_(_dual(m, [1.0, 2.0, 3.0], [7.0, 8.0, 9.0])),
    "add_ of a plain": lambda m, x: x.add_(m.ones(3)),
    "view mul_": lambda m, x: x[1:].mul_(3.0),
    "setitem": lambda m, x: x.__setitem__(0, _dual(m, 4.0, 5.0)),
}


@pytest.mark.parametrize("name", list(_WRITES))
def test_an_earlier_tangent_sees_the_write(name):
    got = _earlier_tangent_after_write(lg, _WRITES[name])
    want = _earlier_tangent_after_write(pytorch, _WRITES[name])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def _chain(m):
    """What each tensor's tangent holds after writes into tensors that had none, into the
    tensor given to make_dual and through a base its view reads."""
    out = {}
    with m.autograd.forward_ad.dual_level():
        given = m.tensor([1.0, 1.0])
        y = m.autograd.forward_ad.make_dual(m.tensor([1.0, 2.0]), given)
        y.mul_(2.0)
        out["make_dual's tangent"] = given
        z = m.zeros(2)
        z.add_(y)  # no tangent before: a tangent of its own
        out["z aliases y"] = _tangent(m, z) is _tangent(m, y)
        early = _tangent(m, z)
        z.mul_(3.0)
        out["z's earlier"] = early
        out["y after"] = _tangent(m, y)
        c = _dual(m, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
        view = c[1:]
        view_tangent = _tangent(m, view)
        c.mul_(2.0)
        out["view's earlier"] = view_tangent
        b = m.zeros(4)
        b[1:3] = y
        base_tangent = _tangent(m, b)
        b[0:2].mul_(2.0)
        out["base's earlier"] = base_tangent
    return {k: v if isinstance(v, bool) else v.numpy().copy() for k, v in out.items()}


def test_tangents_of_views_bases_and_given_tensors_follow_pytorch():
    got, want = _chain(lg), _chain(pytorch)
    assert got.keys() == want.keys()
    for key in want:
        if isinstance(want[key], bool):
            assert got[key] == want[key], key
        else:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-6, err_msg=key)


def test_a_read_only_tangent_is_replaced_not_written():
    with lg.autograd.forward_ad.dual_level():
        fixed = lg.ones(3).expand(2, 3)  # stride 0: no room for six values
        x = lg.autograd.forward_ad.make_dual(lg.zeros(2, 3), fixed)
        x.mul_(lg.tensor([[1.0], [2.0]]))
        np.testing.assert_array_equal(fixed.numpy(), np.ones((2, 3)))
        np.testing.assert_array_equal(_tangent(lg, x).numpy(), [[1, 1, 1], [2, 2, 2]])
