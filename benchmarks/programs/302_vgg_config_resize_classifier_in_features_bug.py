"""Bug: the dataset config resizes every image to 64x64, but the VGG classifier's first Linear is sized for the 32x32 inputs it was designed for (a 2x2 map after four poolings); at 64x64 the flattened features are four times wider than the Linear expects.

family: shape
category: configuration
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (4x512 and 128x64)
source: https://github.com/open-mmlab/mmpretrain/issues/867
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

img_norm_cfg = dict(mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])
train_pipeline = [
    dict(type="Resize", size=(64, 64)),  # cause: 64x64 images for a classifier sized for 32x32
    dict(type="Normalize", **img_norm_cfg),
    dict(type="ImageToTensor"),
]
data = dict(samples_per_gpu=4, num_images=8, raw_size=(40, 48), num_classes=3)
model = dict(type="VGG", depth_channels=(8, 16, 32, 32), num_classes=3)


def apply_pipeline(img, pipeline):
    for step in pipeline:
        if step["type"] == "Resize":
            t = torch.from_numpy(img).permute(2, 0, 1)[None].float()
            img = F.interpolate(t, size=step["size"], mode="bilinear", align_corners=False)[0].permute(1, 2, 0).numpy()
        elif step["type"] == "Normalize":
            img = (img - np.array(step["mean"], dtype=np.float32)) / np.array(step["std"], dtype=np.float32)
        elif step["type"] == "ImageToTensor":
            img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float()
    return img


class FolderDataset(Dataset):
    def __init__(self, cfg, pipeline):
        rng = np.random.default_rng(0)
        self.imgs = rng.integers(0, 256, size=(cfg["num_images"], *cfg["raw_size"], 3)).astype(np.float32)
        self.labels = rng.integers(0, cfg["num_classes"], size=cfg["num_images"])
        self.pipeline = pipeline

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        return apply_pipeline(self.imgs[i], self.pipeline), int(self.labels[i])


class VGG(nn.Module):
    def __init__(self, depth_channels, num_classes, type="VGG"):
        super().__init__()
        layers, cin = [], 3
        for c in depth_channels:
            layers += [nn.Conv2d(cin, c, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2)]
            cin = c
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(cin * 2 * 2, 64), nn.ReLU(inplace=True), nn.Linear(64, num_classes))

    def forward(self, x):
        x = torch.flatten(self.features(x), 1)
        return self.classifier(x)  # bug: (N, 32*4*4) features into a Linear(32*2*2, 64)


def train(cfg_model, cfg_data):
    torch.manual_seed(0)
    net = VGG(**cfg_model)
    loader = DataLoader(FolderDataset(cfg_data, train_pipeline), batch_size=cfg_data["samples_per_gpu"], shuffle=True)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for imgs, gt_label in loader:
        loss = F.cross_entropy(net(imgs), gt_label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    train(model, data)
