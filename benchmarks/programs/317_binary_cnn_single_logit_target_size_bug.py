"""Bug: the binary image classifier ends in a Linear with one output, so it returns (N, 1) logits, while the dataset yields one 0/1 label per image (shape (N,)); BCEWithLogitsLoss requires the target to have the input's exact size.

family: shape
category: model-outputs
expected: ValueError
message: Target size (torch.Size([4])) must be the same as input size (torch.Size([4, 1]))
source: https://github.com/pytorch/pytorch/issues/25663
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, SubsetRandomSampler


class ChestXrayDataset(Dataset):
    def __init__(self, n=16, size=16):
        rng = np.random.default_rng(0)
        self.images = rng.random((n, 1, size, size), dtype=np.float32)
        self.labels = rng.integers(0, 2, size=n).astype(np.float32)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return torch.from_numpy(self.images[i]), torch.tensor(self.labels[i])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 1)
        self.dropout = nn.Dropout(0.25)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = self.dropout(x.view(-1, 16 * 4 * 4))
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)  # cause: (N, 1) logits


def main():
    torch.manual_seed(0)
    train_data = ChestXrayDataset()
    indices = list(range(len(train_data)))
    np.random.seed(0)
    np.random.shuffle(indices)
    split = 4
    train_loader = DataLoader(train_data, batch_size=4, sampler=SubsetRandomSampler(indices[split:]))
    valid_loader = DataLoader(train_data, batch_size=4, sampler=SubsetRandomSampler(indices[:split]))
    model = Net()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(1, 3):
        train_loss, valid_loss = 0.0, 0.0
        model.train()
        for data, target in train_loader:
            optimizer.zero_grad()
            output = model(data)
            loss = criterion(output, target)  # bug: (N,) target for (N, 1) logits
            loss.backward()
            optimizer.step()
            train_loss += loss.item() * data.size(0)
        model.eval()
        with torch.no_grad():
            for data, target in valid_loader:
                valid_loss += criterion(model(data), target).item() * data.size(0)
        print(f"Epoch {epoch} train {train_loss / 12:.4f} valid {valid_loss / 4:.4f}")


if __name__ == "__main__":
    main()
