"""Bug: the DANN domain classifier normalizes the reversed (N, 100) features with nn.BatchNorm2d.

family: shape
category: model-shapes
expected: ValueError
message: expected 4D input (got 2D input)
source: https://github.com/hehai131/DANN/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.alpha * grad, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(
            nn.Conv2d(3, 32, 5), nn.BatchNorm2d(32), nn.MaxPool2d(2), nn.ReLU(),
            nn.Conv2d(32, 48, 5), nn.BatchNorm2d(48), nn.MaxPool2d(2), nn.ReLU(),
        )
        self.class_classifier = nn.Sequential(nn.Linear(48 * 4 * 4, 100), nn.BatchNorm1d(100), nn.ReLU(),
                                              nn.Linear(100, 10))
        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module("d_fc1", nn.Linear(48 * 4 * 4, 100))
        self.domain_classifier.add_module("d_bn1", nn.BatchNorm2d(100))  # cause: a 2D norm after a Linear
        self.domain_classifier.add_module("d_relu1", nn.ReLU())
        self.domain_classifier.add_module("d_fc2", nn.Linear(100, 2))

    def forward(self, x, alpha):
        feature = self.feature(x).view(-1, 48 * 4 * 4)
        reverse_feature = GradReverse.apply(feature, alpha)
        class_out = self.class_classifier(feature)
        domain_out = self.domain_classifier(reverse_feature)  # bug: BatchNorm2d on (N, 100)
        return class_out, domain_out


model = DANN()
source = torch.randn(16, 3, 28, 28)
labels = torch.randint(0, 10, (16,))
domains = torch.zeros(16, dtype=torch.long)
class_out, domain_out = model(source, 0.1)
loss = F.cross_entropy(class_out, labels) + F.cross_entropy(domain_out, domains)
loss.backward()
print("loss", loss.item())
