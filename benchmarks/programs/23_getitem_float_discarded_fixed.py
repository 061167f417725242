"""Fixed twin of 23_getitem_float_discarded_bug.py: the cast is assigned.

family: discarded-cast
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(5)
N_GENES, N_TYPES = 20, 3


class CellCounts(Dataset):
    """Gene expression counts per cell (integers), with a cell-type label."""

    def __init__(self, n_cells=30):
        self.types = rng.integers(0, N_TYPES, size=n_cells)
        rates = rng.gamma(2.0, 2.0, size=(N_TYPES, N_GENES))
        self.counts = rng.poisson(rates[self.types])

    def __len__(self):
        return len(self.types)

    def __getitem__(self, idx):
        x = torch.from_numpy(self.counts[idx])
        x = x.float()
        return x, int(self.types[idx])


class CellTypeClassifier(nn.Module):
    def __init__(self, n_genes=N_GENES, n_types=N_TYPES, hidden=32):
        super().__init__()
        self.encoder = nn.Linear(n_genes, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, n_types)

    def forward(self, x):
        h = self.norm(torch.relu(self.encoder(x)))
        return self.head(h)


def train(model, dataset, epochs=2, batch_size=8, lr=1e-2):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: {loss.item():.3f}")
    return model


train(CellTypeClassifier(), CellCounts())
