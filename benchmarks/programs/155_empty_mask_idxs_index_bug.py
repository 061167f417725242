"""Bug: the indices of the masked samples are collected only for samples whose mask ratio passes the threshold; in a batch where none does the list is empty, torch.tensor([]) is float32, and indexing the semantic weights with it fails.

family: int-float
category: data-paths
expected: IndexError
message: tensors used as indices must be long
source: https://github.com/tinyvision/SOLIDER/issues/12
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SemanticHead(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, 2)

    def forward(self, feats):
        return F.softmax(self.proj(feats), dim=-1)[:, 0]


def mask_ratios(images, threshold=0.9):
    """Fraction of each image's pixels above the threshold."""
    return (images > threshold).float().flatten(1).mean(dim=1)


def train_one_epoch(head, batches, optimizer, min_ratio=0.5):
    for images, feats in batches:
        ratios = mask_ratios(images)
        mask_idxs = []
        for i in range(len(ratios)):
            if ratios[i] > min_ratio:
                mask_idxs.append(i)
        semantic_weight = head(feats)
        picked = semantic_weight[torch.tensor(mask_idxs)]  # bug: empty list -> float32 index  # cause: torch.tensor of a maybe-empty list
        loss = (1.0 - picked).pow(2).sum() + semantic_weight.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{len(mask_idxs)} masked samples, loss {loss.item():.3f}")


def main():
    torch.manual_seed(0)
    head = SemanticHead()
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    batches = [(torch.rand(4, 1, 8, 8) * 0.5, torch.randn(4, 16)) for _ in range(2)]
    train_one_epoch(head, batches, optimizer)


if __name__ == "__main__":
    main()
