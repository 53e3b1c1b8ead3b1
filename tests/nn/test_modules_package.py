"""``nn.modules`` has PyTorch's layout: each submodule holds the same classes (private bases
included), the package re-exports them, the size helpers agree, and the quantization
packages name their classes but refuse to build them."""

import importlib
import inspect
from collections import OrderedDict

import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg
import leafgrad.nn as nn

SUBMODULES = [
    "activation", "adaptive", "batchnorm", "channelshuffle", "container", "conv", "distance",
    "dropout", "flatten", "fold", "instancenorm", "lazy", "linear", "loss", "module",
    "normalization", "padding", "pixelshuffle", "pooling", "rnn", "sparse", "transformer",
    "upsampling", "utils",
]  # fmt: skip


@pytest.mark.parametrize("sub", SUBMODULES)
def test_submodule_holds_pytorchs_public_classes(sub):
    theirs = importlib.import_module(f"torch.nn.modules.{sub}")
    ours = importlib.import_module(f"leafgrad.nn.modules.{sub}")
    names = [
        n for n, o in vars(theirs).items()
        if inspect.isclass(o) and o.__module__ == theirs.__name__ and not n.startswith("_")
    ]  # fmt: skip
    missing = [n for n in names if not hasattr(ours, n)]
    assert missing == []
    for n in names:
        assert getattr(ours, n) is getattr(nn, n, getattr(ours, n))


def test_private_bases_scripts_subclass_are_importable():
    from leafgrad.nn.modules import Module
    from leafgrad.nn.modules.batchnorm import _BatchNorm
    from leafgrad.nn.modules.conv import _ConvNd
    from leafgrad.nn.modules.loss import _Loss, _WeightedLoss

    assert Module is nn.Module
    assert issubclass(nn.BatchNorm2d, _BatchNorm)
    assert issubclass(nn.Conv2d, _ConvNd)
    assert issubclass(nn.MSELoss, _Loss) and issubclass(nn.NLLLoss, _WeightedLoss)

    class Halved(_Loss):
        def forward(self, a, b):
            return ((a - b) ** 2).sum() / 2 if self.reduction == "sum" else ((a - b) ** 2).mean()

    assert Halved(reduction="sum")(lg.ones(3), lg.zeros(3)).item() == 1.5


def test_package_all_covers_pytorchs():
    import torch.nn.modules as theirs

    assert set(theirs.__all__) <= set(nn.modules.__all__)
    assert nn.modules.Linear is nn.Linear and nn.modules.loss.MSELoss is nn.MSELoss


@pytest.mark.parametrize(
    "value",
    [3, (1, 2), [4, 5, 6], range(2)],
)
def test_size_helpers_agree(value):
    from torch.nn.modules import utils as tu

    from leafgrad.nn.modules import utils as lu

    for name in ("_single", "_pair", "_triple", "_quadruple"):
        assert getattr(lu, name)(value) == getattr(tu, name)(value)
    assert lu._ntuple(5, "five")(value) == tu._ntuple(5, "five")(value)


def test_reverse_repeat_and_list_with_default_agree():
    from torch.nn.modules import utils as tu

    from leafgrad.nn.modules import utils as lu

    assert lu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    args = ([None, 3, None], [9, 8, 7, 6])
    assert lu._list_with_default(*args) == tu._list_with_default(*args)
    assert lu._list_with_default(5, [1, 2]) == tu._list_with_default(5, [1, 2])
    with pytest.raises(ValueError, match="at least 2"):
        lu._list_with_default([None], [3])
    with pytest.raises(ValueError, match="at least 2"):
        tu._list_with_default([None], [3])


def test_consume_prefix_strips_keys_and_metadata_as_pytorch():
    from torch.nn.modules import utils as tu

    from leafgrad.nn.modules import utils as lu

    def state():
        sd = OrderedDict([("module.w", 1), ("module.sub.b", 2), ("other", 3)])
        sd._metadata = OrderedDict([("", {}), ("module", {"v": 1}), ("module.sub", {"v": 2})])
        return sd

    ours, theirs = state(), state()
    lu.consume_prefix_in_state_dict_if_present(ours, "module.")
    tu.consume_prefix_in_state_dict_if_present(theirs, "module.")
    assert list(ours.items()) == list(theirs.items())
    assert list(ours._metadata.items()) == list(theirs._metadata.items())


def test_common_types_name_the_same_aliases():
    import torch.nn.common_types as tct

    names = [n for n in vars(tct) if n.startswith("_") and n.endswith("_t")]
    assert names and all(hasattr(nn.common_types, n) for n in names)
    assert nn.common_types._size_2_t == tct._size_2_t


@pytest.mark.parametrize("package", ["quantized", "qat", "quantizable", "intrinsic"])
def test_quantization_classes_exist_and_refuse_to_build(package):
    theirs = importlib.import_module(f"torch.nn.{package}")
    ours = getattr(nn, package)
    names = getattr(theirs, "__all__", None) or ["LSTM", "LSTMCell", "MultiheadAttention"]
    assert all(hasattr(ours, n) for n in names)
    cls = getattr(ours, names[0])
    assert cls.__doc__.startswith("Refused on purpose")
    with pytest.raises(NotImplementedError, match="no quantized tensors"):
        cls(4, 4)
