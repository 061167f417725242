"""Bug: the aggregation step adds the scaled weight update to every entry of the global model's state dict in place; the BatchNorm counter is int64 and the update is float.

family: int-float
category: mutated-modules
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
source: https://github.com/AI-secure/DBA/issues/1
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(6, 10),
    )


def new_accumulator(model):
    return {name: torch.zeros_like(data) for name, data in model.state_dict().items()}


def train_local(model, images, labels):
    local = copy.deepcopy(model)
    opt = torch.optim.SGD(local.parameters(), lr=0.1)
    loss = F.cross_entropy(local(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return local


def accumulate(accumulator, global_model, local_model):
    target = global_model.state_dict()
    for name, data in local_model.state_dict().items():
        accumulator[name].add_(data - target[name])


def average_shrink_models(weight_accumulator, target_model, eta, no_models):
    for name, data in target_model.state_dict().items():
        update_per_layer = weight_accumulator[name] * (eta / no_models)  # cause: a float update for every entry
        data.add_(update_per_layer)  # bug: num_batches_tracked is int64


def main():
    torch.manual_seed(1)
    global_model = make_model()
    parties = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(4)]
    for epoch in range(2):
        acc = new_accumulator(global_model)
        for images, labels in parties:
            accumulate(acc, global_model, train_local(global_model, images, labels))
        average_shrink_models(acc, global_model, eta=1.0, no_models=len(parties))
        print(f"epoch {epoch} aggregated")


if __name__ == "__main__":
    main()
