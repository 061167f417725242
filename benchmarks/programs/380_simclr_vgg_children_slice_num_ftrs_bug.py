"""Bug: the VGG backbone is cut with nn.Sequential(*list(vgg.children())[:-2]), which drops the adaptive pool as well as the classifier, so the flattened features are 64*2*2 = 256 wide while SimCLR's projection head was built for num_ftrs=512.

family: shape
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (16x256 and 512x512)
source: https://github.com/lightly-ai/lightly/issues/357
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class VGG(nn.Module):
    def __init__(self, cfg=(16, "M", 32, "M", 64, "M", 64, "M"), num_classes=1000):
        super().__init__()
        layers, in_ch = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(in_ch, v, 3, padding=1), nn.ReLU(inplace=True)]
                in_ch = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Linear(in_ch, 128), nn.ReLU(True), nn.Linear(128, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


class SimCLR(nn.Module):
    def __init__(self, backbone, num_ftrs=32, out_dim=128):
        super().__init__()
        self.backbone = backbone
        self.projection_head = nn.Sequential(nn.Linear(num_ftrs, num_ftrs), nn.ReLU(), nn.Linear(num_ftrs, out_dim))

    def forward(self, x0, x1):
        f0 = self.backbone(x0).flatten(start_dim=1)
        f1 = self.backbone(x1).flatten(start_dim=1)
        return self.projection_head(f0), self.projection_head(f1)  # bug: 256 features into a 512-wide head


class NTXentLoss(nn.Module):
    def __init__(self, temperature=0.5):
        super().__init__()
        self.temperature = temperature

    def forward(self, out0, out1):
        out = F.normalize(torch.cat([out0, out1]), dim=1)
        logits = out @ out.t() / self.temperature
        logits.fill_diagonal_(-1e9)
        n = out0.shape[0]
        labels = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(logits, labels)


class LightlyDataset(Dataset):
    def __init__(self, n, size, rng):
        self.images = rng.random((n, 3, size, size), dtype=np.float32)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx])


def collate_fn(batch, rng=np.random.default_rng(1)):
    imgs = torch.stack(batch)
    views = []
    for _ in range(2):
        flip = torch.from_numpy(rng.random(len(batch)) < 0.5)
        v = torch.where(flip[:, None, None, None], imgs.flip(-1), imgs)
        views.append(v * float(rng.uniform(0.6, 1.4)))
    return views[0], views[1]


if __name__ == "__main__":
    torch.manual_seed(0)
    dataset = LightlyDataset(32, 32, np.random.default_rng(0))
    dataloader = DataLoader(dataset, batch_size=16, shuffle=True, collate_fn=collate_fn)
    vgg = VGG()
    resnet = nn.Sequential(*list(vgg.children())[:-2])  # cause: slicing drops avgpool, features stay 64x2x2
    model = SimCLR(resnet, num_ftrs=512, out_dim=32)
    criterion = NTXentLoss(temperature=0.5)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-1, weight_decay=1e-5)
    for epoch in range(2):
        for x0, x1 in dataloader:
            out0, out1 = model(x0, x1)
            loss = criterion(out0, out1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print(f"loss {loss.item():.4f}")
