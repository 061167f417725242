"""Fixed twin of 44_loadtxt_wine_table_bug.py: np.loadtxt is told dtype=np.float32.

family: numpy-float64
expected: success
"""
import io
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

RAW = "\n".join(
    ",".join(f"{(i * 7 + j * 3) % 11 / 10:.2f}" for j in range(6)) + f",{(i * 5) % 3}" for i in range(48)
)


@dataclass
class Config:
    n_features: int = 6
    n_classes: int = 3
    hidden: int = 24
    batch_size: int = 12
    epochs: int = 2
    lr: float = 1e-2


class WineTable(Dataset):
    def __init__(self, text, n_features):
        table = np.loadtxt(io.StringIO(text), delimiter=",", dtype=np.float32)
        self.features = table[:, :n_features]
        self.labels = table[:, n_features].astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.tensor(self.features[i]), torch.tensor(self.labels[i])


class Classifier(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(cfg.n_features, cfg.hidden), nn.Tanh())
        self.head = nn.Linear(cfg.hidden, cfg.n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def train(cfg: Config):
    data = WineTable(RAW, cfg.n_features)
    loader = DataLoader(data, batch_size=cfg.batch_size, shuffle=True)
    model = Classifier(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        total = 0.0
        for features, labels in loader:
            loss = nn.functional.cross_entropy(model(features), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.3f}")
    return model


if __name__ == "__main__":
    train(Config())
