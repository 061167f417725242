"""Fixed twin of 14_seg_float_mask_bug.py: the class map is int64.

family: class-target
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SIZE = 16


class BlobDataset(Dataset):
    """Random images with one bright square; the mask marks the square (class 1) vs background (class 0)."""

    def __init__(self, n=12, seed=0):
        self.rng = np.random.default_rng(seed)
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        img = self.rng.random((3, SIZE, SIZE), dtype=np.float32) * 0.3
        r, c = self.rng.integers(0, SIZE - 6, size=2)
        img[:, r:r + 6, c:c + 6] += 0.7
        mask = (img.mean(axis=0) > 0.5).astype(np.int64)
        return img, mask


class TinyUNet(nn.Module):
    def __init__(self, n_classes=2, width=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(width, width, 2, stride=2)
        self.out = nn.Conv2d(2 * width, n_classes, 1)

    def forward(self, x):
        skip = self.down(x)
        h = self.up(self.mid(self.pool(skip)))
        return self.out(torch.cat([h, skip], dim=1))


def dice_score(logits, mask):
    pred = logits.argmax(1)
    inter = ((pred == 1) & (mask == 1)).sum().item()
    return 2 * inter / max(1, (pred == 1).sum().item() + (mask == 1).sum().item())


model = TinyUNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(BlobDataset(), batch_size=4)
for step, (images, masks) in enumerate(loader):
    logits = model(images)
    loss = F.cross_entropy(logits, masks)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss={loss.item():.3f} dice={dice_score(logits, masks):.3f}")
