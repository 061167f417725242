"""Bug: the training config switches the backbone to resnet18, whose pooled features are 512 wide, but the classifier head still takes its width from the config's default of 2048 (right for resnet50), so the head's matmul fails.

family: shape
category: configuration
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (4x512 and 2048x4)
source: https://github.com/QLMX/huawei-garbage/issues/16
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

FEATURE_DIMS = {"resnet18": 512, "resnet34": 512, "resnet50": 2048, "resnext101": 2048}


def get_config(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="resnet50", choices=list(FEATURE_DIMS))
    parser.add_argument("--num_classes", type=int, default=4)
    parser.add_argument("--in_features", type=int, default=2048)  # cause: head width fixed for resnet50
    parser.add_argument("--batch_size", type=int, default=4)
    return parser.parse_args(argv)


def make_backbone(arch):
    width = FEATURE_DIMS[arch]
    return nn.Sequential(nn.Conv2d(3, width // 8, 3, stride=2, padding=1), nn.ReLU(),
                         nn.Conv2d(width // 8, width, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten())


class GarbageNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = make_backbone(cfg.arch)
        self.fc = nn.Linear(cfg.in_features, cfg.num_classes)

    def forward(self, x):
        feat = self.backbone(x)
        return self.fc(feat)  # bug: 512 features into a 2048-wide head


def make_loader(cfg, n=8, size=32, seed=0):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.random((n, 3, size, size), dtype=np.float32))
    y = torch.from_numpy(rng.integers(0, cfg.num_classes, n))
    return DataLoader(TensorDataset(x, y), batch_size=cfg.batch_size, shuffle=True)


def train_one_epoch(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for images, target in loader:
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = get_config(["--arch", "resnet18"])
    model = GarbageNet(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    print("train loss", train_one_epoch(model, make_loader(cfg), optimizer, nn.CrossEntropyLoss()))
