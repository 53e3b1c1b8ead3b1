"""A small PyTorch training script, unchanged: run it on leafgrad with `leafgrad run`.

    leafgrad run examples/pytorch_regression.py     # torch is leafgrad
    python examples/pytorch_regression.py           # the same script on PyTorch, if installed

Fits y = sin(3x) + noise with an MLP: a Dataset and DataLoader, Adam with a step schedule,
gradient clipping, evaluation under no_grad, and a checkpoint saved and loaded again.
Nothing in it knows about leafgrad.
"""

import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1)
        )

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 256).unsqueeze(1)
    y = torch.sin(3 * x) + 0.05 * torch.randn_like(x)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)

    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
    loss_fn = nn.MSELoss()

    for epoch in range(60):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
        scheduler.step()
        if epoch % 20 == 19:
            model.eval()
            with torch.no_grad():
                full = loss_fn(model(x), y).item()
            print(f"epoch {epoch + 1:3d}  mse {full:.4f}  lr {scheduler.get_last_lr()[0]:.4g}")

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "regressor.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
        restored = Regressor()
        restored.load_state_dict(torch.load(path)["model"])
    with torch.no_grad():
        same = torch.equal(restored(x), model(x))
        final = loss_fn(model(x), torch.sin(3 * x)).item()
    assert same, "the restored model differs"
    assert final < 0.02, f"the fit is poor: mse {final}"
    print(f"mse against the noiseless curve: {final:.4f}; checkpoint round trip: ok")
    print("tensors from", type(x).__module__)


if __name__ == "__main__":
    main()
