"""Fixed twin of 371_isda_net_logits_into_full_layer_bug.py: Net drops fc3 and returns the 84-wide fc2 features, which ISDA's Full_layer(84, 10) classifies.

family: shape
category: model-outputs
expected: success
source: https://github.com/blackfeather-wang/ISDA-for-Deep-Networks/issues/2
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def mish(x):
    return x * torch.tanh(F.softplus(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)

    def forward(self, x):
        x = self.pool(mish(self.conv1(x)))
        x = self.pool(mish(self.conv2(x)))
        x = x.view(-1, 32 * 5 * 5)
        x = mish(self.fc1(x))
        x = mish(self.fc2(x))
        return x


class Full_layer(nn.Module):
    def __init__(self, feature_num, class_num):
        super().__init__()
        self.fc = nn.Linear(feature_num, class_num)

    def forward(self, x):
        return self.fc(x)


class ISDALoss(nn.Module):
    def __init__(self, feature_num, class_num):
        super().__init__()
        self.cov = torch.zeros(class_num, feature_num, feature_num)
        self.ce = nn.CrossEntropyLoss()

    def forward(self, model, fc, x, target, ratio):
        features = model(x)
        y = fc(features)
        return self.ce(y, target), y


if __name__ == "__main__":
    torch.manual_seed(0)
    batch_size, feature_num, num_classes = 4, 84, 10
    rng = np.random.default_rng(0)
    data = TensorDataset(torch.from_numpy(rng.random((8, 3, 32, 32), dtype=np.float32)),
                         torch.from_numpy(rng.integers(0, num_classes, 8)))
    net = Net()
    fc = Full_layer(feature_num, num_classes)
    isda_criterion = ISDALoss(feature_num, num_classes)
    optimizer = torch.optim.SGD(list(net.parameters()) + list(fc.parameters()), lr=0.01, momentum=0.9)
    for epoch in range(1):
        for inputs, labels in DataLoader(data, batch_size=batch_size, shuffle=True):
            loss, outputs = isda_criterion(net, fc, inputs, labels, ratio=0.5 * epoch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("epoch", epoch, "loss", loss.item())
