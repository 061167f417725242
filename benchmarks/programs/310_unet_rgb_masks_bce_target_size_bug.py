"""Bug: the masks of the custom dataset are saved as RGB PNGs; the dataset's preprocess helper turns any HxWxC array into CxHxW, so each mask becomes a 3-channel target, while the one-class UNet predicts one channel and BCEWithLogitsLoss refuses the shapes.

family: shape
category: factories
expected: ValueError
message: must be the same as input size (torch.Size([2, 1, 16, 16]))
source: https://github.com/milesial/Pytorch-UNet/issues/244
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def load_image(rng, size, mode):
    channels = 3 if mode == "RGB" else 1
    arr = rng.integers(0, 256, size=(size, size, channels), dtype=np.uint8)
    return arr if channels == 3 else arr[..., 0]


class BasicDataset(Dataset):
    def __init__(self, n=6, size=16, scale=1.0):
        rng = np.random.default_rng(0)
        self.imgs = [load_image(rng, size, "RGB") for _ in range(n)]
        self.masks = [(load_image(rng, size, "RGB") > 127).astype(np.uint8) * 255 for _ in range(n)]  # cause: masks read as RGB
        self.scale = scale

    @staticmethod
    def preprocess(pil_img, scale):
        img_nd = np.array(pil_img)
        if img_nd.ndim == 2:
            img_nd = np.expand_dims(img_nd, axis=2)
        img_trans = img_nd.transpose((2, 0, 1))
        return img_trans / 255 if img_trans.max() > 1 else img_trans

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        img = self.preprocess(self.imgs[i], self.scale)
        mask = self.preprocess(self.masks[i], self.scale)
        return {"image": torch.from_numpy(img).float(), "mask": torch.from_numpy(mask).float()}


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes):
        super().__init__()
        self.n_classes = n_classes
        self.inc = nn.Sequential(nn.Conv2d(n_channels, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.outc = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        return self.outc(torch.cat([x1, self.up(self.down(x1))], dim=1))


def train_net(net, epochs, batch_size, lr):
    loader = DataLoader(BasicDataset(), batch_size=batch_size, shuffle=True)
    optimizer = torch.optim.RMSprop(net.parameters(), lr=lr, weight_decay=1e-8, momentum=0.9)
    criterion = nn.CrossEntropyLoss() if net.n_classes > 1 else nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        for batch in loader:
            imgs, true_masks = batch["image"], batch["mask"]
            masks_pred = net(imgs)
            loss = criterion(masks_pred, true_masks)  # bug: (N, 3, H, W) target for a (N, 1, H, W) prediction
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train_net(UNet(n_channels=3, n_classes=1), args.epochs, args.batch_size, args.lr)
