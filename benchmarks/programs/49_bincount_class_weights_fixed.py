"""Fixed twin of 49_bincount_class_weights_bug.py: the class weights are cast to float32.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

CONFIG = {
    "model": {"in_dim": 10, "hidden": [32, 16], "n_classes": 4, "dropout": 0.1},
    "train": {"lr": 5e-3, "epochs": 2, "batch_size": 16},
}


def build_model(cfg):
    layers, width = [], cfg["in_dim"]
    for h in cfg["hidden"]:
        layers += [nn.Linear(width, h), nn.ReLU(), nn.Dropout(cfg["dropout"])]
        width = h
    layers.append(nn.Linear(width, cfg["n_classes"]))
    return nn.Sequential(*layers)


def imbalanced_data(n=96, in_dim=10, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(4, size=n, p=[0.6, 0.25, 0.1, 0.05])
    X = rng.standard_normal((n, in_dim)).astype(np.float32) + y[:, None].astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(y)


class Trainer:
    def __init__(self, model, labels, cfg):
        self.model = model
        self.cfg = cfg
        weights = self.class_weights(labels.numpy(), model[-1].out_features)
        self.criterion = nn.CrossEntropyLoss(weight=torch.from_numpy(weights))
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    @staticmethod
    def class_weights(labels, n_classes):
        counts = np.bincount(labels, minlength=n_classes)
        return (len(labels) / (n_classes * np.maximum(counts, 1))).astype(np.float32)

    def step(self, xb, yb):
        loss = self.criterion(self.model(xb), yb)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def fit(self, X, y):
        bs = self.cfg["batch_size"]
        for epoch in range(self.cfg["epochs"]):
            order = torch.randperm(len(X))
            losses = [self.step(X[order[i:i + bs]], y[order[i:i + bs]]) for i in range(0, len(X), bs)]
            print(f"epoch {epoch}: {sum(losses) / len(losses):.3f}")


X, y = imbalanced_data(in_dim=CONFIG["model"]["in_dim"])
model = build_model(CONFIG["model"])
Trainer(model, y, CONFIG["train"]).fit(X, y)
