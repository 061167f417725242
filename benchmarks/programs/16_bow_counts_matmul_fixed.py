"""Fixed twin of 16_bow_counts_matmul_bug.py: the counts are float32.

family: int-float
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

np.random.seed(0)
torch.manual_seed(0)

VOCAB, N_CLASSES = 40, 2


def make_corpus(n=32):
    docs, labels = [], []
    for _ in range(n):
        label = np.random.randint(N_CLASSES)
        low, high = (1, VOCAB // 2) if label == 0 else (VOCAB // 2, VOCAB)
        docs.append(list(np.random.randint(low, high, size=np.random.randint(3, 9))))
        labels.append(label)
    return list(zip(docs, labels))


def bow_collate(batch, vocab=VOCAB):
    counts = torch.zeros(len(batch), vocab, dtype=torch.float32)
    for row, (tokens, _) in enumerate(batch):
        for tok in tokens:
            counts[row, tok] += 1
    labels = torch.tensor([label for _, label in batch])
    return counts, labels


class LogisticBoW(nn.Module):
    def __init__(self, vocab=VOCAB, n_classes=N_CLASSES):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, n_classes) * 0.01)
        self.bias = nn.Parameter(torch.zeros(n_classes))

    def forward(self, counts):
        return counts @ self.weight + self.bias


model = LogisticBoW()
loader = DataLoader(make_corpus(), batch_size=8, shuffle=True, collate_fn=bow_collate)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    correct = 0
    for counts, labels in loader:
        logits = model(counts)
        loss = nn.functional.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        correct += (logits.argmax(1) == labels).sum().item()
    print(f"epoch {epoch}: train acc {correct / 32:.2f}")
