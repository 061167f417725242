"""Bug: a custom collate_fn pads token ids into np.zeros((B, T)) without dtype=, so the Embedding gets float64 indices.

family: int-float
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
VOCAB, PAD = 25, 0


class SentimentDataset(Dataset):
    def __init__(self, n=20):
        self.sentences = [rng.integers(1, VOCAB, size=rng.integers(3, 10)).tolist() for _ in range(n)]
        self.labels = [int(sum(s) % 2) for s in self.sentences]

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, idx):
        return {"ids": self.sentences[idx], "label": self.labels[idx]}


def collate_batch(batch, pad_id=PAD):
    max_len = max(len(item["ids"]) for item in batch)
    padded = np.zeros((len(batch), max_len))  # cause: np.zeros defaults to float64
    lengths = []
    for i, item in enumerate(batch):
        padded[i, :len(item["ids"])] = item["ids"]
        lengths.append(len(item["ids"]))
    return {
        "ids": torch.from_numpy(padded),
        "lengths": torch.tensor(lengths),
        "labels": torch.tensor([item["label"] for item in batch]),
    }


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=VOCAB, dim=12, hidden=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, ids, lengths):
        emb = self.embedding(ids)  # bug: float64 indices
        out, _ = self.lstm(emb)
        last = out[torch.arange(out.size(0)), lengths - 1]
        return self.fc(last)


model = LSTMClassifier()
loader = DataLoader(SentimentDataset(), batch_size=5, shuffle=True, collate_fn=collate_batch)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(2):
    for batch in loader:
        logits = model(batch["ids"], batch["lengths"])
        loss = nn.functional.cross_entropy(logits, batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")
