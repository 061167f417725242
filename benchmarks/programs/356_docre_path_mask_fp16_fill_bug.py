"""Bug: with --fp16 the document-level relation model is cast to half (apex O2 style) and its path attention masks invalid reasoning paths with -1e9, a value float16 cannot hold.

family: precision
category: mixed-precision
expected: RuntimeError
message: value cannot be converted to type c10::Half without overflow
source: https://github.com/NVIDIA/apex/issues/1052
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class PathReasoner(nn.Module):
    def __init__(self, hidden, n_relations):
        super().__init__()
        self.entity_proj = nn.Linear(hidden, hidden)
        self.path_proj = nn.Linear(2 * hidden, hidden)
        self.query = nn.Linear(2 * hidden, hidden)
        self.classifier = nn.Linear(3 * hidden, n_relations)

    def forward(self, head, tail, path_repr, path_mask):
        # head, tail: [pairs, hidden]; path_repr: [pairs, paths, 2*hidden]; path_mask: [pairs, paths]
        h, t = self.entity_proj(head), self.entity_proj(tail)
        keys = self.path_proj(path_repr)
        query = self.query(torch.cat([h, t], dim=-1)).unsqueeze(1)
        scores = (keys * query).sum(-1, keepdim=True) / keys.size(-1) ** 0.5
        scores_mask = scores.masked_fill(~path_mask.unsqueeze(-1), -1e9)  # bug: -1e9 overflows float16
        weights = F.softmax(scores_mask, dim=1)
        path_ctx = (weights * keys).sum(1)
        return self.classifier(torch.cat([h, t, path_ctx], dim=-1))


def make_batch(n_pairs, n_paths, hidden, n_relations, g):
    head = torch.randn(n_pairs, hidden, generator=g)
    tail = torch.randn(n_pairs, hidden, generator=g)
    paths = torch.randn(n_pairs, n_paths, 2 * hidden, generator=g)
    path_mask = torch.rand(n_pairs, n_paths, generator=g) > 0.4
    path_mask[:, 0] = True
    labels = torch.randint(0, n_relations, (n_pairs,), generator=g)
    return head, tail, paths, path_mask, labels


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--n_relations", type=int, default=7)
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args(["--fp16"])
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = PathReasoner(args.hidden, args.n_relations)
    dtype = torch.float32
    if args.fp16:
        model, dtype = model.half(), torch.float16  # cause: scores are computed in float16
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        head, tail, paths, path_mask, labels = make_batch(6, 5, args.hidden, args.n_relations, g)
        logits = model(head.to(dtype), tail.to(dtype), paths.to(dtype), path_mask)
        loss = F.cross_entropy(logits.float(), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
