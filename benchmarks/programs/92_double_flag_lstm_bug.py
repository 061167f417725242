"""Bug: the --double flag (store_true, but with default=True) converts the forecaster with model.double(); the sliding windows built from a float32 tensor reach the float64 LSTM.

family: precision
category: configuration
expected: ValueError
message: RNN input dtype (torch.float32) does not match weight dtype (torch.float64)
source: https://github.com/pytorch/pytorch/issues/2138
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--double", action="store_true", default=True, help="train in float64")
parser.add_argument("--window", type=int, default=8)
parser.add_argument("--hidden", type=int, default=16)
args = parser.parse_args()


class Forecaster(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)  # bug: float32 windows into float64 weights
        return self.head(out[:, -1])


def make_windows(series, window):
    xs = torch.stack([series[i:i + window] for i in range(len(series) - window)])
    ys = series[window:]
    return xs.unsqueeze(-1), ys.unsqueeze(-1)


model = Forecaster(args.hidden)
if args.double:
    model = model.double()  # cause: float64 weights by default
series = torch.sin(torch.linspace(0, 12, 60))
x, y = make_windows(series, args.window)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss = nn.functional.mse_loss(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
print(loss.item())
