"""Fixed twin of 312_create_model_get_classifier_fc_reassigned_bug.py: the script keeps the whole model from create_model() and replaces its head's fc, so images go through the backbone first.

family: shape
category: mutated-modules
expected: success
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
        return self.fc(x)


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
    model = create_model("coatnet_2_rw_224.sw_in12k_ft_in1k", pretrained=False, num_classes=3)
    model.head.fc = torch.nn.Sequential(torch.nn.Linear(in_features=model.head.in_features, out_features=3, bias=True))
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
