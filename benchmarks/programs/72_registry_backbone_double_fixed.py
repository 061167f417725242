"""Fixed twin of 72_registry_backbone_double_bug.py: the features are cast to float32 before the head.

family: precision
expected: success
source: https://github.com/yandex-research/tabular-dl-tabr/issues/23
"""
import argparse

import torch
import torch.nn as nn


def random_features(n_in, n_out):
    proj = nn.Linear(n_in, n_out, bias=False)
    proj.weight.data = torch.randn(n_out, n_in, dtype=torch.float64) / n_in ** 0.5
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
    pred = head(feats.float())
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
