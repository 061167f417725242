"""Bug: the Stanford-cars model swaps the ResNet's fc for a new 196-way head sized for 2048 pooled features, but the ResNet still pools with a fixed 7x7 AvgPool2d, so images larger than the 224-equivalent leave a 4x4 map and 32768 features reach the new head.

family: shape
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (4x32768 and 2048x196)
source: https://github.com/phongdinhv/stanford-cars-model/issues/1
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class OldResNet(nn.Module):
    """Mimics the torchvision<=0.2 ResNet-50 layout: stride-32 trunk then a fixed AvgPool2d(7)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 64, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(64, 2048, 3, stride=8, padding=1), nn.ReLU())
        self.avgpool = nn.AvgPool2d(7, stride=1)
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        x = x.view(x.size(0), -1)
        x = self.fc(x)  # bug: 2048*4*4 features meet the 2048-wide head
        return x


class ResnetModel(nn.Module):
    def __init__(self, num_classes=196):
        super().__init__()
        self.model = OldResNet()
        num_ftrs = self.model.fc.in_features
        self.model.fc = nn.Sequential(nn.Linear(num_ftrs, num_classes))  # cause: new head assumes a 1x1 pooled map

    def forward(self, x):
        return self.model(x)


class CarsDataset(Dataset):
    def __init__(self, n=8, image_size=320, num_classes=196, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.random((n, 3, image_size, image_size), dtype=np.float32)
        self.labels = rng.integers(0, num_classes, n)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), int(self.labels[idx])


class Trainer:
    def __init__(self, model, loader, lr=1e-3):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.criterion = nn.CrossEntropyLoss()

    def _train_epoch(self, epoch):
        self.model.train()
        total = 0.0
        for data, target in self.loader:
            output = self.model(data)
            loss = self.criterion(output, target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return {"epoch": epoch, "loss": total / len(self.loader)}


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(ResnetModel(), DataLoader(CarsDataset(), batch_size=4, shuffle=True))
    print(trainer._train_epoch(1))
