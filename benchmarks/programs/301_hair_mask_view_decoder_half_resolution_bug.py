"""Bug: the hair-segmentation MobileNet encoder downsamples five times but its decoder upsamples only four, so the predicted masks come out at half the --img_size; the image-gradient consistency loss views each predicted mask as (img_size, img_size, 1) and the view cannot hold the smaller mask.

family: shape
category: model-shapes
expected: RuntimeError
message: shape '[32, 32, 1]' is invalid for input of size 256
source: https://github.com/YBIGTA/pytorch-hair-segmentation/issues/46
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--networks", default="mobilenet")
    parser.add_argument("--img_size", type=int, default=32)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    return parser.parse_args([])


class FigaroDataset(Dataset):
    def __init__(self, img_size, n=8):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, img_size, img_size, generator=g)
        self.masks = (torch.rand(n, 1, img_size, img_size, generator=g) > 0.5).float()

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.masks[i]


def dw_block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin), nn.ReLU(), nn.Conv2d(cin, cout, 1), nn.ReLU())


class MobileHairNet(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [3, 8, 16, 16, 32, 32]
        self.encoder = nn.Sequential(*[dw_block(chans[i], chans[i + 1], 2) for i in range(5)])  # five stride-2 blocks
        self.decoder = nn.Sequential(*[nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(32 if i == 0 else 16, 16, 3, padding=1),
                                                     nn.ReLU()) for i in range(4)])  # cause: four upsamplings for five downsamplings
        self.head = nn.Conv2d(16, 1, 1)

    def forward(self, x):
        return torch.sigmoid(self.head(self.decoder(self.encoder(x))))


def image_gradient_loss(pred, image, img_size):
    losses = []
    for m, img in zip(pred, image):
        m = m.view(img_size, img_size, 1)  # bug: a (16, 16) mask viewed as (32, 32, 1)
        gray = img.mean(0, keepdim=True).permute(1, 2, 0)
        gm = (m[1:] - m[:-1]).abs()
        gi = (gray[1:] - gray[:-1]).abs()
        losses.append((gm * torch.exp(-gi)).mean())
    return torch.stack(losses).mean()


def main():
    args = get_args()
    torch.manual_seed(0)
    model = MobileHairNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = DataLoader(FigaroDataset(args.img_size), batch_size=args.batch_size, shuffle=True)
    for image, mask in loader:
        pred = model(image)
        loss = F.binary_cross_entropy(F.interpolate(pred, size=mask.shape[2:]), mask)
        loss = loss + 0.5 * image_gradient_loss(pred, image, args.img_size)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
