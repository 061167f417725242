"""Fixed twin of 07_stacked_columns_bug.py: the stacked features are cast to float32.

family: numpy-float64
expected: success
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
    return np.stack([table["x"], table["y"], count], axis=1).astype(np.float32)


def to_dataset(features, targets):
    return TensorDataset(torch.from_numpy(features), torch.from_numpy(targets))


class Regressor(nn.Module):
    def __init__(self, n_in=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(1)


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
