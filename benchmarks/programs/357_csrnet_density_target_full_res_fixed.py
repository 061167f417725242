"""Fixed twin of 357_csrnet_density_target_full_res_bug.py: the density map is resized to 1/8 of the image (and scaled by 64 to keep the count), matching CSRNet's output.

family: shape
category: data-paths
expected: success
source: https://github.com/surajdakua/Crowd-Counting-Using-Pytorch/issues/5
"""
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

warnings.filterwarnings("ignore", category=UserWarning)


def resize(density, size):
    # stands in for cv2.resize(target, (w, h), interpolation=cv2.INTER_CUBIC)
    t = torch.from_numpy(density)[None, None]
    return F.interpolate(t, size=(size[1], size[0]), mode="bilinear", align_corners=False)[0, 0].numpy()


def load_data(rng, height=96, width=128):
    img = rng.random((height, width, 3)).astype(np.float32)
    target = np.zeros((height, width), dtype=np.float32)
    for y, x in zip(rng.integers(0, height, 20), rng.integers(0, width, 20)):
        target[y, x] += 1.0
    target = resize(target, (target.shape[1] // 8, target.shape[0] // 8)) * 64
    return img, target


class ListDataset(Dataset):
    def __init__(self, n=4, seed=0):
        rng = np.random.default_rng(seed)
        self.samples = [load_data(rng) for _ in range(n)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        img, target = self.samples[i]
        img = torch.from_numpy(img).permute(2, 0, 1)
        return (img - 0.45) / 0.225, torch.from_numpy(target).unsqueeze(0)


def make_layers(cfg, in_channels=3, dilation=1):
    layers = []
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(in_channels, v, 3, padding=dilation, dilation=dilation), nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class CSRNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = make_layers([8, "M", 16, "M", 32, "M", 32])
        self.backend = make_layers([32, 16, 8], in_channels=32, dilation=2)
        self.output_layer = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        return self.output_layer(self.backend(self.frontend(x)))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = CSRNet()
    criterion = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-7, momentum=0.95)
    for epoch in range(1):
        for img, target in DataLoader(ListDataset(), batch_size=1, shuffle=True):
            output = model(img)
            loss = criterion(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
