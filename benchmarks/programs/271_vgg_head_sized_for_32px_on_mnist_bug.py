"""Bug: the VGG-style network from a CIFAR tutorial sizes its first fully connected layer for 32x32 inputs (four 2x2 pools leave 2x2 maps), but the federated MNIST task feeds 28x28 digits, which leave 1x1 maps and a quarter of the expected features.

family: shape
category: model-shapes
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied
source: https://github.com/securefederatedai/openfederatedlearning/issues/226
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def conv_block(cin, cout, n_convs):
    layers = []
    for i in range(n_convs):
        # same padding: p = (s(o-1) - w + k) / 2 = 1 for a 3x3 kernel
        layers += [nn.Conv2d(cin if i == 0 else cout, cout, 3, stride=1, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


class Net(nn.Module):
    def __init__(self, in_channels=1, num_classes=10, img_size=32):
        super().__init__()
        self.block_1 = conv_block(in_channels, 8, 2)
        self.block_2 = conv_block(8, 16, 2)
        self.block_3 = conv_block(16, 32, 3)
        self.block_4 = conv_block(32, 32, 3)
        side = img_size // 16
        self.classifier = nn.Sequential(
            nn.Linear(32 * side * side, 64), nn.ReLU(), nn.Dropout(0.5),  # cause: img_size defaults to CIFAR's 32
            nn.Linear(64, num_classes),
        )

    def forward(self, x):
        x = self.block_4(self.block_3(self.block_2(self.block_1(x))))
        x = x.view(x.size(0), -1)
        return self.classifier(x)  # bug: 32 features per digit, 128 expected


class TaskRunner:
    def __init__(self, model, loader, lr=0.01):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def train_epoch(self):
        self.model.train()
        losses = []
        for data, target in self.loader:
            loss = F.cross_entropy(self.model(data), target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
        return sum(losses) / len(losses)


torch.manual_seed(0)
digits = torch.rand(64, 1, 28, 28)
labels = torch.randint(0, 10, (64,))
collaborator = TaskRunner(Net(), DataLoader(TensorDataset(digits, labels), batch_size=16, shuffle=True))
for round_num in range(2):
    print(f"round {round_num}: loss {collaborator.train_epoch():.4f}")
