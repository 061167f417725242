"""Fixed twin of 355_hpa_conv3d_view_batch_folded_bug.py: the features are flattened per image (16*6*6 columns) and fc1 is sized for one image, so the last batch of 5 goes through.

family: shape
category: data-paths
expected: success
source: https://github.com/weka511/hpa-scc/issues/38
"""
import argparse
import warnings

import torch
import torch.nn.functional as F
from torch.nn import Conv3d, Linear, MaxPool3d, Module, MSELoss
from torch.utils.data import DataLoader, Dataset

warnings.filterwarnings("ignore", category=UserWarning)


class CellDataset(Dataset):
    def __init__(self, n_images=13, size=32, n_classes=18):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n_images, 4, size, size, generator=g)  # red, green, blue, yellow
        self.labels = torch.randint(0, n_classes, (n_images,), generator=g)
        self.n_classes = n_classes

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        classes = [1 if i == self.labels[idx] else 0 for i in range(self.n_classes)]
        return torch.unsqueeze(self.images[idx], 1), torch.FloatTensor(classes)


class Net(Module):
    def __init__(self, batch_size):
        super().__init__()
        self.conv1 = Conv3d(in_channels=4, out_channels=6, kernel_size=(1, 5, 5), stride=1, padding=1)
        self.pool = MaxPool3d(2)
        self.conv2 = Conv3d(in_channels=6, out_channels=16, kernel_size=(1, 5, 5), stride=1, padding=1)
        self.fc1 = Linear(in_features=16 * 6 * 6, out_features=120)
        self.fc2 = Linear(in_features=120, out_features=84)
        self.fc3 = Linear(in_features=84, out_features=18)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x.float())))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 6 * 6)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.fc3(x), dim=1)


def train(args):
    training_loader = DataLoader(CellDataset(), batch_size=args.batch_size)
    model = Net(args.batch_size)
    criterion = MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.n + 1):
        running_loss = 0.0
        for i, (inputs, labels) in enumerate(training_loader):
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"{epoch}, {running_loss / len(training_loader):.5f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    parser = argparse.ArgumentParser("Train with HPA data")
    parser.add_argument("--batch_size", default=8, type=int)
    parser.add_argument("--lr", default=0.001, type=float)
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--n", default=1, type=int)
    train(parser.parse_args([]))
