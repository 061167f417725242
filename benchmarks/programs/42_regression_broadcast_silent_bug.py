"""Bug: the regressor returns (N, 1) predictions for (N,) targets; mse_loss silently broadcasts to (N, N) and the per-sample check fails.

family: shape
expected: AssertionError
message: one error per sample
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(0)


def make_housing(n=40, n_features=4):
    X = rng.standard_normal((n, n_features)).astype(np.float32)
    w = np.array([3.0, -2.0, 0.5, 1.0], dtype=np.float32)
    y = X @ w + 0.1 * rng.standard_normal(n).astype(np.float32)
    return TensorDataset(torch.from_numpy(X), torch.from_numpy(y))


class PriceModel(nn.Module):
    def __init__(self, n_features=4, hidden=16):
        super().__init__()
        self.hidden = nn.Linear(n_features, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))  # cause: (N, 1), the targets are (N,)


def evaluate(model, loader):
    model.eval()
    errors = []
    with torch.no_grad():
        for x, y in loader:
            err = F.mse_loss(model(x), y, reduction="none")
            assert err.shape == y.shape, f"one error per sample expected, got {tuple(err.shape)}"  # bug: (N, N) errors
            errors.append(err)
    return torch.cat(errors).mean().item()


dataset = make_housing()
loader = DataLoader(dataset, batch_size=8, shuffle=True)
model = PriceModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    model.train()
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: train mse {loss.item():.3f} eval mse {evaluate(model, loader):.3f}")
