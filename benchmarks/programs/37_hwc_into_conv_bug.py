"""Bug: __getitem__ returns HWC images (as numpy and PIL lay them out) and no one permutes them to CHW before the Conv2d.

family: shape
expected: RuntimeError
message: to have 3 channels, but got 16 channels instead
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class PhotoDataset(Dataset):
    def __init__(self, n=12, size=16, seed=0):
        rng = np.random.default_rng(seed)
        self.photos = rng.random((n, size, size, 3), dtype=np.float32)
        self.labels = rng.integers(0, 2, size=n)

    def __len__(self):
        return len(self.photos)

    def __getitem__(self, idx):
        img = self.photos[idx]
        if idx % 2:
            img = img[:, ::-1].copy()
        return torch.from_numpy(img), self.labels[idx]  # cause: (H, W, C) layout, never permuted to (C, H, W)


class Classifier(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.stem = nn.Conv2d(3, 12, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(12)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(12, n_classes)

    def forward(self, x):
        x = torch.relu(self.bn(self.stem(x)))  # bug: an (N, H, W, C) batch into a conv expecting C=3
        return self.fc(self.pool(x).flatten(1))


def fit(model, loader, epochs=2):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for epoch in range(epochs):
        for images, labels in loader:
            loss = nn.functional.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        print(f"epoch {epoch}: {loss.item():.3f}")


fit(Classifier(), DataLoader(PhotoDataset(), batch_size=4, shuffle=True))
