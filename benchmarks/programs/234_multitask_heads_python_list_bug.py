"""Bug: the multitask model keeps its per-task heads in a plain Python list, so they are not registered submodules; model.double() (used to match the float64 numpy features) converts the shared trunk but not the heads, which then receive float64 activations.

family: precision
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/pytorch/pytorch/issues/15005
"""
import numpy as np
import torch
import torch.nn as nn


class MultiTaskNet(nn.Module):
    def __init__(self, input_features, num_classes):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(input_features, 32), nn.ReLU())
        self.softmaxes = []  # cause: a plain list, invisible to .double()
        for n in num_classes:
            self.softmaxes.append(nn.Linear(32, n))

    def forward(self, batch_in):
        shared = self.trunk(batch_in)
        classify = []
        for head in self.softmaxes:
            classify.append(head(shared))  # bug: float64 activations, float32 head
        return classify


def make_data(train_samples, input_features, num_classes, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((train_samples, input_features))
    ys = [rng.integers(0, c, train_samples) for c in num_classes]
    return X, ys


def main():
    batch_size, lr, epochs = 32, 1e-3, 2
    input_features, num_classes = 20, [5, 2, 10, 3]
    X_train, y_trains = make_data(128, input_features, num_classes)

    model = MultiTaskNet(input_features, num_classes).double()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for start in range(0, len(X_train), batch_size):
            batch = torch.from_numpy(X_train[start:start + batch_size])
            outputs = model(batch)
            loss = sum(criterion(out, torch.from_numpy(y[start:start + batch_size])) for out, y in zip(outputs, y_trains))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
