"""Fixed twin of 92_double_flag_lstm_bug.py: the windows are converted with the model.

family: precision
expected: success
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
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def make_windows(series, window):
    xs = torch.stack([series[i:i + window] for i in range(len(series) - window)])
    ys = series[window:]
    return xs.unsqueeze(-1), ys.unsqueeze(-1)


model = Forecaster(args.hidden)
if args.double:
    model = model.double()
series = torch.sin(torch.linspace(0, 12, 60))
x, y = make_windows(series, args.window)
if args.double:
    x, y = x.double(), y.double()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss = nn.functional.mse_loss(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
print(loss.item())
