"""Bug: MixMatch's WeightEMA takes its parameter lists from model.state_dict().values(), so the EMA step also visits BatchNorm's int64 num_batches_tracked, and ema_param.mul_(alpha) cannot write a float product into a Long tensor.

family: int-float
category: mutated-modules
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
source: https://github.com/YU1ut/MixMatch-pytorch/issues/27
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallWideNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def create_model(ema=False):
    model = SmallWideNet()
    if ema:
        for param in model.parameters():
            param.detach_()
    return model


class WeightEMA(object):
    def __init__(self, model, ema_model, alpha=0.999, lr=0.002):
        self.alpha = alpha
        self.params = list(model.state_dict().values())
        self.ema_params = list(ema_model.state_dict().values())  # cause: includes the int64 num_batches_tracked counters
        self.wd = 0.02 * lr
        for param, ema_param in zip(self.params, self.ema_params):
            param.data.copy_(ema_param.data)

    def step(self):
        one_minus_alpha = 1.0 - self.alpha
        for param, ema_param in zip(self.params, self.ema_params):
            ema_param.mul_(self.alpha)  # bug: Long counter times a float decay
            ema_param.add_(param * one_minus_alpha)
            param.mul_(1 - self.wd)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--ema-decay", type=float, default=0.999)
    args = parser.parse_args([])

    torch.manual_seed(0)
    images, labels = torch.randn(32, 3, 8, 8), torch.randint(0, 10, (32,))
    labeled_trainloader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)

    model, ema_model = create_model(), create_model(ema=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    ema_optimizer = WeightEMA(model, ema_model, alpha=args.ema_decay, lr=args.lr)
    for inputs_x, targets_x in labeled_trainloader:
        loss = F.cross_entropy(model(inputs_x), targets_x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema_optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
