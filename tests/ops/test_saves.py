"""Each op saves what PyTorch saves, and its rules read the values of nothing else.

The rules of every op-table sample run (first and second order) with the inputs their node
did not save replaced by stand-ins that know only their shape and dtype: a rule reading such
a value raises, so a declaration (``saves=``) cannot claim less than its rules use.
"""

import pytest

import leafgrad as lg
from leafgrad._engine import saved as saved_module
from leafgrad._tensor import Tensor, _wrap

from .test_op_table import IDS, SAMPLES


class _Unsaved(saved_module._FreedArray):
    """An input the node did not save: its shape and dtype only."""

    def _freed(self, *args, **kwargs):
        raise AssertionError(f"{self._op} read the values of an input it does not save")

    __array__ = __array_ufunc__ = __array_function__ = _freed
    __getitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = __index__ = _freed
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _freed
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __abs__ = _freed
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _freed
    __hash__ = object.__hash__

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self._freed()


@pytest.fixture
def strict_saves(monkeypatch):
    """Unpacking gives stand-ins for the tensors a node holds but did not save."""
    unpack = saved_module.SavedTensors.unpack

    def strict_unpack(self, owner):
        values = unpack(self, owner)
        if self._from_ctx or self.released:
            return values
        return tuple(
            _wrap(_Unsaved(v._data.shape, v._data.dtype, owner), v._requires_grad)
            if isinstance(v, Tensor) and not self.is_saved(i)
            else v
            for i, v in enumerate(values)
        )

    monkeypatch.setattr(saved_module.SavedTensors, "unpack", strict_unpack)


def _run_rules(sample, wanted):
    """Forward, then first- and second-order gradients for the inputs in ``wanted`` only (the
    others are constants, so guarded saves are left out)."""
    inputs = [x if i in wanted else x.detach() for i, x in enumerate(sample.inputs())]
    out = sample.fn(*inputs)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
    if not outs:
        return
    wrt = [inputs[i] for i in wanted]
    grads = lg.autograd.grad([o.sum() for o in outs], wrt, create_graph=True, allow_unused=True)
    second = [g.sum() for g in grads if g is not None and g.requires_grad]
    if second and sample.gradgrad:
        lg.autograd.grad(second, wrt, allow_unused=True)


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_rules_read_the_values_only_of_what_their_op_saves(sample, strict_saves):
    n = len(sample.inputs())
    _run_rules(sample, set(range(n)))
    if n > 1:  # each input alone: the saves guarded by the others' needs are left out
        for i in range(n):
            _run_rules(sample, {i})
