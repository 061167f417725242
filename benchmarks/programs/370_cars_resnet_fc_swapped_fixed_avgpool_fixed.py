"""Fixed twin of 370_cars_resnet_fc_swapped_fixed_avgpool_bug.py: the wrapper also swaps the fixed AvgPool2d(7) for nn.AdaptiveAvgPool2d(1), so the pooled map is 1x1 whatever the image size and the 2048-wide head fits.

family: shape
category: mutated-modules
expected: success
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
        x = self.fc(x)
        return x


class ResnetModel(nn.Module):
    def __init__(self, num_classes=196):
        super().__init__()
        self.model = OldResNet()
        num_ftrs = self.model.fc.in_features
        self.model.fc = nn.Sequential(nn.Linear(num_ftrs, num_classes))
        self.model.avgpool = nn.AdaptiveAvgPool2d(1)

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
