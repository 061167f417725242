"""Fixed twin of 38_batchnorm_time_major_bug.py: BatchNorm1d gets (B, C, T).

family: shape
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SEQ_LEN, N_FEATURES, HIDDEN = 12, 6, 16


class ActivityDataset(Dataset):
    """Accelerometer windows (time, features) with an activity label."""

    def __init__(self, n=20, seed=0):
        rng = np.random.default_rng(seed)
        self.windows = rng.standard_normal((n, SEQ_LEN, N_FEATURES)).astype(np.float32)
        self.labels = rng.integers(0, 4, size=n)
        self.windows[self.labels == 1] += 0.5

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, idx):
        return self.windows[idx], self.labels[idx]


class SeqModel(nn.Module):
    def __init__(self, n_features=N_FEATURES, hidden=HIDDEN, n_classes=4):
        super().__init__()
        self.proj = nn.Linear(n_features, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.proj(x)
        h = torch.relu(self.bn(h.transpose(1, 2)).transpose(1, 2))
        out, _ = self.gru(h)
        return self.head(out[:, -1])


model = SeqModel()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
loader = DataLoader(ActivityDataset(), batch_size=5, shuffle=True)
for epoch in range(2):
    losses = []
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(f"epoch {epoch}: {sum(losses) / len(losses):.3f}")
