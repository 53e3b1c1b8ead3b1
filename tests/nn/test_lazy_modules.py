"""Lazy modules, uninitialised parameters and buffers, nn.Buffer and the deprecated
Container / NLLLoss2d, behaving as PyTorch's."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

LAZY = [
    (lambda m: m.nn.LazyLinear(3), (2, 4)),
    (lambda m: m.nn.LazyConv1d(4, 3, bias=False), (2, 5)),
    (lambda m: m.nn.LazyConv2d(4, 3, padding=1), (1, 2, 5, 5)),
    (lambda m: m.nn.LazyConv3d(2, 2), (1, 3, 3, 3, 3)),
    (lambda m: m.nn.LazyConvTranspose1d(3, 2), (1, 2, 4)),
    (lambda m: m.nn.LazyConvTranspose2d(4, 3, groups=2), (1, 2, 5, 5)),
    (lambda m: m.nn.LazyConvTranspose3d(2, 2), (1, 2, 3, 3, 3)),
    (lambda m: m.nn.LazyBatchNorm1d(), (4, 3)),
    (lambda m: m.nn.LazyBatchNorm2d(affine=False), (2, 3, 2, 2)),
    (lambda m: m.nn.LazyBatchNorm3d(bias=False), (2, 3, 2, 2, 2)),
    (lambda m: m.nn.LazyInstanceNorm1d(), (2, 3, 4)),
    (lambda m: m.nn.LazyInstanceNorm2d(affine=False, track_running_stats=False), (2, 3, 4, 4)),
    (lambda m: m.nn.LazyInstanceNorm3d(), (2, 3, 2, 2, 2)),
]


def _layout(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


@pytest.mark.parametrize("make, shape", LAZY)
def test_lazy_module_infers_its_sizes_and_becomes_the_eager_class(torch, make, shape):
    module = make(torch)
    waiting = module.has_uninitialized_params()  # an instance norm without affine waits for none
    before = repr(module)
    assert before.startswith("Lazy")
    module(torch.ones(*shape))
    assert not type(module).__name__.startswith("Lazy")
    assert type(module) is getattr(torch.nn, type(module).__name__)
    assert (repr(module) != before[4:]) == waiting


@pytest.mark.parametrize("make, shape", LAZY)
def test_lazy_module_repr_and_state_dict_match_pytorch(make, shape):
    pt = pytest.importorskip("torch")
    ours, theirs = make(lg), make(pt)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours(lg.ones(*shape))
    theirs(pt.ones(*shape))
    assert repr(ours) == repr(theirs)
    assert _layout(ours) == _layout(theirs)


def test_lazy_linear_takes_dtype_and_loads_a_state_dict(torch):
    layer = torch.nn.LazyLinear(3).double()
    layer(torch.ones(2, 4, dtype=torch.float64))
    assert layer.weight.dtype == torch.float64
    source = torch.nn.Linear(4, 3)
    lazy = torch.nn.LazyLinear(3)
    lazy.load_state_dict(source.state_dict())
    assert tuple(lazy.weight.shape) == (3, 4) and not lazy.has_uninitialized_params()
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), source.weight.detach().numpy())
    out = lazy(torch.ones(1, 4))
    assert type(lazy) is torch.nn.Linear and tuple(out.shape) == (1, 3)


def test_uninitialized_parameter_and_buffer(torch):
    param = torch.nn.UninitializedParameter()
    assert repr(param) == "<UninitializedParameter>" and param.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = param.shape
    param.materialize((2, 3))
    assert type(param) is torch.nn.Parameter and tuple(param.shape) == (2, 3)
    buffer = torch.nn.UninitializedBuffer()
    assert repr(buffer) == "<UninitializedBuffer>" and not buffer.requires_grad
    buffer.materialize((4,))
    assert type(buffer) is torch.Tensor and tuple(buffer.shape) == (4,)


def test_buffer_assignment_registers_a_buffer(torch):
    module = torch.nn.Module()
    module.kept = torch.nn.Buffer(torch.ones(2))
    module.scratch = torch.nn.Buffer(torch.zeros(1), persistent=False)
    assert isinstance(module.kept, torch.nn.Buffer) and not isinstance(
        torch.ones(1), torch.nn.Buffer
    )
    assert [name for name, _ in module.named_buffers()] == ["kept", "scratch"]
    assert list(module.state_dict()) == ["kept"]


def test_deprecated_container_and_nllloss2d_warn(torch):
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        box = torch.nn.Container(a=torch.nn.Linear(2, 2))
    assert [name for name, _ in box.named_children()] == ["a"]
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        loss = torch.nn.NLLLoss2d()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logp = torch.log_softmax(torch.ones(1, 3, 2, 2), 1)
        assert float(loss(logp, torch.zeros(1, 2, 2, dtype=torch.int64))) == pytest.approx(
            np.log(3)
        )
