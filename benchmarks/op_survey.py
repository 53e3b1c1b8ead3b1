"""Single ops and small models a PyTorch script touches, forward and backward, float32.

One workload per case (``op-<name>``), each written once for any library: the shapes are
those of a small training step, where per-op cost and NumPy's kernels both show. Session 18
found the worst ratios here (cdist 20x, topk 18x, gelu 11x, the index backwards 4-7x) and
fixed the ones with a cause in leafgrad's code; the README lists what is left and why.
"""

from __future__ import annotations

import numpy as np

from .workloads import Workload


def _rng():
    return np.random.default_rng(0)


def _normal(*shape):
    return _rng().standard_normal(shape).astype(np.float32)


def _grad(lib, array):
    return lib.tensor(array, requires_grad=True)


def _backward(loss) -> None:
    loss.backward()


def _unary(fn, shape=(256, 1000)):
    def make(lib):
        x = _grad(lib, _normal(*shape))
        return lambda: _backward(fn(lib, x).sum())

    return make


def _matmul(lib):
    x, w = _grad(lib, _normal(64, 128)), _grad(lib, _normal(128, 128))
    return lambda: _backward((x @ w).sum())


def _conv2d(lib):
    x, k = _grad(lib, _normal(8, 3, 32, 32)), _grad(lib, _normal(16, 3, 3, 3))
    return lambda: _backward(lib.nn.functional.conv2d(x, k, padding=1).sum())


def _module(build, shape):
    def make(lib):
        lib.manual_seed(0)
        module, x = build(lib), _grad(lib, _normal(*shape))
        return lambda: _backward(module(x).sum())

    return make


def _first(build, shape):
    """A module returning a tuple (RNNs, attention): its first output."""

    def make(lib):
        lib.manual_seed(0)
        module, x = build(lib), _grad(lib, _normal(*shape))
        return lambda: _backward(module(x)[0].sum())

    return make


def _cross_entropy(lib):
    x = _grad(lib, _normal(64, 10))
    target = lib.tensor(_rng().integers(0, 10, 64))
    return lambda: _backward(lib.nn.functional.cross_entropy(x, target))


def _embedding(lib):
    lib.manual_seed(0)
    table, index = lib.nn.Embedding(1000, 64), lib.tensor(_rng().integers(0, 1000, 256))
    return lambda: _backward(table(index).sum())


def _indexed(kind):
    def make(lib):
        x = _grad(lib, _normal(256, 1000))
        if kind == "index":
            index = lib.tensor(_rng().integers(0, 256, 100))
            return lambda: _backward(x[index].sum())
        index = lib.tensor(_rng().integers(0, 1000, (256, 5)))
        return lambda: _backward(x.gather(1, index).sum())

    return make


def _cat(lib):
    parts = [_grad(lib, _normal(64, 100)) for _ in range(8)]
    return lambda: _backward(lib.cat(parts, 1).sum())


def _cdist(lib):
    x = _grad(lib, _normal(128, 16))
    return lambda: _backward(lib.cdist(x, x + 1).sum())


def _solve(lib):
    a = _grad(lib, _normal(64, 64) + 8 * np.eye(64, dtype=np.float32))
    b = _grad(lib, _normal(64, 8))
    return lambda: _backward(lib.linalg.solve(a, b).sum())


def _einsum(lib):
    x = _grad(lib, _normal(16, 64, 64))
    return lambda: _backward(lib.einsum("bij,bjk->bik", x, x).sum())


def _randn(lib):
    lib.manual_seed(0)
    return lambda: lib.randn(256, 1000)


def _scatter_add(lib):
    x = _grad(lib, _normal(256, 1000))
    index = lib.tensor(_rng().integers(0, 100, (256, 1000)))
    return lambda: _backward(lib.zeros(256, 100).scatter_add(1, index, x).sum())


def _qr(lib):
    x = _grad(lib, _normal(32, 16))
    return lambda: _backward(lib.linalg.qr(x)[1].sum())


def _hessian(lib):
    x = lib.tensor(_normal(8))
    return lambda: lib.autograd.functional.hessian(lambda z: (z.sin() * z).sum(), x)


def _vmap_grad(lib):
    x = lib.tensor(_normal(64, 8))
    per_row = lib.func.vmap(lib.func.grad(lambda z: (z.sin() ** 2).sum()))
    return lambda: per_row(x)


def _train(build, x_shape, classes):
    def make(lib):
        lib.manual_seed(0)
        model = build(lib)
        opt = lib.optim.Adam(model.parameters())
        x = lib.tensor(_normal(*x_shape))
        target = lib.tensor(_rng().integers(0, classes, x_shape[0]))

        def step():
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x), target).backward()
            opt.step()

        return step

    return make


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, 10),
    )  # fmt: skip


