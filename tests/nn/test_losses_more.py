"""KL, Gaussian/Poisson NLL, margin and embedding losses against PyTorch, to second order."""

import warnings

import numpy as np
import pytest

from ._compare import assert_close, to_numpy

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((4, 5))
Z = RNG.standard_normal((4, 5))
SIGN4 = np.array([1.0, -1.0, -1.0, 1.0])
SIGN45 = np.where(RNG.standard_normal((4, 5)) > 0, 1.0, -1.0)
PROBS = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
COUNTS = np.array([[0.0, 1, 2, 3, 7]] * 4)
LABELS = (RNG.random((4, 5)) > 0.5).astype(float)

# (name, args as arrays: differentiable first ones marked by the index set, kwargs)
CASES = [
    ("kl_div", [X, PROBS], {"reduction": "batchmean"}),
    ("kl_div", [X, Y], {"reduction": "sum", "log_target": True}),
    ("kl_div", [X, PROBS], {"reduction": "none"}),
    ("gaussian_nll_loss", [X, Y, np.abs(Z) + 0.1], {}),
    ("gaussian_nll_loss", [X, Y, np.abs(Z[:, 0]) + 0.1], {"full": True, "reduction": "sum"}),
    ("gaussian_nll_loss", [X, Y, np.abs(Z[:, :1]) + 0.1], {"reduction": "none"}),
    ("poisson_nll_loss", [X, COUNTS], {}),
    ("poisson_nll_loss", [np.abs(X) + 0.5, COUNTS], {"log_input": False, "full": True}),
    ("margin_ranking_loss", [X[:, 0], Y[:, 0], SIGN4], {"margin": 0.3}),
    ("hinge_embedding_loss", [X, SIGN45], {"margin": 0.5, "reduction": "sum"}),
    ("cosine_embedding_loss", [X, Y, SIGN4], {"margin": -0.2}),
    ("cosine_embedding_loss", [X, Y, SIGN4], {"reduction": "none"}),
    ("soft_margin_loss", [X, SIGN45], {}),
    ("multilabel_soft_margin_loss", [X, LABELS], {"weight": np.arange(1.0, 6.0)}),
    ("multi_margin_loss", [X, np.array([0, 3, 4, 1])], {}),
    ("multi_margin_loss", [X, np.array([0, 3, 4, 1])],
     {"p": 2, "margin": 0.7, "weight": np.arange(1.0, 6.0), "reduction": "none"}),
    ("multi_margin_loss", [X[0], np.array(2)], {}),
    ("triplet_margin_loss", [X, Y, Z], {}),
    ("triplet_margin_loss", [X, Y, Z], {"swap": True, "p": 1, "margin": 2.0}),
]  # fmt: skip

N_DIFFERENTIABLE = {"margin_ranking_loss": 2, "cosine_embedding_loss": 2, "triplet_margin_loss": 3,
                    "gaussian_nll_loss": 3}  # fmt: skip


def _as(lib, value, requires_grad):
    if isinstance(value, np.ndarray) and value.dtype.kind == "i":
        return lib.tensor(value)
    return lib.tensor(np.asarray(value, dtype=float), requires_grad=requires_grad)


@pytest.mark.parametrize("name, args, kwargs", CASES)
def test_loss_function_matches_pytorch_to_second_order(name, args, kwargs):
    torch = pytest.importorskip("torch")
    import leafgrad

    n_diff = N_DIFFERENTIABLE.get(name, 1)
    results = []
    for lib in (leafgrad, torch):
        tensors = [_as(lib, a, i < n_diff) for i, a in enumerate(args)]
        kw = {k: _as(lib, v, False) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = getattr(lib.nn.functional, name)(*tensors, **kw)
        inputs = tensors[:n_diff]
        seed = lib.tensor(np.cos(np.arange(loss.numel())).reshape(tuple(loss.shape)))
        grads = lib.autograd.grad((loss * seed).sum(), inputs, create_graph=True)
        if name == "multi_margin_loss":  # PyTorch has no double backward for it
            second = []
        elif any(g.requires_grad for g in grads):
            second = lib.autograd.grad(
                sum((g * g).sum() for g in grads), inputs, allow_unused=True,
                materialize_grads=True,
            )  # fmt: skip
        else:  # the gradient does not depend on the inputs (kl_div): no second derivative
            second = [lib.zeros_like(t) for t in inputs]
        results.append([loss, *grads, *second])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)


