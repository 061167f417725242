"""Bug: the detection collate function stacks the uint8 images it gets from the dataset as they are; the float32 backbone receives a uint8 batch.

family: int-float
category: factories
expected: RuntimeError
message: Input type (unsigned char) and bias type (float) should be the same
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
        img = torch.from_numpy(self.images[i]).permute(2, 0, 1)  # cause: still uint8
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
    out = backbone(images)  # bug: uint8 images into float32 convolutions
    print(out.shape, count_boxes(targets))
