"""Bug: the training config keeps the CT volumes in float64 ("to keep the Hounsfield precision") and the loop casts every batch with images.double(), but the 3D EfficientNet-style classifier was never converted; its first Conv3d refuses double input against float weights.

family: precision
category: configuration
expected: RuntimeError
message: should be the same
source: https://github.com/shijianjian/EfficientNet-PyTorch-3D/issues/15
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CONFIG = SimpleNamespace(volume_dtype="float64", num_classes=2, batch_size=2, epochs=1, lr=1e-3, size=16)


class VolumeDataset(Dataset):
    def __init__(self, n, size, num_classes):
        rng = np.random.default_rng(0)
        self.volumes = rng.integers(-1000, 1000, size=(n, 1, size, size, size)).astype(np.int16)
        self.labels = rng.integers(0, num_classes, size=n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        vol = torch.from_numpy(self.volumes[i].astype(np.float32)) / 1000.0
        return vol, int(self.labels[i])


class EffNet3D(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(1, 8, 3, stride=2, padding=1), nn.BatchNorm3d(8), nn.SiLU())
        self.blocks = nn.Sequential(nn.Conv3d(8, 16, 3, stride=2, padding=1), nn.BatchNorm3d(16), nn.SiLU())
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))  # bug: double volumes into the float32 Conv3d
        return self.head(x.mean(dim=(2, 3, 4)))


def train_model(model, train_loader, criterion, optimizer, num_epochs, cfg):
    for epoch in range(num_epochs):
        for images, classes in train_loader:
            optimizer.zero_grad()
            images = images.to(getattr(torch, cfg.volume_dtype))  # cause: float64 batches for a float32 model
            output = model(images)
            loss = criterion(output, classes)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.3f}")


def main(cfg):
    torch.manual_seed(0)
    model = EffNet3D(cfg.num_classes)
    loader = DataLoader(VolumeDataset(6, cfg.size, cfg.num_classes), batch_size=cfg.batch_size, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    train_model(model, loader, nn.CrossEntropyLoss(), optimizer, cfg.epochs, cfg)


if __name__ == "__main__":
    main(CONFIG)
