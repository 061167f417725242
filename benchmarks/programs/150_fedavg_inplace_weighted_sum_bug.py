"""Bug: the server's weighted FedAvg adds every client entry into a copy of the global state in place; BatchNorm's int64 num_batches_tracked cannot hold the float-weighted sum.

family: int-float
category: mutated-modules
expected: RuntimeError
message: result type Float can't be cast to the desired output type Long
source: https://github.com/LuminLiu/HierFL/issues/1
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ClientCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


def local_update(global_model, images, labels, steps=2):
    model = copy.deepcopy(global_model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.state_dict(), len(images)


def average_weights(global_model, local_states, sample_counts):
    total = sum(sample_counts)
    w_avg = copy.deepcopy(global_model.state_dict())
    for k in w_avg.keys():
        w_avg[k].zero_()
        for i in range(len(local_states)):
            w_avg[k] += torch.mul(local_states[i][k], sample_counts[i] / total)  # bug: int64 entry += float  # cause: every entry, num_batches_tracked too
    return w_avg


def main():
    torch.manual_seed(0)
    global_model = ClientCNN()
    clients = [(torch.randn(12, 1, 8, 8), torch.randint(0, 4, (12,))) for _ in range(3)]
    for rnd in range(2):
        states, counts = [], []
        for images, labels in clients:
            state, n = local_update(global_model, images, labels)
            states.append(state)
            counts.append(n)
        global_model.load_state_dict(average_weights(global_model, states, counts))
        print(f"round {rnd} done")


if __name__ == "__main__":
    main()
