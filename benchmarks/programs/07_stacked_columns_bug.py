"""Bug: a feature-engineering helper stacks float32 columns with np.log1p of an int64 column; the stacked matrix is float64.

family: numpy-float64
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(42)


def load_table(n=64):
    return {
        "x": rng.standard_normal(n, dtype=np.float32),
        "y": rng.standard_normal(n, dtype=np.float32),
        "count": rng.integers(0, 50, size=n),
        "target": rng.standard_normal(n, dtype=np.float32),
    }


def build_features(table, log_counts=True):
    count = np.log1p(table["count"]) if log_counts else table["count"]
    return np.stack([table["x"], table["y"], count], axis=1)  # cause: log1p of int64 is float64, np.stack promotes to it


def to_dataset(features, targets):
    return TensorDataset(torch.from_numpy(features), torch.from_numpy(targets))


class Regressor(nn.Module):
    def __init__(self, n_in=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(1)  # bug: float64 features into the float32 MLP


table = load_table()
features = build_features(table)
loader = DataLoader(to_dataset(features, table["target"]), batch_size=16, shuffle=True)

model = Regressor()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
for epoch in range(2):
    running = []
    for xb, yb in loader:
        pred = model(xb)
        loss = nn.functional.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running.append(loss.item())
    print(f"epoch {epoch} mse {np.mean(running):.4f}")
