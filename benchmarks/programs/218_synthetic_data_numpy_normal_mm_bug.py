"""Bug: the linear-regression-from-scratch chapter's data helper draws the features with np.random.normal and wraps them with torch.from_numpy, so they are float64, while the parameters are created float32; torch.mm in linreg refuses the mix.

family: numpy-float64
category: factories
expected: RuntimeError
message: expected m1 and m2 to have the same dtype
source: https://github.com/OUCMachineLearning/OUCML/issues/24
"""
import random

import numpy as np
import torch


def synthetic_data(true_w, true_b, num_examples):
    num_inputs = len(true_w)
    features = torch.from_numpy(np.random.normal(0, 1, (num_examples, num_inputs)))  # cause: float64 features
    labels = true_w[0] * features[:, 0] + true_w[1] * features[:, 1] + true_b
    labels += torch.tensor(np.random.normal(0, 0.01, size=labels.size()), dtype=torch.float32)
    return features, labels


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        j = torch.LongTensor(indices[i: min(i + batch_size, num_examples)])
        yield features.index_select(0, j), labels.index_select(0, j)


def linreg(X, w, b):
    return torch.mm(X, w) + b  # bug: float64 X, float32 w


def squared_loss(y_hat, y):
    return (y_hat - y.view(y_hat.size())) ** 2 / 2


def sgd(params, lr, batch_size):
    for param in params:
        param.data -= lr * param.grad / batch_size


def main():
    np.random.seed(0)
    random.seed(0)
    true_w, true_b = [2, -3.4], 4.2
    features, labels = synthetic_data(true_w, true_b, 100)
    w = torch.tensor(np.random.normal(0, 0.01, (2, 1)), dtype=torch.float32, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float32, requires_grad=True)
    lr, num_epochs, batch_size = 0.03, 3, 10
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels):
            l = squared_loss(linreg(X, w, b), y).sum()
            l.backward()
            sgd([w, b], lr, batch_size)
            w.grad.data.zero_()
            b.grad.data.zero_()
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {train_l.mean().item():f}")


if __name__ == "__main__":
    main()
