"""Bug: the class weights computed from label counts with numpy are float64; CrossEntropyLoss(weight=...) fails against float32 logits.

family: numpy-float64
category: model-outputs
expected: RuntimeError
message: expected scalar type Float but found Double
source: https://github.com/sebsk/CS224N-Project/pull/2
"""
import numpy as np
import torch
import torch.nn as nn


def make_split(n, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.choice(n_classes, size=n, p=[0.7, 0.2, 0.1])
    features = rng.normal(size=(n, 4)).astype(np.float32)
    return features, labels


def class_weights(labels, n_classes):
    counts = np.bincount(labels, minlength=n_classes)
    weights = counts.sum() / (n_classes * np.maximum(counts, 1))
    return torch.from_numpy(weights)  # cause: float64 weights


def build_criterion(labels, n_classes, balanced=True):
    if balanced:
        return nn.CrossEntropyLoss(weight=class_weights(labels, n_classes))
    return nn.CrossEntropyLoss()


def train(n_classes=3):
    x_np, y_np = make_split(60, n_classes)
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)
    model = nn.Linear(4, n_classes)
    criterion = build_criterion(y_np, n_classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = criterion(model(x), y)  # bug: float64 class weights with float32 logits
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


if __name__ == "__main__":
    print(train())
