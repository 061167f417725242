"""Bug: the TextCNN trains on int64 token ids, but the torchsummary-style summary() helper builds its probe input with torch.rand(...).type(torch.FloatTensor), and those float ids reach nn.Embedding.

family: int-float
category: factories
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int
source: https://github.com/sksq96/pytorch-summary/issues/42
"""
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def summary(model, input_size, batch_size=-1, dtypes=None):
    if dtypes is None:
        dtypes = [torch.FloatTensor] * (1 if isinstance(input_size, tuple) else len(input_size))
    if isinstance(input_size, tuple):
        input_size = [input_size]
    shapes, hooks = OrderedDict(), []

    def register_hook(module):
        def hook(module, inputs, output):
            key = f"{module.__class__.__name__}-{len(shapes) + 1}"
            shapes[key] = [batch_size] + list(output.size())[1:]
        if not isinstance(module, nn.Sequential) and module is not model:
            hooks.append(module.register_forward_hook(hook))

    x = [torch.rand(2, *in_size).type(dtype) for in_size, dtype in zip(input_size, dtypes)]  # cause: the probe token ids are float32
    model.apply(register_hook)
    model(*x)
    for h in hooks:
        h.remove()
    return "\n".join(f"{name:>20} {shape}" for name, shape in shapes.items())


class TextCNN(nn.Module):
    def __init__(self, nb_words, embed_dim, max_seq_len, num_filters, num_classes):
        super().__init__()
        self.embed = nn.Embedding(nb_words, embed_dim)
        self.dropout = nn.Dropout(0.3)
        self.conv = nn.Conv1d(embed_dim, num_filters, kernel_size=2, stride=1)
        self.fc1 = nn.Linear(num_filters, 32)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.embed(x)  # bug: float ids from summary() into nn.Embedding
        x = self.dropout(x.permute(0, 2, 1))
        x = self.conv(x).permute(0, 2, 1).max(1)[0]
        x = self.dropout(F.relu(self.fc1(x)))
        return torch.sigmoid(self.fc2(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TextCNN(nb_words=1000, embed_dim=100, max_seq_len=10, num_filters=20, num_classes=3)
    data = torch.from_numpy(np.array([[1, 4, 5, 8, 2, 9, 3, 7, 6, 0], [7, 7, 9, 1, 2, 3, 4, 5, 6, 8]]))
    target = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    output = model(data)
    loss = F.binary_cross_entropy(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"one step, loss {loss.item():.4f}")
    print(summary(model, (10,)))
