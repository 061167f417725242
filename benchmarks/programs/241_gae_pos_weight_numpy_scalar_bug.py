"""Bug: the graph autoencoder computes its positive-edge weight from numpy adjacency sums, which leaves a numpy.float64 scalar, and binary_cross_entropy_with_logits only takes a Tensor for pos_weight.

family: numpy-float64
category: model-outputs
expected: TypeError
message: must be Tensor, not numpy.float64
source: https://github.com/zfjsail/gae-pytorch/issues/4
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def preprocess_graph(adj):
    adj_ = adj + np.eye(adj.shape[0])
    degree_mat_inv_sqrt = np.diag(np.power(adj_.sum(1), -0.5))
    return torch.from_numpy(degree_mat_inv_sqrt @ adj_ @ degree_mat_inv_sqrt).float()


class GCNModelVAE(nn.Module):
    def __init__(self, input_feat_dim, hidden_dim1, hidden_dim2):
        super().__init__()
        self.gc1 = nn.Linear(input_feat_dim, hidden_dim1, bias=False)
        self.gc_mu = nn.Linear(hidden_dim1, hidden_dim2, bias=False)
        self.gc_logvar = nn.Linear(hidden_dim1, hidden_dim2, bias=False)

    def forward(self, x, adj):
        hidden1 = F.relu(adj @ self.gc1(x))
        mu, logvar = adj @ self.gc_mu(hidden1), adj @ self.gc_logvar(hidden1)
        z = mu + torch.randn_like(mu) * torch.exp(logvar) if self.training else mu
        return z @ z.t(), mu, logvar


def loss_function(preds, labels, mu, logvar, n_nodes, norm, pos_weight):
    cost = norm * F.binary_cross_entropy_with_logits(preds, labels, pos_weight=pos_weight)  # bug: pos_weight is numpy.float64
    kld = -0.5 / n_nodes * torch.mean(torch.sum(1 + 2 * logvar - mu.pow(2) - logvar.exp().pow(2), 1))
    return cost + kld


def gae_for(epochs=5, n_nodes=12, seed=0):
    rng = np.random.default_rng(seed)
    upper = np.triu((rng.random((n_nodes, n_nodes)) < 0.25).astype(np.float64), 1)
    adj = upper + upper.T
    features = torch.eye(n_nodes)
    adj_norm = preprocess_graph(adj)
    adj_label = torch.FloatTensor(adj + np.eye(n_nodes))
    pos_weight = float(adj.shape[0] * adj.shape[0] - adj.sum()) / adj.sum()  # cause: float / numpy.float64 is numpy.float64
    norm = adj.shape[0] * adj.shape[0] / float((adj.shape[0] * adj.shape[0] - adj.sum()) * 2)

    model = GCNModelVAE(n_nodes, 16, 8)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        recovered, mu, logvar = model(features, adj_norm)
        loss = loss_function(preds=recovered, labels=adj_label, mu=mu, logvar=logvar,
                             n_nodes=n_nodes, norm=norm, pos_weight=pos_weight)
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gae_for()
