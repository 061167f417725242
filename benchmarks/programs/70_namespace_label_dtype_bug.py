"""Bug: a SimpleNamespace config says the labels are float ("label_dtype": "float32" from a regression setup reused for classification); cross_entropy needs class indices of dtype long.

family: class-target
category: configuration
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
source: https://php.xlycwl.com/faq/1652446.html
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn

cfg = SimpleNamespace(n_samples=48, n_features=6, n_classes=3, label_dtype="float32", lr=0.1, epochs=2)


def make_dataset(cfg):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(cfg.n_samples, cfg.n_features)).astype(np.float32)
    y = rng.integers(0, cfg.n_classes, size=cfg.n_samples).astype(cfg.label_dtype)  # cause: float labels
    return torch.from_numpy(x), torch.from_numpy(y)


def make_model(cfg):
    return nn.Sequential(nn.Linear(cfg.n_features, 16), nn.ReLU(), nn.Linear(16, cfg.n_classes))


def fit(cfg):
    x, y = make_dataset(cfg)
    model = make_model(cfg)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        logits = model(x)
        loss = criterion(logits, y)  # bug: float32 class labels
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    fit(cfg)
