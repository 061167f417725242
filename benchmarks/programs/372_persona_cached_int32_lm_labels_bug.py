"""Bug: the PersonaChat preprocessing caches the LM labels as int32 numpy arrays, the padding collate keeps that dtype, and the language-model cross entropy rejects int32 targets.

family: class-target
category: data-paths
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Int
source: https://github.com/Chenrj233/LMEDR/issues/8
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

VOCAB, PAD = 50, 0


def build_cache(n=8, max_len=12, seed=0):
    rng = np.random.default_rng(seed)
    cache = []
    for _ in range(n):
        length = int(rng.integers(5, max_len))
        ids = rng.integers(1, VOCAB, length).astype(np.int32)
        lm_labels = np.where(rng.random(length) < 0.3, -100, ids).astype(np.int32)  # cause: labels cached as int32
        cache.append({"input_ids": ids, "lm_labels": lm_labels, "cls_label": int(rng.integers(0, 2))})
    return cache


class PersonaDataset(Dataset):
    def __init__(self, cache):
        self.cache = cache

    def __len__(self):
        return len(self.cache)

    def __getitem__(self, idx):
        return self.cache[idx]


def pad_collate(batch):
    max_len = max(len(b["input_ids"]) for b in batch)
    ids = np.full((len(batch), max_len), PAD, dtype=np.int64)
    labels = np.full((len(batch), max_len), -100, dtype=batch[0]["lm_labels"].dtype)
    for i, b in enumerate(batch):
        ids[i, :len(b["input_ids"])] = b["input_ids"]
        labels[i, :len(b["lm_labels"])] = b["lm_labels"]
    cls = torch.tensor([b["cls_label"] for b in batch])
    return torch.from_numpy(ids), torch.from_numpy(labels), cls


class TinyLMWithCls(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, hidden, padding_idx=PAD)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, VOCAB)
        self.cls_head = nn.Linear(hidden, 2)

    def forward(self, ids):
        h, last = self.rnn(self.emb(ids))
        return self.lm_head(h), self.cls_head(last[-1])


def update(model, batch, optimizer, lm_criterion, cls_criterion):
    ids, lmlabels, clslabel = batch
    lm_logits, cls_logits = model(ids)
    lm_loss = lm_criterion(lm_logits.view(-1, VOCAB), lmlabels.view(-1))  # bug: int32 LM targets
    loss = lm_loss + cls_criterion(cls_logits, clslabel)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyLMWithCls()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    lm_criterion = nn.CrossEntropyLoss(ignore_index=-100)
    loader = DataLoader(PersonaDataset(build_cache()), batch_size=4, collate_fn=pad_collate)
    for batch in loader:
        print("loss", update(model, batch, optimizer, lm_criterion, nn.CrossEntropyLoss()))
