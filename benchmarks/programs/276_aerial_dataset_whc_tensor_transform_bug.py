"""Bug: the aerial-cactus dataset's transform pipeline turns each (W, H, C) image array into a tensor and normalizes it per channel on the last axis, which broadcasts fine, so __getitem__ returns (40, 40, 3) tensors and the classifier's first Conv2d sees 40 channels.

family: shape
category: model-shapes
expected: RuntimeError
message: to have 3 channels, but got 40 channels instead
source: https://github.com/jakartaresearch/earth-vision/issues/90
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

MEAN = torch.tensor([0.485, 0.456, 0.406])
STD = torch.tensor([0.229, 0.224, 0.225])


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


def to_float_tensor(img):
    return torch.from_numpy(img).float() / 255.0  # cause: keeps the (W, H, C) layout of the array


def normalize(img):
    return (img - MEAN) / STD


class AerialCactus(Dataset):
    def __init__(self, n, transform=None, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, (n, 40, 40, 3), dtype=np.uint8)
        self.labels = rng.integers(0, 2, n)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[idx])


class CactusNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(3, 32, 3)
        self.features = nn.Sequential(nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(32, 2)

    def forward(self, x):
        x = self.conv0(x)  # bug: a (N, 40, 40, 3) batch
        return self.fc(self.features(x).flatten(1))


torch.manual_seed(0)
aci_dataset = AerialCactus(16, transform=Compose([to_float_tensor, normalize]))
aci_dloader = DataLoader(aci_dataset, batch_size=4, shuffle=True)
model = CactusNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for images, labels in aci_dloader:
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
