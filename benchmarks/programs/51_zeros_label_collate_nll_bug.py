"""Bug: a custom collate_fn preallocates the label vector with torch.zeros (float32) and fills it in a loop; NLLLoss needs int64 class indices.

family: class-target
expected: RuntimeError
message: expected target dtype to be Long
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)

CORPUS = [
    ("the match ended in a late goal", "sport"),
    ("shares fell after the earnings call", "business"),
    ("the striker signed a new contract", "sport"),
    ("the central bank raised rates again", "business"),
    ("a new phone with a folding screen", "tech"),
    ("the chip maker announced a faster processor", "tech"),
    ("the coach praised the young defender", "sport"),
    ("markets rallied on the trade deal", "business"),
] * 3
LABELS = sorted({label for _, label in CORPUS})
VOCAB = {w: i for i, w in enumerate(sorted({w for text, _ in CORPUS for w in text.split()}))}


def encode(text):
    return torch.tensor([VOCAB[w] for w in text.split()])


def collate(batch):
    ids = [encode(text) for text, _ in batch]
    offsets = torch.tensor([0] + [len(x) for x in ids[:-1]]).cumsum(0)
    targets = torch.zeros(len(batch))  # cause: a float32 label vector
    for i, (_, label) in enumerate(batch):
        targets[i] = LABELS.index(label)
    return torch.cat(ids), offsets, targets


class BagOfWords(nn.Module):
    def __init__(self, vocab_size, dim=16, n_classes=3):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.out = nn.Linear(dim, n_classes)

    def forward(self, ids, offsets):
        return F.log_softmax(self.out(self.embed(ids, offsets)), dim=-1)


def evaluate(model, loader, criterion):
    model.eval()
    with torch.no_grad():
        losses = [criterion(model(ids, offsets), y).item() for ids, offsets, y in loader]
    model.train()
    return sum(losses) / len(losses)


model = BagOfWords(len(VOCAB), n_classes=len(LABELS))
loader = DataLoader(CORPUS, batch_size=4, shuffle=True, collate_fn=collate)
criterion = nn.NLLLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    for ids, offsets, y in loader:
        loss = criterion(model(ids, offsets), y)  # bug: float32 targets for NLLLoss
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: eval nll {evaluate(model, loader, criterion):.3f}")
