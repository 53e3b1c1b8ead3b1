"""``nn.functional``'s dispatch helpers, TorchScript names and notes, and the refused float8
matmuls, compared with torch's."""

import pytest

import leafgrad as lg
import leafgrad.nn.functional as F


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_plain_tensors_have_no_torch_function(torch):
    for m, f in ((lg, F), (torch, torch.nn.functional)):
        x = m.ones(2)
        assert f.has_torch_function((x, 1)) is False
        assert f.has_torch_function_unary(x) is False
        assert f.has_torch_function_variadic(x, x, None) is False


def test_an_overriding_argument_is_dispatched_to():
    calls = []

    class Logged:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            return "handled"

    x = Logged()
    assert F.has_torch_function_variadic(lg.ones(1), x)
    assert F.handle_torch_function(F.relu, (x,), x) == "handled"
    assert calls == ["relu"]


def test_handle_torch_function_without_an_implementation_raises_type_error():
    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(TypeError, match="no implementation found for 'relu'"):
        F.handle_torch_function(F.relu, (Declines(),), Declines())


def test_boolean_dispatch_picks_by_keyword_position_or_default(torch):
    def with_indices(x, flag=False):
        return ("with", x)

    def without(x, flag=False):
        """Documented."""
        return ("without", x)

    for f in (F, torch.nn.functional):
        fn = f.boolean_dispatch("flag", 1, False, with_indices, without, "mod", "pick")
        assert fn(3) == ("without", 3)
        assert fn(3, True) == ("with", 3)
        assert fn(3, flag=True) == ("with", 3)
        assert fn.__name__ == "pick" and fn.__doc__ == "Documented."


def test_assert_int_or_pair_and_typing_names(torch):
    for f in (F, torch.nn.functional):
        f.assert_int_or_pair(3, "kernel", "{} must be an int or a pair")
        f.assert_int_or_pair((1, 2), "kernel", "{} must be an int or a pair")
        with pytest.raises(AssertionError, match="kernel must be"):
            f.assert_int_or_pair((1, 2, 3), "kernel", "{} must be an int or a pair")
        assert f.DType is int and f.BroadcastingList2[int] is None
    theirs = torch.nn.functional
    assert {k: int(v) for k, v in F.ScalingType.__members__.items()} == {
        k: int(v) for k, v in theirs.ScalingType.__members__.items()
    }
    assert list(F.SwizzleType.__members__) == list(theirs.SwizzleType.__members__)
    for notes in ("reproducibility_notes", "sparse_support_notes", "tf32_notes"):
        assert getattr(F, notes).keys() == getattr(theirs, notes).keys()


@pytest.mark.parametrize("name", ["scaled_mm", "scaled_grouped_mm", "grouped_mm"])
def test_float8_matmuls_are_refused_naming_what_is_missing(name):
    with pytest.raises(RuntimeError, match="float8"):
        getattr(F, name)(lg.ones(2, 2), lg.ones(2, 2))
