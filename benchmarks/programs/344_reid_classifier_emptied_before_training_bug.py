"""Bug: the re-ID script copies the test-time line that empties model.classifier.classifier into its fine-tuning path, so the network emits the 16-dim bottleneck feature instead of 24 identity logits; cross_entropy then meets identity labels of 16 and above.

family: class-target
category: mutated-modules
expected: IndexError
message: is out of bounds
source: https://github.com/layumi/Person_reID_baseline_pytorch/issues/212
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, num_bottleneck=16):
        super().__init__()
        self.add_block = nn.Sequential(nn.Linear(input_dim, num_bottleneck), nn.BatchNorm1d(num_bottleneck), nn.Dropout(0.5))
        self.classifier = nn.Sequential(nn.Linear(num_bottleneck, class_num))

    def forward(self, x):
        return self.classifier(self.add_block(x))


class ft_net(nn.Module):
    def __init__(self, class_num):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = ClassBlock(8, class_num)

    def forward(self, x):
        return self.classifier(self.backbone(x))


def load_network(class_num):
    model = ft_net(class_num)
    model.classifier.classifier = nn.Sequential()  # cause: final identity layer removed, output is the 16-dim feature
    return model


def make_loader(class_num, n=32):
    g = torch.Generator().manual_seed(0)
    images = torch.randn(n, 3, 16, 16, generator=g)
    ids = torch.arange(n) % class_num
    return DataLoader(TensorDataset(images, ids), batch_size=8, shuffle=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--class_num", type=int, default=24)
    parser.add_argument("--lr", type=float, default=0.05)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = load_network(opt.class_num)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr, momentum=0.9)
    model.train()
    for inputs, labels in make_loader(opt.class_num):
        outputs = model(inputs)
        loss = criterion(outputs, labels)  # bug: 16 outputs, labels up to 23
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("loss", loss.item())
