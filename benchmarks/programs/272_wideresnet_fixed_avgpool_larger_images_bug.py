"""Bug: WideResNet ends with F.avg_pool2d(out, 8) and out.view(-1, nChannels), which assumes 32x32 inputs (8x8 final maps); on 64x64 images the final maps are 16x16, pooling leaves 2x2, and the view folds them into four times as many rows as images.

family: shape
category: model-shapes
expected: ValueError
message: Expected input batch_size (32) to match target batch_size (8)
source: https://github.com/uoguelph-mlrg/Cutout/issues/16
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class BasicBlock(nn.Module):
    def __init__(self, in_planes, out_planes, stride):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(in_planes)
        self.conv1 = nn.Conv2d(in_planes, out_planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_planes)
        self.conv2 = nn.Conv2d(out_planes, out_planes, 3, stride=1, padding=1, bias=False)
        self.shortcut = nn.Conv2d(in_planes, out_planes, 1, stride=stride, bias=False)

    def forward(self, x):
        out = self.conv1(F.relu(self.bn1(x)))
        out = self.conv2(F.relu(self.bn2(out)))
        return out + self.shortcut(x)


class WideResNet(nn.Module):
    def __init__(self, num_classes, widen_factor=1):
        super().__init__()
        nChannels = [16, 16 * widen_factor, 32 * widen_factor, 64 * widen_factor]
        self.conv1 = nn.Conv2d(3, nChannels[0], 3, stride=1, padding=1, bias=False)
        self.block1 = BasicBlock(nChannels[0], nChannels[1], 1)
        self.block2 = BasicBlock(nChannels[1], nChannels[2], 2)
        self.block3 = BasicBlock(nChannels[2], nChannels[3], 2)
        self.bn1 = nn.BatchNorm2d(nChannels[3])
        self.fc = nn.Linear(nChannels[3], num_classes)
        self.nChannels = nChannels[3]

    def forward(self, x):
        out = self.block3(self.block2(self.block1(self.conv1(x))))
        out = F.relu(self.bn1(out))
        out = F.avg_pool2d(out, 8)
        out = out.view(-1, self.nChannels)  # cause: 2x2 pooled maps become extra rows
        return self.fc(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--image_size", type=int, default=64)
    parser.add_argument("--num_classes", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    images = torch.rand(24, 3, args.image_size, args.image_size)
    labels = torch.randint(0, args.num_classes, (24,))
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    cnn = WideResNet(args.num_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    for epoch in range(2):
        cnn.train()
        for images, labels in train_loader:
            pred = cnn(images)
            xentropy_loss = criterion(pred, labels)  # bug: four score rows per image
            optimizer.zero_grad()
            xentropy_loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: xentropy {xentropy_loss.item():.4f}")


if __name__ == "__main__":
    main()
