"""Bug: the multi-input model concatenates the embeddings of its six inputs with torch.cat's default dim 0, so a batch of 10 samples comes out as 60 rows of logits against 10 labels.

family: shape
category: data-paths
expected: ValueError
message: Expected input batch_size (60) to match target batch_size (10)
source: https://github.com/pytorch/pytorch/issues/139031
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

N_SENSORS = 6
WINDOW = 12
N_CLASSES = 3


class SensorEncoder(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(WINDOW, hidden), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class MultiInputNet(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.encoders = nn.ModuleList([SensorEncoder(hidden) for _ in range(N_SENSORS)])
        self.classifier = nn.Linear(hidden, N_CLASSES)

    def forward(self, s1, s2, s3, s4, s5, s6):
        e = [enc(s) for enc, s in zip(self.encoders, (s1, s2, s3, s4, s5, s6))]
        fused = torch.cat([e[0], e[1], e[2], e[3], e[4], e[5]])  # cause: rows of the six inputs stacked
        return self.classifier(fused)


def main():
    torch.manual_seed(0)
    sensors = [torch.randn(40, WINDOW) for _ in range(N_SENSORS)]
    labels = torch.randint(0, N_CLASSES, (40,))
    loader = DataLoader(TensorDataset(*sensors, labels), batch_size=10, shuffle=True)
    model = MultiInputNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for s1, s2, s3, s4, s5, s6, y in loader:
            logits = model(s1, s2, s3, s4, s5, s6)
            loss = F.cross_entropy(logits, y)  # bug: 60 rows of logits, 10 labels
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
