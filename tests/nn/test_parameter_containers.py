"""ParameterList and ParameterDict register their parameters as PyTorch's do."""

import pytest

import leafgrad


def _names(lib):
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.plist = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3)])
            self.pdict = lib.nn.ParameterDict({"a": lib.nn.Parameter(lib.ones(1))})
            self.pdict["b"] = lib.zeros(2)
            self.plist.append(lib.ones(1))

    m = Model()
    params = dict(m.named_parameters())
    kinds = {k: (type(v).__name__, v.requires_grad, tuple(v.shape)) for k, v in params.items()}
    return kinds, len(m.plist), list(m.pdict.keys()), list(m.state_dict())


def test_parameter_containers_register_like_torch():
    torch = pytest.importorskip("torch")
    assert _names(leafgrad) == _names(torch)


def test_parameters_in_a_list_train():
    plist = leafgrad.nn.ParameterList([leafgrad.ones(2, requires_grad=False)])
    opt = leafgrad.optim.SGD(plist.parameters(), lr=0.5)
    loss = (plist[0] * 3).sum()
    loss.backward()
    opt.step()
    assert plist[0].tolist() == [-0.5, -0.5]


def test_parameter_list_rejects_non_tensors():
    with pytest.raises(TypeError):
        leafgrad.nn.ParameterList([1.0])
