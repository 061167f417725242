"""Bug: a mean-aggregation GNN counts node degrees with index_add_ of torch.ones_like(edge index) (int64) into a float32 buffer.

family: int-float
expected: RuntimeError
message: index_add_(): self (Float) and source (Long) must have the same scalar type
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def random_graph(num_nodes=10, num_edges=30, dim=8):
    edge_index = torch.randint(0, num_nodes, (2, num_edges))
    x = torch.randn(num_nodes, dim)
    y = (x[:, 0] > 0).long()
    return x, edge_index, y


def degree(dst, num_nodes):
    deg = torch.zeros(num_nodes)
    ones = torch.ones_like(dst)  # cause: ones_like of the int64 index is int64
    deg.index_add_(0, dst, ones)  # bug: float32 buffer, int64 source
    return deg.clamp(min=1)


class MeanConv(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.lin_self = nn.Linear(dim_in, dim_out)
        self.lin_neigh = nn.Linear(dim_in, dim_out)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        agg = agg / degree(dst, x.size(0)).unsqueeze(-1)
        return self.lin_self(x) + self.lin_neigh(agg)


class GNN(nn.Module):
    def __init__(self, dim=8, hidden=16, n_classes=2):
        super().__init__()
        self.conv1 = MeanConv(dim, hidden)
        self.conv2 = MeanConv(hidden, n_classes)

    def forward(self, x, edge_index):
        return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)


x, edge_index, y = random_graph()
model = GNN()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(3):
    out = model(x, edge_index)
    loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 4))
