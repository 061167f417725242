"""Bug: the synthetic signal comes from np.linspace/np.sin (float64); windows cut by a generator and stacked stay float64 and reach the float32 GRU.

family: numpy-float64
expected: ValueError
message: RNN input dtype
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_signal(n_steps=400, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 20 * np.pi, n_steps)  # cause: linspace gives float64
    clean = np.sin(t) + 0.5 * np.sin(3 * t)
    return clean + noise * rng.standard_normal(n_steps).astype(np.float32)


def sliding_windows(series, width, horizon=1, stride=4):
    for start in range(0, len(series) - width - horizon, stride):
        yield series[start:start + width], series[start + width:start + width + horizon]


def to_batches(series, width, batch_size):
    xs, ys = [], []
    for x, y in sliding_windows(series, width):
        xs.append(x)
        ys.append(y)
        if len(xs) == batch_size:
            yield torch.from_numpy(np.stack(xs))[..., None], torch.from_numpy(np.stack(ys))
            xs, ys = [], []


class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        _, h = self.rnn(x)  # bug: float64 windows into the float32 GRU
        return self.out(h[-1])


def fit(model, series, width=24, batch_size=8, epochs=2):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.MSELoss()
    for epoch in range(epochs):
        losses = []
        for xb, yb in to_batches(series, width, batch_size):
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch}: mse {np.mean(losses):.4f}")


if __name__ == "__main__":
    fit(Forecaster(), make_signal())
