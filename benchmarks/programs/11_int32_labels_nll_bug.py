"""Bug: labels stored as int32 "to save memory" are batched by a custom collate_fn and reach nll_loss, which needs int64.

family: class-target
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Int
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
torch.manual_seed(0)

VOCAB, N_CLASSES, MAX_LEN = 50, 5, 12


class TopicDataset(Dataset):
    def __init__(self, n=40):
        self.docs = [np.random.randint(1, VOCAB, size=np.random.randint(4, MAX_LEN)) for _ in range(n)]
        self.labels = np.array([doc[0] % N_CLASSES for doc in self.docs], dtype=np.int32)  # cause: int32 class indices

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, idx):
        return self.docs[idx], self.labels[idx]


def pad_collate(batch, pad_id=0):
    docs, labels = zip(*batch)
    width = max(len(d) for d in docs)
    ids = torch.full((len(docs), width), pad_id, dtype=torch.long)
    for i, doc in enumerate(docs):
        ids[i, :len(doc)] = torch.from_numpy(doc)
    return ids, torch.as_tensor(np.array(labels))


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab=VOCAB, dim=16, n_classes=N_CLASSES):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean", padding_idx=0)
        self.proj = nn.Linear(dim, n_classes)

    def forward(self, ids):
        return F.log_softmax(self.proj(self.emb(ids)), dim=-1)


model = BagOfEmbeddings()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loader = DataLoader(TopicDataset(), batch_size=8, shuffle=True, collate_fn=pad_collate)
for epoch in range(2):
    total = 0.0
    for step, (ids, labels) in enumerate(loader):
        log_probs = model(ids)
        loss = F.nll_loss(log_probs, labels)  # bug: int32 target
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        if step == 2:
            break
    print(f"epoch {epoch}: {total:.3f}")
