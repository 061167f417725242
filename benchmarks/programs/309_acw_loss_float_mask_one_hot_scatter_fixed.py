"""Fixed twin of 309_acw_loss_float_mask_one_hot_scatter_bug.py: the mask transform keeps the label map as int64 class indices.

family: class-target
category: factories
expected: success
source: https://github.com/samleoqh/MSCG-Net/issues/7
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

NUM_CLASSES = 5


def to_tensor(arr):
    return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32))


def build_transforms():
    img_tf = lambda img: (to_tensor(img.transpose(2, 0, 1)) / 255.0 - 0.5) / 0.25
    mask_tf = lambda mask: torch.from_numpy(mask.astype(np.int64))
    return img_tf, mask_tf


class AgriVisionDataset(Dataset):
    def __init__(self, n=6, size=16):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, size=(n, size, size, 4), dtype=np.uint8)
        self.masks = rng.integers(0, NUM_CLASSES, size=(n, size, size), dtype=np.uint8)
        self.img_tf, self.mask_tf = build_transforms()

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.img_tf(self.images[i]), self.mask_tf(self.masks[i])


class ACWLoss(nn.Module):
    def __init__(self, ini_weight=0, ini_iteration=0, eps=1e-5, ignore_index=255):
        super().__init__()
        self.weight, self.itr, self.eps, self.ignore_index = ini_weight, ini_iteration, eps, ignore_index

    def forward(self, prediction, target):
        pred = F.softmax(prediction, 1)
        one_hot_label, mask = self.encode_one_hot_label(pred, target)
        acw = self.adaptive_class_weight(pred, one_hot_label, mask)
        err = torch.pow((one_hot_label - pred), 2)
        pnc = err - ((1. - err + self.eps) / (1. + err + self.eps)).log()
        return torch.sum((acw * pnc).sum(1)) / (mask.numel() - mask.sum())

    def adaptive_class_weight(self, pred, one_hot_label, mask):
        self.itr += 1
        sum_class = torch.sum(one_hot_label, dim=(0, 2, 3))
        weight_curr = sum_class / (sum_class.sum() + self.eps)
        self.weight = (self.weight * (self.itr - 1) + weight_curr) / self.itr
        mfb = self.weight.mean() / (self.weight + self.eps)
        return mfb[None, :, None, None] * one_hot_label * pred * (~mask)[:, None].float()

    def encode_one_hot_label(self, pred, target):
        one_hot_label = pred.detach() * 0
        mask = target == self.ignore_index
        one_hot_label.scatter_(1, target.unsqueeze(1), 1)
        return one_hot_label, mask


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(4, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, NUM_CLASSES, 1))
    criterion = ACWLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for inputs, labels in DataLoader(AgriVisionDataset(), batch_size=2, shuffle=True):
        main_loss = criterion(net(inputs), labels)
        optimizer.zero_grad()
        main_loss.backward()
        optimizer.step()
    print(f"loss {main_loss.item():.4f}")


if __name__ == "__main__":
    main()
