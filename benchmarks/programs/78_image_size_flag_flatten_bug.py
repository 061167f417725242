"""Bug: the --img-size flag defaults to 64 but the classifier's first Linear was sized for the 32x32 images of the original config (16 * 8 * 8 features after two poolings).

family: shape
category: configuration
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied
source: https://github.com/talbenha/cell-tracker-gnn/issues/8
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--img-size", type=int, default=64)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--num-classes", type=int, default=3)
args = parser.parse_args()


class CellNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, num_classes)  # cause: sized for 32x32 inputs

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc(x)  # bug: 16*16*16 features per image with --img-size 64


def random_cells(n, size):
    return torch.rand(n, 1, size, size)


model = CellNet(args.num_classes)
images = random_cells(args.batch_size, args.img_size)
labels = torch.randint(0, args.num_classes, (args.batch_size,))
loss = F.cross_entropy(model(images), labels)
loss.backward()
print(loss.item())
