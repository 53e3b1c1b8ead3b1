"""torch.utils.tensorboard.SummaryWriter: the event files TensorBoard reads, read back and
compared with what PyTorch's writer makes of the same calls."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import leafgrad

LIBS = [leafgrad]
if importlib.util.find_spec("torch") is not None:
    import torch

    LIBS.append(torch)


def _read(path):
    acc = EventAccumulator(str(path), size_guidance={"tensors": 0, "images": 0})
    acc.Reload()
    return acc


def _writer(m):
    # a submodule imported by name, as in PyTorch (torch.utils does not import it)
    return importlib.import_module(m.__name__ + ".utils.tensorboard").SummaryWriter


def _log(m, log_dir):
    from_lib = _writer(m)
    values = np.linspace(-2.0, 3.0, 101)
    with from_lib(str(log_dir)) as writer:
        for step in range(4):
            writer.add_scalar("loss/train", m.tensor(1.0 / (step + 1)), step)
        writer.add_scalar("plain", 2.5, 7)
        writer.add_histogram("weights", m.tensor(values), 3)
        writer.add_histogram("coarse", m.tensor(values), 3, bins=10, max_bins=4)
        writer.add_text("note", "u_xx + f = 0", 1)
        writer.add_image("field", m.tensor(np.linspace(0, 1, 48).reshape(3, 4, 4)), 2)
        writer.add_images("batch", m.tensor(np.ones((3, 1, 2, 2))), 2)
        writer.add_scalars("parts", {"pde": 0.25, "bc": 0.5}, 5)
        writer.add_hparams(
            {"lr": 1e-3, "optimizer": "adam", "layers": 4},
            {"hparam/l2_error": 0.02},
            hparam_domain_discrete={"optimizer": ["adam", "lbfgs"]},
            run_name="trial",
        )


@pytest.fixture
def logs(tmp_path):
    out = {}
    for m in LIBS:
        _log(m, tmp_path / m.__name__)
        out[m.__name__] = tmp_path / m.__name__
    return out


def test_scalars_histograms_text_and_images_read_back(logs):
    acc = _read(logs["leafgrad"])
    assert [(e.step, e.value) for e in acc.Scalars("loss/train")] == [
        (0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3)), (3, 0.25)
    ]  # fmt: skip
    assert [(e.step, e.value) for e in acc.Scalars("plain")] == [(7, 2.5)]
    histo = acc.Histograms("weights")[0].histogram_value
    assert (histo.num, histo.min, histo.max) == (101, -2.0, 3.0)
    assert sum(histo.bucket) == 101
    text = acc.Tensors("note/text_summary")[0].tensor_proto.string_val[0]
    assert text.decode() == "u_xx + f = 0"
    image = acc.Images("field")[0]
    assert (image.height, image.width) == (4, 4)
    assert (acc.Images("batch")[0].height, acc.Images("batch")[0].width) == (2, 6)
    runs = sorted(os.listdir(logs["leafgrad"]))
    assert "parts_pde" in runs and "parts_bc" in runs
    assert [e.value for e in _read(logs["leafgrad"] / "parts_bc").Scalars("parts")] == [0.5]
    trial = _read(logs["leafgrad"] / "trial")
    assert [e.value for e in trial.Scalars("hparam/l2_error")] == [pytest.approx(0.02)]
    assert "_hparams_/session_start_info" in trial.summary_metadata


def test_hparams_records_as_pytorchs(logs):
    if "torch" not in logs:
        pytest.skip("PyTorch is not installed")
    ours, theirs = _read(logs["leafgrad"] / "trial"), _read(logs["torch"] / "trial")
    for tag in ("_hparams_/experiment", "_hparams_/session_start_info"):
        a = ours.summary_metadata[tag].plugin_data.content
        b = theirs.summary_metadata[tag].plugin_data.content
        assert a == b


def test_the_same_records_as_pytorchs_writer(logs):
    if "torch" not in logs:
        pytest.skip("PyTorch is not installed")
    ours, theirs = _read(logs["leafgrad"]), _read(logs["torch"])
    assert ours.Tags() == theirs.Tags()
    for tag in ("loss/train", "plain"):
        assert [(e.step, e.value) for e in ours.Scalars(tag)] == [
            (e.step, e.value) for e in theirs.Scalars(tag)
        ]
    for tag in ("weights", "coarse"):
        a, b = ours.Histograms(tag)[0].histogram_value, theirs.Histograms(tag)[0].histogram_value
        assert list(a.bucket) == list(b.bucket)
        np.testing.assert_allclose(a.bucket_limit, b.bucket_limit, rtol=1e-12)
        assert (a.min, a.max, a.num) == (b.min, b.max, b.num)
        assert a.sum == pytest.approx(b.sum) and a.sum_squares == pytest.approx(b.sum_squares)
    a, b = ours.Images("field")[0], theirs.Images("field")[0]
    assert (a.height, a.width) == (b.height, b.width)


def test_default_log_dir_and_refusals(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = _writer(leafgrad)(comment="_adam")
    assert writer.get_logdir().startswith("runs" + os.sep)
    assert writer.get_logdir().endswith("_adam")
    with pytest.raises(RuntimeError, match="add_graph"):
        writer.add_graph(leafgrad.nn.Linear(2, 1))
    with pytest.raises(AssertionError):
        writer.add_scalar("bad", leafgrad.ones(2), 0)  # one number only, as in PyTorch
    writer.close()
