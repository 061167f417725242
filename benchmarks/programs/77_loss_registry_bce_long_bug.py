"""Bug: the loss is picked from a registry by the config's task name ("binary" -> BCEWithLogitsLoss) while the label factory still makes int64 class labels for the multi-class setup.

family: class-target
category: factories
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
source: https://github.com/ando-khachatryan/HiDDeN/issues/28
"""
import torch
import torch.nn as nn

LOSSES = {"binary": nn.BCEWithLogitsLoss, "multiclass": nn.CrossEntropyLoss}

config = {
    "task": "binary",
    "model": {"in_features": 12, "hidden": 32},
    "train": {"steps": 3, "batch_size": 10, "lr": 0.05},
}


def make_model(cfg):
    out = 1 if cfg["task"] == "binary" else 4
    return nn.Sequential(nn.Linear(cfg["model"]["in_features"], cfg["model"]["hidden"]), nn.ReLU(),
                         nn.Linear(cfg["model"]["hidden"], out))


def make_labels(batch_size, n_classes=2):
    return torch.randint(0, n_classes, (batch_size, 1))  # cause: int64 labels


def train(cfg):
    model = make_model(cfg)
    criterion = LOSSES[cfg["task"]]()
    opt = torch.optim.SGD(model.parameters(), lr=cfg["train"]["lr"])
    for step in range(cfg["train"]["steps"]):
        x = torch.randn(cfg["train"]["batch_size"], cfg["model"]["in_features"])
        y = make_labels(cfg["train"]["batch_size"])
        loss = criterion(model(x), y)  # bug: BCEWithLogitsLoss with int64 targets
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, loss.item())


if __name__ == "__main__":
    train(config)
