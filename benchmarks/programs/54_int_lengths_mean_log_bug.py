"""Bug: the collate_fn collects sequence lengths with torch.tensor([...]) (int64); the validation log calls lengths.mean(), which needs a floating dtype.

family: int-float
expected: RuntimeError
message: mean(): could not infer output dtype
"""
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)
PAD = 0


class ReviewDataset(Dataset):
    """Variable-length token id sequences, each with a rating 0..4."""

    def __init__(self, n=40, vocab=30, min_len=3, max_len=15):
        self.samples = []
        for _ in range(n):
            ids = torch.randint(1, vocab, (random.randint(min_len, max_len),))
            self.samples.append((ids, int(ids.float().mean().item() * 5 // vocab)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


def pad_collate(batch):
    seqs, ratings = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])  # cause: Python ints give int64 lengths
    padded = pad_sequence(list(seqs), batch_first=True, padding_value=PAD)
    return padded, lengths, torch.tensor(ratings)


class MeanPoolClassifier(nn.Module):
    def __init__(self, vocab=30, dim=16, n_classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, ids, lengths):
        mask = (torch.arange(ids.shape[1])[None, :] < lengths[:, None]).unsqueeze(-1)
        summed = (self.embed(ids) * mask).sum(dim=1)
        return self.out(summed / lengths[:, None])


@torch.no_grad()
def validate(model, loader):
    model.eval()
    correct, seen, mean_lengths = 0, 0, []
    for ids, lengths, ratings in loader:
        correct += (model(ids, lengths).argmax(-1) == ratings).sum().item()
        seen += len(ratings)
        mean_lengths.append(lengths.mean().item())  # bug: mean() of an int64 tensor
    model.train()
    return correct / seen, sum(mean_lengths) / len(mean_lengths)


loader = DataLoader(ReviewDataset(), batch_size=8, shuffle=True, collate_fn=pad_collate)
model = MeanPoolClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(2):
    for ids, lengths, ratings in loader:
        loss = nn.functional.cross_entropy(model(ids, lengths), ratings)
        opt.zero_grad()
        loss.backward()
        opt.step()
    acc, avg_len = validate(model, loader)
    print(f"epoch {epoch}: acc {acc:.2f}, mean length {avg_len:.1f}")
