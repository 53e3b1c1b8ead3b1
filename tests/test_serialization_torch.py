"""PyTorch checkpoints both ways: torch.save files load safely; format="torch" loads in PyTorch."""

import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import leafgrad

torch = pytest.importorskip("torch")


def _same(ours, theirs) -> None:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()  # a copy of the same bits


def test_a_file_written_by_pytorch_loads_with_equal_tensors(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    checkpoint = {
        "model": model.state_dict(),
        "optimizer_step": 7,
        "lr": 1e-3,
        "name": "run-1",
        "param": torch.nn.Parameter(torch.randn(2, 2, dtype=torch.float64)),
        "frozen": torch.nn.Parameter(torch.ones(3), requires_grad=False),
        "ints": torch.arange(5, dtype=torch.int32),
        "strided": torch.arange(12.0).reshape(3, 4).t()[1:],
        "half": torch.tensor([1.5, -2.25], dtype=torch.float16),
        "mask": torch.tensor([True, False]),
        "grad": torch.ones(2, requires_grad=True),
        "nested": [(1, 2.5), {"a": None, "b": torch.zeros(0)}],
        "size": torch.Size([2, 3]),
        "dtype": torch.float64,
        "device": torch.device("cpu"),
        "raw": b"\x00\xff",
    }
    torch.save(checkpoint, tmp_path / "ck.pt")
    loaded = leafgrad.load(tmp_path / "ck.pt")
    assert set(loaded) == set(checkpoint)
    assert list(loaded["model"]) == list(checkpoint["model"])
    for key, value in checkpoint["model"].items():
        _same(loaded["model"][key], value)
    for key in ("param", "frozen", "ints", "strided", "half", "mask", "grad"):
        _same(loaded[key], checkpoint[key])
        assert loaded[key].requires_grad == checkpoint[key].requires_grad
    assert type(loaded["param"]) is leafgrad.nn.Parameter
    assert type(loaded["frozen"]) is leafgrad.nn.Parameter
    assert loaded["nested"][0] == (1, 2.5) and loaded["nested"][1]["a"] is None
    assert loaded["nested"][1]["b"].shape == (0,)
    assert loaded["size"] == leafgrad.Size([2, 3]) and loaded["dtype"] is leafgrad.float64
    assert loaded["device"] == leafgrad.device("cpu")
    assert (loaded["optimizer_step"], loaded["lr"], loaded["name"], loaded["raw"]) == (
        7, 1e-3, "run-1", b"\x00\xff",
    )  # fmt: skip
    leafgrad.nn.Sequential(
        leafgrad.nn.Linear(3, 4), leafgrad.nn.Tanh(), leafgrad.nn.Linear(4, 1)
    ).load_state_dict(loaded["model"])


def test_bfloat16_loads_exactly_as_float32(tmp_path):
    values = torch.tensor([1.0, -2.5, 3.140625], dtype=torch.bfloat16)
    torch.save({"w": values}, tmp_path / "ck.pt")
    loaded = leafgrad.load(tmp_path / "ck.pt")["w"]
    assert loaded.dtype == leafgrad.float32
    assert loaded.tolist() == values.float().tolist()


class _Sentinel:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _torch_archive_with(tmp_path, payload) -> str:
    """A zip laid out like torch.save's, whose data.pkl pickles ``payload``."""
    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("evil/data.pkl", pickle.dumps(payload, protocol=2))
        archive.writestr("evil/version", "3\n")
    return path


def test_a_malicious_global_is_refused_by_name_and_nothing_runs(tmp_path):
    sentinel = tmp_path / "pwned"
    path = _torch_archive_with(tmp_path, {"model": _Sentinel(sentinel)})
    with pytest.raises(ValueError, match=r"global io\.open") as info:
        leafgrad.load(path)
    assert str(path) in str(info.value)
    assert not sentinel.exists()
    with pytest.raises(pickle.UnpicklingError):  # PyTorch's weights_only loader refuses it too
        torch.load(path, weights_only=True)
    assert not sentinel.exists()


def test_os_system_through_reduce_is_refused(tmp_path):
    class Shell:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    with pytest.raises(ValueError, match="system"):
        leafgrad.load(_torch_archive_with(tmp_path, [Shell()]))
    assert not (tmp_path / "pwned").exists()


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_a_sparse_tensor_is_refused_as_unrepresentable(tmp_path):
    sparse = torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,))
    torch.save({"s": sparse}, tmp_path / "ck.pt")
    with pytest.raises(ValueError, match="sparse"):
        leafgrad.load(tmp_path / "ck.pt")


def test_the_legacy_format_gets_a_clear_message(tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match="legacy"):
        leafgrad.load(tmp_path / "old.pt")


def test_a_storage_shorter_than_it_claims_is_refused(tmp_path):
    torch.save({"w": torch.ones(4)}, tmp_path / "ck.pt")
    with zipfile.ZipFile(tmp_path / "ck.pt") as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    key = next(n for n in members if "/data/" in n)
    members[key] = members[key][:8]
    with zipfile.ZipFile(tmp_path / "ck.pt", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="storage"):
        leafgrad.load(tmp_path / "ck.pt")


def test_format_torch_is_read_by_pytorch_with_weights_only(tmp_path):
    leafgrad.manual_seed(0)
    model = leafgrad.nn.Sequential(
        leafgrad.nn.Linear(2, 5), leafgrad.nn.Tanh(), leafgrad.nn.Linear(5, 1)
    ).double()
    obj = {
        "model": model.state_dict(),
        "epoch": 4,
        "history": [0.5, 0.25],
        "param": leafgrad.nn.Parameter(leafgrad.ones(3)),
        "strided": leafgrad.arange(6.0).reshape(2, 3).t(),
        "ints": leafgrad.tensor([1, 2], dtype=leafgrad.int32),
        "grad": leafgrad.ones(2, requires_grad=True),
        "dtype": leafgrad.float16,
        "size": leafgrad.Size([4]),
    }
    leafgrad.save(obj, tmp_path / "ck.pt", format="torch")
    back = torch.load(tmp_path / "ck.pt", weights_only=True)
    assert back["epoch"] == 4 and back["history"] == [0.5, 0.25]
    assert back["dtype"] is torch.float16 and back["size"] == torch.Size([4])
    for key in ("param", "strided", "ints", "grad"):
        _same(obj[key], back[key])
        assert back[key].requires_grad == obj[key].requires_grad
    assert isinstance(back["param"], torch.nn.Parameter)
    twin = torch.nn.Sequential(torch.nn.Linear(2, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1))
    twin.double().load_state_dict(back["model"])
    x = np.random.default_rng(1).standard_normal((4, 2))
    np.testing.assert_allclose(  # the same weights; two libraries' kernels round apart
        twin(torch.tensor(x)).detach().numpy(),
        model(leafgrad.tensor(x)).detach().numpy(),
        rtol=1e-12,
        atol=1e-15,
    )
    # ... and back again, through leafgrad's reader.
    again = leafgrad.load(tmp_path / "ck.pt")
    _same(again["strided"], obj["strided"])


def test_format_torch_writes_atomically_to_paths_and_to_file_objects(tmp_path):
    buffer = io.BytesIO()
    leafgrad.save({"w": leafgrad.ones(2)}, buffer, format="torch")
    buffer.seek(0)
    assert torch.load(buffer, weights_only=True)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(TypeError):
        leafgrad.save({"f": lambda: 0}, tmp_path / "ck.pt", format="torch")
    assert os.listdir(tmp_path) == []  # nothing half-written
    with pytest.raises(ValueError, match="format"):
        leafgrad.save(1, tmp_path / "ck.pt", format="pickle")
