"""Bug: the ImageNet example's accuracy() transposes the top-k predictions with pred.t(), compares them with the targets, and flattens correct[:k] with view(-1); the comparison keeps the transposed strides, so the top-5 slice is not contiguous and view refuses it.

family: shape
category: model-shapes
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/pytorch/examples/issues/836
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class AverageMeter:
    def __init__(self, name):
        self.name, self.sum, self.count = name, 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()  # cause: (maxk, N) with transposed strides
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)  # bug: correct[:5] is not contiguous
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def train(train_loader, model, criterion, optimizer, epoch, args):
    top1, top5 = AverageMeter("Acc@1"), AverageMeter("Acc@5")
    model.train()
    for images, target in train_loader:
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        top1.update(acc1[0].item(), images.size(0))
        top5.update(acc5[0].item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"Epoch {epoch}: loss {loss.item():.3f} Acc@1 {top1.avg:.2f} Acc@5 {top5.avg:.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("-b", "--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    torch.manual_seed(0)
    dataset = TensorDataset(torch.rand(64, 3, 16, 16), torch.randint(0, 20, (64,)))
    train_loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 20))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)


if __name__ == "__main__":
    main()
