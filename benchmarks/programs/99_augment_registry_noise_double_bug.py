"""Bug: the augmentation is picked from a registry by the --aug option (default "noise"); the noise step adds torch.from_numpy(np.random.normal(...)), float64, so the augmented batch becomes float64.

family: numpy-float64
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://openillumi.com/en/en-pytorch-double-expected-float-fix
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def add_noise(x, scale=0.05):
    return x + torch.from_numpy(np.random.normal(0.0, scale, size=tuple(x.shape)))  # cause: float64 noise


def flip(x):
    return torch.flip(x, dims=[1])


AUGMENTATIONS = {"noise": add_noise, "flip": flip, "none": lambda x: x}


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--aug", default="noise", choices=sorted(AUGMENTATIONS))
    parser.add_argument("--features", type=int, default=6)
    return parser.parse_args()


def main():
    args = get_args()
    augment = AUGMENTATIONS[args.aug]
    model = nn.Sequential(nn.Linear(args.features, 8), nn.ReLU(), nn.Linear(8, 1))
    x = torch.randn(10, args.features)
    y = x.sum(dim=1, keepdim=True)
    pred = model(augment(x))  # bug: float64 batch into float32 layers
    loss = nn.functional.mse_loss(pred, y)
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
