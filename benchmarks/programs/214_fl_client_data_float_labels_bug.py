"""Bug: the federated simulation's data helper builds each client's labels with torch.Tensor(...), i.e. float32, and compute_loss hands them straight to CrossEntropyLoss, which wants Long class indices.

family: class-target
category: factories
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
source: https://github.com/burlachenkok/flpytorch/pull/14
"""
import copy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def load_client_datasets(num_clients, samples_per_client=12, num_features=10, num_classes=4):
    rng = np.random.default_rng(0)
    datasets = []
    for _ in range(num_clients):
        x = rng.standard_normal((samples_per_client, num_features)).astype(np.float32)
        y = rng.integers(0, num_classes, size=samples_per_client)
        datasets.append(TensorDataset(torch.from_numpy(x), torch.Tensor(y)))  # cause: torch.Tensor makes float32 labels
    return datasets


def get_model(num_features=10, num_classes=4):
    return nn.Sequential(nn.Linear(num_features, 16), nn.ReLU(), nn.Linear(16, num_classes))


def compute_loss(model, criterion, data, label):
    logits = model(data)
    return criterion(logits, label)  # bug: float32 labels into CrossEntropyLoss


def local_update(global_model, dataset, local_epochs, lr):
    model = copy.deepcopy(global_model)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    for _ in range(local_epochs):
        for data, label in DataLoader(dataset, batch_size=4, shuffle=True):
            loss = compute_loss(model, criterion, data, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model.state_dict(), loss.item()


def fed_avg(states):
    return {k: torch.stack([s[k] for s in states]).mean(dim=0) for k in states[0]}


def run_simulation(rounds=2, num_clients=3, local_epochs=1, lr=0.1):
    torch.manual_seed(0)
    clients = load_client_datasets(num_clients)
    global_model = get_model()
    for r in range(rounds):
        results = [local_update(global_model, ds, local_epochs, lr) for ds in clients]
        global_model.load_state_dict(fed_avg([state for state, _ in results]))
        print(f"round {r}: mean client loss {np.mean([loss for _, loss in results]):.4f}")


if __name__ == "__main__":
    run_simulation()
