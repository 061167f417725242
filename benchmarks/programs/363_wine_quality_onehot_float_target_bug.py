"""Bug: the wine-quality table is read as one float32 array, so the quality column sliced off as the target is float32 too; one-hot encoding it with scatter_ needs int64 indices.

family: int-float
category: data-paths
expected: RuntimeError
message: scatter(): Expected dtype int32/int64 for index
source: https://github.com/deep-learning-with-pytorch/dlwpt-code/issues/12
"""
import csv
import io

import numpy as np
import torch
import torch.nn as nn


def make_wine_csv(n_rows=64, seed=0):
    rng = np.random.default_rng(seed)
    cols = ["fixed acidity", "volatile acidity", "citric acid", "residual sugar", "chlorides", "alcohol", "quality"]
    buf = io.StringIO()
    buf.write(";".join(f'"{c}"' for c in cols) + "\n")
    for _ in range(n_rows):
        feats = rng.normal(loc=[7.0, 0.3, 0.3, 6.0, 0.05, 10.5], scale=[0.8, 0.1, 0.1, 5.0, 0.02, 1.2])
        quality = int(np.clip(round(5.8 + (feats[5] - 10.5) * 0.6 + rng.normal(0, 0.7)), 3, 9))
        buf.write(";".join(f"{v:.4f}" for v in feats) + f";{quality}\n")
    buf.seek(0)
    return buf


def load_wine(buf):
    col_list = next(csv.reader(buf, delimiter=";"))
    wineq_numpy = np.loadtxt(buf, dtype=np.float32, delimiter=";")
    return torch.from_numpy(wineq_numpy), col_list


def one_hot_quality(wineq):
    data = wineq[:, :-1]
    target = wineq[:, -1]  # cause: the quality column keeps the table's float32 dtype
    target_onehot = torch.zeros(target.shape[0], 10)
    target_onehot.scatter_(1, target.unsqueeze(1), 1.0)  # bug: float index
    return data, target_onehot


if __name__ == "__main__":
    torch.manual_seed(0)
    wineq, col_list = load_wine(make_wine_csv())
    data, target_onehot = one_hot_quality(wineq)
    data_normalized = (data - data.mean(dim=0)) / torch.sqrt(data.var(dim=0))
    model = nn.Sequential(nn.Linear(data.shape[1], 16), nn.Tanh(), nn.Linear(16, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(20):
        loss = nn.functional.mse_loss(torch.softmax(model(data_normalized), dim=1), target_onehot)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"{len(col_list)} columns, final loss {loss.item():.4f}")
