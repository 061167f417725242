"""Bug: the custom segmentation dataset hands its colour-coded label PNGs (H, W, 3) to the transforms as they are, without encoding the colours to class ids, so the batch of targets is 4-D and the 2-D cross entropy rejects it.

family: class-target
category: data-paths
expected: RuntimeError
message: only batches of spatial targets supported (3D tensors) but got targets of dimension: 4
source: https://github.com/jfzhang95/pytorch-deeplab-xception/issues/189
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

PALETTE = np.array([[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0]], dtype=np.uint8)


def encode_segmap(mask):
    label = np.zeros(mask.shape[:2], dtype=np.int64)
    for ii, colour in enumerate(PALETTE):
        label[np.all(mask == colour, axis=-1)] = ii
    return label


class Normalize:
    def __init__(self, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.mean, self.std = np.array(mean), np.array(std)

    def __call__(self, sample):
        img = (sample["image"].astype(np.float32) / 255.0 - self.mean) / self.std
        return {"image": img.astype(np.float32), "label": sample["label"]}


class ToTensor:
    def __call__(self, sample):
        img = sample["image"].transpose((2, 0, 1))
        mask = np.array(sample["label"]).astype(np.float32)
        return {"image": torch.from_numpy(img).float(), "label": torch.from_numpy(mask).float()}


class CustomSegmentation(Dataset):
    def __init__(self, n=6, size=32, seed=0):
        rng = np.random.default_rng(seed)
        self.images = [rng.integers(0, 256, (size, size, 3), dtype=np.uint8) for _ in range(n)]
        self.masks = [PALETTE[rng.integers(0, len(PALETTE), (size, size))] for _ in range(n)]  # colour PNGs on disk
        self.transform = [Normalize(), ToTensor()]

    def __len__(self):
        return len(self.images)

    def _make_img_gt_point_pair(self, index):
        _img = self.images[index]
        _target = self.masks[index]  # cause: the (H, W, 3) colour mask is kept as the label
        return _img, _target

    def __getitem__(self, index):
        _img, _target = self._make_img_gt_point_pair(index)
        sample = {"image": _img, "label": _target}
        for t in self.transform:
            sample = t(sample)
        return sample


class SegmentationLosses:
    def __init__(self, ignore_index=255):
        self.ignore_index = ignore_index

    def CrossEntropyLoss(self, logit, target):
        criterion = nn.CrossEntropyLoss(ignore_index=self.ignore_index, reduction="mean")
        return criterion(logit, target.long())  # bug: targets are (N, H, W, 3)


class TinyDeepLab(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, stride=2, padding=2, dilation=2), nn.ReLU())
        self.classifier = nn.Conv2d(32, num_classes, 1)

    def forward(self, x):
        out = self.classifier(self.backbone(x))
        return F.interpolate(out, size=x.shape[2:], mode="bilinear", align_corners=True)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyDeepLab(num_classes=len(PALETTE))
    criterion = SegmentationLosses().CrossEntropyLoss
    optimizer = torch.optim.SGD(model.parameters(), lr=0.007, momentum=0.9)
    for epoch in range(1):
        for sample in DataLoader(CustomSegmentation(), batch_size=2, shuffle=True):
            image, target = sample["image"], sample["label"]
            output = model(image)
            loss = criterion(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
