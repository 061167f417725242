"""Bug: temperature-scaling parameters are created from a list of ints, and requires_grad=True on an int64 tensor fails.

family: int-float
expected: RuntimeError
message: Only Tensors of floating point and complex dtype can require gradients
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_CLASSES = 4


class FrozenClassifier(nn.Module):
    def __init__(self, n_in=6, n_classes=N_CLASSES):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_classes))
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.net(x)


def make_param(init_values):
    return torch.tensor(init_values, requires_grad=True)  # bug: requires_grad on an int64 tensor


def calibration_set(n=64, n_in=6):
    x = torch.randn(n, n_in)
    y = torch.randint(0, N_CLASSES, (n,))
    return x, y


def fit_temperature(model, x, y, init=None, steps=3):
    init = init if init is not None else [1] * N_CLASSES  # cause: a list of Python ints gives int64
    temperature = make_param(init)
    opt = torch.optim.LBFGS([temperature], lr=0.1, max_iter=5)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(model(x) / temperature, y)
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
    return temperature.detach()


model = FrozenClassifier()
x, y = calibration_set()
t = fit_temperature(model, x, y)
print("temperatures", t.tolist())
