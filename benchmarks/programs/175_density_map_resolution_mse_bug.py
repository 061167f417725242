"""Bug: the crowd-counting network predicts its density map at 1/4 of the image resolution, and the RMSE-style loss compares it with the full-resolution ground-truth map.

family: shape
category: model-shapes
expected: RuntimeError
message: must match the size of tensor b
source: https://github.com/maheshkkumar/fscc/issues/5
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

IMAGE = 64


class CrowdDataset(Dataset):
    def __init__(self, n):
        self.images = torch.rand(n, 3, IMAGE, IMAGE)
        self.density = torch.rand(n, 1, IMAGE, IMAGE) * 0.01

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.density[i]


class CountNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.backend = nn.Conv2d(32, 1, 1)

    def forward(self, x):
        return F.relu(self.backend(self.frontend(x)))  # cause: a (N, 1, H/4, W/4) density map


model = CountNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
for images, gt_density in DataLoader(CrowdDataset(8), batch_size=4):
    pred = model(images)
    loss = torch.sqrt(F.mse_loss(pred, gt_density))  # bug: 16x16 against 64x64
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("rmse", loss.item())
