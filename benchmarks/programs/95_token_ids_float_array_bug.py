"""Bug: the encoding factory returns token ids in a float32 numpy matrix (padded with np.zeros, float64 by default, then astype(np.float32) for "memory"); torch.from_numpy keeps float32 and the embedding refuses float indices.

family: int-float
category: factories
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int
source: https://github.com/pytorch/pytorch/issues/116598
"""
import numpy as np
import torch
import torch.nn as nn

VOCAB = {"<pad>": 0, "low": 1, "mid": 2, "high": 3, "income": 4, "age": 5}


def encode_rows(rows, max_len=4):
    ids = np.zeros((len(rows), max_len))
    for i, row in enumerate(rows):
        for j, word in enumerate(row[:max_len]):
            ids[i, j] = VOCAB[word]
    return ids.astype(np.float32)  # cause: float32 ids


class IncomeModel(nn.Module):
    def __init__(self, vocab_size, dim=8):
        super().__init__()
        self.embedded_layer = nn.Embedding(vocab_size, dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, tokens):
        emb = self.embedded_layer(tokens)  # bug: float32 indices
        return self.head(emb.mean(dim=1))


rows = [["low", "income"], ["high", "income", "age"], ["mid", "age"]]
tokens = torch.from_numpy(encode_rows(rows))
model = IncomeModel(len(VOCAB))
target = torch.tensor([[0.0], [1.0], [0.5]])
loss = nn.functional.mse_loss(model(tokens), target)
loss.backward()
print(loss.item())
