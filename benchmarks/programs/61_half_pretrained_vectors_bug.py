"""Bug: pretrained word vectors are loaded with .half() to save memory; the frozen float16 embedding output, pooled, meets the float32 Linear head.

family: precision
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

CFG = {
    "vocab_size": 60,
    "embedding_dim": 24,
    "n_classes": 3,
    "freeze_embeddings": True,
    "max_len": 12,
}


def load_vectors(vocab_size, dim, seed=0):
    """Stands in for np.load("glove.npy"): a float32 matrix, one row per word."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((vocab_size, dim)).astype(np.float32)


class PooledClassifier(nn.Module):
    def __init__(self, vectors, n_classes, freeze=True):
        super().__init__()
        table = torch.from_numpy(vectors).half()  # cause: the embedding table becomes float16
        self.embed = nn.Embedding.from_pretrained(table, freeze=freeze, padding_idx=0)
        self.head = nn.Linear(vectors.shape[1], n_classes)

    def forward(self, ids):
        keep = ids != 0
        pooled = self.embed(ids).masked_fill(~keep[..., None], 0).sum(1) / keep.sum(1, keepdim=True)
        return self.head(pooled)  # bug: float16 pooled vectors into the float32 Linear


def build_model(cfg):
    vectors = load_vectors(cfg["vocab_size"], cfg["embedding_dim"])
    return PooledClassifier(vectors, cfg["n_classes"], freeze=cfg["freeze_embeddings"])


def random_batch(cfg, batch_size=8):
    lengths = torch.randint(3, cfg["max_len"] + 1, (batch_size,))
    ids = torch.randint(1, cfg["vocab_size"], (batch_size, cfg["max_len"]))
    ids[torch.arange(cfg["max_len"])[None, :] >= lengths[:, None]] = 0
    return ids, ids[:, 0] % cfg["n_classes"]


model = build_model(CFG)
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
for step in range(5):
    ids, labels = random_batch(CFG)
    loss = nn.functional.cross_entropy(model(ids), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.3f}")
