"""Fixed twin of 358_cutpaste_resnet50_head_dims_bug.py: the head's first width is taken from the chosen encoder's feature size (2048 for resnet50).

family: shape
category: configuration
expected: success
source: https://github.com/LilitYolyan/CutPaste/issues/26
"""
import argparse

import torch
import torch.nn as nn


def _resnet(width, expansion):
    return nn.Sequential(
        nn.Conv2d(3, 32, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, stride=2, padding=1),
        nn.Conv2d(32, width * expansion, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(width * expansion),
        nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    )


def resnet18():
    return _resnet(512, expansion=1)


def resnet50():
    return _resnet(512, expansion=4)


ENCODERS = {"resnet18": resnet18, "resnet50": resnet50}


class CutPasteNet(nn.Module):
    def __init__(self, encoder="resnet18", dims=(512, 512, 512, 512, 128), num_class=3):
        super().__init__()
        self.encoder = ENCODERS[encoder]()
        dims = (self.encoder[4].out_channels,) + tuple(dims[1:])
        layers = []
        for d_in, d_out in zip(dims[:-2], dims[1:-1]):
            layers += [nn.Linear(d_in, d_out, bias=False), nn.BatchNorm1d(d_out), nn.ReLU(inplace=True)]
        layers.append(nn.Linear(dims[-2], dims[-1]))
        self.head = nn.Sequential(*layers)
        self.out = nn.Linear(dims[-1], num_class)

    def forward(self, x):
        features = self.encoder(x)
        embeds = self.head(features)
        return self.out(embeds), embeds


def cutpaste_views(images, g):
    cut = images.clone()
    cut[:, :, 4:12, 4:12] = images[:, :, 16:24, 16:24]
    scar = images.clone()
    scar[:, :, 8:10, 2:30] = torch.rand(images.size(0), 3, 2, 28, generator=g)
    return torch.cat([images, cut, scar]), torch.arange(3).repeat_interleave(images.size(0))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--encoder", default="resnet18", choices=sorted(ENCODERS))
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.03)
    args = parser.parse_args(["--encoder", "resnet50"])
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = CutPasteNet(encoder=args.encoder)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for step in range(2):
        images = torch.rand(args.batch_size, 3, 32, 32, generator=g)
        x, y = cutpaste_views(images, g)
        logits, _ = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
