"""Bug: a Lightning-style trainer config says precision 16 and the training helper converts the model with .half(), while the batches from the dataloader factory stay float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/huggingface/pytorch-image-models/pull/2397
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

config = {
    "trainer": {"precision": 16, "max_epochs": 1},
    "model": {"in_dim": 10, "hidden": 32, "classes": 3},
    "data": {"n": 24, "batch_size": 8},
}


def make_model(cfg):
    return nn.Sequential(nn.Linear(cfg["in_dim"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], cfg["classes"]))


def make_loader(cfg, in_dim, classes):
    x = torch.randn(cfg["n"], in_dim)
    y = torch.randint(0, classes, (cfg["n"],))
    return DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"])


def fit(model, loader, trainer_cfg):
    if trainer_cfg["precision"] == 16:
        model = model.half()  # cause: precision 16 converts only the model
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(trainer_cfg["max_epochs"]):
        for x, y in loader:
            logits = model(x)  # bug: float32 batch into float16 layers
            loss = nn.functional.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


if __name__ == "__main__":
    m_cfg = config["model"]
    fit(make_model(m_cfg), make_loader(config["data"], m_cfg["in_dim"], m_cfg["classes"]), config["trainer"])
