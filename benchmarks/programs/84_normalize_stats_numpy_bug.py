"""Bug: normalisation is switched on in the config and its mean/std come from numpy (float64); (x - mean) / std promotes the float32 batch to float64 before the model.

family: numpy-float64
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://openillumi.com/en/en-pytorch-double-expected-float-fix
"""
import numpy as np
import torch
import torch.nn as nn

config = {"normalize": True, "in_features": 5, "hidden": 16, "epochs": 2}


def load_training_table(n=32, d=5, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(3.0, 2.0, size=(n, d)).astype(np.float32)
    y = (x[:, :1] > 3.0).astype(np.float32)
    return x, y


def fit_normalizer(x):
    mean = torch.from_numpy(x.mean(axis=0, dtype=np.float64))  # cause: float64 statistics
    std = torch.from_numpy(x.std(axis=0, dtype=np.float64))
    return lambda batch: (batch - mean) / std


def identity(batch):
    return batch


def main(cfg):
    x_np, y_np = load_training_table(d=cfg["in_features"])
    transform = fit_normalizer(x_np) if cfg["normalize"] else identity
    x, y = transform(torch.from_numpy(x_np)), torch.from_numpy(y_np)
    model = nn.Sequential(nn.Linear(cfg["in_features"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(cfg["epochs"]):
        loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)  # bug: float64 batch
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main(config)
