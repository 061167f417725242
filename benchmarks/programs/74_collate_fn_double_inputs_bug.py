"""Bug: a custom collate_fn stacks numpy float64 rows and wraps them with torch.tensor(rows); the float32 model rejects the float64 batch.

family: numpy-float64
category: factories
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/pytorch/pytorch/issues/69446
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class SensorDataset(Dataset):
    def __init__(self, n, window=12, seed=0):
        rng = np.random.default_rng(seed)
        self.signal = rng.normal(size=(n, window))
        self.target = self.signal.mean(axis=1).tolist()

    def __len__(self):
        return len(self.target)

    def __getitem__(self, i):
        return self.signal[i], self.target[i]


def collate(batch):
    rows = np.stack([row for row, _ in batch])
    x = torch.tensor(rows)  # cause: numpy float64 rows stay float64
    y = torch.tensor([t for _, t in batch], dtype=torch.float32).unsqueeze(1)
    return x, y


model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 1))
loader = DataLoader(SensorDataset(40), batch_size=8, shuffle=True, collate_fn=collate)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(2):
    for x, y in loader:
        pred = model(x)  # bug: float64 batch into float32 layers
        loss = nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
