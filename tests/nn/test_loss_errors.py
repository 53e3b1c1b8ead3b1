"""Bad loss inputs raise PyTorch's exception types (each case runs with leafgrad and with
PyTorch); leafgrad's messages name the loss and the shapes."""

import pytest

import leafgrad
from leafgrad import nn

# (id, call(torch) -> loss, exception type); every call is wrong in one way.
CASES = [
    (
        "mse_not_broadcastable",
        lambda t: t.nn.functional.mse_loss(t.ones(4), t.ones(3)),
        RuntimeError,
    ),
    ("l1_not_broadcastable", lambda t: t.nn.L1Loss()(t.ones(2, 4), t.ones(3)), RuntimeError),
    (
        "bad_reduction",
        lambda t: t.nn.functional.mse_loss(t.ones(4), t.ones(4), reduction="avg"),
        ValueError,
    ),
    (
        "bad_reduction_module",
        lambda t: t.nn.MSELoss(reduction="avg")(t.ones(2), t.ones(2)),
        ValueError,
    ),
    (
        "weight_shape",
        lambda t: t.nn.functional.mse_loss(t.ones(4), t.ones(4), weight=t.ones(2)),
        ValueError,
    ),
    (
        "huber_delta",
        lambda t: t.nn.functional.huber_loss(t.ones(2), t.ones(2), delta=0.0),
        RuntimeError,
    ),
    (
        "smooth_l1_beta",
        lambda t: t.nn.functional.smooth_l1_loss(t.ones(2), t.ones(2), beta=-1.0),
        RuntimeError,
    ),
    ("bce_shape", lambda t: t.nn.BCELoss()(t.full((4,), 0.5), t.ones(4, 1)), ValueError),
    ("bce_range", lambda t: t.nn.BCELoss()(t.tensor([1.5, 0.5]), t.ones(2)), RuntimeError),
    ("bce_nan", lambda t: t.nn.BCELoss()(t.tensor([float("nan")]), t.ones(1)), RuntimeError),
    ("bce_logits_shape", lambda t: t.nn.BCEWithLogitsLoss()(t.ones(4), t.ones(4, 1)), ValueError),
    ("ce_batch", lambda t: t.nn.CrossEntropyLoss()(t.ones(4, 3), t.tensor([0, 1, 2])), ValueError),
    ("nll_batch", lambda t: t.nn.NLLLoss()(t.ones(4, 3), t.tensor([0, 1, 2])), ValueError),
    (
        "ce_out_of_bounds",
        lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3), t.tensor([0, 3])),
        IndexError,
    ),
    (
        "ce_negative_target",
        lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3), t.tensor([0, -1])),
        IndexError,
    ),
    ("nll_out_of_bounds", lambda t: t.nn.NLLLoss()(t.ones(2, 3), t.tensor([5, 0])), IndexError),
    (
        "ce_spatial_target",
        lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3, 5), t.zeros(2, 6, dtype=t.int64)),
        RuntimeError,
    ),
    (
        "ce_int32_target",
        lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3), t.tensor([0, 1], dtype=t.int32)),
        RuntimeError,
    ),
    (
        "ce_long_probabilities",
        lambda t: t.nn.CrossEntropyLoss()(t.ones(2, 3), t.zeros(2, 3, dtype=t.int64)),
        RuntimeError,
    ),
    (
        "ce_probabilities_ignore",
        lambda t: t.nn.CrossEntropyLoss(ignore_index=1)(t.ones(2, 3), t.ones(2, 3)),
        RuntimeError,
    ),
    (
        "ce_weight",
        lambda t: t.nn.CrossEntropyLoss(weight=t.ones(2))(t.ones(2, 3), t.tensor([0, 1])),
        RuntimeError,
    ),
    (
        "ce_label_smoothing",
        lambda t: t.nn.CrossEntropyLoss(label_smoothing=1.5)(t.ones(2, 3), t.tensor([0, 1])),
        RuntimeError,
    ),
    (
        "mse_integers",
        lambda t: t.nn.MSELoss()(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int64)),
        NotImplementedError,
    ),
]


@pytest.mark.parametrize(("call", "error"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_loss_inputs_raise_pytorchs_exception_type(torch, call, error):
    with pytest.raises(error):
        call(torch)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: nn.MSELoss()(leafgrad.ones(4), leafgrad.ones(3)), ["mse_loss", "[4]", "[3]"]),
        (
            lambda: nn.BCELoss()(leafgrad.full((4,), 0.5), leafgrad.ones(4, 1)),
            ["binary_cross_entropy", "[4, 1]", "[4]"],
        ),
        (
            lambda: nn.BCEWithLogitsLoss()(leafgrad.ones(4), leafgrad.ones(4, 1)),
            ["binary_cross_entropy_with_logits", "[4, 1]"],
        ),
        (
            lambda: nn.CrossEntropyLoss()(leafgrad.ones(4, 3), leafgrad.tensor([0, 1, 2])),
            ["cross_entropy", "4", "3"],
        ),
        (
            lambda: nn.NLLLoss()(
                leafgrad.ones(2, 3, 5), leafgrad.zeros(2, 6, dtype=leafgrad.int64)
            ),
            ["nll_loss", "[2, 5]", "[2, 6]"],
        ),
        (
            lambda: nn.HuberLoss(delta=-1.0)(leafgrad.ones(1), leafgrad.ones(1)),
            ["huber_loss", "delta"],
        ),
    ],
)
def test_loss_error_messages_name_the_loss_and_shapes(call, words):
    with pytest.raises((RuntimeError, ValueError)) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_legacy_size_average_and_reduce_warn_and_map_to_a_reduction(torch):
    x = torch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="size_average and reduce"):
        total = torch.nn.functional.mse_loss(x, torch.zeros(2), size_average=False)
    assert total.item() == 5.0
    with pytest.warns(UserWarning):
        loss = torch.nn.L1Loss(reduce=False)
    assert loss.reduction == "none"
