"""nn.grad (convolution gradients), DataParallel and SyncBatchNorm in one process, and
nn.factory_kwargs, as PyTorch's."""

import numpy as np
import pytest

import leafgrad as lg

from ._compare import assert_close, copy_weights

RNG = np.random.default_rng(17)
CONV = [
    (1, (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (2, (2, 4, 6, 6), (6, 2, 3, 3), {"stride": (2, 1), "padding": (0, 1), "dilation": (1, 2),
                                     "groups": 2}),
    (3, (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"padding": 1}),
]  # fmt: skip


@pytest.mark.parametrize("nd, input_shape, weight_shape, kwargs", CONV)
def test_conv_input_and_weight_gradients_match_pytorch(nd, input_shape, weight_shape, kwargs):
    torch = pytest.importorskip("torch")
    x, w = RNG.standard_normal(input_shape), RNG.standard_normal(weight_shape)
    conv = getattr(torch.nn.functional, f"conv{nd}d")
    grad_output = RNG.standard_normal(tuple(conv(torch.tensor(x), torch.tensor(w), **kwargs).shape))
    for lib in (lg, torch):
        assert lib.nn.functional.grad is lib.nn.grad
    for which, args in (
        ("input", (x.shape, w, grad_output)),
        ("weight", (x, w.shape, grad_output)),
    ):
        results = []
        for lib in (lg, torch):
            call = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
            results.append(getattr(lib.nn.grad, f"conv{nd}d_{which}")(*call, **kwargs))
        assert_close(*results)


def test_data_parallel_calls_its_module(torch):
    wrapped = torch.nn.DataParallel(torch.nn.Linear(2, 3))
    assert wrapped.device_ids == [] and list(wrapped.state_dict()) == [
        "module.weight",
        "module.bias",
    ]
    x = torch.ones(4, 2)
    np.testing.assert_array_equal(wrapped(x).detach().numpy(), wrapped.module(x).detach().numpy())


def test_sync_batch_norm_is_a_batch_norm_in_one_process():
    torch = pytest.importorskip("torch")
    ours, theirs = lg.nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((4, 3, 2, 5))
    for _ in range(2):
        assert_close(ours(lg.tensor(x)), theirs(torch.tensor(x)))
    assert_close(ours.running_var, theirs.running_var)
    ours.eval(), theirs.eval()
    assert_close(ours(lg.tensor(x[:, :, 0])), theirs(torch.tensor(x[:, :, 0])))
    with pytest.raises(ValueError, match="expected at least 2D input"):
        ours(lg.zeros(3))


def test_convert_sync_batchnorm_shares_the_parameters(torch):
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    converted = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted[1]) is torch.nn.SyncBatchNorm
    assert converted[1].weight is model[1].weight


def test_factory_kwargs(torch):
    assert torch.nn.factory_kwargs(None) == {}
    merged = torch.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": torch.float64}})
    assert merged == {"device": "cpu", "dtype": torch.float64}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        torch.nn.factory_kwargs({"foo": 1})
    with pytest.raises(TypeError, match="specified twice"):
        torch.nn.factory_kwargs(
            {"dtype": torch.float64, "factory_kwargs": {"dtype": torch.float32}}
        )
