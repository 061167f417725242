"""Bug: the 16-bit MRI slices go through a Compose([RandomCrop, ToTensor]) pipeline whose ToTensor, like torchvision's for 'I;16' images, only converts and scales 8-bit images and returns 16-bit ones as an int16 tensor; no step casts to float, so the network's conv gets Short input.

family: int-float
category: factories
expected: RuntimeError
message: should be the same
source: https://github.com/pytorch/vision/issues/317
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class RandomCrop:
    def __init__(self, size, seed=0):
        self.size, self.rng = size, np.random.default_rng(seed)

    def __call__(self, img):
        top = self.rng.integers(0, img.shape[0] - self.size + 1)
        left = self.rng.integers(0, img.shape[1] - self.size + 1)
        return img[top:top + self.size, left:left + self.size]


class ToTensor:
    def __call__(self, pic):
        if pic.dtype == np.uint8:
            return torch.from_numpy(pic[None].astype(np.float32) / 255.0)
        if pic.dtype in (np.uint16, np.int16):
            return torch.from_numpy(pic[None].astype(np.int16))  # cause: 'I;16' kept as int16, unscaled
        return torch.from_numpy(pic[None])


class MRISlices(Dataset):
    def __init__(self, n, transform):
        rng = np.random.default_rng(0)
        self.slices = rng.integers(0, 4096, size=(n, 24, 24), dtype=np.uint16)
        self.labels = rng.integers(0, 2, size=n)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.transform(self.slices[i]), int(self.labels[i])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))  # bug: int16 slices into the float32 conv


def main():
    torch.manual_seed(0)
    transform = Compose([RandomCrop(16), ToTensor()])
    loader = DataLoader(MRISlices(8, transform), batch_size=4, shuffle=True)
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for images, labels in loader:
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
