"""leafgrad.save / leafgrad.load: bit-exact round trips, atomic writes, no code on load."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import leafgrad
from leafgrad import nn, serialization

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SHAPES = [(), (0,), (5,), (2, 3, 4), (0, 3), (1, 1, 1)]


def _random_array(dtype_name: str, shape, seed: int = 0) -> np.ndarray:
    """Arbitrary bit patterns: NaN payloads, signed zeros, infinities and subnormals included."""
    dtype = np.dtype(dtype_name)
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _tensor(array: np.ndarray, requires_grad: bool = False) -> leafgrad.Tensor:
    t = leafgrad.from_numpy(array.copy())
    return t.requires_grad_() if requires_grad else t


# ----------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_tensor_round_trips_bit_for_bit(dtype_name, shape, tmp_path):
    array = _random_array(dtype_name, shape)
    leafgrad.save(_tensor(array), tmp_path / "t.lg")
    loaded = leafgrad.load(tmp_path / "t.lg")
    assert isinstance(loaded, leafgrad.Tensor)
    assert loaded.dtype == getattr(leafgrad, dtype_name)
    assert tuple(loaded.shape) == shape
    assert _same_bits(loaded.numpy(), array)
    assert not loaded.requires_grad


@pytest.mark.parametrize("dtype_name", ["float16", "float32", "float64"])
def test_requires_grad_is_preserved_and_loaded_tensors_are_leaves(dtype_name, tmp_path):
    x = _tensor(_random_array(dtype_name, (3,)), requires_grad=True)
    y = x * 2  # a non-leaf saves as a leaf that requires grad, as in PyTorch
    (y.sum() if dtype_name != "float16" else y.float().sum()).backward()
    leafgrad.save([x, y, x.detach()], tmp_path / "t.lg")
    a, b, c = leafgrad.load(tmp_path / "t.lg")
    assert a.requires_grad and a.is_leaf and a.grad is None
    assert b.requires_grad and b.is_leaf
    assert not c.requires_grad
    assert _same_bits(a.detach().numpy(), x.detach().numpy())


def test_non_contiguous_tensor_round_trips(tmp_path):
    array = np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)
    assert not array.flags.c_contiguous
    leafgrad.save(leafgrad.from_numpy(array), tmp_path / "t.lg")
    loaded = leafgrad.load(tmp_path / "t.lg")
    assert _same_bits(loaded.numpy(), np.ascontiguousarray(array))


def test_nested_structures_round_trip_with_their_types(tmp_path):
    w = _tensor(_random_array("float32", (2, 3)), requires_grad=True)
    obj = {
        "model": OrderedDict([("layer.weight", w), ("layer.bias", _tensor(np.zeros(3)))]),
        "optimizer": {
            "state": {0: {"step": _tensor(np.array(3.0, np.float32)), "buf": [None, w]}},
            "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "nesterov": False, "params": [0]}],
        },
        "numbers": [0, -1, 2**70, 1.5, -0.0, math.inf, -math.inf, 5e-324, 0.1 + 0.2],
        "flags": (True, False, None),
        "text": "héllo ∂ 🦀",
        "bytes": b"\x00\xffraw",
        ("tuple", 1): "tuple key",
        2.5: "float key",
        None: "none key",
        "empty": [[], (), {}],
        "size": leafgrad.Size([2, 3]),
        "dtype": leafgrad.float64,
        "counter": Counter({3: 2, 7: 1}),
        "ndarray": np.arange(4, dtype=np.int16),
        "numpy_scalar": np.float32(1.25),
    }
    leafgrad.save(obj, tmp_path / "ck.lg")
    loaded = leafgrad.load(tmp_path / "ck.lg")

    assert list(loaded) == list(obj)
    assert type(loaded["model"]) is OrderedDict
    assert list(loaded["model"]) == ["layer.weight", "layer.bias"]
    assert loaded["model"]["layer.weight"].requires_grad
    assert loaded["optimizer"]["param_groups"] == obj["optimizer"]["param_groups"]
    assert type(loaded["optimizer"]["param_groups"][0]["betas"]) is tuple
    assert loaded["optimizer"]["state"][0]["buf"][0] is None
    numbers = loaded["numbers"]
    assert [type(n) for n in numbers] == [type(n) for n in obj["numbers"]]
    assert [float.hex(float(n)) for n in numbers] == [float.hex(float(n)) for n in obj["numbers"]]
    assert loaded["flags"] == (True, False, None) and type(loaded["flags"][0]) is bool
    assert loaded["text"] == obj["text"]
    assert loaded["bytes"] == obj["bytes"]
    assert loaded[("tuple", 1)] == "tuple key"
    assert loaded[2.5] == "float key"
    assert loaded[None] == "none key"
    assert loaded["empty"] == [[], (), {}]
    assert type(loaded["size"]) is leafgrad.Size and loaded["size"] == (2, 3)
    assert loaded["dtype"] is leafgrad.float64
    assert type(loaded["counter"]) is Counter and loaded["counter"] == obj["counter"]
    assert _same_bits(loaded["ndarray"], obj["ndarray"])
    assert type(loaded["numpy_scalar"]) is np.float32 and loaded["numpy_scalar"] == 1.25


def test_nan_floats_keep_their_bits(tmp_path):
    leafgrad.save({"nan": math.nan}, tmp_path / "n.lg")
    assert math.isnan(leafgrad.load(tmp_path / "n.lg")["nan"])


def test_a_tensor_saved_twice_loads_as_one_tensor(tmp_path):
    w = _tensor(np.ones(3), requires_grad=True)
    leafgrad.save({"a": w, "b": [w]}, tmp_path / "t.lg")
    loaded = leafgrad.load(tmp_path / "t.lg")
    assert loaded["a"] is loaded["b"][0]


def test_loaded_tensors_are_writable_and_independent(tmp_path):
    array = np.arange(3, dtype=np.float64)
    leafgrad.save(_tensor(array), tmp_path / "t.lg")
    first = leafgrad.load(tmp_path / "t.lg")
    second = leafgrad.load(tmp_path / "t.lg")
    assert first.numpy().flags.writeable
    first.numpy()[0] = 42.0
    assert second.numpy()[0] == 0.0


def test_binary_file_objects_round_trip():
    buffer = io.BytesIO()
    leafgrad.save({"x": _tensor(np.arange(3.0))}, buffer)
    buffer.seek(0)
    loaded = leafgrad.load(buffer)
    assert loaded["x"].tolist() == [0.0, 1.0, 2.0]


def test_string_and_pathlike_paths_both_work(tmp_path):
    leafgrad.save(1, str(tmp_path / "a.lg"))
    leafgrad.save(2, tmp_path / "b.lg")
    assert leafgrad.load(str(tmp_path / "b.lg")) == 2
    assert leafgrad.load(tmp_path / "a.lg") == 1


def test_the_file_is_an_npz_archive_with_a_json_manifest(tmp_path):
    leafgrad.save({"w": _tensor(np.ones(2))}, tmp_path / "t.lg")
    with np.load(tmp_path / "t.lg", allow_pickle=False) as archive:
        manifest = json.loads(archive[serialization.MANIFEST_KEY].tobytes())
        assert manifest["format"] == "leafgrad.save"
        arrays = [k for k in archive.files if k != serialization.MANIFEST_KEY]
        assert len(arrays) == 1


def test_unsupported_objects_raise_type_error_and_leave_no_file(tmp_path):
    with pytest.raises(TypeError, match="object"):
        leafgrad.save({"fn": object()}, tmp_path / "t.lg")
    with pytest.raises(TypeError, match=r"lambda|function"):
        leafgrad.save([lambda: 0], tmp_path / "t.lg")
    with pytest.raises(TypeError, match="dtype"):
        leafgrad.save(np.array([object()]), tmp_path / "t.lg")
    assert os.listdir(tmp_path) == []


def test_a_container_holding_itself_raises_value_error(tmp_path):
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="cycle"):
        leafgrad.save(loop, tmp_path / "t.lg")


# ----------------------------------------------------------------------------- atomicity
def _checkpoint(value: float):
    return {"w": _tensor(np.full(1000, value)), "epoch": int(value)}


def test_save_replaces_the_old_file_and_leaves_nothing_else(tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    leafgrad.save(_checkpoint(2.0), path)
    assert os.listdir(tmp_path) == ["ck.lg"]
    assert leafgrad.load(path)["epoch"] == 2


def test_save_interrupted_midway_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    old_bytes = path.read_bytes()
    real_writer = serialization._write_archive

    def crash_after_half(fileobj, arrays):
        scratch = io.BytesIO()
        real_writer(scratch, arrays)
        fileobj.write(scratch.getvalue()[: len(scratch.getvalue()) // 2])
        raise KeyboardInterrupt("simulated crash mid-save")

    monkeypatch.setattr(serialization, "_write_archive", crash_after_half)
    with pytest.raises(KeyboardInterrupt):
        leafgrad.save(_checkpoint(2.0), path)
    assert os.listdir(tmp_path) == ["ck.lg"]  # no temporary file left behind
    assert path.read_bytes() == old_bytes
    loaded = leafgrad.load(path)
    assert loaded["epoch"] == 1 and loaded["w"].numpy()[0] == 1.0


def test_a_failure_before_the_rename_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(serialization.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        leafgrad.save(_checkpoint(2.0), path)
    assert os.listdir(tmp_path) == ["ck.lg"]
    assert leafgrad.load(path)["epoch"] == 1


def test_save_into_a_missing_directory_raises_and_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        leafgrad.save(1, tmp_path / "missing" / "ck.lg")
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------------------- hostile files
class _Sentinel:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _assert_refused(path, *patterns):
    with pytest.raises(ValueError) as info:
        leafgrad.load(path)
    message = str(info.value)
    assert os.fspath(path) in message or os.path.basename(path) in message
    for pattern in patterns:
        assert pattern in message, message
    return message


def test_loading_a_text_file_raises_value_error_naming_it(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some text\n")
    _assert_refused(path, "not a leafgrad checkpoint")


def test_loading_an_empty_file_raises_value_error(tmp_path):
    path = tmp_path / "empty.lg"
    path.write_bytes(b"")
    _assert_refused(path, "empty")


def test_loading_a_pickle_executes_nothing(tmp_path):
    sentinel = tmp_path / "pwned"
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps({"x": _Sentinel(sentinel)}))
    assert pickle.loads(path.read_bytes()) is not None and sentinel.exists()  # it is armed
    sentinel.unlink()
    _assert_refused(path, "pickle")
    assert not sentinel.exists()


def test_loading_a_torch_style_zip_pickle_executes_nothing(tmp_path):
    sentinel = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(_Sentinel(sentinel)))
        archive.writestr("archive/version", "3\n")
    _assert_refused(path, "pickle")
    assert not sentinel.exists()


def test_an_object_array_in_a_checkpoint_is_never_unpickled(tmp_path):
    sentinel = tmp_path / "pwned"
    path = tmp_path / "ck.lg"
    leafgrad.save({"w": _tensor(np.ones(2))}, path)
    with np.load(path, allow_pickle=False) as archive:
        members = {k: archive[k] for k in archive.files}
    payload = np.empty(1, dtype=object)
    payload[0] = _Sentinel(sentinel)
    members["a0"] = payload
    with open(path, "wb") as fh:
        np.savez(fh, **members)  # pickles the object array, as an attacker would
    _assert_refused(path, "a0")
    assert not sentinel.exists()


def test_loading_a_truncated_checkpoint_raises_value_error(tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 30):
        path.write_bytes(data[:cut])
        _assert_refused(path)


def test_loading_a_checkpoint_with_corrupted_data_raises_value_error(tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save(_checkpoint(1.0), path)
    data = bytearray(path.read_bytes())
    marker = np.full(1000, 1.0).tobytes()[:64]
    at = bytes(data).index(marker) + 10
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    _assert_refused(path, "damaged")


def _rewrite_manifest(path, edit):
    with np.load(path, allow_pickle=False) as archive:
        members = {k: archive[k] for k in archive.files}
    manifest = json.loads(members[serialization.MANIFEST_KEY].tobytes())
    manifest = edit(manifest)
    text = manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode()
    members[serialization.MANIFEST_KEY] = np.frombuffer(text, dtype=np.uint8)
    with open(path, "wb") as fh:
        np.savez(fh, **members)


@pytest.mark.parametrize(
    ("edit", "pattern"),
    [
        (lambda m: {**m, "root": {"kind": "function", "name": "os.system"}}, "unknown"),
        (lambda m: {**m, "root": {"kind": "tensor", "array": "a99"}}, "missing array"),
        (lambda m: {**m, "root": {"kind": "int", "value": "1"}}, "int"),
        (lambda m: {**m, "root": {"kind": "list", "items": 3}}, "list"),
        (lambda m: {**m, "format": "something else"}, "format"),
        (lambda m: {**m, "version": 99}, "newer"),
        (lambda m: b"{not json", "manifest"),
        (
            lambda m: {
                **m,
                "root": {
                    "kind": "dict",
                    "items": [[{"kind": "list", "items": []}, {"kind": "none"}]],
                },
            },
            "unhashable",
        ),
    ],
    ids=[
        "unknown_kind",
        "missing_array",
        "bad_int",
        "bad_items",
        "format",
        "version",
        "json",
        "key",
    ],
)
def test_a_tampered_manifest_raises_value_error(edit, pattern, tmp_path):
    path = tmp_path / "ck.lg"
    leafgrad.save({"w": _tensor(np.ones(2))}, path)
    _rewrite_manifest(path, edit)
    _assert_refused(path, pattern)


def test_a_plain_npz_without_manifest_raises_value_error(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, x=np.ones(3))
    _assert_refused(path, "manifest")


def test_a_bare_npy_file_raises_value_error(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.ones(3))
    _assert_refused(path, ".npy")


def test_loading_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        leafgrad.load(tmp_path / "nope.lg")


def test_parameters_load_as_parameters(tmp_path):
    weight = nn.Parameter(_tensor(np.arange(4.0)))
    frozen = nn.Parameter(_tensor(np.ones(2)), requires_grad=False)
    leafgrad.save({"weight": weight, "frozen": frozen}, tmp_path / "p.lg")
    loaded = leafgrad.load(tmp_path / "p.lg")
    assert type(loaded["weight"]) is nn.Parameter and loaded["weight"].requires_grad
    assert type(loaded["frozen"]) is nn.Parameter and not loaded["frozen"].requires_grad
    assert _same_bits(loaded["weight"].detach().numpy(), np.arange(4.0))
