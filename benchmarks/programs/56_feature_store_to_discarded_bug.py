"""Bug: a feature store's __init__ calls self.counts.to(dtype) without assigning it; the int64 word counts reach the Linear layer.

family: discarded-cast
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class FeatureStore:
    """Document-term counts kept next to their labels, served in mini-batches."""

    def __init__(self, counts, labels, dtype=torch.float32):
        self.counts = torch.from_numpy(counts)
        self.counts.to(dtype)  # cause: the cast's result is thrown away
        self.labels = torch.from_numpy(labels)

    def __len__(self):
        return len(self.labels)

    def batches(self, size, shuffle=True):
        order = torch.randperm(len(self)) if shuffle else torch.arange(len(self))
        for i in range(0, len(self), size):
            idx = order[i:i + size]
            yield self.counts[idx], self.labels[idx]


def synthetic_corpus(n_docs=48, vocab=20, seed=0):
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, 2, size=n_docs)
    rates = np.where(topics[:, None] == 0, np.linspace(2.0, 0.1, vocab), np.linspace(0.1, 2.0, vocab))
    return rng.poisson(rates), topics


class TopicClassifier(nn.Module):
    def __init__(self, vocab, n_topics=2):
        super().__init__()
        self.linear = nn.Linear(vocab, n_topics)

    def forward(self, counts):
        return self.linear(counts)  # bug: int64 counts into the float32 Linear


def run(epochs=3, batch_size=12):
    counts, topics = synthetic_corpus()
    store = FeatureStore(counts, topics)
    model = TopicClassifier(counts.shape[1])
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        seen, total = 0, 0.0
        for x, y in store.batches(batch_size):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen, total = seen + len(y), total + loss.item() * len(y)
        print(f"epoch {epoch}: {total / seen:.3f}")


run()
