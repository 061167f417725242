"""Bug: the classifier's first Linear is sized for 32x32 inputs (32 * 8 * 8) but the Dataset produces 28x28 images.

family: shape
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
IMG_SIZE, N_CLASSES = 28, 10


class RandomDigits(Dataset):
    def __init__(self, n=16, size=IMG_SIZE, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.random((n, 1, size, size), dtype=np.float32)
        self.labels = rng.integers(0, N_CLASSES, size=n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), int(self.labels[idx])


class ConvNet(nn.Module):
    def __init__(self, n_classes=N_CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(32 * 8 * 8, 64)  # cause: sized for 32x32 inputs, 28x28 pools to 7x7
        self.fc2 = nn.Linear(64, n_classes)
        self.dropout = nn.Dropout(0.25)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))  # bug: 32*7*7 features into a Linear expecting 32*8*8
        return self.fc2(x)


def train_epoch(model, loader, optimizer, device="cpu"):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        print(f"batch {batch_idx}: loss {loss.item():.4f}")


model = ConvNet()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
train_epoch(model, DataLoader(RandomDigits(), batch_size=8, shuffle=True), optimizer)
