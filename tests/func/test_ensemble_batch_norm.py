"""BatchNorm under vmap against PyTorch: an ensemble's stacked running statistics are
updated per member in training; unbatched ones are refused with PyTorch's words."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg
from tests._tolerance import assert_close


def _ensemble(m, x, in_dims):
    m.manual_seed(0)
    models = [m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4)) for _ in range(3)]
    params, buffers = m.func.stack_module_state(models)

    def member(p, b, x):
        return m.func.functional_call(models[0], (p, b), (x,))

    out = m.func.vmap(member, in_dims=(0, 0, in_dims))(params, buffers, m.tensor(x))
    return out, buffers


@pytest.mark.parametrize("in_dims,shape", [(None, (5, 3)), (0, (3, 5, 3))])
def test_ensemble_training_updates_each_members_running_stats(in_dims, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours, our_buffers = _ensemble(lg, x, in_dims)
    theirs, their_buffers = _ensemble(torch, x, in_dims)
    assert_close(ours.detach().numpy(), theirs.detach().numpy(), "iterative")
    assert list(our_buffers) == list(their_buffers)
    for name, value in their_buffers.items():
        assert our_buffers[name].dtype == getattr(lg, str(value.dtype).split(".")[1])
        assert_close(our_buffers[name].numpy(), value.numpy(), "iterative")


def test_unbatched_running_stats_under_vmap_raise_pytorchs_error():
    for m in (lg, torch):
        norm = m.nn.BatchNorm1d(3)
        with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input"):
            m.func.vmap(norm, in_dims=1)(m.randn(5, 2, 3))
