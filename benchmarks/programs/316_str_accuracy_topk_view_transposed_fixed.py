"""Fixed twin of 316_str_accuracy_topk_view_transposed_bug.py: correct[:k] is flattened with reshape(-1), which copies when the slice is not contiguous.

family: shape
category: model-outputs
expected: success
source: https://github.com/RAIVNLab/STR/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class STRConv(nn.Conv2d):
    def __init__(self, *args, s_init=-3.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.sparse_threshold = nn.Parameter(torch.tensor(s_init))

    def forward(self, x):
        w = torch.sign(self.weight) * F.relu(self.weight.abs() - torch.sigmoid(self.sparse_threshold))
        return F.conv2d(x, w, self.bias, self.stride, self.padding)


class ResNetTiny(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = STRConv(3, 16, 3, padding=1)
        self.conv2 = STRConv(16, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        return self.fc(x.mean(dim=(2, 3)))


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def validate(val_loader, model, criterion):
    model.eval()
    top1_sum, top5_sum, n = 0.0, 0.0, 0
    with torch.no_grad():
        for images, target in val_loader:
            output = model(images)
            loss = criterion(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            top1_sum += acc1.item() * images.size(0)
            top5_sum += acc5.item() * images.size(0)
            n += images.size(0)
    print(f"loss {loss.item():.3f} Acc@1 {top1_sum / n:.2f} Acc@5 {top5_sum / n:.2f}")


def main():
    torch.manual_seed(0)
    model = ResNetTiny()
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 16, 16, generator=g), torch.randint(0, 10, (16,), generator=g))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.875)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    model.train()
    for images, target in DataLoader(data, batch_size=8, shuffle=True, generator=g):
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    validate(DataLoader(data, batch_size=8), model, criterion)


if __name__ == "__main__":
    main()
