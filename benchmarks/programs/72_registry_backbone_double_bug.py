"""Bug: a registry of feature extractors picked by name from the argparse default; the default one builds its projection with dtype=torch.float64 (copied from a numerics notebook) and the float32 head rejects its output.

family: precision
category: factories
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/yandex-research/tabular-dl-tabr/issues/23
"""
import argparse

import torch
import torch.nn as nn


def random_features(n_in, n_out):
    proj = nn.Linear(n_in, n_out, bias=False)
    proj.weight.data = torch.randn(n_out, n_in, dtype=torch.float64) / n_in ** 0.5  # cause: float64 weights
    return proj


def mlp_features(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, n_out), nn.ReLU())


BACKBONES = {"rff": random_features, "mlp": mlp_features}


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backbone", default="rff", choices=sorted(BACKBONES))
    parser.add_argument("--width", type=int, default=16)
    return parser.parse_args()


def main():
    args = get_args()
    backbone = BACKBONES[args.backbone](8, args.width)
    head = nn.Linear(args.width, 1)
    x = torch.randn(20, 8, dtype=torch.float64)
    y = torch.randn(20, 1)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    feats = backbone(x)
    pred = head(feats)  # bug: float64 features into a float32 head
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
