"""Bug: __getitem__ returns a comparison (numpy bool) as the click label; default collate makes a bool target for BCEWithLogitsLoss.

family: class-target
expected: RuntimeError
message: Subtraction, the `-` operator, with two bool tensors is not supported
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_USERS, N_ITEMS, DIM = 20, 30, 8


class ClickLog(Dataset):
    def __init__(self, n=48, threshold=0.6):
        self.users = rng.integers(0, N_USERS, size=n)
        self.items = rng.integers(0, N_ITEMS, size=n)
        self.dwell = rng.random(n)
        self.threshold = threshold

    def __len__(self):
        return len(self.users)

    def __getitem__(self, idx):
        clicked = self.dwell[idx] > self.threshold  # cause: a numpy bool, collated into a bool tensor
        return self.users[idx], self.items[idx], clicked


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, users, items):
        return (self.user(users) * self.item(items)).sum(-1) + self.bias


model = MatrixFactorization(N_USERS, N_ITEMS, DIM)
loader = DataLoader(ClickLog(), batch_size=16, shuffle=True)
bce = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

for epoch in range(2):
    for users, items, clicked in loader:
        scores = model(users, items)
        loss = bce(scores, clicked)  # bug: bool target
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} bce={loss.item():.3f}")
