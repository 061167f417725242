"""Bug: the spatial co-occurrence layer builds channel pairs from a permuted feature map and flattens them with view(-1, 2); the permuted map is not contiguous, so view cannot flatten it.

family: shape
category: model-shapes
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/fl16180/small-object-detection/issues/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SpatialCooc(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.reduce = nn.Conv2d(channels, 2, 1)

    def forward(self, x):
        reduced = F.relu(self.reduce(x))
        channel_pairs = reduced.permute(0, 2, 3, 1)  # cause: (N, H, W, 2) laid out as (N, 2, H, W)
        channel_pairs = channel_pairs.view(-1, 2)  # bug: one pair is not one run of memory
        return torch.sigmoid(channel_pairs[:, 0] * channel_pairs[:, 1]).view(x.size(0), -1).mean(1)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.cooc = SpatialCooc(16)
        self.score = nn.Linear(16, 1)

    def forward(self, images):
        feats = self.backbone(images)
        pooled = feats.mean(dim=(2, 3))
        return self.score(pooled).squeeze(1) + self.cooc(feats)


images = torch.randn(8, 3, 32, 32)
labels = torch.randint(0, 2, (8,)).float()
model = Detector()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for batch, target in DataLoader(TensorDataset(images, labels), batch_size=4):
    loss = F.binary_cross_entropy_with_logits(model(batch), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", loss.item())
