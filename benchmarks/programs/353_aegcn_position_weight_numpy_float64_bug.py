"""Bug: the aspect GCN's position_weight() computes its proximity weights from lengths moved to numpy, so each 1 - (idx - j) / context_len is a numpy.float64; torch.tensor() of that list is float64, the weighted LSTM states become float64, and the graph convolution's matmul with its float32 weight fails.

family: numpy-float64
category: factories
expected: RuntimeError
message: expected m1 and m2 to have the same dtype, but got: double != float
source: https://github.com/Xillv/Code-for-AEGCN-Glove/issues/3
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features).uniform_(-0.1, 0.1))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, text, adj):
        hidden = torch.matmul(text, self.weight)  # bug: float64 position-weighted states times a float32 weight
        denom = torch.sum(adj, dim=2, keepdim=True) + 1
        return torch.matmul(adj, hidden) / denom + self.bias


class AEGCN(nn.Module):
    def __init__(self, embedding_matrix, opt):
        super().__init__()
        self.opt = opt
        self.embed = nn.Embedding.from_pretrained(torch.tensor(embedding_matrix, dtype=torch.float))
        self.text_lstm = nn.LSTM(opt.embed_dim, opt.hidden_dim, num_layers=1, batch_first=True, bidirectional=True)
        self.gc1 = GraphConvolution(2 * opt.hidden_dim, 2 * opt.hidden_dim)
        self.dense = nn.Linear(2 * opt.hidden_dim, opt.polarities_dim)

    def position_weight(self, x, aspect_double_idx, text_len, aspect_len):
        batch_size, seq_len = x.shape[0], x.shape[1]
        aspect_double_idx = aspect_double_idx.cpu().numpy()
        text_len, aspect_len = text_len.cpu().numpy(), aspect_len.cpu().numpy()
        weight = [[] for i in range(batch_size)]
        for i in range(batch_size):
            context_len = text_len[i] - aspect_len[i]
            for j in range(aspect_double_idx[i, 0]):
                weight[i].append(1 - (aspect_double_idx[i, 0] - j) / context_len)
            for j in range(aspect_double_idx[i, 0], aspect_double_idx[i, 1] + 1):
                weight[i].append(0)
            for j in range(aspect_double_idx[i, 1] + 1, text_len[i]):
                weight[i].append(1 - (j - aspect_double_idx[i, 1]) / context_len)
            for j in range(text_len[i], seq_len):
                weight[i].append(0)
        weight = torch.tensor(weight).unsqueeze(2).to(self.opt.device)  # cause: a list of numpy.float64 becomes a float64 tensor
        return weight * x

    def forward(self, inputs):
        text_indices, aspect_indices, left_indices, adj = inputs
        text_len = torch.sum(text_indices != 0, dim=-1)
        aspect_len = torch.sum(aspect_indices != 0, dim=-1)
        left_len = torch.sum(left_indices != 0, dim=-1)
        aspect_double_idx = torch.cat([left_len.unsqueeze(1), (left_len + aspect_len - 1).unsqueeze(1)], dim=1)
        text_out, _ = self.text_lstm(self.embed(text_indices))
        x = F.relu(self.gc1(self.position_weight(text_out, aspect_double_idx, text_len, aspect_len), adj))
        return self.dense(x.sum(dim=1) / text_len.unsqueeze(1).float())


def make_batch(rng, batch_size=4, seq_len=12, vocab=30):
    text = np.zeros((batch_size, seq_len), dtype=np.int64)
    aspect, left = np.zeros((batch_size, 3), dtype=np.int64), np.zeros((batch_size, seq_len), dtype=np.int64)
    for i in range(batch_size):
        n, start = rng.integers(6, seq_len + 1), rng.integers(1, 4)
        text[i, :n] = rng.integers(1, vocab, n)
        aspect[i, :2] = text[i, start:start + 2]
        left[i, :start] = text[i, :start]
    adj = (rng.random((batch_size, seq_len, seq_len)) > 0.7).astype("float32")
    return [torch.from_numpy(a) for a in (text, aspect, left, adj)], torch.from_numpy(rng.integers(0, 3, batch_size))


if __name__ == "__main__":
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    opt = SimpleNamespace(embed_dim=16, hidden_dim=8, polarities_dim=3, device="cpu", learning_rate=1e-3)
    model = AEGCN(rng.normal(size=(30, opt.embed_dim)), opt)
    optimizer = torch.optim.Adam(model.parameters(), lr=opt.learning_rate)
    for step in range(3):
        inputs, targets = make_batch(rng)
        outputs = model(inputs)
        loss = F.cross_entropy(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
