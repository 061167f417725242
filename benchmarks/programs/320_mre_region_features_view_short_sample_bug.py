"""Bug: the multimodal relation-extraction model views the batch's concatenated visual-object features as (-1, 10, feat), assuming every sample brings 10 detected objects; one image of the corpus has only 8 detections, the collate concatenates 38 rows for its batch, and the view cannot split them into groups of 10.

family: shape
category: data-paths
expected: RuntimeError
message: shape '[-1, 10, 32]' is invalid for input of size 1216
source: https://github.com/thecharm/Mega/issues/18
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class MNREDataset(Dataset):
    def __init__(self, n=8, seq_len=12, feat=32, n_rel=5):
        rng = np.random.default_rng(0)
        self.tokens = rng.integers(1, 100, size=(n, seq_len))
        self.pics = [rng.standard_normal((8 if i == 5 else 10, feat)).astype(np.float32) for i in range(n)]  # cause: one image has 8 objects
        self.labels = rng.integers(0, n_rel, size=n)

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return torch.from_numpy(self.tokens[i]), torch.from_numpy(self.pics[i]), int(self.labels[i])


def collate_fn(batch):
    tokens, pics, labels = zip(*batch)
    return torch.stack(tokens), torch.cat(pics, dim=0), torch.tensor(labels)


class MEGA(nn.Module):
    def __init__(self, vocab=100, hidden=32, pic_feat=32, n_obj=10, n_rel=5):
        super().__init__()
        self.pic_feat, self.n_obj = pic_feat, n_obj
        self.embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.pic_proj = nn.Linear(pic_feat, hidden)
        self.classifier = nn.Linear(2 * hidden, n_rel)

    def forward(self, tokens, pic):
        text, _ = self.encoder(self.embed(tokens))
        pic = pic.view(-1, self.n_obj, self.pic_feat)  # bug: 38 object rows do not split into groups of 10
        vis = self.pic_proj(pic)
        align = torch.softmax(text @ vis.transpose(1, 2) / text.shape[-1] ** 0.5, dim=-1)
        fused = (align @ vis).mean(1)
        return self.classifier(torch.cat([text.mean(1), fused], dim=-1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = MEGA()
    loader = DataLoader(MNREDataset(), batch_size=args.batch_size, collate_fn=collate_fn)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for tokens, pics, labels in loader:
        loss = F.cross_entropy(model(tokens, pics), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
