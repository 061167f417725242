"""Bug: --input_nc 1 (the grayscale setting this run defaults to) builds a 1-channel generator, but the unaligned dataset calls get_transform(opt) without grayscale=True, so the images stay 3-channel RGB and the generator's first conv rejects them.

family: shape
category: configuration
expected: RuntimeError
message: to have 1 channels, but got 3 channels instead
source: https://github.com/taesungp/contrastive-unpaired-translation/issues/57
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input_nc", type=int, default=1, help="# of input image channels: 3 for RGB and 1 for grayscale")
    parser.add_argument("--output_nc", type=int, default=1)
    parser.add_argument("--crop_size", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--ngf", type=int, default=8)
    return parser.parse_args()


def get_transform(opt, grayscale=False):
    transform_list = []
    if grayscale:
        transform_list.append(lambda img: img.mean(axis=2, keepdims=True))
    transform_list.append(lambda img: img[: opt.crop_size, : opt.crop_size])
    transform_list.append(lambda img: torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float() / 255.0)
    transform_list.append(lambda t: (t - 0.5) / 0.5)

    def compose(img):
        for t in transform_list:
            img = t(img)
        return img
    return compose


class UnalignedDataset(Dataset):
    def __init__(self, opt, n=4):
        rng = np.random.default_rng(0)
        self.A = rng.integers(0, 256, size=(n, 20, 20, 3), dtype=np.uint8)  # images are read with convert('RGB')
        self.B = rng.integers(0, 256, size=(n, 20, 20, 3), dtype=np.uint8)
        self.transform_A = get_transform(opt)  # cause: grayscale is not passed for input_nc == 1
        self.transform_B = get_transform(opt, grayscale=(opt.output_nc == 1))

    def __len__(self):
        return len(self.A)

    def __getitem__(self, i):
        return {"A": self.transform_A(self.A[i]), "B": self.transform_B(self.B[i])}


class ResnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf):
        super().__init__()
        self.model = nn.Sequential(
            nn.ReflectionPad2d(3), nn.Conv2d(input_nc, ngf, kernel_size=7), nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, ngf, 3, padding=1), nn.ReLU(True),
            nn.ReflectionPad2d(3), nn.Conv2d(ngf, output_nc, kernel_size=7), nn.Tanh())

    def forward(self, x):
        return self.model(x)  # bug: 3-channel batch into the 1-channel conv


def main():
    opt = get_opt()
    torch.manual_seed(0)
    netG = ResnetGenerator(opt.input_nc, opt.output_nc, opt.ngf)
    loader = DataLoader(UnalignedDataset(opt), batch_size=opt.batch_size, shuffle=True)
    optimizer = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for data in loader:
        fake_B = netG(data["A"])
        loss = nn.functional.l1_loss(fake_B, data["B"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
