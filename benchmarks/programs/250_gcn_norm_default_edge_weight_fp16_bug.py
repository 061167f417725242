"""Bug: with the DeepSpeed-style fp16 strategy the graph model and node features are half, but the GCN normalization creates its default edge weights and self-loops with torch.ones / torch.eye (float32); the float32 normalized adjacency then meets the half node features in a matmul.

family: precision
category: mixed-precision
expected: RuntimeError
message: m1 and m2 to have the same dtype
source: https://github.com/Lightning-AI/pytorch-lightning/issues/16793
"""
import torch
import torch.nn as nn


def gcn_norm(edge_index, num_nodes, edge_weight=None):
    if edge_weight is None:
        edge_weight = torch.ones(edge_index.size(1))  # cause: default edge weights in float32
    adj = torch.zeros(num_nodes, num_nodes, dtype=edge_weight.dtype)
    adj[edge_index[0], edge_index[1]] = edge_weight
    adj = adj + torch.eye(num_nodes)
    deg_inv_sqrt = adj.sum(1).pow(-0.5)
    return deg_inv_sqrt[:, None] * adj * deg_inv_sqrt[None, :]


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index, edge_weight=None):
        adj = gcn_norm(edge_index, x.size(0), edge_weight)
        return adj @ self.lin(x)  # bug: float32 adjacency @ half node features


class GraphNN(nn.Module):
    def __init__(self, num_features, num_classes, hidden=16, num_layers=2):
        super().__init__()
        self.layers = nn.ModuleList(
            [GCNConv(num_features if i == 0 else hidden, hidden) for i in range(num_layers)])
        self.head = nn.Linear(hidden, num_classes)

    def forward(self, x, edge_index, batch):
        for conv in self.layers:
            x = torch.relu(conv(x, edge_index))
        pooled = torch.stack([x[batch == g].mean(0) for g in range(int(batch.max()) + 1)])
        return self.head(pooled)


class DeepSpeedFP16Strategy:
    """What the fp16 strategy does before each step: half model, half floating-point inputs."""

    def setup(self, model):
        return model.half()

    def batch_to_precision(self, x):
        return x.half() if x.is_floating_point() else x


def main():
    torch.manual_seed(0)
    strategy = DeepSpeedFP16Strategy()
    model = strategy.setup(GraphNN(num_features=7, num_classes=2))
    x = torch.randn(10, 7)
    edge_index = torch.randint(0, 10, (2, 24))
    batch = torch.tensor([0] * 5 + [1] * 5)
    with torch.no_grad():
        logits = model(strategy.batch_to_precision(x), edge_index, batch)
    print(logits.float().softmax(-1))


if __name__ == "__main__":
    main()
