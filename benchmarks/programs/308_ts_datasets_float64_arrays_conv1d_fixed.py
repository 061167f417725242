"""Fixed twin of 308_ts_datasets_float64_arrays_conv1d_bug.py: the dataset converts the windows to float32, the model's dtype.

family: numpy-float64
category: factories
expected: success
source: https://github.com/timeseriesAI/tsai/issues/468
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def get_sensor_data(n_samples=24, n_vars=3, seq_len=32, n_classes=4, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, seq_len)
    y = rng.integers(0, n_classes, size=n_samples)
    X = np.sin(t[None, None, :] * (1 + y[:, None, None])) + 0.1 * rng.standard_normal((n_samples, n_vars, seq_len))
    splits = (np.arange(0, 16), np.arange(16, n_samples))
    return X, y, splits  # X is float64


class TSDatasets(Dataset):
    def __init__(self, X, y, idx):
        self.X = torch.from_numpy(X[idx]).float()
        self.y = torch.from_numpy(y[idx]).long()

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        return self.X[i], self.y[i]


def get_ts_dls(X, y, splits, bs=8):
    train = DataLoader(TSDatasets(X, y, splits[0]), batch_size=bs, shuffle=True)
    valid = DataLoader(TSDatasets(X, y, splits[1]), batch_size=bs * 2)
    return train, valid


class FCN(nn.Module):
    def __init__(self, c_in, c_out, layers=(16, 32, 16), kss=(7, 5, 3)):
        super().__init__()
        chans = [c_in, *layers]
        self.convblocks = nn.ModuleList(
            [nn.Conv1d(chans[i], chans[i + 1], kss[i], padding=kss[i] // 2) for i in range(len(layers))])
        self.fc = nn.Linear(layers[-1], c_out)

    def forward(self, x):
        for conv in self.convblocks:
            x = F.relu(conv(x))
        return self.fc(x.mean(-1))


def fit_one_cycle(model, dls, n_epoch=2, lr_max=1e-2):
    train_dl, valid_dl = dls
    opt = torch.optim.Adam(model.parameters(), lr=lr_max)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr_max, total_steps=n_epoch * len(train_dl))
    for epoch in range(n_epoch):
        model.train()
        for xb, yb in train_dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = np.mean([(model(xb).argmax(1) == yb).float().mean().item() for xb, yb in valid_dl])
        print(f"epoch {epoch} train_loss {loss.item():.4f} accuracy {acc:.3f}")


def main():
    torch.manual_seed(0)
    X, y, splits = get_sensor_data()
    dls = get_ts_dls(X, y, splits)
    model = FCN(X.shape[1], 4)
    fit_one_cycle(model, dls)


if __name__ == "__main__":
    main()
