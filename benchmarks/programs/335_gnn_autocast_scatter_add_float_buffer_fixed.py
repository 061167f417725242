"""Fixed twin of 335_gnn_autocast_scatter_add_float_buffer_bug.py: the aggregation buffer is created in the messages' dtype, so scatter_add adds bfloat16 messages into a bfloat16 buffer.

family: precision
category: mixed-precision
expected: success
source: https://github.com/pytorch/pytorch/issues/51730
"""
import torch
import torch.nn as nn


class MessagePassing(nn.Module):
    def __init__(self, dim=16, steps=2):
        super().__init__()
        self.node_proj = nn.Linear(dim, dim)
        self.edge_proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.steps = steps

    def forward(self, x, edge_attr, edge_index):
        messages = self.edge_proj(edge_attr)
        index = edge_index[1].unsqueeze(1).expand_as(messages)
        for _ in range(self.steps):
            agg = torch.zeros_like(x, dtype=messages.dtype).scatter_add(0, index, messages)
            x = self.norm(x + self.node_proj(agg))
        return x


def make_graph(num_nodes=6, num_edges=10, dim=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(num_nodes, dim, generator=g)
    edge_attr = torch.randn(num_edges, dim, generator=g)
    edge_index = torch.randint(0, num_nodes, (2, num_edges), generator=g)
    return x, edge_attr, edge_index


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MessagePassing()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, edge_attr, edge_index = make_graph()
    target = torch.randn(6, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x, edge_attr, edge_index)
        loss = (out.float() - target).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(out.dtype, f"loss {loss.item():.4f}")
