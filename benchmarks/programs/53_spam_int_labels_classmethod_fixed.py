"""Fixed twin of 53_spam_int_labels_classmethod_bug.py: the labels are built from Python floats.

family: class-target
expected: success
"""
from dataclasses import dataclass

import torch
import torch.nn as nn

torch.manual_seed(0)

MESSAGES = [
    ("WIN a FREE cruise now!!!", True), ("are we still on for lunch?", False),
    ("URGENT: claim your prize", True), ("see you at the meeting", False),
    ("cheap meds, no prescription", True), ("can you send the slides", False),
    ("you have been selected!!!", True), ("happy birthday, mum", False),
] * 4


def handcrafted(text):
    n = max(len(text), 1)
    return [
        sum(c.isupper() for c in text) / n,
        text.count("!") / n,
        float(any(w in text.lower() for w in ("free", "prize", "win", "cheap"))),
        len(text.split()) / 10.0,
    ]


@dataclass
class Batch:
    features: torch.Tensor
    labels: torch.Tensor

    @classmethod
    def from_pairs(cls, pairs):
        feats = torch.tensor([handcrafted(text) for text, _ in pairs])
        labels = torch.tensor([1.0 if spam else 0.0 for _, spam in pairs])
        return cls(feats, labels)

    def split(self, size):
        for i in range(0, len(self.labels), size):
            yield Batch(self.features[i:i + size], self.labels[i:i + size])


class SpamScorer(nn.Module):
    def __init__(self, n_features=4):
        super().__init__()
        self.linear = nn.Linear(n_features, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1)


data = Batch.from_pairs(MESSAGES)
model = SpamScorer()
criterion = nn.BCEWithLogitsLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    for batch in data.split(8):
        loss = criterion(model(batch.features), batch.labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = ((model(data.features) > 0).long() == data.labels).float().mean()
    print(f"epoch {epoch}: loss {loss.item():.3f} acc {acc.item():.2f}")
