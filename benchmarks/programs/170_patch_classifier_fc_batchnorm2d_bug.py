"""Bug: the patch classifier's fully connected head uses nn.BatchNorm2d after its nn.Linear layers, whose outputs are (N, features), not (N, C, H, W).

family: shape
category: model-shapes
expected: ValueError
message: expected 4D input (got 2D input)
source: https://github.com/rcdaudt/patch_based_change_detection/issues/1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

PATCH = 16
N_CLASSES = 2


class PatchNet(nn.Module):
    def __init__(self, in_channels=6):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(
            nn.Linear(64 * (PATCH // 4) ** 2, 128),
            nn.BatchNorm2d(128),  # cause: a 2D norm in the dense head
            nn.ReLU(),
            nn.Linear(128, N_CLASSES),
        )

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), -1)
        return self.fc(x)  # bug: the norm gets (N, 128)


pairs = torch.randn(32, 6, PATCH, PATCH)
changed = torch.randint(0, N_CLASSES, (32,))
loader = DataLoader(TensorDataset(pairs, changed), batch_size=8, shuffle=True)
model = PatchNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for images, labels in loader:
    loss = F.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", loss.item())
