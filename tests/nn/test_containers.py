"""Sequential, ModuleList, ModuleDict; each test runs with leafgrad and with PyTorch."""

from collections import OrderedDict

import pytest


def test_sequential_chains_modules_in_order(torch):
    seq = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Tanh(), torch.nn.Flatten(0))
    x = torch.tensor([[0.5, -1.0]])
    assert seq(x).tolist() == torch.tanh(x).flatten().tolist()


def test_sequential_from_ordered_dict_keeps_names(torch):
    seq = torch.nn.Sequential(
        OrderedDict([("fc", torch.nn.Linear(2, 3)), ("act", torch.nn.ReLU())])
    )
    assert [n for n, _ in seq.named_children()] == ["fc", "act"]
    assert seq.fc is seq[0]
    assert [n for n, _ in seq.named_parameters()] == ["fc.weight", "fc.bias"]


def test_sequential_indexing_slicing_and_length(torch):
    layers = [torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1)]
    seq = torch.nn.Sequential(*layers)
    assert len(seq) == 3 and seq[-1] is layers[2] and list(seq) == layers
    head = seq[:2]
    assert type(head) is torch.nn.Sequential and list(head) == layers[:2]
    with pytest.raises(IndexError):
        seq[3]


def test_sequential_append_insert_setitem_and_delete_renumber(torch):
    a, b, c = torch.nn.Tanh(), torch.nn.ReLU(), torch.nn.Sigmoid()
    seq = torch.nn.Sequential(a)
    assert seq.append(c) is seq
    seq.insert(1, b)
    assert list(seq) == [a, b, c] and list(seq._modules) == ["0", "1", "2"]
    del seq[0]
    assert list(seq) == [b, c] and list(seq._modules) == ["0", "1"]
    seq[1] = a
    assert list(seq) == [b, a]
    seq.extend([c])
    assert len(seq) == 3


def test_sequential_pop_add_and_multiply(torch):
    a, b, c = torch.nn.Tanh(), torch.nn.ReLU(), torch.nn.Sigmoid()
    seq = torch.nn.Sequential(a, b, c)
    assert seq.pop(0) is a and list(seq) == [b, c] and list(seq._modules) == ["0", "1"]
    both = seq + torch.nn.Sequential(a)
    assert type(both) is torch.nn.Sequential and list(both) == [b, c, a] and len(seq) == 2
    twice = 2 * seq
    assert list(twice) == [b, c, b, c] and list(twice._modules) == ["0", "1", "2", "3"]
    seq *= 2
    assert list(seq) == [b, c, b, c]
    seq += torch.nn.Sequential(a)
    assert list(seq._modules) == ["0", "1", "2", "3", "4"] and seq[4] is a
    with pytest.raises(ValueError, match="supports only objects of Sequential class"):
        seq + a
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        seq * 0
    with pytest.raises(TypeError, match="unsupported operand"):
        seq * 1.5


def test_empty_sequential_is_the_identity(torch):
    x = torch.ones(2)
    assert torch.nn.Sequential()(x) is x


def test_module_list_registers_its_modules(torch):
    ml = torch.nn.ModuleList([torch.nn.Linear(1, 1) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    assert [n for n, _ in ml.named_parameters()][:2] == ["0.weight", "0.bias"]


def test_module_list_list_operations(torch):
    a, b, c = torch.nn.Tanh(), torch.nn.ReLU(), torch.nn.Sigmoid()
    ml = torch.nn.ModuleList()
    ml.append(a)
    ml.extend([c])
    ml.insert(1, b)
    assert list(ml) == [a, b, c] and ml[-1] is c
    assert type(ml[1:]) is torch.nn.ModuleList and list(ml[1:]) == [b, c]
    ml[0] = c
    assert ml[0] is c
    assert ml.pop(0) is c and list(ml) == [b, c]
    ml += [a]
    assert list(ml) == [b, c, a]
    assert list(ml + torch.nn.ModuleList([a])) == [b, c, a, a]
    with pytest.raises(IndexError):
        ml[5]
    with pytest.raises(TypeError):
        ml.extend(3)


def test_module_list_in_a_module_exposes_its_parameters(torch):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"
    ]  # fmt: skip
    assert net(torch.ones(3, 2)).shape == (3, 1)


def test_module_dict_mapping_operations(torch):
    md = torch.nn.ModuleDict({"a": torch.nn.Tanh(), "b": torch.nn.Linear(1, 1)})
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
    assert list(md) == ["a", "b"]
    md["c"] = torch.nn.ReLU()
    assert [k for k, _ in md.items()] == ["a", "b", "c"]
    assert isinstance(md.pop("a"), torch.nn.Tanh) and list(md) == ["b", "c"]
    del md["c"]
    md.update([("d", torch.nn.Sigmoid())])
    assert list(md) == ["b", "d"]
    assert len(list(md.values())) == 2
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    md.clear()
    assert len(md) == 0
    with pytest.raises(ValueError):
        md.update([("x", torch.nn.Tanh(), 1)])
