"""Fixed twin of 339_make_classification_double_inputs_bug.py: the features are converted to float32, the dtype of the network's parameters.

family: numpy-float64
category: data-paths
expected: success
source: https://github.com/pytorch/pytorch/issues/15436
"""
import numpy as np
import torch
import torch.nn as nn


def make_classification(n_samples=64, n_features=10, n_informative=2, seed=42):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    y = (X[:, :n_informative].sum(axis=1) > 0).astype(np.int64)
    return X, y


def train_test_split(X, y, test_fraction=0.25):
    cut = int(len(X) * (1 - test_fraction))
    return X[:cut], y[:cut], X[cut:], y[cut:]


class SingleLayeredNetwork(nn.Module):
    def __init__(self, input_dimension, output_dimension):
        super().__init__()
        self.linear = nn.Linear(input_dimension, output_dimension)

    def forward(self, x):
        return self.linear(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    X, y = make_classification()
    X_train, y_train, X_test, y_test = train_test_split(X, y)
    X_train = torch.from_numpy(X_train).float()
    y_train = torch.from_numpy(y_train)
    model = SingleLayeredNetwork(10, 2)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batch_size = 16
    for epoch in range(2):
        for i in range(0, len(X_train), batch_size):
            outputs = model(X_train[i:i + batch_size])
            loss = criterion(outputs, y_train[i:i + batch_size])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
