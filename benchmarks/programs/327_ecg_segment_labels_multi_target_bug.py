"""Bug: the MIT-BIH preprocessing cuts each record into 10 segments and stores one beat label per segment, so the dataset yields a (10,) label per record; batches of (N, 10) class indices reach CrossEntropyLoss next to (N, 6) logits.

family: class-target
category: data-paths
expected: RuntimeError
message: 0D or 1D target tensor expected, multi-target not supported
source: https://github.com/Vidhiwar/multimodule-ecg-classification/issues/4
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

NUM_CLASSES = 6
SEGMENTS = 10


def transform_data(n_records=16, seg_len=32, seed=0):
    rng = np.random.default_rng(seed)
    signals = rng.standard_normal((n_records, SEGMENTS, seg_len)).astype(np.float32)
    record_class = rng.integers(0, NUM_CLASSES, n_records)
    labels = np.repeat(record_class[:, None], SEGMENTS, axis=1)  # cause: one label per segment, (records, 10)
    return signals, labels


class ECGDataset(Dataset):
    def __init__(self, signals, labels):
        self.signals, self.labels = signals, labels

    def __len__(self):
        return len(self.signals)

    def __getitem__(self, i):
        return torch.from_numpy(self.signals[i]), torch.as_tensor(self.labels[i], dtype=torch.long)


class MultiModuleNet(nn.Module):
    def __init__(self, seg_len=32, hidden=24):
        super().__init__()
        self.segment_encoder = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(4), nn.Flatten(),
                                             nn.Linear(32, hidden))
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x):
        n, s, t = x.shape
        feats = self.segment_encoder(x.reshape(n * s, 1, t)).view(n, s, -1)
        _, h = self.rnn(feats)
        return self.fc(h[-1])


def train(trainloader, model, criterion, optimizer, epoch):
    model.train()
    for inputs, targets in trainloader:
        outputs = model(inputs)
        loss = criterion(outputs, targets)  # bug: (N, 10) targets for (N, 6) logits
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    signals, labels = transform_data()
    trainloader = DataLoader(ECGDataset(signals, labels), batch_size=4, shuffle=True)
    model = MultiModuleNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        print(f"epoch {epoch} train_loss {train(trainloader, model, criterion, optimizer, epoch):.4f}")
