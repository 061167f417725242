"""Bug: the RA-CNN rank loss clamps p_t(scale1) - p_t(scale2) + margin per sample and returns the (batch,) vector, so calling .backward() on it with batch_size 32 asks autograd to invent a gradient for a non-scalar.

family: shape
category: model-outputs
expected: RuntimeError
message: grad can be implicitly created only for scalar outputs
source: https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ScaleNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.classifier = nn.Linear(8 * 16, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class RACNN(nn.Module):
    def __init__(self, num_classes, num_scales=3):
        super().__init__()
        self.scales = nn.ModuleList([ScaleNet(num_classes) for _ in range(num_scales)])

    def forward(self, x):
        scores = []
        for i, net in enumerate(self.scales):
            size = x.shape[-1] // (2 ** i) if i else x.shape[-1]
            crop = F.interpolate(x[..., :size, :size], size=x.shape[-2:], mode="bilinear", align_corners=False)
            scores.append(net(crop))
        return scores


class RankLoss(nn.Module):
    def __init__(self, margin=0.05):
        super().__init__()
        self.margin = margin

    def forward(self, scores1, scores2, target):
        ps1 = F.softmax(scores1, dim=1).gather(1, target.long().view(-1, 1))
        ps2 = F.softmax(scores2, dim=1).gather(1, target.long().view(-1, 1))
        return torch.clamp(ps1 - ps2 + self.margin, min=0).view(-1)  # cause: per-sample hinge, never reduced


class Manager:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.criterion_cls = nn.CrossEntropyLoss()
        self.criterion_rank = RankLoss()

    def do_batch(self, optimizer, batch, label, optimize_class=False):
        optimizer.zero_grad()
        scores = self.model(batch)
        if optimize_class:
            loss = sum(self.criterion_cls(s, label) for s in scores)
            loss.backward()
        else:
            for i in range(1, len(scores)):
                retain_graph = i < len(scores) - 1
                self.criterion_rank(scores[i - 1], scores[i], label).backward(retain_graph=retain_graph)  # bug: backward on a (batch,) loss
        optimizer.step()

    def do_epoch(self, optimizer, optimize_class):
        for batch, label in self.loader:
            self.do_batch(optimizer, batch, label, optimize_class=optimize_class)


if __name__ == "__main__":
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    images = torch.from_numpy(rng.random((64, 3, 32, 32), dtype=np.float32))
    labels = torch.from_numpy(rng.integers(0, 5, size=64))
    loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)
    model = RACNN(num_classes=5)
    manager = Manager(model, loader)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch_idx in range(2):
        manager.do_epoch(optimizer, optimize_class=(epoch_idx % 2 == 1))
    print("done")
