"""Bug: the fine-tuning script chains .get_classifier() onto create_model(), so `model` is only the classification head (a Linear over the 32 pooled features); setting model.fc on that Linear changes nothing it computes, and the training loop feeds raw image batches to the bare head.

family: shape
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (192x16 and 32x3)
source: https://github.com/huggingface/pytorch-image-models/issues/1663
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class ClassifierHead(nn.Module):
    def __init__(self, in_features, num_classes):
        super().__init__()
        self.in_features = in_features
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x):
        return self.fc(x)  # bug: a (4, 3, 16, 16) image batch reaches the head's Linear(32, 3)


class CoAtNet(nn.Module):
    def __init__(self, num_classes=1000, embed_dim=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.GELU(), nn.Conv2d(16, embed_dim, 3, 2, 1), nn.GELU())
        self.attn = nn.MultiheadAttention(embed_dim, 4, batch_first=True)
        self.head = ClassifierHead(embed_dim, num_classes)

    def get_classifier(self):
        return self.head

    def forward_features(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return x + self.attn(x, x, x, need_weights=False)[0]

    def forward(self, x):
        return self.head(self.forward_features(x).mean(1))


def create_model(name, pretrained=False, num_classes=1000, **kwargs):
    assert name.startswith("coatnet")
    return CoAtNet(num_classes=num_classes)


def main():
    torch.manual_seed(0)
    model = create_model("coatnet_2_rw_224.sw_in12k_ft_in1k", pretrained=False, num_classes=3).get_classifier()  # cause: keeps only the head
    model.fc = torch.nn.Sequential(torch.nn.Linear(in_features=model.in_features, out_features=3, bias=True))
    g = torch.Generator().manual_seed(0)
    train_loader = DataLoader(TensorDataset(torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 3, (8,), generator=g)),
                              batch_size=4, shuffle=True, generator=g)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(2):
        for batch in train_loader:
            inputs, targets = batch
            outputs = model(inputs)
            loss = F.cross_entropy(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
