"""Bug: the label factory converts a pandas-like column stored as int32 (Windows' default integer) into the target tensor; cross_entropy refuses int32 targets.

family: class-target
category: factories
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Int
source: https://github.com/rasbt/machine-learning-book/issues/192
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_table(n_rows, seed=0):
    """Columns as arrays, the way a CSV reader hands them over."""
    rng = np.random.default_rng(seed)
    return {
        "review_len": rng.integers(5, 400, size=n_rows).astype(np.float32),
        "stars": rng.integers(1, 6, size=n_rows).astype(np.float32),
        "sentiment": rng.integers(0, 2, size=n_rows).astype(np.int32),
    }


def make_features(table):
    cols = [table["review_len"] / 400.0, table["stars"] / 5.0]
    return torch.from_numpy(np.stack(cols, axis=1))


def make_labels(table):
    return torch.from_numpy(table["sentiment"])  # cause: int32 column kept as int32


class Classifier(nn.Module):
    def __init__(self, n_in, n_classes=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 8), nn.ReLU(), nn.Linear(8, n_classes))

    def forward(self, x):
        return self.net(x)


def main():
    table = read_table(40)
    x, y = make_features(table), make_labels(table)
    model = Classifier(x.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(3):
        loss = F.cross_entropy(model(x), y)  # bug: int32 targets
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
