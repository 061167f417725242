"""Bug: the whole table is cast to float32 "for torch" before the label column is split off, so cross_entropy gets float class indices.

family: class-target
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_CLASSES = 4


def synthetic_table(n=60, n_features=5, seed=3):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, N_CLASSES, size=(n, 1))
    features = rng.normal(size=(n, n_features)) + labels
    return np.hstack([features, labels])


def split_columns(table):
    table = table.astype(np.float32)
    X = table[:, :-1]
    y = table[:, -1]  # cause: the label column keeps the table's float32 dtype
    return torch.from_numpy(X), torch.from_numpy(y)


class Classifier(nn.Module):
    def __init__(self, n_in, n_out, hidden=(32, 16)):
        super().__init__()
        layers, width = [], n_in
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, n_out))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


def batches(X, y, batch_size=16):
    order = torch.randperm(len(X))
    for start in range(0, len(X), batch_size):
        idx = order[start:start + batch_size]
        yield X[idx], y[idx]


X, y = split_columns(synthetic_table())
model = Classifier(X.shape[1], N_CLASSES)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    for step, (xb, yb) in enumerate(batches(X, y)):
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)  # bug: float targets are read as class probabilities of the wrong shape
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 2:
            break
    print(epoch, loss.item())
