"""Bug: the sentiment CNN squeezes its max-pooled (N, F, 1) filter maps with a bare .squeeze(); 41 validation reviews in batches of 8 leave a single review, squeeze drops its batch dimension too, and torch.cat(..., dim=1) gets 1-D tensors.

family: shape
category: data-paths
expected: IndexError
message: Dimension out of range
source: https://github.com/bentrevett/pytorch-sentiment-analysis/issues/17
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB, EMB, N_FILTERS, FILTER_SIZES, SEQ_LEN = 300, 32, 16, (2, 3, 4), 20


class CNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, n_filters, filter_sizes, output_dim, dropout=0.5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.convs = nn.ModuleList([nn.Conv1d(embedding_dim, n_filters, fs) for fs in filter_sizes])
        self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text):
        embedded = self.embedding(text).permute(0, 2, 1)
        conved = [F.relu(conv(embedded)) for conv in self.convs]
        pooled = [F.max_pool1d(conv, conv.shape[2]).squeeze() for conv in conved]  # cause: also drops a batch of one
        cat = self.dropout(torch.cat(pooled, dim=1))  # bug: the pooled maps are 1-D for the last review
        return self.fc(cat)


def binary_accuracy(preds, y):
    return (torch.round(torch.sigmoid(preds)) == y).float().mean()


def evaluate(model, iterator, criterion):
    model.eval()
    epoch_loss, epoch_acc = 0.0, 0.0
    with torch.no_grad():
        for text, label in iterator:
            predictions = model(text).squeeze(1)
            epoch_loss += criterion(predictions, label).item()
            epoch_acc += binary_accuracy(predictions, label).item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def build_iterator(n, batch_size, shuffle):
    text = torch.randint(0, VOCAB, (n, SEQ_LEN))
    label = torch.randint(0, 2, (n,)).float()
    return DataLoader(TensorDataset(text, label), batch_size=batch_size, shuffle=shuffle)


torch.manual_seed(0)
train_iterator = build_iterator(64, 8, True)
valid_iterator = build_iterator(41, 8, False)
model = CNN(VOCAB, EMB, N_FILTERS, FILTER_SIZES, 1)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.BCEWithLogitsLoss()
for epoch in range(2):
    model.train()
    for text, label in train_iterator:
        optimizer.zero_grad()
        loss = criterion(model(text).squeeze(1), label)
        loss.backward()
        optimizer.step()
    valid_loss, valid_acc = evaluate(model, valid_iterator, criterion)
    print(f"epoch {epoch}: val loss {valid_loss:.3f} | val acc {valid_acc * 100:.1f}%")
