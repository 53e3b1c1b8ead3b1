"""Small public autograd API PyTorch code uses: Variable, constants, process-wide anomaly mode."""

import math
import threading

import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")


def test_variable_makes_plain_leaf_tensors(torch):
    t = torch.ones(2)
    v = torch.autograd.Variable(t, requires_grad=True)
    assert v is not t and v.requires_grad and not t.requires_grad and v.is_leaf
    assert isinstance(t, torch.autograd.Variable) and type(v) is torch.Tensor
    assert torch.autograd.Variable().shape == (0,)
    assert torch.autograd.Variable(torch.ones(2, requires_grad=True) * 2).grad_fn is None
    with pytest.raises(TypeError):
        torch.autograd.Variable([1.0])


def test_constants_and_predicates(torch):
    assert (torch.pi, torch.e) == (math.pi, math.e)
    assert torch.inf == math.inf and math.isnan(torch.nan) and torch.newaxis is None
    assert torch.is_floating_point(torch.ones(1)) and not torch.is_floating_point(torch.arange(2))
    assert not torch.is_inference(torch.ones(1))
    with torch.inference_mode():
        assert torch.is_inference(torch.ones(1))
    assert torch.typename(torch.ones(1, dtype=torch.float64)) == "torch.DoubleTensor"
    assert torch.typename(3) == "int"


def test_anomaly_mode_is_process_wide_while_grad_mode_is_per_thread(torch):
    seen = {}

    def look():
        seen["anomaly"] = torch.is_anomaly_enabled()
        seen["grad"] = torch.is_grad_enabled()

    with torch.autograd.set_detect_anomaly(True), torch.no_grad():
        worker = threading.Thread(target=look)
        worker.start()
        worker.join()
    assert seen == {"anomaly": True, "grad": True}
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


def test_set_multithreading_enabled_is_a_context_manager_and_decorator(torch):
    with torch.autograd.set_multithreading_enabled(False):
        x = torch.ones(2, requires_grad=True)
        (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    @torch.autograd.set_multithreading_enabled(False)
    def double(t):
        return t * 2

    assert double(torch.ones(1)).tolist() == [2.0]
