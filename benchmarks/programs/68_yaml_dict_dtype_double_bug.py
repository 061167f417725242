"""Bug: a YAML-like config dict built in code asks for a float64 model (precision: "float64"), the data loader hands it float32 batches.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/pytorch/pytorch/issues/105243
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "model": {"hidden": 32, "layers": 2, "precision": "float64"},
    "data": {"n": 64, "features": 10, "batch_size": 16},
    "optim": {"lr": 1e-3},
}


def build_model(cfg):
    layers, width = [], cfg["data"]["features"]
    for _ in range(cfg["model"]["layers"]):
        layers += [nn.Linear(width, cfg["model"]["hidden"]), nn.Tanh()]
        width = cfg["model"]["hidden"]
    layers.append(nn.Linear(width, 1))
    dtype = getattr(torch, cfg["model"]["precision"])
    return nn.Sequential(*layers).to(dtype)  # cause: every parameter becomes float64


def build_loader(cfg):
    x = torch.randn(cfg["n"], cfg["features"])
    y = x.sum(dim=1, keepdim=True)
    return DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)


def train(config):
    model = build_model(config)
    loader = build_loader(config["data"])
    opt = torch.optim.Adam(model.parameters(), lr=config["optim"]["lr"])
    for xb, yb in loader:
        pred = model(xb)  # bug: float32 batch into float64 layers
        loss = nn.functional.mse_loss(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


if __name__ == "__main__":
    print(train(CONFIG))
