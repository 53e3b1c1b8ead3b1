"""Dropout: zeros a fraction p and rescales while training, identity in eval().
Each test runs with leafgrad and with PyTorch (see conftest.py)."""

import numpy as np
import pytest


def test_dropout_zeros_about_p_and_scales_the_rest(torch):
    drop = torch.nn.Dropout(p=0.3)
    x = torch.ones(200_000)
    y = np.asarray(drop(x).numpy())
    assert np.mean(y == 0) == pytest.approx(0.3, abs=0.005)
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)


def test_dropout_gradient_is_the_scaled_mask(torch):
    x = torch.randn(1000, requires_grad=True)
    y = torch.nn.functional.dropout(x, p=0.5)
    y.sum().backward()
    kept = np.asarray(y.detach().numpy()) != 0
    np.testing.assert_allclose(np.asarray(x.grad.numpy()), np.where(kept, 2.0, 0.0), rtol=1e-6)


def test_dropout_in_eval_mode_is_the_identity(torch):
    drop = torch.nn.Dropout(p=0.9)
    drop.eval()
    x = torch.randn(10)
    assert drop(x) is x


def test_eval_on_a_model_turns_its_dropout_off(torch):
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    x = torch.randn(3, 4)
    model.eval()
    assert model(x).tolist() == model(x).tolist()
    model.train()
    assert model[1].training


def test_dropout_extremes(torch):
    x = torch.randn(50, requires_grad=True)
    assert torch.nn.functional.dropout(x, p=0.0) is x
    y = torch.nn.functional.dropout(x, p=1.0)
    assert y.tolist() == [0.0] * 50 and y.requires_grad


def test_dropout_is_reproducible_under_manual_seed(torch):
    x = torch.ones(100)
    torch.manual_seed(11)
    a = torch.nn.functional.dropout(x).tolist()
    torch.manual_seed(11)
    assert torch.nn.functional.dropout(x).tolist() == a


def test_dropout_probability_outside_0_1_raises_value_error(torch):
    with pytest.raises(ValueError):
        torch.nn.Dropout(p=1.5)
    with pytest.raises(ValueError):
        torch.nn.functional.dropout(torch.ones(2), p=-0.1)


def test_dropout_keeps_dtype(torch):
    assert torch.nn.Dropout()(torch.ones(4, dtype=torch.float64)).dtype == torch.float64
