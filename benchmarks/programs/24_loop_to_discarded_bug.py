"""Bug: the training loop calls x.to(torch.float32) without assigning it; the float64 batch from default collate reaches the model.

family: discarded-cast
expected: RuntimeError
message: mat1 and mat2 must have the same dtype, but got Double and Float
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class CurveDataset(Dataset):
    """Noisy samples of y = sin(3x) on a grid."""

    def __init__(self, n=40, noise=0.05, seed=0):
        rng = np.random.default_rng(seed)
        self.x = np.linspace(-1.0, 1.0, n).reshape(-1, 1)
        self.y = np.sin(3 * self.x) + noise * rng.standard_normal(self.x.shape)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def make_model(hidden=32, depth=2):
    layers, width = [], 1
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.Tanh()]
        width = hidden
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)


def train(model, loader, epochs=2, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for x, y in loader:
            x.to(torch.float32)  # cause: .to() returns a new tensor, x stays float64
            y = y.to(torch.float32)
            pred = model(x)  # bug: float64 input into the float32 MLP
            loss = nn.functional.mse_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: mse={loss.item():.4f}")


model = make_model()
train(model, DataLoader(CurveDataset(), batch_size=10, shuffle=True))
