"""Fixed twin of 314_ghostnet_reset_classifier_num_features_bug.py: reset_classifier() sizes the new Linear by head_hidden_size, the width the classifier actually receives.

family: shape
category: mutated-modules
expected: success
source: https://github.com/huggingface/pytorch-image-models/pull/1951
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class GhostModule(nn.Module):
    def __init__(self, inp, oup, ratio=2):
        super().__init__()
        init_ch = oup // ratio
        self.primary_conv = nn.Sequential(nn.Conv2d(inp, init_ch, 1, bias=False), nn.BatchNorm2d(init_ch), nn.ReLU(True))
        self.cheap_operation = nn.Sequential(nn.Conv2d(init_ch, oup - init_ch, 3, 1, 1, groups=init_ch, bias=False),
                                             nn.BatchNorm2d(oup - init_ch), nn.ReLU(True))

    def forward(self, x):
        x1 = self.primary_conv(x)
        return torch.cat([x1, self.cheap_operation(x1)], dim=1)


class GhostNet(nn.Module):
    def __init__(self, num_classes=1000, width=1.0, dropout=0.2):
        super().__init__()
        self.num_classes, self.dropout = num_classes, dropout
        self.conv_stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(True))
        self.blocks = nn.Sequential(GhostModule(16, 24), nn.MaxPool2d(2), GhostModule(24, 32))
        self.num_features = 32
        self.head_hidden_size = 48
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_head = nn.Conv2d(self.num_features, self.head_hidden_size, 1, bias=True)
        self.act2 = nn.ReLU(True)
        self.classifier = nn.Linear(self.head_hidden_size, num_classes)

    def reset_classifier(self, num_classes):
        self.num_classes = num_classes
        self.classifier = nn.Linear(self.head_hidden_size, num_classes) if num_classes > 0 else nn.Identity()

    def forward(self, x):
        x = self.blocks(self.conv_stem(x))
        x = self.act2(self.conv_head(self.global_pool(x))).flatten(1)
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.classifier(x)


def main():
    torch.manual_seed(0)
    model = GhostNet(num_classes=1000)
    model.reset_classifier(6)
    g = torch.Generator().manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(8, 3, 32, 32, generator=g), torch.randint(0, 6, (8,), generator=g)),
                        batch_size=4, shuffle=True, generator=g)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for images, target in loader:
        loss = F.cross_entropy(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
