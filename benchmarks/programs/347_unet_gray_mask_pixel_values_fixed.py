"""Fixed twin of 347_unet_gray_mask_pixel_values_bug.py: the dataset maps the gray mask pixels to class indices (pixel > 0 is class 1) before building the target tensor.

family: class-target
category: data-paths
expected: success
source: https://github.com/milesial/Pytorch-UNet/issues/291
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class BasicDataset(Dataset):
    def __init__(self, n_images=6, size=32, scale=1.0):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, (n_images, size, size, 3), dtype=np.uint8)
        self.masks = np.zeros((n_images, size, size), dtype=np.uint8)
        self.masks[:, 8:24, 8:24] = 192  # the mask files store the object in gray
        self.scale = scale

    @staticmethod
    def preprocess(pil_img, is_mask):
        img_ndarray = np.asarray(pil_img)
        if is_mask:
            return img_ndarray
        return img_ndarray.transpose((2, 0, 1)) / 255.0

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.preprocess(self.images[idx], is_mask=False)
        mask = self.preprocess(self.masks[idx], is_mask=True)
        return {
            "image": torch.as_tensor(img.copy()).float().contiguous(),
            "mask": torch.as_tensor((mask > 0).copy()).long().contiguous(),
        }


class DoubleConv(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes):
        super().__init__()
        self.inc = DoubleConv(n_channels, 16)
        self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(16, 32))
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.conv = DoubleConv(32, 16)
        self.outc = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(x1)
        return self.outc(self.conv(torch.cat([x1, self.up(x2)], dim=1)))


def train_net(net, args):
    loader = DataLoader(BasicDataset(scale=args.scale), batch_size=args.batch_size, shuffle=True)
    optimizer = torch.optim.RMSprop(net.parameters(), lr=args.lr, weight_decay=1e-8, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        net.train()
        for batch in loader:
            images, true_masks = batch["image"], batch["mask"]
            masks_pred = net(images)
            loss = criterion(masks_pred, true_masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch + 1} loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train the UNet on images and target masks")
    parser.add_argument("--epochs", "-e", type=int, default=2)
    parser.add_argument("--batch-size", "-b", dest="batch_size", type=int, default=2)
    parser.add_argument("--learning-rate", "-l", dest="lr", type=float, default=1e-4)
    parser.add_argument("--scale", "-s", type=float, default=1.0)
    parser.add_argument("--classes", "-c", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    net = UNet(n_channels=3, n_classes=args.classes)
    train_net(net, args)
