"""Bug: a sequence tagger passes (batch, time, classes) logits to cross_entropy, which wants the class dimension second.

family: shape
expected: RuntimeError
message: Expected target size [4, 5], got [4, 7]
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
np.random.seed(0)
VOCAB, N_TAGS, PAD = 30, 5, 0


class TaggingDataset(Dataset):
    def __init__(self, n=16, seq_len=7):
        self.tokens = np.random.randint(1, VOCAB, size=(n, seq_len))
        self.tags = self.tokens % N_TAGS

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, idx):
        return torch.as_tensor(self.tokens[idx]), torch.as_tensor(self.tags[idx])


class Tagger(nn.Module):
    def __init__(self, vocab=VOCAB, dim=16, n_tags=N_TAGS):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.rnn = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * dim, n_tags)

    def forward(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return self.proj(out)


def sequence_loss(logits, tags, ignore_index=-100):
    return F.cross_entropy(logits, tags, ignore_index=ignore_index)  # bug: classes must be dim 1  # cause: (B, T, C) not (B, C, T)


def token_accuracy(logits, tags):
    return (logits.argmax(-1) == tags).float().mean().item()


model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loader = DataLoader(TaggingDataset(), batch_size=4, shuffle=True)
for epoch in range(2):
    for tokens, tags in loader:
        logits = model(tokens)
        loss = sequence_loss(logits, tags)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.3f} acc {token_accuracy(logits, tags):.2f}")
