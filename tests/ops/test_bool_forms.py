"""Forms PyTorch accepts that leafgrad raised on: sign of bools, zero_/fill_ of bool tensors,
and repeat_interleave of the repeats alone; and those it refuses that leafgrad computed:
abs, floor, ceil, trunc, round and trace of bools."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["sign", "sgn"])
def test_sign_of_a_bool_tensor_is_itself(name):
    values = [True, False, True]
    ours = getattr(lg, name)(lg.tensor(values))
    theirs = getattr(torch, name)(torch.tensor(values))
    assert str(ours.dtype) == str(theirs.dtype) == "torch.bool"
    assert ours.tolist() == theirs.tolist() == values


def test_sign_of_a_bool_tensor_is_a_new_tensor():
    x = lg.tensor([True, False])
    y = lg.sign(x)
    y.zero_()
    assert x.tolist() == [True, False]


def test_zero_and_fill_of_bool_tensors_as_in_torch():
    for lib in (lg, torch):
        a = lib.tensor([True, False, True])
        a.zero_()
        assert a.tolist() == [False, False, False]
        a.fill_(True)
        assert a.tolist() == [True, True, True]
        assert str(a.dtype) == "torch.bool"


@pytest.mark.parametrize("repeats", [[2, 0, 1], [0, 0], [3], []])
def test_repeat_interleave_of_the_repeats_alone(repeats):
    ours = lg.repeat_interleave(lg.tensor(repeats, dtype=lg.int64))
    theirs = torch.repeat_interleave(torch.tensor(repeats, dtype=torch.int64))
    assert str(ours.dtype) == str(theirs.dtype) == "torch.int64"
    assert ours.tolist() == theirs.tolist()


def test_repeat_interleave_of_the_repeats_alone_refuses_what_torch_refuses():
    for bad in (lg.tensor([1.0, 2.0]), lg.tensor([[1, 2]]), lg.tensor([1, -1])):
        with pytest.raises(RuntimeError, match="repeat_interleave"):
            lg.repeat_interleave(bad)
    np.testing.assert_array_equal(lg.repeat_interleave(lg.tensor([1, 2]), 2).numpy(), [1, 1, 2, 2])


@pytest.mark.parametrize(
    "call",
    [
        "x.abs()",
        "x.abs_()",
        "m.absolute(x)",
        "abs(x)",
        "x.floor()",
        "x.floor_()",
        "x.ceil()",
        "x.trunc()",
        "x.fix()",
        "x.round()",
        "x.round(decimals=2)",
        "m.trace(x.reshape(2, 2))",
    ],
)
def test_ops_pytorch_has_no_bool_kernel_for_raise_not_implemented(call):
    for m in (lg, torch):
        names = {"m": m, "x": m.tensor([True, False, True, True])}
        with pytest.raises(NotImplementedError):
            eval(call, names)
    # the same ops on integers and floats still run
    assert lg.tensor([-2, 3]).abs().tolist() == [2, 3]
    assert lg.tensor([1.5, -1.5]).floor().tolist() == [1.0, -2.0]
