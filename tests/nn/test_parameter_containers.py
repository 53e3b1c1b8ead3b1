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


def _container_behaviour(lib):
    """What scripts see of the containers: entries, order, methods, repr, errors."""
    plist = lib.nn.ParameterList([lib.ones(2), lib.nn.Parameter(lib.zeros(3)), 5])
    plist += [lib.ones(1, dtype=lib.float64)]
    seen = [
        repr(plist),
        len(plist[1:]),
        type(plist[1:]).__name__,
        [n for n, _ in plist.named_parameters()],
        plist[2],
        "append" in dir(plist) and "0" not in dir(plist),
    ]
    with pytest.raises(IndexError, match="index 9 is out of range"):
        plist[9]
    pdict = lib.nn.ParameterDict({"b": lib.ones(2), "a": lib.zeros(1), "c": "text"})
    pdict |= lib.nn.ParameterDict({"d": lib.ones(1)})
    seen += [
        list(pdict),  # a plain dict is taken in sorted key order
        repr(pdict),
        pdict.get("z", 7),
        pdict.setdefault("e", lib.ones(3)).shape,
        pdict.pop("a").shape,
        pdict.popitem()[0],
        list(reversed(pdict)),
        list(pdict.copy()),
        list(pdict.fromkeys(["x", "y"], lib.ones(1))),
        [n for n, _ in pdict.named_parameters()],
    ]
    pdict.update([("z", lib.zeros(1))])
    seen.append(list(pdict))
    with pytest.raises(RuntimeError, match="should not be called"):
        pdict(1)
    pdict.clear()
    seen.append(len(pdict))
    with pytest.raises(TypeError, match="cannot be used as a key as it is not a string"):
        pdict[1] = lib.ones(1)
    return seen


def test_parameter_containers_behave_as_torchs():
    torch = pytest.importorskip("torch")
    ours = _container_behaviour(leafgrad)
    assert ours[0].splitlines()[1] == "    (0): Parameter containing: [torch.float32 of size 2]"
    assert ours == _container_behaviour(torch)
