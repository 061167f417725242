"""Fixed twin of 50_hanning_spectrogram_bug.py: the window is cast to float32.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SAMPLE_RATE = 8000


def synth_clip(freq, seconds=0.25, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(int(SAMPLE_RATE * seconds), dtype=np.float32) / SAMPLE_RATE
    return (np.sin(2 * np.pi * freq * t) + 0.1 * rng.standard_normal(t.shape)).astype(np.float32)


def frame(signal, size=256, hop=128):
    n = 1 + (len(signal) - size) // hop
    return np.stack([signal[i * hop:i * hop + size] for i in range(n)])


def log_spectrogram(signal, size=256):
    frames = frame(signal, size) * np.hanning(size).astype(np.float32)
    mags = np.abs(np.fft.rfft(frames, axis=1))
    return np.log1p(mags).T, frames.shape[0]


class ToneDataset(Dataset):
    def __init__(self, freqs=(220, 440, 880), per_class=6):
        self.items = [(f, c, s) for c, f in enumerate(freqs) for s in range(per_class)]
        self.cache = {}

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        if i not in self.cache:
            freq, label, seed = self.items[i]
            spec, n_frames = log_spectrogram(synth_clip(freq, seed=seed))
            self.cache[i] = (torch.from_numpy(spec), label)
        return self.cache[i]


class ToneNet(nn.Module):
    def __init__(self, n_bins=129, n_classes=3):
        super().__init__()
        self.conv = nn.Conv1d(n_bins, 32, kernel_size=3, padding=1)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, spec):
        h = torch.relu(self.conv(spec))
        return self.fc(h.mean(dim=2))


loader = DataLoader(ToneDataset(), batch_size=6, shuffle=True)
model = ToneNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for spec, label in loader:
        loss = nn.functional.cross_entropy(model(spec), label)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: {loss.item():.3f}")
