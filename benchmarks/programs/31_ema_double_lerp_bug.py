"""Bug: the EMA copy of the model is made .double() "for precision"; lerp_ of its float64 parameters toward the float32 ones fails.

family: precision
expected: RuntimeError
message: expected dtype double for `end` but got dtype float
"""
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, n_in=4, hidden=16, n_out=1):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def make_ema(model):
    ema = copy.deepcopy(model).double()  # cause: EMA weights in float64
    for p in ema.parameters():
        p.requires_grad_(False)
    return ema


@torch.no_grad()
def update_ema(ema, model, decay=0.99):
    for ema_p, p in zip(ema.parameters(), model.parameters()):
        ema_p.lerp_(p, 1.0 - decay)  # bug: float64 lerp_ toward float32


def target_fn(x):
    return (x[:, :1] * 2 - x[:, 1:2]).tanh()


model = Net()
ema = make_ema(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(3):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), target_fn(x))
    opt.zero_grad()
    loss.backward()
    opt.step()
    update_ema(ema, model)
    with torch.no_grad():
        x_eval = torch.randn(8, 4, dtype=torch.float64)
        ema_loss = nn.functional.mse_loss(ema(x_eval), target_fn(x_eval))
    print(f"step {step}: train {loss.item():.4f} ema {ema_loss.item():.4f}")
