"""Fixed twin of 62_conv1d_flat_features_bug.py: the flattened size accounts for the unpadded convs.

family: shape
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
SEQ_LEN, N_CLASSES = 128, 3


def synthetic_ecg(n_per_class=16, seq_len=SEQ_LEN, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(seq_len, dtype=np.float32) / seq_len
    signals, labels = [], []
    for label, rate in enumerate((3, 5, 8)):
        for _ in range(n_per_class):
            phase = rng.uniform(0, 2 * np.pi)
            beat = np.sin(2 * np.pi * rate * t + phase).astype(np.float32) ** 15
            signals.append(beat + 0.05 * rng.standard_normal(seq_len).astype(np.float32))
            labels.append(label)
    x = torch.from_numpy(np.stack(signals)).unsqueeze(1)
    return TensorDataset(x, torch.tensor(labels))


class ECGNet(nn.Module):
    def __init__(self, seq_len=SEQ_LEN, n_classes=N_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 8, kernel_size=5), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(8, 16, kernel_size=5), nn.ReLU(), nn.MaxPool1d(2),
        )
        self.classifier = nn.Linear(self.flat_features(seq_len), n_classes)

    @staticmethod
    def flat_features(seq_len, channels=16):
        return channels * (((seq_len - 4) // 2 - 4) // 2)

    def forward(self, x):
        h = self.features(x)
        return self.classifier(h.flatten(1))


def train(model, loader, epochs=2):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        correct = 0
        for x, y in loader:
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(1) == y).sum().item()
        print(f"epoch {epoch}: train acc {correct / len(loader.dataset):.2f}")


if __name__ == "__main__":
    train(ECGNet(), DataLoader(synthetic_ecg(), batch_size=8, shuffle=True))
