"""Anomaly mode: NaN in backward names the node and the user's forward source line."""

import inspect
import warnings

import pytest

import leafgrad as lg
from leafgrad.autograd import Function


def _line_of(marker: str) -> int:
    source, start = inspect.getsourcelines(_nan_backward_graph)
    for offset, line in enumerate(source):
        if marker in line:
            return start + offset
    raise AssertionError(marker)


def _nan_backward_graph():
    x = lg.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()  # MARK-SQRT: d/dx sqrt at 0 is inf, times 0 from the mul below gives nan
    z = (y * 0.0).sum()
    return x, z


def test_nan_in_backward_raises_naming_the_node_and_the_forward_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with lg.autograd.detect_anomaly():
            x, z = _nan_backward_graph()
            with pytest.raises(RuntimeError) as info:
                z.backward()
    message = str(info.value)
    assert "SqrtBackward0" in message and "nan" in message
    assert f"line {_line_of('MARK-SQRT')}" in message
    assert "MARK-SQRT" in message  # the source text of that line
    assert x.grad is None


def test_without_anomaly_mode_nan_gradients_pass_silently():
    x, z = _nan_backward_graph()
    z.backward()
    assert str(x.grad.tolist()[0]) == "nan"


def test_detect_anomaly_warns_and_restores_state_as_decorator_too():
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        ctx = lg.autograd.detect_anomaly()
    with ctx:
        assert lg.autograd.is_anomaly_enabled()
    assert not lg.autograd.is_anomaly_enabled()

    with pytest.warns(UserWarning):

        @lg.autograd.detect_anomaly(check_nan=False)
        def inner():
            return lg.autograd.is_anomaly_enabled(), lg.autograd.is_anomaly_check_nan_enabled()

    assert inner() == (True, False)
    assert not lg.autograd.is_anomaly_enabled()


def test_set_detect_anomaly_takes_effect_at_once_and_restores_on_exit():
    with lg.autograd.set_detect_anomaly(True):
        assert lg.autograd.is_anomaly_enabled()
    assert not lg.autograd.is_anomaly_enabled()
    lg.autograd.set_detect_anomaly(True)
    try:
        assert lg.autograd.is_anomaly_enabled()
    finally:
        lg.autograd.set_detect_anomaly(False)


def test_an_error_in_a_backward_warns_with_the_forward_trace_then_raises():
    class Broken(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("broken backward")

    x = lg.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with lg.autograd.detect_anomaly():
            y = Broken.apply(x).exp()
    with lg.autograd.set_detect_anomaly(True):
        with pytest.warns(UserWarning, match="Error detected in BrokenBackward"):
            with pytest.raises(ValueError, match="broken backward"):
                y.sum().backward()


def test_anomaly_mode_off_records_no_traceback():
    x = lg.tensor([1.0], requires_grad=True)
    y = x * 2
    assert not (y.grad_fn.metadata_ or {}).get("traceback_")


def _modified_after_use(m):
    a = m.ones(5, requires_grad=True)
    d1 = a + 1
    d2 = d1**2
    d1 += 1
    return a, d2


def test_an_error_in_backward_is_reported_as_a_warning_then_raised(torch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            a, d2 = _modified_after_use(torch)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                torch.autograd.grad(d2.sum(), a)
    messages = [str(w.message) for w in caught]
    assert "Anomaly Detection has been enabled" in messages[0]
    assert "Error detected in PowBackward0" in messages[1]


def test_with_warnings_as_errors_the_report_goes_to_stderr(torch, capsys):
    with warnings.catch_warnings():
        with torch.autograd.detect_anomaly():
            warnings.simplefilter("error")
            a, d2 = _modified_after_use(torch)
            # the backward error itself, not the warning, reaches the caller
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                torch.autograd.grad(d2.sum(), a)
    assert "Error detected in PowBackward0" in capsys.readouterr().err


def test_a_node_made_outside_anomaly_mode_has_no_forward_information(torch):
    x = torch.zeros(2, requires_grad=True)
    z = (x.sqrt() * 0.0).sum()  # nan in backward
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            with pytest.raises(
                RuntimeError, match="'SqrtBackward0' returned nan values in its 0th"
            ):
                z.backward()
    assert any("No forward pass information" in str(w.message) for w in caught)
