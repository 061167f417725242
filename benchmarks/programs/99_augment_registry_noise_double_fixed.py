"""Fixed twin of 99_augment_registry_noise_double_bug.py: the noise is drawn with torch in the batch's dtype.

family: numpy-float64
expected: success
source: https://openillumi.com/en/en-pytorch-double-expected-float-fix
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def add_noise(x, scale=0.05):
    return x + torch.randn_like(x) * scale


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
    pred = model(augment(x))
    loss = nn.functional.mse_loss(pred, y)
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
