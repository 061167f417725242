"""Bug: the NER collator pads token ids into a tensor made with torch.zeros (float32 by default), so the embedding receives float indices.

family: int-float
category: factories
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int
source: https://github.com/dayyass/pytorch-ner/issues/40
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

VOCAB = {"<pad>": 0, "john": 1, "lives": 2, "in": 3, "paris": 4, "mary": 5, "works": 6, "at": 7, "acme": 8}
SENTENCES = [["john", "lives", "in", "paris"], ["mary", "works", "at", "acme"], ["john", "works"]]


def encode(sentence):
    return [VOCAB[w] for w in sentence]


def collate(batch):
    lengths = [len(ids) for ids in batch]
    tokens = torch.zeros(len(batch), max(lengths))  # cause: float32 padding buffer
    for i, ids in enumerate(batch):
        tokens[i, : len(ids)] = torch.tensor(ids)
    return tokens, torch.tensor(lengths)


class Tagger(nn.Module):
    def __init__(self, vocab_size, dim=8, n_tags=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, n_tags)

    def forward(self, tokens):
        embed = self.embedding(tokens)  # bug: float token ids
        hidden, _ = self.rnn(embed)
        return self.out(hidden)


loader = DataLoader([encode(s) for s in SENTENCES], batch_size=2, collate_fn=collate)
model = Tagger(len(VOCAB))
for tokens, lengths in loader:
    print(model(tokens).shape, lengths.tolist())