MODULES = [
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, "kl_div", [X, Y]),
    ("GaussianNLLLoss", {"full": True, "eps": 0.5}, "gaussian_nll_loss", [X, Y, np.abs(Z)]),
    ("PoissonNLLLoss", {"log_input": False, "eps": 1e-3}, "poisson_nll_loss",
     [np.abs(X), COUNTS]),
    ("MarginRankingLoss", {"margin": 0.1}, "margin_ranking_loss", [X[:, 0], Y[:, 0], SIGN4]),
    ("HingeEmbeddingLoss", {}, "hinge_embedding_loss", [X, SIGN45]),
    ("CosineEmbeddingLoss", {"reduction": "sum"}, "cosine_embedding_loss", [X, Y, SIGN4]),
    ("SoftMarginLoss", {}, "soft_margin_loss", [X, SIGN45]),
    ("MultiLabelSoftMarginLoss", {}, "multilabel_soft_margin_loss", [X, LABELS]),
    ("MultiMarginLoss", {"p": 2}, "multi_margin_loss", [X, np.array([0, 3, 4, 1])]),
    ("TripletMarginLoss", {"swap": True}, "triplet_margin_loss", [X, Y, Z]),
]  # fmt: skip


@pytest.mark.parametrize("cls, kwargs, fn, args", MODULES)
def test_loss_module_matches_pytorch_and_repr(cls, kwargs, fn, args):
    torch = pytest.importorskip("torch")
    import leafgrad

    outs = []
    for lib in (leafgrad, torch):
        m = getattr(lib.nn, cls)(**kwargs)
        assert repr(m) == f"{cls}()"
        outs.append(m(*[_as(lib, a, False) for a in args]))
    assert_close(outs[0], outs[1])
    assert sorted(leafgrad.nn.functional.__all__).count(fn) == 1


def test_kl_div_mean_warns(torch):
    with pytest.warns(UserWarning, match="batchmean"):
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3) / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3) / 3, reduction="batchmean")


def test_kl_div_zero_target_contributes_nothing(torch):
    loss = torch.nn.functional.kl_div(
        torch.tensor([[-1.0, -2.0]]), torch.tensor([[0.0, 1.0]]), reduction="sum"
    )
    assert abs(loss.item() - 2.0) < 1e-6


def test_loss_errors(torch):
    F = torch.nn.functional
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(torch.zeros(3), torch.zeros(3), -torch.ones(3))
    with pytest.raises(ValueError, match="incorrect size"):
        F.gaussian_nll_loss(torch.zeros(3, 4), torch.zeros(3, 4), torch.ones(2))
    with pytest.raises(ValueError, match="not valid"):
        F.gaussian_nll_loss(torch.zeros(3), torch.zeros(3), torch.ones(3), reduction="avg")
    with pytest.raises(ValueError):
        F.poisson_nll_loss(torch.zeros(3), torch.zeros(3), reduction="avg")
    with pytest.raises(RuntimeError):
        F.margin_ranking_loss(torch.zeros(3), torch.zeros(3, 1), torch.ones(3))
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(torch.zeros(2, 3), torch.tensor([0, 1]), p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        torch.nn.MultiMarginLoss(p=3)
    with pytest.raises(RuntimeError):
        F.triplet_margin_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(3))
    with pytest.raises(ValueError, match="margin"):
        torch.nn.TripletMarginLoss(margin=0.0)
    with pytest.raises(RuntimeError):
        F.cosine_embedding_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.ones(2, 1))


def test_gaussian_nll_clamps_var_but_keeps_its_gradient(torch):
    var = torch.tensor([1e-9, 2.0], requires_grad=True)
    loss = torch.nn.functional.gaussian_nll_loss(
        torch.zeros(2), torch.ones(2), var, eps=1e-3, reduction="sum"
    )
    loss.backward()
    expected = 0.5 * (1 / np.array([1e-3, 2.0]) - 1 / np.array([1e-3, 2.0]) ** 2)
    np.testing.assert_allclose(to_numpy(var.grad), expected, rtol=1e-5)


def test_multi_margin_loss_gradient_by_gradcheck_and_no_second_derivative():
    """As PyTorch's, its gradient has no derivative (a NotImplemented node): it raises."""
    import leafgrad

    target = leafgrad.tensor([0, 3, 4, 1])
    weight = leafgrad.tensor(np.arange(1.0, 6.0))

    def f(x):
        return leafgrad.nn.functional.multi_margin_loss(x, target, p=2, weight=weight)

    x = leafgrad.tensor(X, requires_grad=True)
    assert leafgrad.autograd.gradcheck(f, (x,))
    (g,) = leafgrad.autograd.grad(f(x), x, create_graph=True)
    with pytest.raises(RuntimeError, match="multi_margin_loss_backward"):
        leafgrad.autograd.grad(g.sum(), x)
