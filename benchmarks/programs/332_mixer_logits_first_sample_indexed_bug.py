"""Bug: train.py was written for a ViT whose forward returns (logits, attn_weights) and takes model(x)[0]; the MLP-Mixer returns the (B, num_classes) logits tensor itself, so [0] picks the first sample's 10 logits, which view(-1, 10) turns into one row compared with the batch of 8 labels.

family: shape
category: model-outputs
expected: ValueError
message: Expected input batch_size (1) to match target batch_size (8)
source: https://github.com/jeonsworld/MLP-Mixer-Pytorch/issues/3
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return self.net(x)


class MixerBlock(nn.Module):
    def __init__(self, num_patches, dim):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.token_mixing = MlpBlock(num_patches, 32)
        self.channel_mixing = MlpBlock(dim, 64)

    def forward(self, x):
        x = x + self.token_mixing(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mixing(self.norm2(x))


class MlpMixer(nn.Module):
    def __init__(self, num_classes=10, img_size=16, patch=4, dim=32, depth=2):
        super().__init__()
        num_patches = (img_size // patch) ** 2
        self.stem = nn.Conv2d(3, dim, patch, stride=patch)
        self.layers = nn.Sequential(*[MixerBlock(num_patches, dim) for _ in range(depth)])
        self.pre_head_ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        x = self.pre_head_ln(self.layers(x))
        return self.head(x.mean(dim=1))  # cause: returns the logits tensor, not a (logits, ...) tuple


def train(model, train_loader, num_steps=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=3e-2, momentum=0.9)
    loss_fct = nn.CrossEntropyLoss()
    model.train()
    step = 0
    while step < num_steps:
        for x, y in train_loader:
            logits = model(x)[0]
            loss = loss_fct(logits.view(-1, 10), y.view(-1))  # bug: one sample's logits against the whole batch of labels
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(16, 3, 16, 16, generator=g), torch.randint(0, 10, (16,), generator=g))
    train(MlpMixer(), DataLoader(data, batch_size=8, shuffle=True, generator=g))
