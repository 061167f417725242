"""Bug: a residual block that widens 16 -> 32 channels keeps an identity shortcut, so out + identity cannot broadcast.

family: shape
expected: RuntimeError
message: The size of tensor a (32) must match the size of tensor b (16) at non-singleton dimension 1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Identity()  # cause: no 1x1 projection when the channel count changes

    def forward(self, x):
        identity = self.shortcut(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)  # bug: 32 channels + 16 channels


class MiniResNet(nn.Module):
    def __init__(self, n_classes=10, widths=(16, 32)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, padding=1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        blocks, in_ch = [], widths[0]
        for w in widths:
            blocks.append(BasicBlock(in_ch, w))
            in_ch = w
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(widths[-1], n_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


model = MiniResNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
for step in range(2):
    images = torch.randn(4, 3, 16, 16)
    labels = torch.randint(0, 10, (4,))
    loss = F.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.3f}")
