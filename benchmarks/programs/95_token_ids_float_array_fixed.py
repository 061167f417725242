"""Fixed twin of 95_token_ids_float_array_bug.py: the ids are int64.

family: int-float
expected: success
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
    return ids.astype(np.int64)


class IncomeModel(nn.Module):
    def __init__(self, vocab_size, dim=8):
        super().__init__()
        self.embedded_layer = nn.Embedding(vocab_size, dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, tokens):
        emb = self.embedded_layer(tokens)
        return self.head(emb.mean(dim=1))


rows = [["low", "income"], ["high", "income", "age"], ["mid", "age"]]
tokens = torch.from_numpy(encode_rows(rows))
model = IncomeModel(len(VOCAB))
target = torch.tensor([[0.0], [1.0], [0.5]])
loss = nn.functional.mse_loss(model(tokens), target)
loss.backward()
print(loss.item())
