"""A module prints exactly as the same PyTorch architecture does."""

import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg


def build(nn):
    """Architectures built with ``nn`` (leafgrad's or PyTorch's), by name."""

    class PINN(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh())
            self.heads = nn.ModuleDict({"u": nn.Linear(16, 1), "p": nn.Linear(16, 1, bias=False)})
            self.register_buffer("lb", lg.zeros(2) if nn is lg.nn else torch.zeros(2))

        def forward(self, x):
            return x

    return {
        "linear": nn.Linear(3, 4),
        "linear_no_bias": nn.Linear(3, 4, bias=False),
        "mlp": nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1)),
        "activations": nn.Sequential(
            nn.Tanh(), nn.ReLU(), nn.ReLU(inplace=True), nn.LeakyReLU(),
            nn.LeakyReLU(0.2, inplace=True), nn.Sigmoid(), nn.SiLU(), nn.GELU(),
            nn.GELU(approximate="tanh"), nn.ELU(), nn.ELU(alpha=0.5), nn.Softplus(),
            nn.Softplus(beta=2.0, threshold=10.0), nn.Softmax(), nn.Softmax(dim=-1),
            nn.LogSoftmax(dim=1), nn.Identity(), nn.Flatten(), nn.Flatten(0, 2), nn.Dropout(),
        ),
        "nested": nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), nn.Linear(2, 1)),
        "module_list_repeats": nn.ModuleList(
            [nn.Linear(4, 4) for _ in range(3)] + [nn.Tanh(), nn.Tanh(), nn.Linear(4, 1)]
        ),
        "module_list_empty": nn.ModuleList(),
        "module_dict": nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.Sequential(nn.Tanh())}),
        "pinn": PINN(),
        "losses": nn.ModuleList([
            nn.MSELoss(), nn.L1Loss(), nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(),
            nn.CrossEntropyLoss(), nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss(),
        ]),
        "empty_module": nn.Module(),
    }  # fmt: skip


OURS = build(lg.nn)
THEIRS = build(torch.nn)


@pytest.mark.parametrize("name", sorted(OURS))
def test_repr_matches_pytorch(name):
    assert repr(OURS[name]) == repr(THEIRS[name])


@pytest.mark.parametrize("name", sorted(OURS))
def test_state_dict_keys_match_pytorch(name):
    assert list(OURS[name].state_dict()) == list(THEIRS[name].state_dict())
    assert [n for n, _ in OURS[name].named_modules()] == [
        n for n, _ in THEIRS[name].named_modules()
    ]
    for (n1, p1), (n2, p2) in zip(OURS[name].named_parameters(), THEIRS[name].named_parameters()):
        assert n1 == n2 and tuple(p1.shape) == tuple(p2.shape)
