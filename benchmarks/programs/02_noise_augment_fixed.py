"""Fixed twin of 02_noise_augment_bug.py: the noise is cast to the signal's dtype.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
torch.manual_seed(0)

SEQ_LEN = 64


def make_signal(freq, length=SEQ_LEN, sample_rate=32.0):
    t = np.arange(length, dtype=np.float32) / np.float32(sample_rate)
    return np.sin(2 * np.pi * freq * t).astype(np.float32)


def add_noise(signal, scale=0.05):
    return signal + np.random.normal(0.0, scale, size=signal.shape).astype(signal.dtype)


class SineDataset(Dataset):
    def __init__(self, n=32, augment=True):
        self.freqs = np.random.uniform(0.5, 4.0, size=n)
        self.labels = (self.freqs > 2.0).astype(np.int64)
        self.augment = augment

    def __len__(self):
        return len(self.freqs)

    def __getitem__(self, idx):
        x = make_signal(self.freqs[idx])
        if self.augment:
            x = add_noise(x)
        return torch.from_numpy(x).unsqueeze(0), int(self.labels[idx])


class TinyCNN(nn.Module):
    def __init__(self, n_classes=2, channels=8):
        super().__init__()
        self.conv = nn.Conv1d(1, channels, kernel_size=5, padding=2)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(channels, n_classes)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        return self.head(self.pool(h).squeeze(-1))


model = TinyCNN()
loader = DataLoader(SineDataset(), batch_size=8, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(2):
    for i, (signals, labels) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(signals), labels)
        loss.backward()
        optimizer.step()
        if i == 1:
            break
    print(f"epoch {epoch} loss {loss.item():.4f}")