F = "nn.functional"
CASES = {  # name -> (what, make)
    "matmul": ("(64, 128) @ (128, 128)", _matmul),
    "conv2d": ("conv2d (8, 3, 32, 32), 16 3x3 filters, padding 1", _conv2d),
    "max-pool2d": (f"{F}.max_pool2d 2 of (8, 3, 32, 32)", _unary(
        lambda lib, x: lib.nn.functional.max_pool2d(x, 2), (8, 3, 32, 32))),
    "avg-pool2d": (f"{F}.avg_pool2d 2 of (8, 3, 32, 32)", _unary(
        lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), (8, 3, 32, 32))),
    "batch-norm2d": ("nn.BatchNorm2d(3), training, (8, 3, 32, 32)", _module(
        lambda lib: lib.nn.BatchNorm2d(3), (8, 3, 32, 32))),
    "group-norm": (f"{F}.group_norm 4 groups of (8, 16, 16, 16)", _unary(
        lambda lib, x: lib.nn.functional.group_norm(x, 4), (8, 16, 16, 16))),
    "layer-norm": ("nn.LayerNorm(128) of (64, 128)", _module(
        lambda lib: lib.nn.LayerNorm(128), (64, 128))),
    "softmax": ("softmax(-1) * x of (256, 1000)", _unary(lambda lib, x: x.softmax(-1) * x)),
    "log-softmax": ("log_softmax(-1) of (256, 1000)", _unary(lambda lib, x: x.log_softmax(-1))),
    "cross-entropy": (f"{F}.cross_entropy of (64, 10)", _cross_entropy),
    "embedding": ("nn.Embedding(1000, 64), 256 indices", _embedding),
    "gelu": (f"{F}.gelu of (256, 1000)", _unary(lambda lib, x: lib.nn.functional.gelu(x))),
    "silu": (f"{F}.silu of (256, 1000)", _unary(lambda lib, x: lib.nn.functional.silu(x))),
    "leaky-relu": (f"{F}.leaky_relu of (256, 1000)", _unary(
        lambda lib, x: lib.nn.functional.leaky_relu(x))),
    "softplus": (f"{F}.softplus of (256, 1000)", _unary(
        lambda lib, x: lib.nn.functional.softplus(x))),
    "cumsum": ("cumsum(1) of (256, 1000)", _unary(lambda lib, x: x.cumsum(1))),
    "topk": ("topk(5, 1) of (256, 1000)", _unary(lambda lib, x: x.topk(5, 1)[0])),
    "index": ("x[idx], 100 row indices of (256, 1000)", _indexed("index")),
    "gather": ("gather(1) of (256, 1000), (256, 5) indices", _indexed("gather")),
    "cat": ("cat of 8 (64, 100) along dim 1", _cat),
    "scatter-add": ("zeros(256, 100).scatter_add(1) of (256, 1000)", _scatter_add),
    "einsum": ("einsum bij,bjk->bik of (16, 64, 64)", _einsum),
    "cdist": ("cdist of (128, 16) rows", _cdist),
    "solve": ("linalg.solve (64, 64), 8 columns", _solve),
    "qr": ("linalg.qr of (32, 16), R's gradient", _qr),
    "randn": ("randn(256, 1000), PyTorch's stream (no gradient)", _randn),
    "pad": (f"{F}.pad 1 of (8, 3, 32, 32)", _unary(
        lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1, 1)), (8, 3, 32, 32))),
    "lstm": ("nn.LSTM(32, 64), 10 steps, batch 16", _first(
        lambda lib: lib.nn.LSTM(32, 64), (10, 16, 32))),
    "gru": ("nn.GRU(32, 64), 10 steps, batch 16", _first(
        lambda lib: lib.nn.GRU(32, 64), (10, 16, 32))),
    "transformer": ("nn.TransformerEncoderLayer(32, 4, 64), (10, 16, 32)", _module(
        lambda lib: lib.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0), (10, 16, 32))),
    "hessian": ("autograd.functional.hessian of a function of 8", _hessian),
    "vmap-grad": ("func.vmap(func.grad) over 64 rows of 8", _vmap_grad),
    "mlp-train": ("128 -> 256 -> 10 ReLU MLP, cross entropy, Adam, batch 64", _train(
        _mlp, (64, 128), 10)),
    "cnn-train": ("conv-BN-ReLU-pool CNN, cross entropy, Adam, (8, 3, 32, 32)", _train(
        _cnn, (8, 3, 32, 32), 10)),
}  # fmt: skip


def survey(names=None, number: int = 5) -> list:
    """One workload per case (all, or those in ``names``), ``number`` steps per sample."""
    chosen = CASES if names is None else {n: CASES[n] for n in names}
    return [
        Workload(
            f"op-{name}",
            what + ", forward and backward",
            {"dtype": "float32"},
            {"torch": make, "leafgrad": make},
            number=number,
        )
        for name, (what, make) in chosen.items()
    ]
