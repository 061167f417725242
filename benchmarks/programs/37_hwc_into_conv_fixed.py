"""Fixed twin of 37_hwc_into_conv_bug.py: the image is permuted to (C, H, W).

family: shape
expected: success
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
        return torch.from_numpy(img).permute(2, 0, 1), self.labels[idx]


class Classifier(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.stem = nn.Conv2d(3, 12, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(12)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(12, n_classes)

    def forward(self, x):
        x = torch.relu(self.bn(self.stem(x)))
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
