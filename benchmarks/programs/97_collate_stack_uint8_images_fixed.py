"""Fixed twin of 97_collate_stack_uint8_images_bug.py: the dataset scales the image to float.

family: int-float
expected: success
source: https://github.com/amdegroot/ssd.pytorch/issues/325
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class VOCLike(Dataset):
    def __init__(self, n, size=32):
        self.images = [np.random.randint(0, 256, (size, size, 3), dtype=np.uint8) for _ in range(n)]
        self.boxes = [np.array([[2, 2, 10, 10, 1]], dtype=np.float32) for _ in range(n)]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i]).permute(2, 0, 1).float() / 255.0
        return img, torch.from_numpy(self.boxes[i])


def detection_collate(batch):
    imgs, targets = [], []
    for img, target in batch:
        imgs.append(img)
        targets.append(target)
    return torch.stack(imgs, 0), targets


def count_boxes(targets):
    return sum(len(t) for t in targets)


backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.Conv2d(16, 6, 1))
loader = DataLoader(VOCLike(6), batch_size=3, collate_fn=detection_collate)
for images, targets in loader:
    out = backbone(images)
    print(out.shape, count_boxes(targets))
