"""Bug: the six-input model encodes each input stream with a shared encoder and merges the six encodings with torch.cat(...) on the default dim 0, stacking them along the batch; the classifier returns 60 rows of logits for a batch of 10 targets.

family: shape
category: model-shapes
expected: ValueError
message: Expected input batch_size (60) to match target batch_size (10)
source: https://github.com/pytorch/pytorch/issues/139031
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class StreamEncoder(nn.Module):
    def __init__(self, in_len=24, hidden=16):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(4))
        self.fc = nn.Linear(16 * 4, hidden)

    def forward(self, x):
        return torch.relu(self.fc(self.conv(x.unsqueeze(1)).flatten(1)))


class MultiInputModel(nn.Module):
    def __init__(self, n_inputs=6, hidden=16, num_classes=3):
        super().__init__()
        self.encoder = StreamEncoder(hidden=hidden)
        self.n_inputs = n_inputs
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(hidden, num_classes))

    def forward(self, X1, X2, X3, X4, X5, X6):
        feats = torch.cat([self.encoder(x) for x in (X1, X2, X3, X4, X5, X6)])  # cause: six (10, 16) encodings stacked into (60, 16)
        return self.classifier(feats)


def make_dataloader(n=20, length=24, batch_size=10):
    g = torch.Generator().manual_seed(0)
    inputs = [torch.randn(n, length, generator=g) for _ in range(6)]
    y = torch.randint(0, 3, (n,), generator=g)
    return DataLoader(TensorDataset(*inputs, y), batch_size=batch_size, shuffle=True, generator=g)


def train_step(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss, train_acc = 0.0, 0.0
    for batch in dataloader:
        X1, X2, X3, X4, X5, X6, y = batch
        y_pred = model(X1, X2, X3, X4, X5, X6)
        loss = loss_fn(y_pred, y)  # bug: 60 rows of logits for 10 targets
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_acc += (y_pred.argmax(dim=1) == y).float().mean().item()
    return train_loss / len(dataloader), train_acc / len(dataloader)


def main():
    torch.manual_seed(0)
    model = MultiInputModel()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    dataloader = make_dataloader()
    for epoch in range(2):
        train_loss, train_acc = train_step(model, dataloader, loss_fn, optimizer)
        print(f"Epoch: {epoch + 1} | train_loss: {train_loss:.4f} | train_acc: {train_acc:.4f}")


if __name__ == "__main__":
    main()
