"""Inference tensors: what inference_mode makes, and what they refuse outside it."""

import pytest

import leafgrad as lg

CASES = {
    "requires_grad_": lambda x, y: y.requires_grad_(),
    "saved_for_backward": lambda x, y: x * y,
    "not_saved": lambda x, y: x + y,
    "inplace": lambda x, y: y.add_(1),
    "plain_op": lambda x, y: y * 2,
    "view": lambda x, y: y.view(2),
}


def _outcome(lib, name):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.inference_mode():
        y = x * 2
        z = lib.ones(2)
    facts = (y.is_inference(), z.is_inference(), x.is_inference(), y.requires_grad)
    try:
        r = CASES[name](x, y)
    except RuntimeError:
        return facts, "RuntimeError"
    return facts, (r.is_inference(), r.requires_grad)


@pytest.mark.parametrize("name", list(CASES))
def test_inference_tensors_behave_like_torchs(name):
    torch = pytest.importorskip("torch")
    assert _outcome(lg, name) == _outcome(torch, name)


def test_inside_inference_mode_everything_is_allowed():
    with lg.inference_mode():
        y = lg.ones(2)
        y.add_(1)
        assert y.is_inference() and y.tolist() == [2.0, 2.0]
