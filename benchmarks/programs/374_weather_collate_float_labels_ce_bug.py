"""Bug: the weather-recognition collate function stacks the class labels with torch.FloatTensor, so the CrossEntropyLoss in the training step receives float class indices of shape (N,) and nll_loss refuses them.

family: class-target
category: data-paths
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
source: https://github.com/mengxianglong123/weather-recognition/issues/1
"""
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CLASSES = ["cloudy", "haze", "rainy", "snow", "sunny", "thunder"]


class WeatherDataset(Dataset):
    def __init__(self, n=12, size=24, seed=0):
        rng = np.random.default_rng(seed)
        self.items = [(rng.integers(0, 256, (size, size, 3), dtype=np.uint8), random.choice(CLASSES)) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        img, name = self.items[idx]
        img = (img.astype(np.float32) / 255.0 - 0.5) / 0.5
        return img.transpose(2, 0, 1), CLASSES.index(name)


def collate(batch):
    images = torch.from_numpy(np.stack([b[0] for b in batch]))
    labels = torch.FloatTensor([b[1] for b in batch])  # cause: class ids stored as float
    return images, labels


class WeatherNet(nn.Module):
    def __init__(self, num_classes=len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def train_step(model, images, labels, optimizer, loss_fn):
    outputs = model(images)
    loss = loss_fn(outputs, labels)  # bug: float class indices
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    acc = (outputs.argmax(1) == labels).float().mean().item()
    return loss.item(), acc


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    model = WeatherNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(WeatherDataset(), batch_size=4, shuffle=True, collate_fn=collate)
    for epoch in range(2):
        for images, labels in loader:
            loss, acc = train_step(model, images, labels, optimizer, loss_fn)
        print(f"epoch {epoch} loss {loss:.4f} acc {acc:.2f}")
