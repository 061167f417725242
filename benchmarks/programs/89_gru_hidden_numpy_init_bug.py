"""Bug: the initial hidden state comes from a helper that draws it with np.random.randn and wraps it with torch.tensor, float64; the float32 GRU rejects it.

family: numpy-float64
category: factories
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/pytorch/pytorch/issues/63322
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def init_hidden(num_layers, batch_size, hidden_size):
    return torch.tensor(np.random.randn(num_layers, batch_size, hidden_size))  # cause: float64 hidden state


class SeqModel(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.hidden = hidden
        self.rnn = nn.GRU(n_in, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_out)

    def forward(self, x):
        h0 = init_hidden(1, x.shape[0], self.hidden)
        y, _ = self.rnn(x, h0)  # bug: float64 h0 with float32 weights
        return self.out(y[:, -1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, default=12)
    parser.add_argument("--steps", type=int, default=7)
    parser.add_argument("--batch-size", type=int, default=3)
    args = parser.parse_args()
    model = SeqModel(2, args.hidden, 1)
    x = torch.randn(args.batch_size, args.steps, 2)
    target = x.sum(dim=(1, 2)).unsqueeze(1)
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
