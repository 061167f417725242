"""Bug: the config's num_class was left at 20 (the dataset it was copied from) while the label encoder makes 12-column multi-hot targets; BCEWithLogitsLoss needs both sizes equal.

family: shape
category: configuration
expected: ValueError
message: must be the same as input size
source: https://github.com/pochih/FCN-pytorch/issues/15
"""
from types import SimpleNamespace

import torch
import torch.nn as nn

cfg = SimpleNamespace(num_class=20, labels=12, features=24, batch_size=2)  # cause: 20 heads for 12 labels


def multi_hot(label_lists, n_labels):
    target = torch.zeros(len(label_lists), n_labels)
    for row, labels in enumerate(label_lists):
        target[row, labels] = 1.0
    return target


class Tagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(cfg.features, 32), nn.ReLU())
        self.classifier = nn.Linear(32, cfg.num_class)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def train_step(model, criterion, x, label_lists):
    outputs = model(x)
    labels = multi_hot(label_lists, cfg.labels)
    loss = criterion(outputs, labels)  # bug: 20 logits, 12 targets per sample
    loss.backward()
    return loss.item()


if __name__ == "__main__":
    model = Tagger(cfg)
    x = torch.randn(cfg.batch_size, cfg.features)
    print(train_step(model, nn.BCEWithLogitsLoss(), x, [[0, 3], [5]]))
