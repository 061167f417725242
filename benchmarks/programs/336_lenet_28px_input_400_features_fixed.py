"""Fixed twin of 336_lenet_28px_input_400_features_bug.py: fc1 is sized for the 16*4*4 = 256 features that 28x28 digits leave.

family: shape
category: model-shapes
expected: success
source: https://github.com/MaitreChen/openvino-lenet-sample/issues/1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc3(F.relu(self.fc2(x)))


class FakeMNIST(Dataset):
    def __init__(self, n=16, size=28):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 1, size, size, generator=g)
        self.labels = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return (self.images[i] - 0.1307) / 0.3081, self.labels[i]


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(1):
        for images, labels in DataLoader(FakeMNIST(), batch_size=8, shuffle=True):
            loss = criterion(net(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
