"""Bug: the active weak-supervision loop overwrites the probabilistic label of each queried point with its one-hot ground truth built by numpy (np.eye gives float64); writing it by index into the float32 label tensor is an index_put of Double into Float.

family: numpy-float64
category: mixed-precision
expected: RuntimeError
message: Index put requires the source and destination dtypes match
source: https://github.com/SamanthaBiegel/ActiveWeaSuL/pull/3
"""
import numpy as np
import torch
import torch.nn as nn


class LabelModel(nn.Module):
    """A tiny generative label model: one accuracy logit per labeling function."""

    def __init__(self, n_lfs):
        super().__init__()
        self.acc = nn.Parameter(torch.zeros(n_lfs))

    def predict_true(self, L):
        votes = torch.from_numpy(L).float()  # -1 abstain, 0 / 1 class votes
        weight = torch.sigmoid(self.acc) * (votes >= 0)
        score1 = (weight * (votes == 1)).sum(1)
        score0 = (weight * (votes == 0)).sum(1)
        return torch.softmax(torch.stack([score0, score1], dim=1), dim=1).detach()


def query_most_uncertain(prob_labels, queried):
    entropy = -(prob_labels * prob_labels.clamp_min(1e-8).log()).sum(1)
    entropy[queried] = -1.0
    return int(entropy.argmax())


def train_discriminative(X, prob_labels, epochs=20):
    model = nn.Linear(X.shape[1], 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(epochs):
        loss = -(prob_labels * torch.log_softmax(model(X), dim=1)).sum(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    rng = np.random.default_rng(0)
    n, n_lfs = 30, 4
    Y_train = rng.integers(0, 2, n)
    votes = np.where(rng.random((n, n_lfs)) < 0.8, Y_train[:, None], 1 - Y_train[:, None])
    L_train = np.where(rng.random((n, n_lfs)) < 0.3, -1, votes)
    X_train = torch.randn(n, 5)
    label_model = LabelModel(n_lfs)
    prob_labels_train = label_model.predict_true(L_train)
    queried = []
    for it in range(3):
        idx = query_most_uncertain(prob_labels_train, queried)
        queried.append(idx)
        ground_truth = torch.from_numpy(np.eye(2)[Y_train[queried]])  # cause: np.eye gives float64 rows
        prob_labels_train[queried, :] = ground_truth  # bug: Double rows into the Float label tensor
        print(it, idx, train_discriminative(X_train, prob_labels_train))


if __name__ == "__main__":
    main()
