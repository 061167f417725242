"""Fixed twin of 04_uint8_divide_bug.py: the image is cast to float32 before the division.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class ImageFolderLike(Dataset):
    def __init__(self, n=24, size=16, n_classes=4, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, size=(n, size, size, 3), dtype=np.uint8)
        self.labels = rng.integers(0, n_classes, size=n)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx].astype(np.float32) / 255
        img = (img - MEAN) / STD
        img = np.transpose(img, (2, 0, 1))
        return torch.from_numpy(np.ascontiguousarray(img)), self.labels[idx]


class SmallNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def run_epoch(model, loader, optimizer, max_steps=3):
    model.train()
    losses = []
    for step, (images, labels) in enumerate(loader):
        if step >= max_steps:
            break
        out = model(images)
        loss = F.cross_entropy(out, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


model = SmallNet()
loader = DataLoader(ImageFolderLike(), batch_size=6, shuffle=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
print("mean loss", run_epoch(model, loader, optimizer))
