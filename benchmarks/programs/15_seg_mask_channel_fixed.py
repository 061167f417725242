"""Fixed twin of 15_seg_mask_channel_bug.py: the mask keeps its (H, W) shape.

family: class-target
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
torch.manual_seed(0)

N_CLASSES, H, W = 3, 12, 12


def random_scene(h=H, w=W):
    labels = np.zeros((h, w), dtype=np.int64)
    labels[: h // 2] = 1
    labels[:, w // 2:] = 2
    image = labels[None].repeat(3, axis=0).astype(np.float32) / N_CLASSES
    image += 0.1 * np.random.randn(3, h, w).astype(np.float32)
    return image, labels


class SceneDataset(Dataset):
    def __init__(self, n=10):
        self.items = [random_scene() for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        image, labels = self.items[idx]
        return torch.from_numpy(image), torch.from_numpy(labels)


class FCN(nn.Module):
    def __init__(self, n_classes=N_CLASSES):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        return self.classifier(self.body(x))


def train(model, loader, epochs=2, class_weights=None):
    criterion = nn.CrossEntropyLoss(weight=class_weights)
    optim = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        for images, masks in loader:
            out = model(images)
            loss = criterion(out, masks)
            optim.zero_grad()
            loss.backward()
            optim.step()
        print(epoch, loss.item())


train(FCN(), DataLoader(SceneDataset(), batch_size=5, shuffle=True), class_weights=torch.tensor([0.5, 1.0, 1.0]))
